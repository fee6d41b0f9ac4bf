package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// quickCases are selectors whose quick check must never turn away an
// element cascadia matches: every built-in profile's, and the shapes a
// profile file may use (combinators, pseudo-classes, escapes, !=, *).
func quickCases() []string {
	var out []string
	for _, name := range forum.BuiltinNames() {
		p, _ := forum.Builtin(name)
		v := reflect.ValueOf(p.Selectors)
		for i := 0; i < v.NumField(); i++ {
			if s, ok := v.Field(i).Interface().(string); ok && s != "" && v.Type().Field(i).Name != "PostIDRegexp" {
				if _, err := cascadia.ParseGroup(s); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return append(out,
		`*`, `*.content`, `div > .inner`, `.post + .post`, `h3 ~ div`, `a[href]`, `a[href!="#"]`, `[class~="text-strong"]`,
		`a[href^="./memberlist"]`, `time[datetime$="00:00"]`, `span[style*="LINE-THROUGH" i]`, `div:not(.notice)`,
		`li:first-child`, `dd:nth-child(2)`, `div:has(cite)`, `.bbcode\-b`, `div.header\-profile`, `#page-footer`,
		`strong:contains("vote")`, `p.author strong, time`, `div.postbody div.content`, `DIV.Content`,
	)
}

func quickPages(t *testing.T) []*html.Node {
	t.Helper()
	var docs []*html.Node
	for _, f := range []string{"phpbb30_thread.html", "phpbb33_thread.html", "mybb_thread.html", "mybb_inbox.html", "mybb_pm.html",
		"phpbb_inbox.html", "phpbb_pm.html", "real/phpbb3310_thread_p1.html", "real/smf214_thread_p1.html",
		"real/smf214_pm_inbox.html", "real/mybb1837_closed.html", "bench/phpbb3310_thread_dense.html",
		"real/phpbb3310_viewforum.html", "real/mybb1837_forumdisplay.html", "real/smf214_messageindex.html"} {
		b, err := os.ReadFile(filepath.Join("testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := Doc(b)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, doc.Nodes[0])
	}
	return docs
}

func eachElement(n *html.Node, f func(*html.Node)) {
	if n.Type == html.ElementNode {
		f(n)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		eachElement(c, f)
	}
}

// TestQuickMatchIsCascadias: on every element of the saved pages, the
// quick matcher answers what cascadia's own match does, for every
// built-in selector and the shapes above.
func TestQuickMatchIsCascadias(t *testing.T) {
	docs := quickPages(t)
	for _, s := range quickCases() {
		q, err := compileQuick(s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		c := cascadia.MustCompile(s)
		matched := 0
		for _, d := range docs {
			eachElement(d, func(n *html.Node) {
				if got, want := q.Match(n), c.Match(n); got != want {
					t.Errorf("%q on <%s %v>: quick %v, cascadia %v", s, n.Data, n.Attr, got, want)
				} else if got {
					matched++
				}
			})
			if got, want := len(q.MatchAll(d)), len(c.MatchAll(d)); got != want {
				t.Errorf("%q: MatchAll %d, cascadia %d", s, got, want)
			}
		}
		if s == `strong:contains("vote")` && matched == 0 {
			t.Errorf("%q matched nothing: the pages do not test it", s)
		}
	}
}

// TestQuickNeeds: what an element must have to match, read from a
// selector, and whether the selector reads nothing but the element.
func TestQuickNeeds(t *testing.T) {
	for _, c := range []struct {
		sel   string
		want  need
		class []string
	}{
		{"strong", need{tag: "strong", local: true}, nil},
		{`span.bbcode\-b`, need{tag: "span", keys: []string{"class"}, refs: []string{"class"}, local: true}, []string{"bbcode-b"}},
		{`span[style*="font-weight: bold"]`, need{tag: "span", keys: []string{"style"}, refs: []string{"style"}, local: true}, nil},
		{`a[href!="#"]`, need{tag: "a", refs: []string{"href"}, local: true}, nil},
		{"p.author strong", need{tag: "strong"}, nil},
		{"div > .inner", need{keys: []string{"class"}, refs: []string{"class"}}, []string{"inner"}},
		{`tr:has(a[href*="action=read"])`, need{tag: "tr"}, nil},
		{"li:first-child", need{tag: "li"}, nil},
		{"*.content", need{keys: []string{"class"}, refs: []string{"class"}, local: true}, []string{"content"}},
		{`.a\31 b`, need{keys: []string{"class"}, refs: []string{"class"}, local: true}, []string{"a1b"}},
	} {
		g, err := cascadia.ParseGroup(c.sel)
		if err != nil {
			t.Fatal(err)
		}
		got := needs(g[0].String())
		want := c.want
		want.classes = c.class
		if !reflect.DeepEqual(got, want) {
			t.Errorf("needs(%q) = %+v, want %+v", g[0].String(), got, want)
		}
	}
}

// TestBodyMemoIsExact: with the memo, every element of the saved pages
// reads as it does without it (and the built-in profiles have one).
func TestBodyMemoIsExact(t *testing.T) {
	docs := quickPages(t)
	for _, name := range forum.BuiltinNames() {
		x := MustNew(mustProfile(t, name))
		if !x.memoOK {
			t.Errorf("%s: no body memo", name)
		}
		w := &walker{x: x, memo: x.newMemo()}
		for _, d := range docs {
			eachElement(d, func(n *html.Node) {
				if got, want := w.kind(n), x.kindOf(n); got != want {
					t.Errorf("%s: <%s %v> reads %b with the memo, %b without", name, n.Data, n.Attr, got, want)
				}
			})
		}
	}
	// A profile whose body selectors look beyond the element has none.
	p := mustProfile(t, "phpbb")
	p.Selectors.Bold = "div.content strong"
	if MustNew(p).memoOK {
		t.Error("a descendant selector kept the memo")
	}
}
