package forumsim

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLegacyCharsetBoard (issue 44): a board in ISO-8859-1 or windows-1252
// declares it, reads a form's bytes in it keeping numeric references as
// typed, sends its pages in it (references kept, characters it lacks as
// references), and shows a form submitted in UTF-8 as such a board does:
// mangled.
func TestLegacyCharsetBoard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		charset, body  string
		stored, shown  string
		page, pageWant string
	}{
		{CharsetLatin1, "message=Zo%EB+%97+%26%23321%3Bukasz+%B7",
			"Zoë \u0097 &#321;ukasz ·", "Zoë — Łukasz ·",
			"<p>Zoë — &amp;#321;ukasz ·</p>", "<p>Zo\xeb &#8212; &#321;ukasz \xb7</p>"},
		{CharsetCP1252, "message=Zo%EB+%97+%26%23321%3Bukasz+%B7",
			"Zoë — &#321;ukasz ·", "Zoë — Łukasz ·",
			"<p>Zoë — &amp;#321;ukasz ·</p>", "<p>Zo\xeb \x97 &#321;ukasz \xb7</p>"},
		// The same text submitted in UTF-8: stored as its bytes.
		{CharsetLatin1, "message=Zo%C3%AB+%E2%80%94+%C2%B7",
			"ZoÃ« â\u0080\u0094 Â·", "ZoÃ« â€” Â·", "", ""},
		{"", "message=Zo%C3%AB+%E2%80%94+%C2%B7", "Zoë — ·", "Zoë — ·", "<p>&amp;#321;</p>", "<p>&amp;#321;</p>"},
	} {
		s := New(Options{Charset: tc.charset})
		r := httptest.NewRequest(http.MethodPost, "/posting.php", strings.NewReader(tc.body))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if err := parseForm(r); err != nil {
			t.Fatal(err)
		}
		s.decodeForm(r)
		got := r.PostFormValue("message")
		if got != tc.stored {
			t.Errorf("%s %s: stored %q, want %q", tc.charset, tc.body, got, tc.stored)
		}
		if shown := s.Shown(got); shown != tc.shown {
			t.Errorf("%s %s: shown %q, want %q", tc.charset, tc.body, shown, tc.shown)
		}
		if tc.page != "" {
			if got := string(s.encodePage(tc.page)); got != tc.pageWant {
				t.Errorf("%s: page %q sent as %q, want %q", tc.charset, tc.page, got, tc.pageWant)
			}
		}
	}
	// Names and fixtures are held as a browser would have sent them.
	s := New(Options{Charset: CharsetLatin1, CharsetInMeta: true})
	id, err := s.AddUser("Łukasz", "pw", false)
	if err != nil {
		t.Fatal(err)
	}
	if u := s.users[id]; u.Name != "&#321;ukasz" {
		t.Errorf("the name is held as %q", u.Name)
	}
	if got, ok := s.UserID("Łukasz"); !ok || got != id {
		t.Errorf("UserID(Łukasz) = %d %v", got, ok)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/index.php", nil))
	if ct := w.Header().Get("Content-Type"); ct != "text/html" {
		t.Errorf("Content-Type %q: the charset is in the <meta> only", ct)
	}
	if !strings.Contains(w.Body.String(), `<meta charset="ISO-8859-1" />`) {
		t.Error("no <meta charset> on the page")
	}
	s = New(Options{Charset: CharsetCP1252})
	w = httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "/index.php", nil))
	if ct := w.Header().Get("Content-Type"); ct != "text/html; charset=windows-1252" {
		t.Errorf("Content-Type %q", ct)
	}
}
