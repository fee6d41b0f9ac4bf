// Package bbcode renders BBCode the way players type it on a phpBB board
// into the HTML that phpBB 3.3 (prosilver) shows inside a post's div.content.
// The simulator renders every post and PM with it at submit time, so the
// parser and scraper are tested against the same markup a real board gives.
//
// Written from what phpBB 3.3 is documented to show for each tag, not from
// phpBB's code. Choices beyond the facts:
//   - [s] and [spoiler] are custom BBCodes on real boards (phpBB has no default
//     for either). [s] renders <span style="text-decoration: line-through">;
//     [spoiler] (and [spoiler=Title]) renders
//     <div class="spoiler"><div class="spoiler-title">Spoiler</div><div class="spoiler-content">…</div></div>.
//   - A tag that is never closed, a closing tag with no opener, and tags left
//     open inside another tag's span stay literal text, so the output is
//     always well nested (phpBB's s9e parser would auto-close some of them).
//   - [img] renders <img src="…" class="postimage" alt="Image"> for the same
//     addresses [url] accepts.
//   - [url] only links http, https, ftp and ftps addresses (and "www." ones,
//     given http://); anything else leaves the tag literal.
//   - Bare http(s)/ftp(s) and www. addresses in text become links (phpBB's
//     magic URLs, on by default; Options.NoAutolink turns it off), never
//     inside a link or code. Trailing sentence punctuation is left out.
//   - One newline right after an opening block tag (quote, spoiler, code,
//     list) and right before or after its closing tag is dropped, as boards
//     do, so typing blocks on their own lines does not add blank lines.
//
// A "[" followed by a zero-width space (what rules.Esc inserts) never starts
// a tag: tag names are ASCII letters only.
package bbcode

import (
	"fmt"
	"html"
	"net/url"
	"regexp"
	"strconv"
	"strings"
)

// BoldStyle picks how [b] renders; it changed in phpBB 3.2.2.
type BoldStyle int

const (
	// BoldStrong is phpBB 3.2.2+: <strong class="text-strong">.
	BoldStrong BoldStyle = iota
	// BoldSpan is phpBB 3.0–3.2.1: <span style="font-weight: bold">.
	BoldSpan
)

// ParseBoldStyle reads "strong" or "span" (as a CLI flag gives it).
func ParseBoldStyle(s string) (BoldStyle, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "strong":
		return BoldStrong, nil
	case "span":
		return BoldSpan, nil
	}
	return BoldStrong, fmt.Errorf("bold style %q: want strong or span", s)
}

func (b BoldStyle) String() string {
	if b == BoldSpan {
		return "span"
	}
	return "strong"
}

// Options tune the rendering. The zero value is phpBB 3.3 prosilver.
type Options struct {
	Bold BoldStyle
	// NoAutolink turns off phpBB's magic URLs (bare http://, https://,
	// ftp:// and www. addresses in text become links, as on a default board).
	NoAutolink bool
	// NoSize: the board has no [size] (FluxBB 1.5's BBCode has none, nor
	// does a phpBB whose admin removed it): the tag stays literal text.
	NoSize bool
	// NoImg: the board's admin turned [img] off where the post is (MyBB's
	// "Allow [img] Code", SMF's disabled BBC): the tag stays literal text.
	NoImg bool
}

// known tags (lower case). code and url-without-argument are read raw.
var known = map[string]bool{
	"b": true, "i": true, "u": true, "s": true, "quote": true, "spoiler": true,
	"code": true, "url": true, "color": true, "size": true, "list": true, "img": true,
}

// block tags eat one newline around their edges.
var block = map[string]bool{"quote": true, "spoiler": true, "code": true, "list": true}

type tokKind int

const (
	tText tokKind = iota
	tOpen
	tClose
	tItem      // [*]
	tItemClose // [/*]
	tRaw       // [code]…[/code] or [url]…[/url], content kept verbatim
)

type token struct {
	kind tokKind
	name string // lower-case tag name
	arg  string // [name=arg] (unquoted)
	hasA bool   // an "=" argument was given
	src  string // the literal source, for unpaired tags
	body string // tRaw content
}

