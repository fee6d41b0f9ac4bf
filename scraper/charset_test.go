package scraper

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// TestFormsGoOutInTheirPagesCharset (issue 44): a page is read in the
// charset it declares, wherever it declares it, and a form on it is
// submitted as a browser submits it: in its accept-charset, else its
// page's charset, each character that charset lacks as a numeric
// reference. The profile's charset overrides what pages say.
func TestFormsGoOutInTheirPagesCharset(t *testing.T) {
	t.Parallel()
	const msg = "Zoë — Łukasz… forumgm·g.k/p/1 🎲"
	cases := []struct {
		name        string
		header      string // Content-Type
		head        string // in <head>
		form        string // attributes of the form
		profile     string // the profile's charset
		wantCharset parser.Charset
		wantBody    string // the message field as sent
	}{
		{name: "HTTP header ISO-8859-1", header: "text/html; charset=ISO-8859-1",
			wantCharset: parser.Charset{Name: "windows-1252", Label: "ISO-8859-1", Source: parser.FromHeader},
			wantBody:    "Zo%EB+%97+%26%23321%3Bukasz%85+forumgm%B7g.k%2Fp%2F1+%26%23127922%3B"},
		{name: "meta charset windows-1252", header: "text/html", head: `<meta charset="windows-1252">`,
			wantCharset: parser.Charset{Name: "windows-1252", Label: "windows-1252", Source: parser.FromMeta},
			wantBody:    "Zo%EB+%97+%26%23321%3Bukasz%85+forumgm%B7g.k%2Fp%2F1+%26%23127922%3B"},
		{name: "meta http-equiv latin2", header: "text/html", head: `<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-2" />`,
			wantCharset: parser.Charset{Name: "iso-8859-2", Label: "iso-8859-2", Source: parser.FromHTTPEquiv},
			wantBody:    "Zo%EB+%26%238212%3B+%A3ukasz%26%238230%3B+forumgm%26%23183%3Bg.k%2Fp%2F1+%26%23127922%3B"},
		{name: "accept-charset over the page's", header: "text/html; charset=ISO-8859-1", form: `accept-charset="UTF-8"`,
			wantCharset: parser.Charset{Name: "windows-1252", Label: "ISO-8859-1", Source: parser.FromHeader},
			wantBody:    "Zo%C3%AB+%E2%80%94+%C5%81ukasz%E2%80%A6+forumgm%C2%B7g.k%2Fp%2F1+%F0%9F%8E%B2"},
		{name: "UTF-8", header: "text/html; charset=UTF-8",
			wantCharset: parser.Charset{Name: "utf-8", Label: "UTF-8", Source: parser.FromHeader},
			wantBody:    "Zo%C3%AB+%E2%80%94+%C5%81ukasz%E2%80%A6+forumgm%C2%B7g.k%2Fp%2F1+%F0%9F%8E%B2"},
		{name: "the profile overrides a wrong declaration", header: "text/html; charset=UTF-8", profile: "ISO-8859-1",
			wantCharset: parser.Charset{Name: "windows-1252", Label: "ISO-8859-1", Source: parser.FromProfile},
			wantBody:    "Zo%EB+%97+%26%23321%3Bukasz%85+forumgm%B7g.k%2Fp%2F1+%26%23127922%3B"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := make(chan string, 1)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					b, _ := io.ReadAll(r.Body)
					got <- string(b)
					return
				}
				if tc.header != "" {
					w.Header().Set("Content-Type", tc.header)
				}
				// The page's own text in its charset: "Zoë · —" in
				// windows-1252 bytes, or in latin2 where it says so.
				text := "Zo\xeb \xb7 \x97"
				if tc.wantCharset.Name == "iso-8859-2" {
					text = "\xa3ukasz"
				} else if tc.wantCharset.Name == "utf-8" && tc.profile == "" {
					text = "Zoë · —"
				}
				io.WriteString(w, "<!DOCTYPE html><html><head>"+tc.head+"<title>t</title></head><body><p id=t>"+text+
					`</p><form id=f action="post.php" method="post" `+tc.form+`><textarea name=message></textarea></form></body></html>`)
			}))
			defer srv.Close()
			prof, _ := forum.Builtin("phpbb")
			prof.Charset = tc.profile
			s, err := NewSession(srv.URL+"/", prof, forum.Credentials{}, Options{MinInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			pg, err := s.Get(context.Background(), "form.php")
			if err != nil {
				t.Fatal(err)
			}
			if pg.Charset != tc.wantCharset {
				t.Errorf("page charset %#v, want %#v", pg.Charset, tc.wantCharset)
			}
			want := map[string]string{"windows-1252": "Zoë · —", "iso-8859-2": "Łukasz", "utf-8": "Zoë · —"}[tc.wantCharset.Name]
			if txt := pg.Doc.Find("#t").Text(); txt != want {
				t.Errorf("page text %q, want %q", txt, want)
			}
			if ct := pg.Header.Get("Content-Type"); ct != tc.header {
				t.Errorf("Content-Type %q, want the board's %q", ct, tc.header)
			}
			form, err := parser.FindForm(pg.Doc, pg.URL, "form#f")
			if err != nil {
				t.Fatal(err)
			}
			form.Values.Set("message", msg)
			if _, err := s.PostForm(context.Background(), form.Action, form.Values, pg.URL); err != nil {
				t.Fatal(err)
			}
			vals, err := url.ParseQuery(<-got)
			if err != nil {
				t.Fatal(err)
			}
			if m := url.QueryEscape(vals.Get("message")); m != tc.wantBody {
				t.Errorf("message sent as\n %s\nwant\n %s", m, tc.wantBody)
			}
		})
	}
}

