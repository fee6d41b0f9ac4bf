package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
)

// nestedBold is n nested [b] as phpBB renders them.
func nestedBold(n int) string {
	return strings.Repeat(`<strong class="text-strong">`, n) + "VOTE: Bob" + strings.Repeat(`</strong>`, n)
}

// nestedQuotes is n nested quotes as phpBB renders them.
func nestedQuotes(n int) string {
	return strings.Repeat(`<blockquote><div><cite>Ann wrote:</cite>`, n) + `<strong class="text-strong">VOTE: Bob</strong>` +
		strings.Repeat(`</div></blockquote>`, n)
}

// hostile are the bodies that made x/net/html refuse a whole page.
var hostile = map[string]string{
	"5000 nested [b]":      nestedBold(5000),
	"3900 nested quotes":   nestedQuotes(3900),
	"600 nested divs":      strings.Repeat("<div>", 600) + "<b>VOTE: Bob</b>" + strings.Repeat("</div>", 600),
	"deep table cells":     strings.Repeat("<table><tr><td>", 300) + "x",
	"deep cut <textarea>":  strings.Repeat("<i>", 600) + "<textarea><b>VOTE: Bob</b>" + strings.Repeat("<i>", 600) + "</textarea>",
	"formatting reopened":  strings.Repeat(`<b class="a">`, 300) + strings.Repeat("<p>x", 300),
	"600 nested [b], then": nestedBold(600) + "<strong>VOTE: Cat</strong>",
}

// injectBody replaces the inner HTML of the nth body (0-based) opened by
// open and closed by close in page.
func injectBody(t testing.TB, page, open, close string, nth int, body string) []byte {
	t.Helper()
	at := -1
	for i := 0; i <= nth; i++ {
		j := strings.Index(page[at+1:], open)
		if j < 0 {
			t.Fatalf("no body %d", nth)
		}
		at += 1 + j
	}
	start := at + len(open)
	end := strings.Index(page[start:], close)
	if end < 0 {
		t.Fatal("body not closed")
	}
	return []byte(page[:start] + body + page[start+end:])
}

// TestDeepPostIsUnreadableNotThePage: one post nested too deep for the HTML
// parser is recorded as unreadable (no commands read from it) and every
// other post of the page reads exactly as without it.
func TestDeepPostIsUnreadableNotThePage(t *testing.T) {
	cases := []struct {
		engine, file, open, close string
		inject, post              int // which match of open; which post that is
	}{
		{"phpbb", "phpbb33_thread.html", `<div class="content">`, "</div>\n", 1, 1},
		{"mybb", "mybb_thread.html", `<div class="post_body scaleimages" id="pid_202">`, "</div>\n", 0, 1},
	}
	for _, c := range cases {
		x := MustNew(mustProfile(t, c.engine))
		b, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		page := string(b)
		nth := c.post
		want, err := x.ParseThread(injectBody(t, page, c.open, c.close, c.inject, "plain"))
		if err != nil {
			t.Fatal(err)
		}
		for name, body := range hostile {
			t.Run(c.engine+"/"+name, func(t *testing.T) {
				bad := injectBody(t, page, c.open, c.close, c.inject, body)
				got, err := x.ParseThread(bad)
				if err != nil {
					t.Fatalf("the page is refused: %v", err)
				}
				if len(got.Posts) != len(want.Posts) {
					t.Fatalf("%d posts, want %d", len(got.Posts), len(want.Posts))
				}
				for i, p := range got.Posts {
					w := want.Posts[i]
					if p.ID != w.ID || p.Author != w.Author || !p.Time.Equal(w.Time) {
						t.Errorf("post %d: %+v, want %+v", i, p, w)
					}
					if p.ID == want.Posts[nth].ID {
						continue
					}
					if p.BodyHTML != w.BodyHTML {
						t.Errorf("post %s changed:\n%s\nwant\n%s", p.ID, p.BodyHTML, w.BodyHTML)
					}
				}
				deep := got.Posts[nth]
				if deepOK := !forum.IsUnreadable(deep.BodyHTML); deepOK {
					// Only a page the parser took as it was may keep the post.
					if _, err := goquery.NewDocumentFromReader(bytes.NewReader(bad)); err != nil {
						t.Fatalf("a post cut to be read is not marked unreadable: %.200s", deep.BodyHTML)
					}
					return
				}
				if segs := x.Segments(deep.BodyHTML); len(segs) != 0 {
					t.Errorf("commands read from an unreadable post: %q", segs)
				}
				if segs := x.Lines(deep.BodyHTML); len(segs) != 0 {
					t.Errorf("lines read from an unreadable post: %q", segs)
				}
				if !strings.Contains(deep.BodyHTML, "512") {
					t.Errorf("the body does not tell the GM why: %s", deep.BodyHTML)
				}
			})
		}
	}
}

