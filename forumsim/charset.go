package forumsim

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// A board in a legacy charset, as PHP boards of the kind ran them (phpBB
// 2, MyBB with its language file's charset set to ISO-8859-1, SMF 1 and 2
// with a latin1 language): the board works in bytes. Its pages declare the
// charset (the Content-Type header and a <meta> in the head); a browser
// submits its forms in it, writing each character the charset lacks as a
// numeric character reference ("&#8212;"); the board stores what came, as
// bytes, and escapes "&" when it shows text, except where it starts a
// numeric reference (MyBB's htmlspecialchars_uni, phpBB 2's request
// handling), so "&#8212;" comes back as the reference and the browser
// shows "—". A form submitted in UTF-8 to such a board is stored as its
// bytes too, and shows as "Ã«" for "ë", "Â·" for "·".
//
// forumsim keeps text as Go strings: a charset board's text is its bytes
// decoded by the charset (every rune of it in the charset, plus the
// references as typed), so what it stores and shows is what such a board
// stores and shows.

// Charsets forumsim serves a board in (Options.Charset).
const (
	CharsetLatin1 = "ISO-8859-1"
	CharsetCP1252 = "windows-1252"
)

// legacy is the board's charset; nil for UTF-8.
func (s *Server) legacy() *charmap.Charmap {
	switch strings.ToLower(s.opt.Charset) {
	case "iso-8859-1", "latin1":
		return charmap.ISO8859_1
	case "windows-1252", "cp1252":
		return charmap.Windows1252
	}
	return nil
}

// charsetLabel is how the board's pages name their charset.
func (s *Server) charsetLabel() string {
	if s.legacy() == nil {
		return "UTF-8"
	}
	return s.opt.Charset
}

// boardText is text as a board in the charset holds it: each character
// the charset lacks as a numeric reference, as a browser would have sent
// it (fixtures: names and posts made in-process).
func (s *Server) boardText(text string) string {
	cm := s.legacy()
	if cm == nil {
		return text
	}
	b, err := encoding.HTMLEscapeUnsupported(cm.NewEncoder()).String(text)
	if err != nil {
		return text
	}
	out, err := cm.NewDecoder().String(b)
	if err != nil {
		return text
	}
	return out
}

// decodeForm reads a submitted form's bytes in the board's charset, as the
// board stores them.
func (s *Server) decodeForm(r *http.Request) {
	cm := s.legacy()
	if cm == nil {
		return
	}
	dec := func(v string) string {
		out, err := cm.NewDecoder().String(v)
		if err != nil {
			return v
		}
		return out
	}
	decoded := func(form url.Values) url.Values {
		if form == nil {
			return nil
		}
		out := make(url.Values, len(form))
		for k, vs := range form {
			dk := dec(k)
			for _, v := range vs {
				out[dk] = append(out[dk], dec(v))
			}
		}
		return out
	}
	r.Form, r.PostForm = decoded(r.Form), decoded(r.PostForm)
}

// Shown is stored board text as a browser shows it: its bytes in the
// board's charset read as browsers read that charset (ISO-8859-1 as
// windows-1252), numeric references resolved. For tests: a UTF-8 board's
// text is shown as it is.
func (s *Server) Shown(text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	cm := s.legacy()
	if cm == nil {
		return text
	}
	b, err := encoding.HTMLEscapeUnsupported(cm.NewEncoder()).String(text)
	if err != nil {
		return text
	}
	out, err := charmap.Windows1252.NewDecoder().String(b)
	if err != nil {
		return text
	}
	return shownRef.ReplaceAllStringFunc(out, html.UnescapeString)
}

// shownRef is a numeric reference as a browser resolves it.
var shownRef = regexp.MustCompile(`&#[0-9]{1,7};`)

// numericRef is a numeric reference the board's escaping turned into text.
var numericRef = regexp.MustCompile(`&amp;(#[0-9]{1,7};)`)

// encodePage is a page as the board sends it: its numeric references kept
// as such, in the board's charset (a character it lacks, from text the
// board did not get through a form, as a reference).
func (s *Server) encodePage(page string) []byte {
	cm := s.legacy()
	if cm == nil {
		return []byte(page)
	}
	page = numericRef.ReplaceAllString(page, "&$1")
	b, err := encoding.HTMLEscapeUnsupported(cm.NewEncoder()).String(page)
	if err != nil {
		return []byte(page)
	}
	return []byte(b)
}

// metaCharset is the <meta charset> of the board's pages (prosilver's is
// "utf-8").
func (s *Server) metaCharset() string {
	if s.legacy() == nil {
		return "utf-8"
	}
	return s.opt.Charset
}