// tokenize splits text into tags and text runs. Anything that does not
// parse as a known tag is text.
func tokenize(s string) []token {
	var toks []token
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			toks = append(toks, token{kind: tText, src: text.String()})
			text.Reset()
		}
	}
	// where the last closing [/code] and [/url] start, so an unclosed opener
	// is known at once instead of scanning to the end each time.
	last := map[string]int{"code": lastIndexFold(s, "[/code]"), "url": lastIndexFold(s, "[/url]"), "img": lastIndexFold(s, "[/img]")}
	i := 0
	for i < len(s) {
		j := strings.IndexByte(s[i:], '[')
		if j < 0 {
			text.WriteString(s[i:])
			break
		}
		text.WriteString(s[i : i+j])
		i += j
		t, n := parseTag(s[i:])
		if n == 0 {
			text.WriteByte('[')
			i++
			continue
		}
		// code and bare url swallow everything up to their closing tag.
		if t.kind == tOpen && (t.name == "code" || t.name == "img" || (t.name == "url" && !t.hasA)) {
			end := -1
			if last[t.name] >= i+n {
				end = indexFold(s[i+n:], "[/"+t.name+"]")
			}
			if end < 0 {
				text.WriteString(s[i : i+n])
				i += n
				continue
			}
			closeLen := len(t.name) + 3
			t.kind = tRaw
			t.body = s[i+n : i+n+end]
			t.src = s[i : i+n+end+closeLen]
			flush()
			toks = append(toks, t)
			i += n + end + closeLen
			continue
		}
		flush()
		toks = append(toks, t)
		i += n
	}
	flush()
	return toks
}

// indexFold is strings.Index, ASCII case-insensitively (needle is lower case).
func indexFold(s, needle string) int {
	n := len(needle)
	for i := 0; i+n <= len(s); i++ {
		if s[i] == '[' && strings.EqualFold(s[i:i+n], needle) {
			return i
		}
	}
	return -1
}

func lastIndexFold(s, needle string) int {
	n := len(needle)
	for i := len(s) - n; i >= 0; i-- {
		if s[i] == '[' && strings.EqualFold(s[i:i+n], needle) {
			return i
		}
	}
	return -1
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// parseTag reads a tag at the start of s (s[0]=='['); n==0 means not a tag.
func parseTag(s string) (token, int) {
	if strings.HasPrefix(s, "[*]") {
		return token{kind: tItem, src: "[*]"}, 3
	}
	if strings.HasPrefix(s, "[/*]") {
		return token{kind: tItemClose, src: "[/*]"}, 4
	}
	i := 1
	closing := false
	if i < len(s) && s[i] == '/' {
		closing = true
		i++
	}
	start := i
	for i < len(s) && isLetter(s[i]) {
		i++
	}
	name := strings.ToLower(s[start:i])
	if !known[name] || i >= len(s) {
		return token{}, 0
	}
	if closing {
		if s[i] != ']' {
			return token{}, 0
		}
		return token{kind: tClose, name: name, src: s[:i+1]}, i + 1
	}
	switch s[i] {
	case ']':
		return token{kind: tOpen, name: name, src: s[:i+1]}, i + 1
	case '=':
		i++
	default:
		return token{}, 0
	}
	var arg string
	if i < len(s) && s[i] == '"' {
		q := strings.IndexByte(s[i+1:], '"')
		if q < 0 {
			return token{}, 0
		}
		arg = s[i+1 : i+1+q]
		i += q + 2
		// phpBB 3.2+ quotes carry extra attributes: [quote="x" post_id=1 time=2 user_id=3]
		end := strings.IndexByte(s[i:], ']')
		if end < 0 || strings.ContainsAny(s[i:i+end], "\n[") {
			return token{}, 0
		}
		i += end
	} else {
		end := strings.IndexByte(s[i:], ']')
		if end < 0 || strings.ContainsAny(s[i:i+end], "\n[") {
			return token{}, 0
		}
		arg = s[i : i+end]
		i += end
	}
	if strings.Contains(arg, "\n") {
		return token{}, 0
	}
	return token{kind: tOpen, name: name, arg: arg, hasA: true, src: s[:i+1]}, i + 1
}

type node struct {
	tok      token
	children []*node
	literal  bool   // render tok.src as text (unpaired or invalid tag)
	closeSrc string // the closing tag as typed, for a paired tag
}

// build pairs opening and closing tags into a tree. An opener still open
// when an outer tag closes, and anything unpaired, becomes literal text.
func build(toks []token) []*node {
	pair := make(map[int]int)
	var stack []int
	open := make(map[string]int) // how many of each name are on the stack
	for i, t := range toks {
		switch t.kind {
		case tOpen:
			stack = append(stack, i)
			open[t.name]++
		case tClose:
			if open[t.name] == 0 {
				continue // stray closer: literal
			}
			for k := len(stack) - 1; k >= 0; k-- {
				if toks[stack[k]].name == t.name {
					pair[stack[k]] = i
					for _, d := range stack[k:] {
						open[toks[d].name]--
					}
					stack = stack[:k]
					break
				}
			}
		}
	}
	var rec func(lo, hi int) []*node
	rec = func(lo, hi int) []*node {
		var out []*node
		for i := lo; i < hi; i++ {
			t := toks[i]
			if t.kind == tOpen {
				if j, ok := pair[i]; ok && j < hi {
					out = append(out, &node{tok: t, children: rec(i+1, j), closeSrc: toks[j].src})
					i = j
					continue
				}
				out = append(out, &node{tok: t, literal: true})
				continue
			}
			if t.kind == tClose {
				out = append(out, &node{tok: t, literal: true})
				continue
			}
			out = append(out, &node{tok: t})
		}
		return out
	}
	return rec(0, len(toks))
}

// Render turns BBCode into prosilver post HTML.
func Render(text string, opt Options) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	r := renderer{opt: opt}
	r.nodes(build(tokenize(text)))
	return r.b.String()
}