// TestProfileCharsetUnknown: a profile naming a charset no browser knows is
// refused when the session is made, naming the key.
func TestProfileCharsetUnknown(t *testing.T) {
	t.Parallel()
	prof, _ := forum.Builtin("phpbb")
	prof.Charset = "latin-99"
	if _, err := NewSession("http://127.0.0.1:1/", prof, forum.Credentials{}, Options{}); err == nil || !strings.Contains(err.Error(), "charset") {
		t.Errorf("NewSession with charset latin-99: %v", err)
	}
}

// TestFormCharsetsRemembered: a form page read long before its submission
// (a session shared by many games reads many pages meanwhile) still goes
// out in its page's charset; a page never read goes by the last page's;
// before any page, UTF-8.
func TestFormCharsetsRemembered(t *testing.T) {
	t.Parallel()
	var f formCharsets
	if got := f.submit("http://b/posting.php", "http://b/posting.php"); got != parser.UTF8 {
		t.Errorf("before any page: %s", got)
	}
	page := func(u, cs, body string) *Page {
		doc, err := parser.Doc([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		return &Page{URL: u, Body: []byte(body), Doc: doc, Charset: parser.Charset{Name: cs}}
	}
	f.note(page("http://b/posting.php", "windows-1252", `<form action="post.php?x=1" Accept-Charset="iso-8859-2"></form><form action="other.php"></form>`))
	for i := range 3 * maxFormPages {
		f.note(page(fmt.Sprintf("http://b/viewtopic.php?p=%d", i), "windows-1252", "<p>"))
		if i == maxFormPages/2 {
			if got := f.submit("http://b/posting.php", "http://b/post.php?x=1"); got != "iso-8859-2" {
				t.Errorf("the form's accept-charset: %s", got)
			}
		}
	}
	for _, tc := range []struct{ page, action, want string }{
		{"http://b/posting.php", "http://b/other.php", "windows-1252"}, // forgotten: the last page's
		{"http://b/never.php", "http://b/x.php", "windows-1252"},
		{"http://b/viewtopic.php?p=1", "http://b/x.php", "windows-1252"},
	} {
		if got := f.submit(tc.page, tc.action); got != tc.want {
			t.Errorf("submit(%s, %s) = %s, want %s", tc.page, tc.action, got, tc.want)
		}
	}
	f.note(page("http://b/utf.php", "utf-8", "<p>"))
	if got := f.submit("http://b/utf.php", "http://b/x.php"); got != parser.UTF8 {
		t.Errorf("a UTF-8 page's form: %s", got)
	}
}
