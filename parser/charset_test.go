package parser

import (
	"html"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPageCharset: a page's charset is decided as a browser decides it:
// a UTF-8 byte order mark, the HTTP Content-Type, a <meta charset> or
// <meta http-equiv> in the head, else UTF-8 when the bytes are.
func TestPageCharset(t *testing.T) {
	t.Parallel()
	latin := []byte("<html><head><title>Zo\xeb</title></head><body>\xb7</body></html>")
	for _, tc := range []struct {
		name, header string
		body         string
		want         Charset
	}{
		{"header", "text/html; charset=ISO-8859-1", "<html>", Charset{"windows-1252", "ISO-8859-1", FromHeader}},
		{"header quoted", `text/html; charset="windows-1252"`, "<html>", Charset{"windows-1252", "windows-1252", FromHeader}},
		{"header beats meta", "text/html; charset=UTF-8", `<meta charset="ISO-8859-1">`, Charset{"utf-8", "UTF-8", FromHeader}},
		{"unknown header label: the meta", "text/html; charset=x-nonsense", `<meta charset="latin1">`, Charset{"windows-1252", "latin1", FromMeta}},
		{"meta charset (phpBB's, SMF's)", "text/html", `<!DOCTYPE html><html><head><meta charset="ISO-8859-1" /><title>x</title>`, Charset{"windows-1252", "ISO-8859-1", FromMeta}},
		{"meta http-equiv (MyBB's headerinclude)", "", `<html><head><title>t</title><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1" />`, Charset{"windows-1252", "iso-8859-1", FromHTTPEquiv}},
		{"http-equiv quoted charset", "", `<meta http-equiv="content-type" content="text/html; charset='windows-1250'">`, Charset{"windows-1250", "windows-1250", FromHTTPEquiv}},
		{"meta in the body does not count", "", `<html><head><title>t</title></head><body><p>x</p><meta charset="iso-8859-2">`, Charset{Name: "utf-8"}},
		{"bom", "text/html; charset=ISO-8859-1", "\xef\xbb\xbf<html>", Charset{Name: "utf-8", Source: FromBOM}},
		{"undeclared utf-8", "", "<p>Zoë</p>", Charset{Name: "utf-8"}},
		{"undeclared, not utf-8", "", string(latin), Charset{Name: "windows-1252"}},
		{"utf8 label", "text/html; charset=utf8", "", Charset{"utf-8", "utf8", FromHeader}},
		{"utf-16 label in ASCII reads as utf-8", "", `<meta charset="utf-16">`, Charset{"utf-8", "utf-16", FromMeta}},
	} {
		if got := PageCharset(tc.header, []byte(tc.body)); got != tc.want {
			t.Errorf("%s: PageCharset = %#v, want %#v", tc.name, got, tc.want)
		}
	}
}

func TestDecodePage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, charset, want string
	}{
		{"Zo\xeb \xb7 \x97 \x85", "windows-1252", "Zoë · — …"},
		{"\xa3ukasz", "iso-8859-2", "Łukasz"},
		{"Zoë", "utf-8", "Zoë"},
		{"Zoë", "", "Zoë"},
	} {
		if got := string(DecodePage([]byte(tc.in), tc.charset)); got != tc.want {
			t.Errorf("DecodePage(%q, %s) = %q, want %q", tc.in, tc.charset, got, tc.want)
		}
	}
}