type renderer struct {
	opt   Options
	b     strings.Builder
	inURL int // inside a link: links (and codeboxes, which hold one) stay literal, as <a> cannot nest
}

var (
	reColor = regexp.MustCompile(`^(#[0-9A-Fa-f]{3}|#[0-9A-Fa-f]{6}|[A-Za-z]{1,20})$`)
)

// validURL returns the href for a [url] target, or "" when it is not linkable.
func validURL(raw string) string {
	raw = strings.TrimSpace(raw)
	if raw == "" || strings.ContainsAny(raw, " \t\n\"<>") {
		return ""
	}
	if strings.HasPrefix(strings.ToLower(raw), "www.") {
		raw = "http://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https", "ftp", "ftps":
		return raw
	}
	return ""
}

func (r *renderer) text(s string) {
	if r.opt.NoAutolink || r.inURL > 0 {
		r.plain(s)
		return
	}
	for {
		loc := reMagic.FindStringIndex(s)
		if loc == nil {
			r.plain(s)
			return
		}
		// Trailing punctuation ends a sentence, not the address.
		end := loc[1]
		for end > loc[0] && strings.ContainsRune(".,:;!?'\")", rune(s[end-1])) {
			end--
		}
		href := validURL(s[loc[0]:end])
		if href == "" {
			r.plain(s[:loc[1]])
			s = s[loc[1]:]
			continue
		}
		r.plain(s[:loc[0]])
		fmt.Fprintf(&r.b, `<a href="%s" class="postlink">`, html.EscapeString(href))
		r.plain(s[loc[0]:end])
		r.b.WriteString(`</a>`)
		s = s[end:]
	}
}

func (r *renderer) plain(s string) {
	s = html.EscapeString(s)
	r.b.WriteString(strings.ReplaceAll(s, "\n", "<br>"))
}

// reMagic finds bare addresses for magic URLs (roughly s9e's Autolink).
var reMagic = regexp.MustCompile(`(?i)\b(?:(?:https?|ftps?)://|www\.)[^\s<>"\[\]]+`)

// nodes renders a run of siblings.
func (r *renderer) nodes(ns []*node) {
	for i := 0; i < len(ns); i++ {
		n := ns[i]
		// drop one newline after a closed block tag
		if i > 0 && n.tok.kind == tText && isBlockNode(ns[i-1]) && strings.HasPrefix(n.tok.src, "\n") {
			r.text(n.tok.src[1:])
			continue
		}
		r.node(n)
	}
}

func isBlockNode(n *node) bool {
	return !n.literal && (n.tok.kind == tOpen || n.tok.kind == tRaw) && block[n.tok.name] && rendersAsTag(n)
}