// TestExactHostileInputsRefusedAsIs pins what the fix is for: x/net/html
// itself refuses these pages (if it ever stops, the cut is merely unused).
func TestExactHostileInputsRefusedAsIs(t *testing.T) {
	for _, name := range []string{"5000 nested [b]", "3900 nested quotes"} {
		page := "<html><body><div class=\"content\">" + hostile[name] + "</div></body></html>"
		_, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err == nil || !strings.Contains(err.Error(), "512") {
			t.Errorf("%s: x/net/html gave %v", name, err)
		}
		if _, err := Doc([]byte(page)); err != nil {
			t.Errorf("%s: Doc: %v", name, err)
		}
	}
	if n := len(nestedBold(5000)); n < 35000 {
		t.Errorf("5000 nested [b] is %d bytes of HTML", n)
	}
}

// TestDeepPM: a PM nested too deep reads as unreadable, with no lines.
func TestDeepPM(t *testing.T) {
	for _, c := range []struct{ engine, file, open, close string }{
		{"phpbb", "phpbb_pm.html", `<div class="content">`, "</div>"},
		{"mybb", "mybb_pm.html", `<div class="post_body scaleimages" id="pid_">`, "</div>"},
	} {
		x := MustNew(mustProfile(t, c.engine))
		b, _ := os.ReadFile(filepath.Join("testdata", c.file))
		bad := injectBody(t, string(b), c.open, c.close, 0, nestedQuotes(3900))
		doc, err := Doc(bad)
		if err != nil {
			t.Fatal(err)
		}
		pm, ok := x.PM(doc)
		if !ok || !forum.IsUnreadable(pm.BodyHTML) || len(x.Lines(pm.BodyHTML)) != 0 {
			t.Errorf("%s: ok %v body %.100s", c.engine, ok, pm.BodyHTML)
		}
		if pm.From.Name == "" || pm.Subject == "" {
			t.Errorf("%s: the rest of the PM is lost: %+v", c.engine, pm)
		}
	}
}

// TestCutMarkCannotBeForged: a body holding the attribute with a guessed
// value is an ordinary body.
func TestCutMarkCannotBeForged(t *testing.T) {
	if wasCut(`<span data-forumgm-cut="0000000000000000"></span>`) {
		t.Error("a forged mark counts")
	}
	if !wasCut(cutMark) {
		t.Error("the real mark does not count")
	}
}

// FuzzParseThreadPageDeep: a thread page with one post of any markup
// repeated to any depth never fails as a whole; the other posts read as
// they do beside a plain post, and a post that had to be cut reads no
// commands.
func FuzzParseThreadPageDeep(f *testing.F) {
	f.Add(`<strong class="text-strong">`, `</strong>`, uint16(5000), "VOTE: Bob")
	f.Add(`<blockquote><div><cite>Ann wrote:</cite>`, `</div></blockquote>`, uint16(3900), "<b>VOTE: Bob</b>")
	f.Add(`<span style="font-weight: bold;" class="mycode_b">`, `</span>`, uint16(2000), "x")
	f.Add(`<ul><li>`, `</li></ul>`, uint16(700), "x")
	f.Add(`<table><tr><td>`, ``, uint16(400), "x")
	f.Add(`<b class="a"><p>`, ``, uint16(600), "VOTE: Bob")
	f.Add(`<i>`, ``, uint16(1000), "<textarea><b>VOTE</b></textarea>")
	f.Add(`<div>`, `</div>`, uint16(10), "plain")
	b, err := os.ReadFile(filepath.Join("testdata", "phpbb33_thread.html"))
	if err != nil {
		f.Fatal(err)
	}
	page := string(b)
	x := MustNew(mustProfile(f, "phpbb"))
	const open, close = `<div class="content">`, "</div>\n"
	want, err := x.ParseThread(injectBody(f, page, open, close, 1, "plain"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, opening, closing string, n uint16, inner string) {
		if n > 8000 || len(opening)+len(closing) > 200 || len(inner) > 500 {
			return
		}
		// Only balanced markup: a post body on a real board closes what it
		// opens (unbalanced, it would swallow the posts after it anyway).
		body := strings.Repeat(opening, int(n)) + inner + strings.Repeat(closing, int(n))
		// Balance is judged on a shallow copy the HTML parser can take.
		k := min(int(n), 40)
		shallow := strings.Repeat(opening, k) + inner + strings.Repeat(closing, k)
		probe, err := goquery.NewDocumentFromReader(strings.NewReader("<div id=probe>" + shallow + "</div><p id=after></p>"))
		if err != nil || !probe.Find("#after").Parent().Is("body") || probe.Find("#probe").Length() != 1 {
			return
		}
		bad := injectBody(t, page, open, close, 1, body)
		got, err := x.ParseThread(bad)
		if err != nil {
			t.Fatalf("the page is refused: %v", err)
		}
		if len(got.Posts) != len(want.Posts) {
			t.Fatalf("%d posts, want %d", len(got.Posts), len(want.Posts))
		}
		for i, p := range got.Posts {
			if i != 1 && p.BodyHTML != want.Posts[i].BodyHTML {
				t.Fatalf("post %s changed:\n%.300s", p.ID, p.BodyHTML)
			}
			checkSegments(t, x.Segments(p.BodyHTML))
		}
		if d := got.Posts[1]; forum.IsUnreadable(d.BodyHTML) && (len(x.Segments(d.BodyHTML)) != 0 || len(x.Lines(d.BodyHTML)) != 0) {
			t.Fatal("commands read from an unreadable post")
		}
	})
}
