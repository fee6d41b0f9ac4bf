package bbcode

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/forumgm/forumgm/internal/htmlcheck"
)

const codeHead = `<div class="codebox"><p>Code: <a href="#" onclick="selectCode(this); return false;">Select all</a></p><pre><code>`

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, in, want string
		opt            Options
	}{
		{"plain", "hello", "hello", Options{}},
		{"escape", `<b>&"x'`, "&lt;b&gt;&amp;&#34;x&#39;", Options{}},
		{"newlines", "a\nb\r\nc", "a<br>b<br>c", Options{}},
		{"bold strong", "[b]vote X[/b]", `<strong class="text-strong">vote X</strong>`, Options{}},
		{"bold span", "[b]vote X[/b]", `<span style="font-weight: bold">vote X</span>`, Options{Bold: BoldSpan}},
		{"bold upper case", "[B]x[/B]", `<strong class="text-strong">x</strong>`, Options{}},
		{"italic", "[i]x[/i]", `<em class="text-italics">x</em>`, Options{}},
		{"underline", "[u]x[/u]", `<span style="text-decoration: underline">x</span>`, Options{}},
		{"strike", "[s][b]vote A[/b][/s]", `<span style="text-decoration: line-through"><strong class="text-strong">vote A</strong></span>`, Options{}},
		{"quote uncited", "[quote]x[/quote]", `<blockquote class="uncited"><div>x</div></blockquote>`, Options{}},
		{"quote name", "[quote=Bob]x[/quote]", `<blockquote><div><cite>Bob wrote:</cite>x</div></blockquote>`, Options{}},
		{"quote quoted name", `[quote="Bob Smith"]x[/quote]`, `<blockquote><div><cite>Bob Smith wrote:</cite>x</div></blockquote>`, Options{}},
		{"quote name with bracket", `[quote="a]b"]x[/quote]`, `<blockquote><div><cite>a]b wrote:</cite>x</div></blockquote>`, Options{}},
		{"quote extended attrs", `[quote="Bob" post_id=12 time=1700000000 user_id=3]x[/quote]`, `<blockquote><div><cite>Bob wrote:</cite>x</div></blockquote>`, Options{}},
		{"quote name escaped", `[quote="<i>"]x[/quote]`, `<blockquote><div><cite>&lt;i&gt; wrote:</cite>x</div></blockquote>`, Options{}},
		{"nested quotes", "[quote=A][quote=B][b]v[/b][/quote]me too[/quote]",
			`<blockquote><div><cite>A wrote:</cite><blockquote><div><cite>B wrote:</cite><strong class="text-strong">v</strong></div></blockquote>me too</div></blockquote>`, Options{}},
		{"quote newlines trimmed", "[quote]\nx\n[/quote]\nafter", `<blockquote class="uncited"><div>x</div></blockquote>after`, Options{}},
		{"spoiler", "[spoiler][b]kill A[/b][/spoiler]", `<div class="spoiler"><div class="spoiler-title">Spoiler</div><div class="spoiler-content"><strong class="text-strong">kill A</strong></div></div>`, Options{}},
		{"spoiler titled", "[spoiler=Ending]x[/spoiler]", `<div class="spoiler"><div class="spoiler-title">Ending</div><div class="spoiler-content">x</div></div>`, Options{}},
		{"code raw", "[code][b]x[/b] <a>\n  y[/code]", codeHead + "[b]x[/b] &lt;a&gt;\n  y</code></pre></div>", Options{}},
		{"code lang", "[code=php]x[/code]", codeHead + "x</code></pre></div>", Options{}},
		{"code unclosed", "[code]x", "[code]x", Options{}},
		{"url bare", "[url]http://e.com/?a=1&b=2[/url]", `<a href="http://e.com/?a=1&amp;b=2" class="postlink">http://e.com/?a=1&amp;b=2</a>`, Options{}},
		{"url arg", "[url=https://e.com][b]x[/b][/url]", `<a href="https://e.com" class="postlink"><strong class="text-strong">x</strong></a>`, Options{}},
		{"url www", "[url]www.e.com[/url]", `<a href="http://www.e.com" class="postlink">www.e.com</a>`, Options{}},
		{"url javascript", "[url=javascript:alert(1)]x[/url]", "[url=javascript:alert(1)]x[/url]", Options{}},
		{"url bare javascript", "[url]javascript:alert(1)[/url]", "[url]javascript:alert(1)[/url]", Options{}},
		{"url in url", "[url=http://a.example/]x [url]http://b.example/[/url][/url]", `<a href="http://a.example/" class="postlink">x [url]http://b.example/[/url]</a>`, Options{}},
		{"code in url", "[url=http://a.example/][code]k[/code][/url]", `<a href="http://a.example/" class="postlink">[code]k[/code]</a>`, Options{}},
		{"magic url", "see https://e.example/r?a=1&b=2. ok", `see <a href="https://e.example/r?a=1&amp;b=2" class="postlink">https://e.example/r?a=1&amp;b=2</a>. ok`, Options{}},
		{"magic www", "(www.e.example)", `(<a href="http://www.e.example" class="postlink">www.e.example</a>)`, Options{}},
		{"magic off", "https://e.example/", "https://e.example/", Options{NoAutolink: true}},
		{"magic not in code", "[code]http://e.example/[/code]", codeHead + "http://e.example/</code></pre></div>", Options{}},
		{"magic not in url", "[url=http://a.example/]http://b.example/[/url]", `<a href="http://a.example/" class="postlink">http://b.example/</a>`, Options{}},
		{"magic not javascript", "javascript://x", "javascript://x", Options{}},
		{"img", "[img]https://e.example/a.png[/img]", `<img src="https://e.example/a.png" class="postimage" alt="Image">`, Options{}},
		{"img bad", "[img]javascript:x[/img]", "[img]javascript:x[/img]", Options{}},
		{"img in url", "[url=http://a.example/][img]http://a.example/i.png[/img][/url]", `<a href="http://a.example/" class="postlink"><img src="http://a.example/i.png" class="postimage" alt="Image"></a>`, Options{}},
		{"color", "[color=#FF0000]r[/color][color=blue]b[/color]", `<span style="color: #FF0000">r</span><span style="color: blue">b</span>`, Options{}},
		{"color bad", `[color=red;x:"y]r[/color]`, "[color=red;x:&#34;y]r[/color]", Options{}},
		{"size", "[size=150]big[/size]", `<span style="font-size: 150%; line-height: normal">big</span>`, Options{}},
		{"size bad", "[size=9000]big[/size]", "[size=9000]big[/size]", Options{}},
		{"no img tag", "[img]http://a.example/i.png[/img]", `[img]<a href="http://a.example/i.png" class="postlink">http://a.example/i.png</a>[/img]`, Options{NoImg: true}},
		{"no size tag", "[size=85][b]small[/b][/size]", `[size=85]<strong class="text-strong">small</strong>[/size]`, Options{NoSize: true}},
		{"list", "[list]\n[*]one\n[*][b]two[/b]\n[/list]", `<ul><li>one</li><li><strong class="text-strong">two</strong></li></ul>`, Options{}},
		{"list ordered", "[list=1][*]a[*]b[/list]", `<ol style="list-style-type: decimal"><li>a</li><li>b</li></ol>`, Options{}},
		{"list item close", "[list][*]a[/*][*]b[/*][/list]", `<ul><li>a</li><li>b</li></ul>`, Options{}},
		{"item outside list", "[*]x", "[*]x", Options{}},
		{"unclosed", "[b]x", "[b]x", Options{}},
		{"stray close", "x[/b]", "x[/b]", Options{}},
		{"crossed", "[b]a[i]b[/b]c[/i]", `<strong class="text-strong">a[i]b</strong>c[/i]`, Options{}},
		{"unknown tag", "[foo]x[/foo]", "[foo]x[/foo]", Options{}},
		{"b with arg", "[b=1]x[/b]", "[b=1]x[/b]", Options{}},
		{"esc zero width space", "[\u200bb]x[\u200b/b]", "[\u200bb]x[\u200b/b]", Options{}},
		{"escaped name in quote", "[quote=\"[\u200b/quote]\"]x[/quote]", "<blockquote><div><cite>[\u200b/quote] wrote:</cite>x</div></blockquote>", Options{}},
		{"lone bracket", "a [ b ] [", "a [ b ] [", Options{}},
		{"mixed case close", "[b]x[/B]", `<strong class="text-strong">x</strong>`, Options{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(tc.in, tc.opt)
			if got != tc.want {
				t.Errorf("Render(%q)\n got %s\nwant %s", tc.in, got, tc.want)
			}
			if err := htmlcheck.WellNested(got); err != nil {
				t.Errorf("not well nested: %v", err)
			}
			if tok, dom := shapes(got); tok != dom {
				t.Errorf("browser builds %s, tokens say %s", dom, tok)
			}
		})
	}
}