// rendersAsTag reports whether an open/raw node is valid (renders as HTML).
func rendersAsTag(n *node) bool {
	t := n.tok
	switch t.name {
	case "url":
		if t.kind == tRaw {
			return validURL(t.body) != ""
		}
		return validURL(t.arg) != ""
	case "img":
		return t.kind == tRaw && !t.hasA && validURL(t.body) != ""
	case "color":
		return reColor.MatchString(strings.TrimSpace(t.arg))
	case "size":
		v, err := strconv.Atoi(strings.TrimSpace(t.arg))
		return err == nil && v >= 1 && v <= 200
	case "list":
		if !t.hasA {
			return true
		}
		_, ok := listType(t.arg)
		return ok
	case "b", "i", "u", "s", "code":
		return !t.hasA || t.name == "code"
	}
	return true // quote, spoiler take any argument
}

func listType(arg string) (string, bool) {
	switch arg {
	case "1":
		return "decimal", true
	case "a":
		return "lower-alpha", true
	case "A":
		return "upper-alpha", true
	case "i":
		return "lower-roman", true
	case "I":
		return "upper-roman", true
	case "disc", "circle", "square":
		return arg, true
	}
	return "", false
}

// trimBlock drops one newline at the start and end of a block's children.
func trimBlock(ns []*node) []*node {
	if len(ns) == 0 {
		return ns
	}
	out := append([]*node(nil), ns...)
	if f := out[0]; f.tok.kind == tText && strings.HasPrefix(f.tok.src, "\n") {
		c := *f
		c.tok.src = c.tok.src[1:]
		out[0] = &c
	}
	if l := out[len(out)-1]; l.tok.kind == tText && strings.HasSuffix(l.tok.src, "\n") {
		c := *l
		c.tok.src = c.tok.src[:len(c.tok.src)-1]
		out[len(out)-1] = &c
	}
	return out
}

// literal renders an unusable tag pair: its source text, then its children
// rendered normally, then the closing source.
func (r *renderer) literal(n *node) {
	r.text(n.tok.src)
	r.nodes(n.children)
	r.text(n.closeSrc)
}

func (r *renderer) node(n *node) {
	t := n.tok
	if n.literal {
		r.text(t.src)
		return
	}
	switch t.kind {
	case tText:
		r.text(t.src)
		return
	case tItem, tItemClose:
		r.text(t.src) // [*] outside a list
		return
	case tRaw:
		if !rendersAsTag(n) || (r.inURL > 0 && t.name != "img") || (t.name == "img" && r.opt.NoImg) {
			r.text(t.src)
			return
		}
		if t.name == "code" {
			body := strings.TrimPrefix(t.body, "\n")
			body = strings.TrimSuffix(body, "\n")
			r.b.WriteString(`<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>`)
			r.b.WriteString(html.EscapeString(body))
			r.b.WriteString(`</code></pre></div>`)
			return
		}
		href := validURL(t.body)
		if t.name == "img" {
			fmt.Fprintf(&r.b, `<img src="%s" class="postimage" alt="Image">`, html.EscapeString(href))
			return
		}
		fmt.Fprintf(&r.b, `<a href="%s" class="postlink">`, html.EscapeString(href))
		r.plain(t.body)
		r.b.WriteString(`</a>`)
		return
	}
	if !rendersAsTag(n) || (t.name == "url" && r.inURL > 0) || (t.name == "size" && r.opt.NoSize) {
		r.literal(n)
		return
	}
	if t.name == "url" {
		r.inURL++
		defer func() { r.inURL-- }()
	}
	open, close := r.wrap(t)
	if t.name == "list" {
		r.b.WriteString(open)
		r.list(n.children)
		r.b.WriteString(close)
		return
	}
	kids := n.children
	if block[t.name] {
		kids = trimBlock(kids)
	}
	r.b.WriteString(open)
	r.nodes(kids)
	r.b.WriteString(close)
}

