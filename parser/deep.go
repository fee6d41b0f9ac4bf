package parser

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// Too deep to parse. x/net/html refuses a whole document once its stack of
// open elements passes 512 ("open stack of elements exceeds 512 nodes", a
// fixed limit in parse.go's insertOpenElement; ParseWithOptions has no
// option for it). One post of 5,000 nested [b] (35 KB, accepted by phpBB)
// or 3,900 nested quotes is enough, and the page with it would never read.
// So Doc parses a refused page again with every element nested deeper than
// keepDepth cut out by a tokenizer pass (the text stays), leaving a cut
// mark where it cut; the post or PM holding a cut mark is recorded as
// unreadable (forum.UnreadableBody) and the rest of the page reads as usual.

const (
	// keepDepth is where the cut starts: far below 512, far above any
	// real page's nesting (phpBB's post bodies sit about 15 deep).
	keepDepth = 256
	// minKeepDepth ends the retries: each retry halves the depth, for
	// markup whose tree the builder makes deeper than the tokens nest
	// (reopened formatting elements).
	minKeepDepth = 16
)

// cutAttr marks where flatten cut; its value is drawn per process, so no
// post can carry a mark of its own.
const cutAttr = "data-forumgm-cut"

var cutNonce = func() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}()

var cutMark = `<span ` + cutAttr + `="` + cutNonce + `"></span>`

// unreadableReason is what the GM reads in the audit log for such a post.
const unreadableReason = "forumgm could not read this message: its HTML is nested more than 512 levels deep " +
	"(e.g. thousands of nested [b] or quotes), more than the HTML parser takes. None of its commands were read; " +
	"the author can edit it (or post again) with less nesting."

// Doc parses a page; a page nested too deeply for the HTML parser is parsed
// with its too-deep parts cut out and marked (see above).
func Doc(page []byte) (*goquery.Document, error) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
	if err == nil {
		return doc, nil
	}
	for depth := keepDepth; depth >= minKeepDepth; depth /= 2 {
		if d, e := goquery.NewDocumentFromReader(bytes.NewReader(flatten(page, depth))); e == nil {
			return d, nil
		}
	}
	return nil, err
}

// wasCut tells a body that holds a cut mark.
func wasCut(bodyHTML string) bool { return strings.Contains(bodyHTML, cutNonce) }

// readableBody is a post's or PM's body as recorded: itself, or the
// unreadable stand-in when Doc had to cut inside it.
func readableBody(bodyHTML string) string {
	if wasCut(bodyHTML) {
		return forum.UnreadableBody(unreadableReason)
	}
	return bodyHTML
}

// voidElements never hold children, so they never deepen the tree.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// closesItself are elements a new one of the same name implicitly closes
// (<p>…<p>, <li>…<li>): without this a sloppy page would seem to deepen
// with every paragraph.
var closesItself = map[string]bool{"p": true, "li": true, "dt": true, "dd": true, "option": true, "tr": true, "td": true, "th": true}

// flatten re-emits page with every start and end tag nested deeper than
// limit left out (their text kept, escaped) and a cut mark where each cut
// region begins. Depth is counted on the tokens, which is close to but not
// exactly the tree the builder makes; Doc retries with a smaller limit.
func flatten(page []byte, limit int) []byte {
	type open struct {
		name    string
		dropped bool
	}
	var (
		out   bytes.Buffer
		stack []open
		kept  int
	)
	cutting := func() bool { return len(stack) > 0 && stack[len(stack)-1].dropped }
	z := html.NewTokenizer(bytes.NewReader(page))
	out.Grow(len(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break // io.EOF: a bytes reader fails no other way
		}
		raw := z.Raw()
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			b, _ := z.TagName()
			name := string(b)
			if voidElements[name] {
				if !cutting() {
					out.Write(raw)
				}
				continue
			}
			if n := len(stack); closesItself[name] && n > 0 && stack[n-1].name == name {
				if !stack[n-1].dropped {
					kept--
				}
				stack = stack[:n-1]
			}
			if kept >= limit || cutting() {
				if !cutting() {
					out.WriteString(cutMark)
				}
				stack = append(stack, open{name, true})
				continue
			}
			stack = append(stack, open{name: name})
			kept++
			out.Write(raw)
		case html.EndTagToken:
			b, _ := z.TagName()
			name := string(b)
			i := len(stack) - 1
			for i >= 0 && stack[i].name != name {
				i--
			}
			if i < 0 {
				if !cutting() {
					out.Write(raw) // a stray end tag: the builder ignores it
				}
				continue
			}
			dropped := stack[i].dropped
			for _, o := range stack[i:] {
				if !o.dropped {
					kept--
				}
			}
			stack = stack[:i]
			if !dropped {
				out.Write(raw)
			}
		case html.TextToken:
			if cutting() {
				// Escaped: the raw text of a cut <script> or <textarea>
				// must not turn into markup now that its tag is gone.
				out.WriteString(html.EscapeString(string(z.Text())))
				continue
			}
			out.Write(raw)
		default: // comments, doctype
			if !cutting() {
				out.Write(raw)
			}
		}
	}
	return out.Bytes()
}
