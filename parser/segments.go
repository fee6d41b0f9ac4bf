package parser

import (
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// Segments returns the command segments of a public post body: the text of
// each outermost bold run, in written order, with whitespace collapsed.
//
//   - Quotes (nested too), spoilers and code blocks never count; where one
//     sits inside a bold run it splits the run.
//   - Struck text is removed without splitting ("VOTE: [s]Al[/s] Bob" is
//     "VOTE: Bob").
//   - A <br> or a block boundary inside a bold run splits it.
//   - Two bold runs are two segments even when only spaces separate them.
//
// A profile whose selectors do not compile gives nil: compile it once with
// New to see the error (the built-in profiles always compile).
func Segments(p forum.Profile, bodyHTML string) []string {
	x, err := New(p)
	if err != nil {
		return nil
	}
	return x.Segments(bodyHTML)
}

// Lines returns the non-empty lines of a PM body (every line is a command),
// with quotes, spoilers, code and struck text removed as in Segments, so a
// quoted earlier message in a reply never counts.
func Lines(p forum.Profile, pmBodyHTML string) []string {
	x, err := New(p)
	if err != nil {
		return nil
	}
	return x.Lines(pmBodyHTML)
}

// Segments is the package function with a compiled profile.
func (x *Parser) Segments(bodyHTML string) []string {
	return x.walkBody(bodyHTML, false)
}

// Lines is the package function with a compiled profile.
func (x *Parser) Lines(pmBodyHTML string) []string {
	return x.walkBody(pmBodyHTML, true)
}

// StripQuoted returns the visible text of a body outside quotes, one line
// per <br> or block, for searches that must ignore quoted material (the
// bot's markers in someone else's quote of its post).
func (x *Parser) StripQuoted(bodyHTML string) []string {
	w := &walker{x: x, all: true, onlyQuotes: true}
	return w.run(bodyHTML)
}

func (x *Parser) walkBody(body string, all bool) []string {
	if forum.IsUnreadable(body) {
		return nil // its reason is for the GM, not a command
	}
	w := &walker{x: x, all: all}
	return w.run(body)
}

type walker struct {
	x          *Parser
	all        bool // every text counts (PM lines), not only bold
	onlyQuotes bool // strip quotes only (marker search)
	memo       bodyMemo
	// mask is the text of the text nodes an edit notice written as text
	// (selectors.edit_notice_regexp) overlaps, the notice blanked out.
	mask map[*html.Node]string
	cur  strings.Builder
	out  []string
}

func (w *walker) run(body string) []string {
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		return nil
	}
	w.memo = w.x.newMemo()
	for _, n := range doc.Nodes {
		w.mask = w.x.editMask(n, w.mask)
	}
	for _, n := range doc.Nodes {
		w.walk(n, w.all)
	}
	w.flush()
	return w.out
}

func (w *walker) flush() {
	t := w.cur.String()
	if re := w.x.reEditText; re != nil {
		// What the notice's removal left may read as one again.
		for re.MatchString(t) {
			t = re.ReplaceAllString(t, " ")
		}
	}
	if s := collapse(t); s != "" {
		w.out = append(w.out, s)
	}
	w.cur.Reset()
}

func (w *walker) walk(n *html.Node, inBold bool) {
	switch n.Type {
	case html.TextNode:
		if inBold {
			if m, ok := w.mask[n]; ok {
				w.cur.WriteString(m)
			} else {
				w.cur.WriteString(n.Data)
			}
		}
		return
	case html.DocumentNode:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c, inBold)
		}
		return
	case html.ElementNode:
	default:
		return // comments, doctypes
	}
	if n.Data == "script" || n.Data == "style" {
		return
	}
	k := w.kind(n)
	switch {
	case k&kindQuote != 0, !w.onlyQuotes && k&kindHidden != 0:
		w.flush() // hidden material separates what is around it
		return
	case !w.onlyQuotes && k&kindStrike != 0:
		return // struck text vanishes, the run goes on
	case n.Data == "br":
		w.flush()
		return
	}
	block := blockElems[n.Data]
	if block {
		w.flush()
	}
	b := inBold || k&kindBold != 0
	outer := b && !inBold
	if outer {
		w.flush()
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c, b)
	}
	if outer || block {
		w.flush()
	}
}

