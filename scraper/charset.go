package scraper

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/parser"
)

// Charsets, as a browser handles them: a page is read in the charset it
// declares (parser.PageCharset: the HTTP Content-Type, a <meta charset>,
// a <meta http-equiv>), and a form is submitted in its accept-charset or,
// without one, in the charset of the page that holds it, each character
// the charset lacks written as a numeric character reference ("&#8212;"),
// as browsers write it and legacy boards keep it. The profile's charset,
// when set, overrides what the pages say (a board that declares nothing,
// or declares what it is not).

// rawContentType is where the transport keeps a response's Content-Type
// from colly, which would decode a body whose header names a charset (and
// only then): the session decodes every page itself, by one rule.
const rawContentType = "X-Forumgm-Content-Type"

// rawTransport hides the Content-Type header from colly (see
// rawContentType); the session's OnResponse puts it back.
type rawTransport struct{ next http.RoundTripper }

func (t rawTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := t.next.RoundTrip(req)
	if err == nil && res != nil {
		if v, ok := res.Header["Content-Type"]; ok {
			res.Header[rawContentType] = v
			delete(res.Header, "Content-Type")
		}
	}
	return res, err
}

// restoreContentType puts back the header rawTransport moved.
func restoreContentType(h http.Header) {
	if v, ok := h[rawContentType]; ok {
		h["Content-Type"] = v
		delete(h, rawContentType)
	}
}

// pageCharset is the charset a page is read in: the profile's, when it
// names one, else what the page declares.
func (s *Session) pageCharset(h http.Header, body []byte) parser.Charset {
	if s.charset.Name != "" {
		return s.charset
	}
	return parser.PageCharset(h.Get("Content-Type"), body)
}

// ProfileCharset is the charset the profile's charset key names (Source
// FromProfile), or the zero Charset when it names none.
func ProfileCharset(label string) (parser.Charset, bool) {
	if strings.TrimSpace(label) == "" {
		return parser.Charset{}, true
	}
	name, ok := parser.LookupCharset(label)
	if !ok {
		return parser.Charset{}, false
	}
	return parser.Charset{Name: name, Label: strings.TrimSpace(label), Source: parser.FromProfile}, true
}

// formCharsets remembers, for the pages the session fetched last, the
// charset each is in and the forms on it that name their own
// (accept-charset), so that a form submitted with its page as the referer
// goes out as a browser would send it from that page. A page it no longer
// remembers (a session shared by many games reads many pages between a
// form and its submission) goes by the charset of the page fetched last:
// a board's pages share one.
type formCharsets struct {
	mu       sync.Mutex
	cur, old map[string]pageForms // two generations: cur fills, then becomes old
	last     string               // the charset of the page fetched last
}

type pageForms struct {
	charset string            // the page's (canonical name)
	accept  map[string]string // form action (absolute) → its accept-charset
}

// maxFormPages is how many pages a generation of formCharsets holds.
const maxFormPages = 256

// acceptCharsetRe finds the attribute in a page's bytes, in any case.
var acceptCharsetRe = regexp.MustCompile(`(?i)accept-charset`)

// note records a fetched page's charset and its forms' accept-charsets.
func (f *formCharsets) note(pg *Page) {
	if pg == nil || pg.Doc == nil {
		return
	}
	var accept map[string]string
	// Few pages have a form naming its charset: a byte search spares the
	// rest a walk of their tree.
	if base, err := url.Parse(pg.URL); err == nil && acceptCharsetRe.Match(pg.Body) {
		pg.Doc.Find("form[accept-charset]").Each(func(_ int, sel *goquery.Selection) {
			cs := parser.AcceptCharset(sel.AttrOr("accept-charset", ""))
			ref, err := url.Parse(strings.TrimSpace(sel.AttrOr("action", "")))
			if cs == "" || err != nil {
				return
			}
			action := base.ResolveReference(ref).String()
			if accept == nil {
				accept = map[string]string{}
			}
			if _, seen := accept[action]; !seen {
				accept[action] = cs
			}
		})
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cur == nil || len(f.cur) >= maxFormPages {
		f.old, f.cur = f.cur, map[string]pageForms{}
	}
	f.cur[pg.URL] = pageForms{charset: pg.Charset.Name, accept: accept}
	f.last = pg.Charset.Name
}

// submit is the charset a form posted to action from page (the referer)
// goes out in: its accept-charset, else its page's; for a page not
// remembered, the last page's; UTF-8 before any page.
func (f *formCharsets) submit(page, action string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	pf, ok := f.cur[page]
	if !ok {
		pf, ok = f.old[page]
	}
	if !ok {
		pf.charset = f.last
	}
	if cs := pf.accept[action]; cs != "" {
		return cs
	}
	if pf.charset == "" {
		return parser.UTF8
	}
	return pf.charset
}

// SubmitCharset is the charset a form on page (a URL the session fetched,
// as Page.URL) posting to action would be submitted in, as its canonical
// name: the profile's charset if set, else the form's accept-charset,
// else the page's.
func (s *Session) SubmitCharset(page, action string) string {
	if s.charset.Name != "" {
		return s.charset.Name
	}
	return s.forms.submit(page, action)
}

// BoardCharset is the charset the board's pages are in, as far as the
// session knows: the profile's, else the page fetched last's; known is
// false (and the name UTF-8) before any page. A query the bot writes (a
// member's name) goes in it, as a browser writes one from the board's
// pages.
func (s *Session) BoardCharset() (name string, known bool) {
	if s.charset.Name != "" {
		return s.charset.Name, true
	}
	s.forms.mu.Lock()
	defer s.forms.mu.Unlock()
	if s.forms.last == "" {
		return parser.UTF8, false
	}
	return s.forms.last, true
}