func TestPlain(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"[b]vote X[/b] now", "vote X now"},
		{"[quote=A]x[/quote]y", "xy"},
		{"[code][b]k[/b][/code]", "[b]k[/b]"},
		{"[b]open", "[b]open"},
		{"[color=bad;]x[/color]", "[color=bad;]x[/color]"},
	}
	for _, tc := range tests {
		if got := Plain(tc.in); got != tc.want {
			t.Errorf("Plain(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestParseBoldStyle(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]BoldStyle{"strong": BoldStrong, "": BoldStrong, "SPAN": BoldSpan} {
		got, err := ParseBoldStyle(in)
		if err != nil || got != want {
			t.Errorf("ParseBoldStyle(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := ParseBoldStyle("b"); err == nil {
		t.Error("want error for unknown style")
	}
}

// shapes gives the element tree of h twice: as the tokens nest, and as an
// HTML5 parser builds it inside div.content. They differ when a browser
// would re-parent something (nested links, a <p> closed by a block).
func shapes(h string) (tokens, dom string) {
	var tb strings.Builder
	z := html.NewTokenizer(strings.NewReader(h))
	for z.Next() != html.ErrorToken {
		tok := z.Token()
		switch tok.Type {
		case html.StartTagToken:
			tb.WriteString(tok.Data)
			if htmlcheck.IsVoid(tok.Data) {
				tb.WriteString("()")
			} else {
				tb.WriteString("(")
			}
		case html.SelfClosingTagToken:
			tb.WriteString(tok.Data + "()")
		case html.EndTagToken:
			tb.WriteString(")")
		}
	}
	ctx := &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div}
	nodes, err := html.ParseFragment(strings.NewReader(h), ctx)
	if err != nil {
		return tb.String(), err.Error()
	}
	var db strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			db.WriteString(n.Data + "(")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode {
			db.WriteString(")")
		}
	}
	for _, n := range nodes {
		walk(n)
	}
	return tb.String(), db.String()
}

func TestShapesCatch(t *testing.T) {
	t.Parallel()
	if a, b := shapes(`<a href="x"><a href="y">z</a></a>`); a == b {
		t.Error("nested links not caught")
	}
	if a, b := shapes(`<strong class="text-strong">x<br></strong>`); a != b {
		t.Errorf("%s != %s", a, b)
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range []string{"[b]x[/b]", "[quote=\"a\"][spoiler]x[/spoiler][/quote]", "[list][*]a[*][b]b[/list][/b]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, opt := range []Options{{}, {Bold: BoldSpan}} {
			out := Render(s, opt)
			if err := htmlcheck.WellNested(out); err != nil {
				t.Fatalf("Render(%q) = %q: %v", s, out, err)
			}
			if tok, dom := shapes(out); tok != dom {
				t.Fatalf("Render(%q) = %q: a browser would build %s, tokens say %s", s, out, dom, tok)
			}
			// Everything a player typed is escaped: no raw tag from input.
			if strings.Contains(s, "<script") && strings.Contains(out, "<script") {
				t.Fatalf("unescaped input in %q", out)
			}
		}
		_ = Plain(s)
	})
}

