package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestClosed: the pages real boards show while their admin has closed them
// (saved from phpBB 3.3.10 "Disable board" to the logged-in bot, MyBB
// 1.8.37 "Board closed" with its default reason, SMF 2.1.4 maintenance
// mode, HTTP 503), and the thread as a staff account sees it then, under the
// staff's notice, are recognised as closed with the board's words; the
// boards' ordinary pages are not.
func TestClosed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		file, engine string
		closed       bool
		says         string
	}{
		{"real/phpbb3310_closed.html", "phpbb", true, "Sorry but this board is currently unavailable"},
		{"real/mybb1837_closed.html", "mybb", true, "This bulletin board is currently closed"},
		{"real/smf214_closed.html", "smf", true, "Maintenance Mode"},
		// A bot the board counts as staff still sees the thread, under
		// the notice staff get: the players cannot, so it is closed too.
		{"real/phpbb3310_closed_staff.html", "phpbb", true, "This board is currently disabled"},
		{"real/mybb1837_closed_staff.html", "mybb", true, "Your board status is currently set to closed"},
		{"real/phpbb3310_thread_p1.html", "phpbb", false, ""},
		{"real/phpbb3310_pm_inbox.html", "phpbb", false, ""},
		{"mybb_thread.html", "mybb", false, ""},
		{"mybb_inbox.html", "mybb", false, ""},
		{"real/smf214_thread_p1.html", "smf", false, ""},
		{"real/smf214_pm_inbox.html", "smf", false, ""},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			doc := pageDoc(t, c.file)
			closed, says := MustNew(mustProfile(t, c.engine)).Closed(doc)
			if closed != c.closed || !strings.Contains(says, c.says) {
				t.Errorf("Closed = %v, %q; want %v, with %q", closed, says, c.closed, c.says)
			}
		})
	}
}

// TestClosedNotFooledByPlayers: a player who quotes a board's closed
// wording in a post or a PM subject does not close the board for the bot.
func TestClosedNotFooledByPlayers(t *testing.T) {
	t.Parallel()
	cases := []struct{ file, engine, where string }{
		{"real/phpbb3310_thread_p1.html", "phpbb", "body"},
		{"real/phpbb3310_pm_inbox.html", "phpbb", "inbox_row"},
		{"mybb_thread.html", "mybb", "body"},
		{"mybb_inbox.html", "mybb", "inbox_row"},
		{"real/smf214_thread_p1.html", "smf", "body"},
		{"real/smf214_pm_inbox.html", "smf", "inbox_row"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			t.Parallel()
			doc := pageDoc(t, c.file)
			prof := mustProfile(t, c.engine)
			sel := map[string]string{"body": prof.Selectors.Body, "inbox_row": prof.Selectors.InboxRow}[c.where]
			target := doc.Find(sel).First()
			if target.Length() == 0 {
				t.Fatalf("no %s (%q) on the page", c.where, sel)
			}
			all := strings.Join(prof.ClosedText, ". ")
			target.AppendHtml(`<b>` + all + `</b> <img alt="` + all + `">`)
			if closed, says := MustNew(prof).Closed(doc); closed {
				t.Errorf("a %s quoting %q closed the board: %q", c.where, all, says)
			}
		})
	}
}

// pageDoc is a saved page of testdata, parsed.
func pageDoc(t *testing.T, file string) *goquery.Document {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := Doc(page)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