// TestEncodeForm: a form goes out as a browser sends it from a page in
// that charset: the charset's bytes, and a numeric character reference for
// each character it lacks.
func TestEncodeForm(t *testing.T) {
	t.Parallel()
	vals := map[string][]string{"message": {"Zoë — Łukasz… forumgm·g.k/p/1 🎲"}, "subject": {"a+b & c"}}
	for _, tc := range []struct {
		charset, want string
	}{
		{"windows-1252", "message=Zo%EB+%97+%26%23321%3Bukasz%85+forumgm%B7g.k%2Fp%2F1+%26%23127922%3B&subject=a%2Bb+%26+c"},
		{"iso-8859-2", "message=Zo%EB+%26%238212%3B+%A3ukasz%26%238230%3B+forumgm%26%23183%3Bg.k%2Fp%2F1+%26%23127922%3B&subject=a%2Bb+%26+c"},
		{"utf-8", "message=Zo%C3%AB+%E2%80%94+%C5%81ukasz%E2%80%A6+forumgm%C2%B7g.k%2Fp%2F1+%F0%9F%8E%B2&subject=a%2Bb+%26+c"},
		{"", "message=Zo%C3%AB+%E2%80%94+%C5%81ukasz%E2%80%A6+forumgm%C2%B7g.k%2Fp%2F1+%F0%9F%8E%B2&subject=a%2Bb+%26+c"},
	} {
		if got := EncodeForm(vals, tc.charset); got != tc.want {
			t.Errorf("EncodeForm in %q =\n %s\nwant\n %s", tc.charset, got, tc.want)
		}
	}
}

func TestAcceptCharset(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                        "",
		"ISO-8859-1":              "windows-1252",
		"x-unknown UTF-8":         "utf-8",
		"iso-8859-15, utf-8":      "iso-8859-15",
		"   ":                     "",
		"UNKNOWN":                 "",
		"utf-16 windows-1252":     "utf-8",
		strings.Repeat("x ", 100): "",
	} {
		if got := AcceptCharset(in); got != want {
			t.Errorf("AcceptCharset(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzPageCharset: whatever a board sends, deciding its charset and
// decoding it never fails, names a charset browsers know, gives UTF-8,
// and a form encoded in that charset is ASCII that decodes back to the
// text, each character the charset lacks as its numeric reference.
func FuzzPageCharset(f *testing.F) {
	f.Add("text/html; charset=ISO-8859-1", []byte("<html><head><title>Zo\xeb</title></head><body>\xb7</body></html>"), "Zoë — Łukasz… 🎲")
	f.Add("", []byte(`<meta http-equiv="Content-Type" content="text/html; charset='iso-8859-2'">`), "forumgm·g/x/1")
	f.Add("text/html", []byte(`<!DOCTYPE html><meta charset="shift_jis"><p>\x82\xa0`), "·")
	f.Add("text/html; charset=", []byte("\xef\xbb\xbf<p>x"), "\xff")
	f.Fuzz(func(t *testing.T, contentType string, body []byte, text string) {
		cs := PageCharset(contentType, body)
		if name, ok := LookupCharset(cs.Name); !ok || name != cs.Name {
			t.Fatalf("PageCharset(%q) = %+v: not a canonical charset", contentType, cs)
		}
		if out := DecodePage(body, cs.Name); cs.Name != UTF8 && !utf8.Valid(out) {
			t.Fatalf("DecodePage(%s) is not UTF-8: %q", cs.Name, out)
		}
		_ = cs.String()
		if !utf8.ValidString(text) {
			return
		}
		enc := EncodeForm(url.Values{"m": {text}}, cs.Name)
		for i := 0; i < len(enc); i++ {
			if enc[i] >= 0x80 {
				t.Fatalf("EncodeForm in %s is not ASCII: %q", cs.Name, enc)
			}
		}
		vals, err := url.ParseQuery(enc)
		if err != nil {
			t.Fatalf("EncodeForm in %s: %q: %v", cs.Name, enc, err)
		}
		back := html.UnescapeString(string(DecodePage([]byte(vals.Get("m")), cs.Name)))
		if strings.Contains(text, "&") || strings.ContainsRune(text, '\r') || strings.ContainsRune(text, 0) {
			return // a reference the text itself holds reads back as its character
		}
		if back != text && cs.Name != "replacement" {
			if cs.Name == UTF8 || !strings.ContainsRune(back, utf8.RuneError) {
				t.Fatalf("%q in %s came back as %q", text, cs.Name, back)
			}
		}
	})
}