// Pathological posts (phpBB allows 60,000 characters) must not go quadratic.
func TestLinearTime(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		strings.Repeat("[b]", 20000) + strings.Repeat("[/i]", 20000),
		strings.Repeat("[code]", 10000),
		strings.Repeat("[url]", 10000),
	} {
		start := time.Now()
		Render(s, Options{})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Render of %d bytes took %v", len(s), d)
		}
	}
}

// Random posts built from tag fragments: the same checks as the fuzz
// target, deterministic and run on every `go test`.
func TestRandomPosts(t *testing.T) {
	t.Parallel()
	frags := []string{"[b]", "[/b]", "[i]", "[/i]", "[u]", "[/u]", "[s]", "[/s]", "[quote]", "[/quote]",
		`[quote="A]b"]`, "[quote=X]", "[spoiler]", "[/spoiler]", "[code]", "[/code]", "[url]", "[/url]", "[img]", "[/img]",
		"[url=http://e.example/]", "[color=red]", "[/color]", "[size=150]", "[/size]", "[list]", "[list=1]",
		"[/list]", "[*]", "[/*]", "[\u200bb]", "x", "http://e.example/", "www.e.example", "vote A", "\n", "<", "&", "\"", "[", "]", "="}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		for n := r.IntN(30); n > 0; n-- {
			b.WriteString(frags[r.IntN(len(frags))])
		}
		in := b.String()
		out := Render(in, Options{})
		if err := htmlcheck.WellNested(out); err != nil {
			t.Fatalf("Render(%q) = %q: %v", in, out, err)
		}
		if tok, dom := shapes(out); tok != dom {
			t.Fatalf("Render(%q) = %q: browser builds %s, tokens %s", in, out, dom, tok)
		}
	}
}
