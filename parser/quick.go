package parser

import (
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// quickMatcher is a compiled selector group that tries each of its
// selectors only on elements that can match it: of its tag, and carrying
// every attribute it names (a class holding the word of .x, an id for #x,
// the key of [key…]). A thread page is matched against a dozen groups,
// element by element, most of them unions of several selectors
// (forum.BoldSelector has eight), and almost no element matches any; this
// check, a string compare and a look at a few attributes, turns most of
// them away before cascadia's full match. The answer is always cascadia's.
type quickMatcher struct {
	sels []quickSel
	// local: every selector of the group looks only at the element itself
	// (its tag and the attributes refs), never at its ancestors or
	// siblings, so two elements alike in those match alike (memo).
	local bool
	refs  []string
}

// quickSel is one selector of a group and what an element must have to
// match it (the selector's last compound: the element itself).
type quickSel struct {
	sel cascadia.Sel
	need
}

func compileQuick(s string) (*quickMatcher, error) {
	g, err := cascadia.ParseGroup(s)
	if err != nil {
		return nil, err
	}
	q := &quickMatcher{local: true}
	for _, sel := range g {
		nd := needs(sel.String())
		q.sels = append(q.sels, quickSel{sel: sel, need: nd})
		q.local = q.local && nd.local
		for _, k := range nd.refs {
			if !contains(q.refs, k) {
				q.refs = append(q.refs, k)
			}
		}
	}
	return q, nil
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (q *quickMatcher) Match(n *html.Node) bool {
	if n.Type != html.ElementNode {
		return false
	}
	for i := range q.sels {
		s := &q.sels[i]
		if s.tag != "" && s.tag != n.Data {
			continue
		}
		if !s.has(n) {
			continue
		}
		if s.sel.Match(n) {
			return true
		}
	}
	return false
}

// MatchAll and Filter are cascadia's, over this Match.
func (q *quickMatcher) MatchAll(n *html.Node) []*html.Node {
	return cascadia.Selector(q.Match).MatchAll(n)
}
func (q *quickMatcher) Filter(ns []*html.Node) []*html.Node {
	return cascadia.Selector(q.Match).Filter(ns)
}

// need is what an element must have to match one selector.
type need struct {
	tag     string   // "" any
	keys    []string // attributes it must carry
	classes []string // words its class attribute must hold (checked: contain)
	refs    []string // every attribute the selector reads
	local   bool     // the selector reads nothing but the element's tag and refs
}

func (nd *need) has(n *html.Node) bool {
	for _, k := range nd.keys {
		v, ok := attrOf(n, k)
		if !ok {
			return false
		}
		if k == "class" {
			for _, c := range nd.classes {
				if !strings.Contains(v, c) {
					return false
				}
			}
		}
	}
	return true
}

func attrOf(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// needs reads what an element must have to match a selector, from its
// serialisation (cascadia's String): the tag, attribute keys and class
// words of its last compound selector. What it is not sure of it leaves
// out (a weaker check, never a wrong one, and then the selector is not
// local): escaped tag names, pseudo-classes (only ever further
// conditions), [key!=v] (matches without the key too, so only read).
func needs(sel string) need {
	// The last compound: after the last combinator outside brackets,
	// parentheses and quotes.
	start, depth := 0, 0
	var quote byte
	for i := 0; i < len(sel); i++ {
		c := sel[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\\':
			i++ // an escaped character, part of a name
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '(':
			depth++
		case c == ']' || c == ')':
			depth--
		case depth == 0 && (c == ' ' || c == '>' || c == '+' || c == '~'):
			start = i + 1
		}
	}
	var nd need
	if depth != 0 || quote != 0 {
		return nd
	}
	c := sel[start:]
	i := identEnd(c, 0)
	if i > 0 {
		if strings.Contains(c[:i], `\`) {
			return nd // (an escaped tag name)
		}
		nd.tag = c[:i]
	} else if strings.HasPrefix(c, "*") {
		i = 1
	}
	for i < len(c) {
		switch c[i] {
		case '.', '#':
			j := identEnd(c, i+1)
			if j == i+1 {
				return nd
			}
			if c[i] == '.' {
				nd.require("class")
				if name, ok := unescape(c[i+1 : j]); ok {
					nd.classes = append(nd.classes, name)
				}
			} else {
				nd.require("id")
			}
			i = j
		case '[':
			j := identEnd(c, i+1)
			if j == i+1 || j >= len(c) || strings.Contains(c[i+1:j], `\`) {
				return nd
			}
			if c[j] == '!' {
				nd.read(c[i+1 : j])
			} else {
				nd.require(c[i+1 : j])
			}
			i = closing(c, i)
			if i < 0 {
				return nd
			}
		default:
			// A pseudo-class (":has(…)", ":first-child") or what this does
			// not know: the rest is left out.
			return nd
		}
	}
	nd.local = start == 0
	return nd
}

func (nd *need) require(key string) {
	if !contains(nd.keys, key) {
		nd.keys = append(nd.keys, key)
	}
	nd.read(key)
}

func (nd *need) read(key string) {
	if !contains(nd.refs, key) {
		nd.refs = append(nd.refs, key)
	}
}

// identEnd is where a CSS name starting at i ends (escapes included).
func identEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i += 2
			continue
		}
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			i++
			continue
		}
		break
	}
	return i
}

// closing is the index after the bracket closing the one at i (-1: none),
// quotes inside skipped.
func closing(s string, i int) int {
	var quote byte
	for j := i + 1; j < len(s); j++ {
		c := s[j]
		switch {
		case quote != 0:
			if c == '\\' {
				j++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ']':
			return j + 1
		}
	}
	return -1
}

// unescape undoes cascadia's escapes of a name ("bbcode\-b"): a backslash
// before a character that is not a hex digit (those are code points,
// which this does not read: ok is false).
func unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			if i >= len(s) || isHex(s[i]) {
				return "", false
			}
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// bodyMemo remembers how a page's body elements read (bodyKind), by what
// the body selectors look at: a page's thousands of elements come in a few
// dozen kinds (<strong class="text-strong">, <br>, <a class="postlink">),
// each matched against the five groups once. Used only when every body
// selector is local and reads at most three attributes (all built-in
// profiles: class and style).
type bodyMemo map[memoKey]bodyKind

type memoKey struct {
	tag string
	val [3]string
	has uint8
}

// bodyKind is what a body element is to the walker.
type bodyKind uint8

const (
	kindQuote bodyKind = 1 << iota
	kindHidden
	kindStrike
	kindBold
)

// bodyKinds prepares the memo's keys: the attributes the body selectors
// read; ok is false when a memo would not be exact.
func bodyKinds(ms ...*quickMatcher) (keys []string, ok bool) {
	for _, m := range ms {
		if !m.local {
			return nil, false
		}
		for _, k := range m.refs {
			if !contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	return keys, len(keys) <= 3
}
