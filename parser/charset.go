package parser

import (
	"bytes"
	"mime"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/transform"
)

// Where a page's charset was found, as Charset.Source says it.
const (
	FromHeader    = "HTTP Content-Type"
	FromBOM       = "byte order mark"
	FromMeta      = "<meta charset>"
	FromHTTPEquiv = "<meta http-equiv>"
	FromProfile   = "the profile's charset"
	FromNothing   = "" // undeclared: UTF-8 when the bytes are, else windows-1252
)

// UTF8 is the canonical name of UTF-8.
const UTF8 = "utf-8"

// Charset is the character encoding a page is in, decided as a browser
// decides it (the WHATWG encoding sniffing, without guessing from the
// text): a byte order mark, else the HTTP Content-Type's charset, else a
// <meta charset> or <meta http-equiv="Content-Type"> in the head, else
// UTF-8 when the bytes are UTF-8 and windows-1252 when they are not.
// Names are the WHATWG's canonical ones, where "iso-8859-1" and "latin1"
// are labels of windows-1252, as every browser reads and submits them.
type Charset struct {
	Name   string // canonical: "utf-8", "windows-1252", "iso-8859-2", …
	Label  string // as the page wrote it ("ISO-8859-1"); "" when undeclared
	Source string // FromHeader, FromMeta, …; FromNothing when undeclared
}

// IsUTF8 says the charset is UTF-8.
func (c Charset) IsUTF8() bool { return c.Name == UTF8 || c.Name == "" }

// String is the charset as a GM reads it: "windows-1252 (ISO-8859-1, HTTP
// Content-Type)".
func (c Charset) String() string {
	name := c.Name
	if name == "" {
		name = UTF8
	}
	var how []string
	if c.Label != "" && !strings.EqualFold(c.Label, name) {
		how = append(how, c.Label)
	}
	if c.Source == FromNothing {
		how = append(how, "undeclared")
	} else {
		how = append(how, c.Source)
	}
	return name + " (" + strings.Join(how, ", ") + ")"
}

// LookupCharset is the canonical name of a charset label ("ISO-8859-1" is
// windows-1252; "utf8" is utf-8), false for a label browsers do not know.
// UTF-16 labels name UTF-8 for forms and pages alike: a browser submits in
// UTF-8 there, and a page that says UTF-16 in ASCII is not UTF-16.
func LookupCharset(label string) (string, bool) {
	label = strings.TrimSpace(label)
	if label == "" {
		return "", false
	}
	e, name := charset.Lookup(label)
	if e == nil {
		return "", false
	}
	if strings.HasPrefix(name, "utf-16") || name == "replacement" {
		// "replacement" is what browsers give ISO-2022-KR and the like:
		// they refuse to read such a page. Read it as UTF-8 instead.
		return UTF8, true
	}
	return name, true
}

// headLimit bounds the bytes searched for a <meta> declaration: browsers
// prescan 1024, then honour a later one in the head by reparsing.
const headLimit = 64 << 10

// PageCharset decides the charset of a page from its Content-Type header
// (may be "") and its bytes, as a browser does.
func PageCharset(contentType string, body []byte) Charset {
	if bytes.HasPrefix(body, []byte{0xEF, 0xBB, 0xBF}) {
		return Charset{Name: UTF8, Source: FromBOM}
	}
	if label := headerCharset(contentType); label != "" {
		if name, ok := LookupCharset(label); ok {
			return Charset{Name: name, Label: label, Source: FromHeader}
		}
	}
	if label, src := MetaCharset(body); label != "" {
		if name, ok := LookupCharset(label); ok {
			return Charset{Name: name, Label: label, Source: src}
		}
	}
	if utf8.Valid(body) {
		return Charset{Name: UTF8}
	}
	return Charset{Name: "windows-1252"}
}

// headerCharset is the charset parameter of a Content-Type ("" if none).
func headerCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(params["charset"])
}

// HeaderCharset is the charset a Content-Type header names, as
// LookupCharset canonicalises it ("" when it names none or one unknown).
func HeaderCharset(contentType string) Charset {
	label := headerCharset(contentType)
	if name, ok := LookupCharset(label); ok {
		return Charset{Name: name, Label: label, Source: FromHeader}
	}
	return Charset{}
}

