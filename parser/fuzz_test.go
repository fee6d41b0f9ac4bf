package parser

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
)

// checkSegments: segments are non-empty, trimmed and collapsed.
func checkSegments(t *testing.T, segs []string) {
	t.Helper()
	for _, s := range segs {
		if s == "" || s != collapse(s) {
			t.Fatalf("segment %q is not collapsed", s)
		}
	}
}

func FuzzParseThreadPage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	php := MustNew(mustProfile(f, "phpbb"))
	my := MustNew(mustProfile(f, "mybb"))
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, x := range []*Parser{php, my} {
			th, err := x.ParseThread(page)
			if err != nil {
				return
			}
			if th.Page < 1 || th.Pages < th.Page {
				t.Fatalf("page %d of %d", th.Page, th.Pages)
			}
			for _, p := range th.Posts {
				if p.ID == "" {
					t.Fatal("post without id")
				}
				checkSegments(t, x.Segments(p.BodyHTML))
				checkSegments(t, x.Lines(p.BodyHTML))
			}
			_, _ = x.MakeReport(page)
		}
	})
}

// FuzzSegments: whatever surrounds it, text that the HTML parser puts
// inside a quote (and nowhere else) never reaches a segment or a PM line.
func FuzzSegments(f *testing.F) {
	f.Add("", "VOTE: Bob", "")
	f.Add("<strong>VOTE: A</strong>", "x", "<b>VOTE: B</b>")
	f.Add("<strong>", "VOTE", "</strong>")
	f.Add("<b><blockquote><div>", "y", "</div></blockquote></b>")
	f.Add("<span style=\"font-weight: bold\">", "</blockquote>", "<br>")
	f.Add("<div class=\"spoiler\">", "z", "</div><s><b>x</b></s>")
	f.Add("<b>", "a", "</b><blockquote class=\"uncited\"><b>q</b></blockquote><b>k</b>")
	php := MustNew(mustProfile(f, "phpbb"))
	my := MustNew(mustProfile(f, "mybb"))
	const sentinel = "QZXSENTINEL"
	f.Fuzz(func(t *testing.T, prefix, quoted, suffix string) {
		if strings.Contains(prefix+quoted+suffix, sentinel) {
			return
		}
		for _, c := range []struct {
			x    *Parser
			open string
		}{
			{php, `<blockquote><div><cite>A wrote:</cite><strong class="text-strong">`},
			{my, `<blockquote class="mycode_quote"><cite>A Wrote:</cite><span style="font-weight: bold;" class="mycode_b">`},
		} {
			body := prefix + c.open + sentinel + " " + html.EscapeString(quoted) + "</strong></span></blockquote>" + suffix
			doc, err := Doc([]byte(body))
			if err != nil {
				return
			}
			inQuote := strings.Contains(doc.Find(forum.QuoteSelector).Text(), sentinel)
			doc.Find(forum.QuoteSelector).Remove()
			outside := strings.Contains(doc.Text(), sentinel)
			segs := c.x.Segments(body)
			lines := c.x.Lines(body)
			checkSegments(t, segs)
			checkSegments(t, lines)
			if !inQuote || outside {
				continue // the surrounding markup swallowed or moved the quote
			}
			for _, s := range append(segs, lines...) {
				if strings.Contains(s, sentinel) {
					t.Fatalf("quoted text leaked: %q from %q", s, body)
				}
			}
		}
	})
}
