package poster

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/scraper"
)

// The refusal pages real MyBB 1.8 and SMF 2.1 boards showed a bot
// (captured by realgames TestMyBBRefusals and smftest TestSMFRefusals with
// FORUMGM_CAPTURE_REFUSALS=poster/testdata/refusals), each read as the
// kind phpBB's pages are. A page a form's GET answered with (no form on
// it) is a refusal for good, in the board's words; a submission's answer
// is judged as the poster judges it, with a marker check that finds
// nothing.
func TestRefusalPages(t *testing.T) {
	tests := []struct {
		page string
		get  bool   // the answer to the form's GET, not to a submission
		want string // rejected, flood, stale (a fresh form at once), said sent
		pm   bool
		// words: the board's, in what the poster reports.
		words string
	}{
		{page: "mybb-thread-closed", get: true, words: "closed by a moderator"},
		{page: "mybb-no-permission", get: true, words: "You do not have permission to access this page"},
		{page: "mybb-pm-no-permission", get: true, pm: true, words: "You do not have permission to access this page"},
		{page: "mybb-banned", get: true, words: "banned from accessing this resource"},
		{page: "mybb-pm-unknown-recipient", want: "rejected", pm: true, words: "not registered usernames"},
		{page: "mybb-pm-recipient-pms-off", want: "rejected", pm: true, words: "has private messaging disabled"},
		{page: "mybb-stale-post-key", want: "stale", words: "Authorization code mismatch"},
		{page: "mybb-pm-duplicate", want: "said sent", pm: true, words: "already submitted the same private message"},
		{page: "mybb-reply-duplicate", want: "said sent", words: "already posted this reply"},
		{page: "mybb-flood-post", want: "flood"},
		{page: "mybb-flood-pm", want: "flood", pm: true},
		{page: "smf-pm-unknown-recipient", want: "rejected", pm: true, words: "Unable to find member"},
		{page: "smf-stale-session", want: "stale", words: "Your session timed out"},
		{page: "smf-topic-locked", get: true, words: "This topic is locked"},
		{page: "smf-no-permission", get: true, words: "not permitted to post replies"},
		{page: "smf-banned", get: true, words: "not permitted to post replies"},
		{page: "smf-pm-no-permission", get: true, pm: true, words: "not allowed to send personal messages"},
		{page: "smf-flood-post", want: "flood"},
	}
	for _, tc := range tests {
		t.Run(tc.page, func(t *testing.T) {
			engine := strings.SplitN(tc.page, "-", 2)[0]
			prof, _ := forum.Builtin(engine)
			s, err := scraper.NewSession("http://127.0.0.1:8080/", prof, forum.Credentials{Username: "GMBot", Password: "x"}, scraper.Options{})
			if err != nil {
				t.Fatal(err)
			}
			p := New(s)
			raw, err := os.ReadFile(filepath.Join("testdata", "refusals", tc.page+".html"))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatal(err)
			}
			f := prof.Forms.Reply
			if tc.pm {
				f = prof.Forms.PM
			}
			pg := &scraper.Page{URL: "http://127.0.0.1:8080/" + f.Page, Status: http.StatusOK, Header: http.Header{}, Body: raw, Doc: doc}
			if closed, _ := s.Parser.Closed(doc); closed {
				t.Fatal("read as the board closed")
			}
			if tc.get {
				if _, err := parser.FindForm(doc, pg.URL, f.Selector); err == nil {
					t.Fatal("the refusal page has the form")
				}
				if flood, _ := s.Parser.FloodWait(doc); flood {
					t.Fatal("read as flood control")
				}
				if said := boardSays(s, pg); !strings.Contains(said, tc.words) {
					t.Errorf("the poster reports %q, not the board's words %q", said, tc.words)
				}
				return
			}
			checks := 0
			check := func() (string, bool, error) { checks++; return "", false, nil }
			a := p.judge(pg, f, check, !tc.pm, false)
			got := ""
			switch {
			case a.flood:
				got = "flood"
			case a.rejected != "":
				got = "rejected"
			case a.sent:
				got = "said sent"
			case a.formAgain && !a.unclear:
				got = "stale"
			}
			if got != tc.want {
				t.Fatalf("read as %q (%+v), want %q", got, a, tc.want)
			}
			said := a.rejected
			if a.why != nil {
				said += a.why.Error()
			}
			if !strings.Contains(said, tc.words) {
				t.Errorf("the poster reports %q, not the board's words %q", said, tc.words)
			}
			// A refusal the board gave is not looked for (it did not take
			// it); a page saying it has the message is checked first.
			if wantChecks := map[bool]int{true: 1, false: 0}[tc.want == "said sent"]; checks != wantChecks {
				t.Errorf("%d marker checks, want %d", checks, wantChecks)
			}
		})
	}
}