// wrap gives the HTML around a valid tag's content.
func (r *renderer) wrap(t token) (string, string) {
	e := html.EscapeString
	switch t.name {
	case "b":
		if r.opt.Bold == BoldSpan {
			return `<span style="font-weight: bold">`, `</span>`
		}
		return `<strong class="text-strong">`, `</strong>`
	case "i":
		return `<em class="text-italics">`, `</em>`
	case "u":
		return `<span style="text-decoration: underline">`, `</span>`
	case "s":
		return `<span style="text-decoration: line-through">`, `</span>`
	case "quote":
		if !t.hasA || strings.TrimSpace(t.arg) == "" {
			return `<blockquote class="uncited"><div>`, `</div></blockquote>`
		}
		return `<blockquote><div><cite>` + e(t.arg) + ` wrote:</cite>`, `</div></blockquote>`
	case "spoiler":
		title := "Spoiler"
		if t.hasA && strings.TrimSpace(t.arg) != "" {
			title = t.arg
		}
		return `<div class="spoiler"><div class="spoiler-title">` + e(title) + `</div><div class="spoiler-content">`, `</div></div>`
	case "url":
		return `<a href="` + e(validURL(t.arg)) + `" class="postlink">`, `</a>`
	case "color":
		return `<span style="color: ` + e(strings.TrimSpace(t.arg)) + `">`, `</span>`
	case "size":
		v, _ := strconv.Atoi(strings.TrimSpace(t.arg))
		return fmt.Sprintf(`<span style="font-size: %d%%; line-height: normal">`, v), `</span>`
	case "list":
		if !t.hasA {
			return `<ul>`, `</ul>`
		}
		lt, _ := listType(t.arg)
		if lt == "disc" || lt == "circle" || lt == "square" {
			return `<ul style="list-style-type: ` + lt + `">`, `</ul>`
		}
		return `<ol style="list-style-type: ` + lt + `">`, `</ol>`
	}
	return "", ""
}

// list renders a list's children: each [*] starts an <li>; text before the
// first [*] that is only whitespace is dropped, other text is kept as its
// own item so nothing a player typed disappears.
func (r *renderer) list(kids []*node) {
	var items [][]*node
	var cur []*node
	started := false
	for _, k := range kids {
		if !k.literal && k.tok.kind == tItem {
			if started || !blankNodes(cur) {
				items = append(items, cur)
			}
			cur = nil
			started = true
			continue
		}
		if !k.literal && k.tok.kind == tItemClose {
			continue
		}
		cur = append(cur, k)
	}
	if started || !blankNodes(cur) {
		items = append(items, cur)
	}
	for _, it := range items {
		r.b.WriteString(`<li>`)
		r.nodes(trimSpaceNodes(it))
		r.b.WriteString(`</li>`)
	}
}

func blankNodes(ns []*node) bool {
	for _, n := range ns {
		if n.tok.kind != tText || n.literal || strings.TrimSpace(n.tok.src) != "" {
			return false
		}
	}
	return true
}

// trimSpaceNodes trims newlines and spaces at an item's edges.
func trimSpaceNodes(ns []*node) []*node {
	out := append([]*node(nil), ns...)
	if len(out) > 0 && out[0].tok.kind == tText && !out[0].literal {
		c := *out[0]
		c.tok.src = strings.TrimLeft(c.tok.src, " \n\t")
		out[0] = &c
	}
	if l := len(out) - 1; l >= 0 && out[l].tok.kind == tText && !out[l].literal {
		c := *out[l]
		c.tok.src = strings.TrimRight(c.tok.src, " \n\t")
		out[l] = &c
	}
	return out
}

// Plain is the text a reader sees, without markup: tags dropped, code and
// quotes kept, list items on their own lines. Useful for previews and logs.
func Plain(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	var b strings.Builder
	var walk func(ns []*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			t := n.tok
			switch {
			case n.literal, t.kind == tText:
				b.WriteString(t.src)
			case t.kind == tRaw:
				if rendersAsTag(n) {
					b.WriteString(t.body)
				} else {
					b.WriteString(t.src)
				}
			case t.kind == tItem:
				b.WriteString("\n")
			case t.kind == tItemClose:
			case t.kind == tOpen && !rendersAsTag(n):
				b.WriteString(t.src)
				walk(n.children)
				b.WriteString(n.closeSrc)
			default:
				walk(n.children)
			}
		}
	}
	walk(build(tokenize(text)))
	return b.String()
}