// MetaCharset is the first charset a page's head declares, in a <meta
// charset> or a <meta http-equiv="Content-Type" content="…; charset=…">,
// and which of the two said it; "" when the head declares none. Only the
// head is searched (up to the first element a head cannot hold, or 64 KiB).
// Labels are returned as written, whether known or not.
func MetaCharset(body []byte) (label, source string) {
	if len(body) > headLimit {
		body = body[:headLimit]
	}
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", ""
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "meta":
				var cs, equiv, content string
				seenCS := false
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch string(k) {
					case "charset":
						if !seenCS {
							cs, seenCS = strings.TrimSpace(string(v)), true
						}
					case "http-equiv":
						equiv = strings.TrimSpace(string(v))
					case "content":
						content = string(v)
					}
				}
				if cs != "" {
					return cs, FromMeta
				}
				if strings.EqualFold(equiv, "content-type") {
					if l := contentCharset(content); l != "" {
						return l, FromHTTPEquiv
					}
				}
			case "html", "head", "title", "link", "script", "style", "base", "noscript", "template":
			default:
				return "", "" // the body began: a later declaration is ignored
			}
		}
	}
}

// contentCharset is the charset of a <meta http-equiv> content, as the
// HTML standard's "extracting a character encoding from a meta element"
// reads it ("text/html; charset=ISO-8859-1", quoted or not).
func contentCharset(content string) string {
	low := strings.ToLower(content)
	for i := 0; ; {
		j := strings.Index(low[i:], "charset")
		if j < 0 {
			return ""
		}
		k := i + j + len("charset")
		rest := strings.TrimLeft(content[k:], " \t\n\f\r")
		if !strings.HasPrefix(rest, "=") {
			i = k
			continue
		}
		rest = strings.TrimLeft(rest[1:], " \t\n\f\r")
		if rest == "" {
			return ""
		}
		if q := rest[0]; q == '"' || q == '\'' {
			end := strings.IndexByte(rest[1:], q)
			if end < 0 {
				return ""
			}
			return rest[1 : 1+end]
		}
		end := strings.IndexAny(rest, " \t\n\f\r;")
		if end < 0 {
			end = len(rest)
		}
		return rest[:end]
	}
}

// DecodePage turns a page's bytes in the named charset (canonical, as
// Charset.Name) into UTF-8, as a browser reads them (bytes the charset
// does not map become U+FFFD). UTF-8 and unknown names leave the bytes as
// they are.
func DecodePage(body []byte, name string) []byte {
	if name == "" || name == UTF8 {
		return body
	}
	e, _ := charset.Lookup(name)
	if e == nil {
		return body
	}
	out, _, err := transform.Bytes(e.NewDecoder(), body)
	if err != nil {
		return body
	}
	return out
}

// AcceptCharset is the charset a form's accept-charset attribute makes a
// browser submit it in: the first label it knows (canonical name), "" when
// it names none (the page's charset then).
func AcceptCharset(attr string) string {
	for _, label := range strings.Fields(strings.ReplaceAll(attr, ",", " ")) {
		if name, ok := LookupCharset(label); ok {
			return name
		}
	}
	return ""
}

// EncodeText is text in the named charset, as a browser encodes a form
// field or a query in it (each character the charset lacks as a decimal
// numeric reference), as the bytes of a string; UTF-8 or an unknown name
// leave it as it is.
func EncodeText(text, name string) string {
	if name == "" || name == UTF8 {
		return text
	}
	e, _ := charset.Lookup(name)
	if e == nil {
		return text
	}
	out, err := encoding.HTMLEscapeUnsupported(e.NewEncoder()).String(text)
	if err != nil {
		return text
	}
	return out
}

// EncodeForm is the application/x-www-form-urlencoded body of vals in the
// named charset, as a browser encodes a form: every name and value in
// that charset, each character it lacks as a decimal numeric character
// reference ("&#8212;"), then percent-encoded byte by byte. UTF-8 (or an
// unknown name) is vals.Encode(). Fields are in name order, as
// url.Values.Encode puts them.
func EncodeForm(vals url.Values, name string) string {
	if name == "" || name == UTF8 {
		return vals.Encode()
	}
	if e, _ := charset.Lookup(name); e == nil {
		return vals.Encode()
	}
	conv := func(s string) string { return EncodeText(s, name) }
	var b strings.Builder
	keys := make([]string, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ke := url.QueryEscape(conv(k))
		for _, v := range vals[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(ke)
			b.WriteByte('=')
			b.WriteString(url.QueryEscape(conv(v)))
		}
	}
	return b.String()
}
