package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// TestComplete: a thread page counts as whole only with its footer and
// its closing </html>; a page cut before its last post counts as
// incomplete whether or not the cut was closed again.
func TestComplete(t *testing.T) {
	// The MyBB fixture is cut down, but keeps the default theme's footer
	// (div#footer after the posts).
	mybb, err := os.ReadFile(filepath.Join("testdata", "mybb_thread.html"))
	if err != nil {
		t.Fatal(err)
	}
	pages := []struct {
		engine string
		raw    []byte
		last   string // where a post starts (a regexp)
	}{
		{"phpbb", readFixture(t, "real", "phpbb3310_thread_p1.html"), `<div id="p\d+"`},
		{"smf", readFixture(t, "real", "smf214_thread_p2.html"), `<div class="windowbg`},
		{"mybb", mybb, `<div class="post `},
	}
	for _, pg := range pages {
		x, err := New(mustProfile(t, pg.engine))
		if err != nil {
			t.Fatal(err)
		}
		all := regexp.MustCompile(pg.last).FindAllIndex(pg.raw, -1)
		if len(all) == 0 {
			t.Fatalf("%s: no %q", pg.engine, pg.last)
		}
		last := all[len(all)-1][0]
		closed := append(append([]byte(nil), pg.raw[:last]...), "</div></div></body></html>\n"...)
		tests := []struct {
			name string
			raw  []byte
			want bool
		}{
			{"whole", pg.raw, true},
			{"whole, trailing space", append(append([]byte(nil), pg.raw...), "\n\n"...), true},
			{"cut before the last post, closed", closed, false},
			{"cut before the last post", pg.raw[:last], false},
			{"cut after the footer", pg.raw[:len(pg.raw)-len("</html>\n")-2], false},
			{"empty", nil, false},
		}
		for _, tc := range tests {
			doc, err := goquery.NewDocumentFromReader(bytes.NewReader(tc.raw))
			if err != nil {
				t.Fatal(err)
			}
			if got := x.Complete(tc.raw, doc); got != tc.want {
				t.Errorf("%s %s: Complete = %v, want %v", pg.engine, tc.name, got, tc.want)
			}
		}
		// The closed cut parses without a fault and shows one post fewer:
		// nothing but the footer tells it apart.
		whole, _ := goquery.NewDocumentFromReader(bytes.NewReader(pg.raw))
		cut, _ := goquery.NewDocumentFromReader(bytes.NewReader(closed))
		if n, m := len(x.Thread(whole).Posts), len(x.Thread(cut).Posts); m != n-1 {
			t.Errorf("%s: %d posts whole, %d cut", pg.engine, n, m)
		}
	}
	// A profile without page_end checks the closing tag only.
	p := mustProfile(t, "phpbb")
	p.Selectors.PageEnd = ""
	x, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte("<html><body><div class=\"post\"></div></body></html>")
	doc, _ := goquery.NewDocumentFromReader(bytes.NewReader(raw))
	if !x.Complete(raw, doc) || x.Complete(raw[:len(raw)-7], doc) {
		t.Error("without page_end: want complete exactly when </html> is there")
	}
}

func readFixture(t *testing.T, parts ...string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, parts...)...))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
