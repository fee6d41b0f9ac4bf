package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClosed: the pages real boards show while their admin has closed them
// (saved from phpBB 3.3.10 "Disable board" to the logged-in bot, MyBB
// 1.8.37 "Board closed" with its default reason, SMF 2.1.4 maintenance
// mode, HTTP 503) are recognised as closed with the board's words; the
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
			page, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Doc(page)
			if err != nil {
				t.Fatal(err)
			}
			closed, says := MustNew(mustProfile(t, c.engine)).Closed(doc)
			if closed != c.closed || !strings.Contains(says, c.says) {
				t.Errorf("Closed = %v, %q; want %v, with %q", closed, says, c.closed, c.says)
			}
		})
	}
}
