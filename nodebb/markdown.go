package nodebb

import (
	"regexp"
	"strings"

	"github.com/forumgm/forumgm/forum"
)

// Markdown turns the BBCode forumgm writes its posts and PMs in into the
// Markdown NodeBB renders: [b] → **, [i] → *, [s] → ~~, quotes → "> "
// lines, [code] → a fenced block, links and pictures as Markdown's; tags
// with no Markdown (size, colour, underline, spoiler) keep their text.
// Text outside code is escaped, so a player's name never turns into
// markup ("A_b_c", "*star*"). Single newlines stay line breaks (NodeBB
// renders them as <br>).
func Markdown(bb string) string {
	nodes := parseBB(bb)
	out := render(nodes)
	return strings.Trim(blankRuns.ReplaceAllString(out, "\n\n"), "\n")
}

var blankRuns = regexp.MustCompile(`\n{3,}`)

type node struct {
	tag  string // "" for text
	arg  string
	text string
	kids []*node
}

var tagRe = regexp.MustCompile(`(?i)\[(/?)(b|i|u|s|quote|code|url|img|size|color|spoiler|list|\*|hr)(?:=([^\]\n]*))?\]`)

// parseBB reads BBCode into a tree: a closing tag closes the innermost open
// tag of its name (those opened inside it are closed with it); a closing
// tag with none open is text. Inside [code] nothing is a tag but [/code].
func parseBB(s string) []*node {
	root := &node{tag: "root"}
	stack := []*node{root}
	top := func() *node { return stack[len(stack)-1] }
	addText := func(t string) {
		if t == "" {
			return
		}
		top().kids = append(top().kids, &node{text: t})
	}
	for s != "" {
		if top().tag == "code" {
			i := strings.Index(strings.ToLower(s), "[/code]")
			if i < 0 {
				addText(s)
				break
			}
			addText(s[:i])
			s = s[i+len("[/code]"):]
			stack = stack[:len(stack)-1]
			continue
		}
		m := tagRe.FindStringSubmatchIndex(s)
		if m == nil {
			addText(s)
			break
		}
		addText(s[:m[0]])
		closing := s[m[2]:m[3]] == "/"
		name := strings.ToLower(s[m[4]:m[5]])
		arg := ""
		if m[6] >= 0 {
			arg = s[m[6]:m[7]]
		}
		raw := s[m[0]:m[1]]
		s = s[m[1]:]
		switch {
		case name == "hr" && !closing:
			top().kids = append(top().kids, &node{tag: "hr"})
		case name == "*" && !closing:
			// A list item runs to the next item or the list's end.
			if top().tag == "*" {
				stack = stack[:len(stack)-1]
			}
			n := &node{tag: "*"}
			top().kids = append(top().kids, n)
			stack = append(stack, n)
		case name == "*" && closing:
			if top().tag == "*" {
				stack = stack[:len(stack)-1]
			}
		case closing:
			at := -1
			for i := len(stack) - 1; i > 0; i-- {
				if stack[i].tag == name {
					at = i
					break
				}
			}
			if at < 0 {
				addText(raw)
				continue
			}
			stack = stack[:at]
		case name == "hr":
		default:
			n := &node{tag: name, arg: arg}
			top().kids = append(top().kids, n)
			stack = append(stack, n)
		}
	}
	return root.kids
}

func render(ns []*node) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(renderNode(n))
	}
	return b.String()
}

// wrap puts a Markdown emphasis around inner, keeping the white space at
// its ends outside (Markdown ignores "** x**").
func wrap(mark, inner string) string {
	t := strings.TrimSpace(inner)
	if t == "" {
		return inner
	}
	lead := inner[:strings.Index(inner, t)]
	trail := inner[len(lead)+len(t):]
	return lead + mark + t + mark + trail
}

func renderNode(n *node) string {
	switch n.tag {
	case "":
		return escape(n.text)
	case "b":
		return wrap("**", render(n.kids))
	case "i":
		return wrap("*", render(n.kids))
	case "s":
		return wrap("~~", render(n.kids))
	case "hr":
		return "\n\n---\n\n"
	case "code":
		var b strings.Builder
		for _, k := range n.kids {
			b.WriteString(k.text)
		}
		body := strings.Trim(b.String(), "\n")
		fence := "```"
		for strings.Contains(body, fence) {
			fence += "`"
		}
		return "\n\n" + fence + "\n" + body + "\n" + fence + "\n\n"
	case "quote":
		inner := strings.Trim(render(n.kids), "\n")
		if who := strings.Trim(n.arg, `"' `); who != "" {
			inner = escape(who) + " wrote:\n\n" + inner
		}
		lines := strings.Split(inner, "\n")
		for i, l := range lines {
			lines[i] = strings.TrimRight("> "+l, " ")
		}
		return "\n\n" + strings.Join(lines, "\n") + "\n\n"
	case "url":
		text := render(n.kids)
		u := n.arg
		if u == "" {
			u = textOf(n.kids)
			return "<" + strings.TrimSpace(u) + ">"
		}
		return "[" + text + "](" + strings.TrimSpace(u) + ")"
	case "img":
		return "![](" + strings.TrimSpace(textOf(n.kids)) + ")"
	case "list":
		return "\n\n" + strings.Trim(render(n.kids), "\n") + "\n\n"
	case "*":
		return "\n- " + strings.TrimSpace(render(n.kids))
	default: // size, color, u, spoiler: their text
		return render(n.kids)
	}
}

func textOf(ns []*node) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.text)
		b.WriteString(textOf(n.kids))
	}
	return b.String()
}

// escaper escapes what Markdown reads as markup in text.
var escaper = strings.NewReplacer(`\`, `\\`, `*`, `\*`, `_`, `\_`, `~`, `\~`, "`", "\\`", `[`, `\[`, `]`, `\]`, `<`, `\<`, `>`, `\>`, `#`, `\#`, `|`, `\|`)

// lineStart is what opens a block at a line's start: a list item or an
// ordered one ("1. " is escaped as "1\. ").
var orderedItem = regexp.MustCompile(`(?m)^(\s*\d+)\.(\s)`)
var bulletItem = regexp.MustCompile(`(?m)^(\s*)([-+])(\s)`)

func escape(s string) string {
	s = escaper.Replace(s)
	s = orderedItem.ReplaceAllString(s, `$1\.$2`)
	return bulletItem.ReplaceAllString(s, `$1\$2$3`)
}

// markerLine is the marker line of key in Markdown: the plain marker, as it
// is where Markdown reads it so (so the board's own copy of the text holds
// the marker as sent), an underscore escaped only where it could open or
// close emphasis (not between two letters or digits).
func markerLine(key string) string {
	var b strings.Builder
	b.WriteString(forum.MarkerPrefix)
	for i := 0; i < len(key); i++ {
		ch := key[i]
		if ch == '_' && (i == 0 || i == len(key)-1 || !alnum(key[i-1]) || !alnum(key[i+1])) {
			b.WriteByte('\\')
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func alnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
