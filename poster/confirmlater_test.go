package poster

import (
	"net/http"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
)

// TestJudgeConfirmLater: under forum.ConfirmLater the board's success
// without an id (SMF's redirects, MyBB's PM-sent page) ends the send with
// no marker check; every other answer is judged as before, and without
// ConfirmLater the success is checked at once.
func TestJudgeConfirmLater(t *testing.T) {
	for _, tc := range []struct {
		name, engine string
		pm           bool
		status       int
		location     string
		body         string
		later        bool // read as confirmed later
	}{
		{name: "SMF reply, to the topic's new posts", engine: "smf", status: http.StatusFound, location: "http://127.0.0.1:8080/index.php?topic=2.new#new", later: true},
		{name: "SMF reply, to the board", engine: "smf", status: http.StatusFound, location: "http://127.0.0.1:8080/index.php?board=1.0", later: true},
		{name: "SMF PM, to the folder", engine: "smf", pm: true, status: http.StatusFound, location: "http://127.0.0.1:8080/index.php?action=pm;f=inbox;start=0;done=sent", later: true},
		{name: "SMF, back to the form", engine: "smf", status: http.StatusFound, location: "http://127.0.0.1:8080/index.php?action=post;topic=2.0"},
		{name: "SMF, a topic of 10 pages", engine: "smf", status: http.StatusFound, location: "http://127.0.0.1:8080/index.php?topic=2.newer"},
		{name: "MyBB PM sent", engine: "mybb", pm: true, status: http.StatusOK, body: `<div class="trow1">Thank you, your private message has successfully been sent.<br />You will now be returned to your private messaging inbox.</div>`, later: true},
		{name: "MyBB, an error page", engine: "mybb", pm: true, status: http.StatusOK, body: `<div class="error"><ul><li>The username you entered is not registered</li></ul></div>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prof, _ := forum.Builtin(tc.engine)
			s, err := scraper.NewSession("http://127.0.0.1:8080/", prof, forum.Credentials{Username: "GMBot", Password: "x"}, scraper.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := New(s)
			f := prof.Forms.Reply
			if tc.pm {
				f = prof.Forms.PM
			}
			doc, err := goquery.NewDocumentFromReader(strings.NewReader("<html><body>" + tc.body + "</body></html>"))
			if err != nil {
				t.Fatal(err)
			}
			hdr := http.Header{}
			if tc.location != "" {
				hdr.Set("Location", tc.location)
			}
			pg := &scraper.Page{URL: "http://127.0.0.1:8080/" + f.Page, Status: tc.status, Header: hdr, Body: []byte(tc.body), Doc: doc}
			for _, later := range []bool{true, false} {
				checks := 0
				check := func() (string, bool, error) { checks++; return "m1", true, nil }
				a := p.judge(pg, f, check, !tc.pm, later)
				switch {
				case later && tc.later:
					if !a.later || checks != 0 {
						t.Errorf("under ConfirmLater: %+v after %d checks; want confirmed later, no check", a, checks)
					}
				case a.later:
					t.Errorf("later %v: read as confirmed later (%+v)", later, a)
				case tc.later && (a.id != "m1" || checks != 1):
					t.Errorf("without ConfirmLater: %+v after %d checks; want the check's id at once", a, checks)
				}
			}
		})
	}
}
