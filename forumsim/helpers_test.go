package forumsim

import (
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/internal/htmlcheck"
)

var t0 = time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)

// board is a test forum: a fake clock, a server on httptest, and fixtures.
type board struct {
	t     *testing.T
	s     *Server
	clk   *clock.Fake
	ts    *httptest.Server
	forum int
	topic int
	ids   map[string]int
}

func newBoard(t *testing.T, opt Options) *board {
	t.Helper()
	clk := clock.NewFake(t0)
	opt.Clock = clk
	s := New(opt)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	b := &board{t: t, s: s, clk: clk, ts: ts, ids: map[string]int{}}
	for _, u := range []struct {
		name   string
		exempt bool
	}{{"Alice", false}, {"Bob", false}, {"GM Bot", false}, {"Staff", true}} {
		id, err := s.AddUser(u.name, strings.ToLower(strings.ReplaceAll(u.name, " ", ""))+"-pw", u.exempt)
		if err != nil {
			t.Fatal(err)
		}
		b.ids[u.name] = id
	}
	b.forum = s.AddForum("Games", "Forum games")
	return b
}

// thread makes a topic with n posts alternating Alice and Bob, a minute apart.
func (b *board) thread(n int) int {
	b.t.Helper()
	tid, _, err := b.s.AddTopic(b.forum, b.ids["Alice"], "Game 1", "Post 1 [b]vote Bob[/b]")
	if err != nil {
		b.t.Fatal(err)
	}
	for i := 2; i <= n; i++ {
		b.clk.Advance(time.Minute)
		who := "Alice"
		if i%2 == 0 {
			who = "Bob"
		}
		if _, err := b.s.Post(tid, b.ids[who], fmt.Sprintf("Post %d", i)); err != nil {
			b.t.Fatal(err)
		}
	}
	b.topic = tid
	return tid
}

// client is a browser: a cookie jar and no automatic redirects.
type client struct {
	b  *board
	hc *http.Client
}

func (b *board) client() *client {
	jar, _ := cookiejar.New(nil)
	return &client{b: b, hc: &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}}
}

type page struct {
	status int
	loc    string
	body   string
	doc    *html.Node
	url    string
}

func (c *client) do(req *http.Request) page {
	c.b.t.Helper()
	resp, err := c.hc.Do(req)
	if err != nil {
		c.b.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	doc, err := html.Parse(strings.NewReader(string(data)))
	if err != nil {
		c.b.t.Fatal(err)
	}
	if err := htmlcheck.WellNested(string(data)); err != nil {
		c.b.t.Errorf("%s %s: %v", req.Method, req.URL, err)
	}
	return page{status: resp.StatusCode, loc: resp.Header.Get("Location"), body: string(data), doc: doc, url: req.URL.String()}
}

func (c *client) get(rel string) page {
	c.b.t.Helper()
	req, _ := http.NewRequest("GET", c.b.ts.URL+"/"+strings.TrimPrefix(rel, "./"), nil)
	return c.do(req)
}

func (c *client) post(abs string, v url.Values) page {
	c.b.t.Helper()
	req, _ := http.NewRequest("POST", abs, strings.NewReader(v.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

// form reads a form by id: its absolute action and the fields a browser
// would send (no submit buttons).
func (p page) form(t *testing.T, id string) (string, url.Values) {
	t.Helper()
	f := byID(p.doc, id)
	if f == nil {
		t.Fatalf("no form#%s on %s:\n%s", id, p.url, p.body)
	}
	base, _ := url.Parse(p.url)
	act, _ := url.Parse(attr(f, "action"))
	v := url.Values{}
	for _, n := range findAll(f, func(n *html.Node) bool { return n.Data == "input" || n.Data == "textarea" }) {
		name := attr(n, "name")
		if name == "" {
			continue
		}
		if n.Data == "textarea" {
			v.Add(name, text(n))
			continue
		}
		switch attr(n, "type") {
		case "submit", "checkbox":
			continue
		}
		v.Add(name, attr(n, "value"))
	}
	return base.ResolveReference(act).String(), v
}

// login logs c in through the form, waiting the second phpBB requires.
func (c *client) login(name string) {
	c.b.t.Helper()
	p := c.get("ucp.php?mode=login")
	act, v := p.form(c.b.t, "login")
	v.Set("username", name)
	v.Set("password", strings.ToLower(strings.ReplaceAll(name, " ", ""))+"-pw")
	v.Set("login", "Login")
	c.b.clk.Advance(time.Second)
	r := c.post(act, v)
	if r.status != http.StatusFound {
		c.b.t.Fatalf("login %s: status %d\n%s", name, r.status, r.body)
	}
}

// ---- tiny DOM helpers (no goquery here: that belongs to the parser) ----

func attr(n *html.Node, k string) string {
	for _, a := range n.Attr {
		if a.Key == k {
			return a.Val
		}
	}
	return ""
}

func hasClass(n *html.Node, c string) bool {
	for _, x := range strings.Fields(attr(n, "class")) {
		if x == c {
			return true
		}
	}
	return false
}

func findAll(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && pred(c) {
				out = append(out, c)
			}
			walk(c)
		}
	}
	walk(n)
	return out
}

// sel finds elements by tag ("" any) and classes.
func sel(n *html.Node, tag string, classes ...string) []*html.Node {
	return findAll(n, func(x *html.Node) bool {
		if tag != "" && x.Data != tag {
			return false
		}
		for _, c := range classes {
			if !hasClass(x, c) {
				return false
			}
		}
		return true
	})
}

func byID(n *html.Node, id string) *html.Node {
	if m := findAll(n, func(x *html.Node) bool { return attr(x, "id") == id }); len(m) > 0 {
		return m[0]
	}
	return nil
}

func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		if n.Type == html.ElementNode && n.Data == "br" {
			b.WriteString("\n")
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func innerHTML(n *html.Node) string {
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		_ = html.Render(&b, c)
	}
	return b.String()
}

func inside(n *html.Node, tag, class string) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && (tag == "" || p.Data == tag) && (class == "" || hasClass(p, class)) {
			return true
		}
	}
	return false
}

func loggedIn(p page) bool {
	return len(sel(p.doc, "div", "header-profile")) > 0 &&
		len(findAll(p.doc, func(n *html.Node) bool { return strings.Contains(attr(n, "href"), "mode=logout") })) > 0
}

func errorText(p page) string {
	var parts []string
	for _, n := range findAll(p.doc, func(n *html.Node) bool {
		return (n.Data == "p" || n.Data == "div") && hasClass(n, "error")
	}) {
		parts = append(parts, strings.TrimSpace(text(n)))
	}
	return strings.Join(parts, " | ")
}