// kind is what an element is to the walker, from the memo when there is one.
func (w *walker) kind(n *html.Node) bodyKind {
	x := w.x
	if w.memo == nil {
		return x.kindOf(n)
	}
	key := memoKey{tag: n.Data}
	for i, k := range x.memoKeys {
		if v, ok := attrOf(n, k); ok {
			key.val[i], key.has = v, key.has|1<<i
		}
	}
	if k, ok := w.memo[key]; ok {
		return k
	}
	k := x.kindOf(n)
	w.memo[key] = k
	return k
}

func (x *Parser) kindOf(n *html.Node) bodyKind {
	var k bodyKind
	if x.quote.Match(n) {
		k |= kindQuote
	}
	if x.spoiler.Match(n) || x.code.Match(n) {
		k |= kindHidden
	}
	if x.strike.Match(n) {
		k |= kindStrike
	}
	if x.bold.Match(n) {
		k |= kindBold
	}
	return k
}

// newMemo is a memo for one page's or body's walk (nil: the profile's
// body selectors cannot have one).
func (x *Parser) newMemo() bodyMemo {
	if !x.memoOK {
		return nil
	}
	return bodyMemo{}
}

var blockElems = map[string]bool{
	"address": true, "article": true, "aside": true, "blockquote": true, "dd": true, "details": true,
	"div": true, "dl": true, "dt": true, "fieldset": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "header": true, "hr": true,
	"li": true, "main": true, "nav": true, "ol": true, "p": true, "pre": true, "section": true,
	"summary": true, "table": true, "tbody": true, "td": true, "th": true, "thead": true, "tr": true,
	"ul": true, "body": true, "html": true,
}

// textLines is the text of nodes with <br> and block boundaries as "\n"
// (goquery's Text() joins across <br> with nothing).
func textLines(nodes ...*html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			return
		case html.ElementNode:
			if n.Data == "br" {
				b.WriteByte('\n')
				return
			}
			if n.Data == "script" || n.Data == "style" {
				return
			}
		}
		block := n.Type == html.ElementNode && blockElems[n.Data]
		if block {
			b.WriteByte('\n')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
		if block {
			b.WriteByte('\n')
		}
	}
	for _, n := range nodes {
		rec(n)
	}
	return b.String()
}

// editMask adds to mask (made when nil and needed) the text nodes under
// root that an edit notice written as text overlaps, with the notice's
// characters blanked: a notice is never part of a command, even where the
// board writes it inside a bold run or across a link. The notice is found
// in the text of the whole body, so it may span nodes.
func (x *Parser) editMask(root *html.Node, mask map[*html.Node]string) map[*html.Node]string {
	if x.reEditText == nil || root == nil {
		return mask
	}
	var texts []*html.Node
	var all strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			texts = append(texts, n)
			all.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(root)
	hits := x.reEditText.FindAllStringIndex(all.String(), -1)
	if len(hits) == 0 {
		return mask
	}
	if mask == nil {
		mask = map[*html.Node]string{}
	}
	at, h := 0, 0 // h: the first hit not wholly before the text node
	for _, t := range texts {
		start := at
		at += len(t.Data)
		for h < len(hits) && hits[h][1] <= start {
			h++
		}
		if h == len(hits) || hits[h][0] >= at {
			continue // no notice in this node
		}
		var b strings.Builder
		i, k := 0, h
		for i < len(t.Data) {
			for k < len(hits) && hits[k][1] <= start+i {
				k++
			}
			if k < len(hits) && hits[k][0] <= start+i {
				// Inside a notice: one space for the rest of it here.
				b.WriteByte(' ')
				i = min(hits[k][1]-start, len(t.Data))
				continue
			}
			next := len(t.Data)
			if k < len(hits) {
				next = min(next, hits[k][0]-start)
			}
			b.WriteString(t.Data[i:next])
			i = next
		}
		mask[t] = b.String()
	}
	return mask
}
