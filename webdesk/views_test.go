package webdesk

import (
	"bytes"
	"context"
	"encoding/xml"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
)

// readable is what a person reads on a page: its text and the text of
// its alt, title, aria-label and placeholder attributes, leaving out the
// posts (players' own words) and <code> (literal names a GM types, such
// as public_url).
func readable(t *testing.T, page string) []string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	doc.Find(".post, code, script, style, .body").Remove()
	var out []string
	doc.Find("body *").Each(func(_ int, s *goquery.Selection) {
		for _, a := range []string{"alt", "title", "aria-label", "placeholder"} {
			if v, ok := s.Attr(a); ok {
				out = append(out, v)
			}
		}
		for _, n := range s.Nodes {
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				if c.Type == 1 { // a text node
					if txt := strings.TrimSpace(c.Data); txt != "" {
						out = append(out, txt)
					}
				}
			}
		}
	})
	return out
}

// checkView checks a game's page as a person reads it: every word, no
// field name or Go value; its drawings load as SVG; the GM's sections
// only on the GM's page.
func checkView(t *testing.T, r *rig, path string, gm bool, want ...string) string {
	t.Helper()
	c := r
	if !gm {
		c = newRigClient(r) // a player: no session
	}
	resp, body := c.get(t, path)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", path, resp.Status)
	}
	for _, s := range readable(t, body) {
		if raw := gametest.Raw(s); raw != "" {
			t.Errorf("%s: a person reads %q, which holds %q", path, s, raw)
		}
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	if doc.Find("section.view").Length() == 0 {
		t.Errorf("%s shows none of the game's views", path)
	}
	if n := doc.Find("section.view.gm").Length(); gm != (n > 0) {
		t.Errorf("%s: %d GM sections, GM %v", path, n, gm)
	}
	for _, w := range want {
		if !strings.Contains(doc.Find("main").Text(), w) {
			t.Errorf("%s lacks %q", path, w)
		}
	}
	doc.Find("main img").Each(func(_ int, s *goquery.Selection) {
		src, _ := s.Attr("src")
		if alt, _ := s.Attr("alt"); strings.TrimSpace(alt) == "" {
			t.Errorf("%s: the picture %s has no alt text", path, src)
		}
		if !strings.Contains(src, "/drawing/") {
			return
		}
		resp, svg := c.get(t, src)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Errorf("%s: drawing %s: %s %s", path, src, resp.Status, resp.Header.Get("Content-Type"))
			return
		}
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("drawing %s is served without its CSP", src)
		}
		d := xml.NewDecoder(strings.NewReader(svg))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Errorf("drawing %s is not well-formed: %v", src, err)
				break
			}
		}
	})
	return body
}

// TestDeskViews: each game's public page and GM view, during a game and
// at its end, played on the local forum: the game's own views (no raw
// field or value anywhere a person reads), its drawings served, the GM's
// sections only on the GM's page, and a GM drawing never through the
// public page. With Chromium, the same pages in the browser too
// (viewsInBrowser: drawings, contrast, a phone's width, the keyboard).
func TestDeskViews(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays three games on the local forum")
	}
	want := map[string][2][]string{
		"resistance": {{"Missions", "Proposals and votes", "Leader order"}, {"Roles (GM only)", "Received for this proposal"}},
		"protest":    {{"Standings", "Revealed sites", "Protests"}, {"Hidden sites (GM only)", "Scans and silent protests"}},
		"nations":    {{"Scoreboard", "Victory points by round", "Rounds"}, {"Orders received (GM only)"}},
	}
	for _, kind := range []string{"resistance", "protest", "nations"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel() // each on its own board; they mostly wait on the moderator's reads
			b := maybeBrowser(t, 8*time.Minute)
			p := playGame(t, kind, 2)
			r := newRig(t, p, p.Name)
			for _, when := range []string{"during", "end"} {
				if when == "end" {
					p.play(t, 5, true)
					r.now = time.Now() // the desk's clock, for what was published since
					if !r.report(t).Rules.Finished {
						t.Fatal("the game did not finish")
					}
				}
				r.login(t)
				pub := checkView(t, r, "/p/"+p.Name, false, want[kind][0]...)
				gmPage := checkView(t, r, "/game/"+p.Name+"/state", true, append(want[kind][0], want[kind][1]...)...)
				if strings.Contains(pub, "GM only") {
					t.Errorf("%s: the public page says GM only", when)
				}
				// A GM drawing is not served to players, under any name.
				for _, m := range regexp.MustCompile(`/game/[^/"]+/drawing/([0-9a-f]+\.svg)`).FindAllStringSubmatch(gmPage, -1) {
					if resp, _ := newRigClient(r).get(t, "/p/"+p.Name+"/drawing/"+m[1]); resp.StatusCode != http.StatusNotFound && !strings.Contains(pub, m[1]) {
						t.Errorf("%s: the GM's drawing %s is served through the public page: %s", when, m[1], resp.Status)
					}
				}
				if b != nil {
					viewsInBrowser(t, b, r, kind, when)
				}
			}
		})
	}
}

// TestDrawingAfterRestart: a drawing a page showed is served again by a
// desk that did not draw it (restarted), and a name that is none is 404.
func TestDrawingAfterRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	p := playGame(t, "nations", 1)
	r := newRig(t, p, p.Name)
	_, body := newRigClient(r).get(t, "/p/"+p.Name)
	m := regexp.MustCompile(`src="(/p/[^"]+/drawing/[^"]+)"`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the public page shows no drawing")
	}
	r2 := newRig(t, p, p.Name)
	if resp, _ := newRigClient(r2).get(t, m[1]); resp.StatusCode != http.StatusOK {
		t.Errorf("a new desk does not serve %s: %s", m[1], resp.Status)
	}
	if resp, _ := newRigClient(r2).get(t, "/p/"+p.Name+"/drawing/0123456789abcdef01234567.svg"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a drawing that is none: %s", resp.Status)
	}
}

// TestRefreshHeaders: a page that refreshes itself carries an ETag (in
// its header and in the page for the script), a refresh with it is
// answered 304 while nothing changes and 200 once something does, and a
// refresh never takes the flash message meant for the page the GM sees.
// The CSP lets the script read the page again and nothing more.
func TestRefreshHeaders(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	p := playGame(t, "resistance", 1)
	r := newRig(t, p, p.Name)
	csrf := r.login(t)
	poll := func(c *rig, path, tag string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", c.srv.URL+path, nil)
		req.Header.Set(pollHeader, "1")
		if tag != "" {
			req.Header.Set("If-None-Match", tag)
		}
		resp, err := c.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, path := range []string{"/p/" + p.Name, "/game/" + p.Name, "/game/" + p.Name + "/state", "/"} {
		c := r
		if strings.HasPrefix(path, "/p/") {
			c = newRigClient(r)
		}
		resp, body := c.get(t, path)
		tag := resp.Header.Get("ETag")
		if tag == "" || !strings.Contains(body, `data-etag="`+template.HTMLEscapeString(tag)+`"`) {
			t.Fatalf("%s: ETag %q, and the page does not carry it", path, tag)
		}
		if !strings.Contains(resp.Header.Get("Content-Security-Policy"), "connect-src 'self'") || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'none'") {
			t.Errorf("%s: CSP %q", path, resp.Header.Get("Content-Security-Policy"))
		}
		// The clock moves: the countdown changes, the page does not.
		r.now = r.now.Add(3 * time.Second)
		if resp := poll(c, path, tag); resp.StatusCode != http.StatusNotModified {
			t.Errorf("%s: a refresh with the page's ETag while nothing changed: %s", path, resp.Status)
		}
	}
	tag := poll(r, "/game/"+p.Name, "").Header.Get("ETag")
	if _, err := p.M.Extend(context.Background(), p.Name, time.Hour); err != nil {
		t.Fatal(err)
	}
	if resp := poll(r, "/game/"+p.Name, tag); resp.StatusCode != http.StatusOK {
		t.Errorf("a refresh after the deadline moved: %s, want the new page", resp.Status)
	}
	// A control's outcome is shown on the next page the GM opens, not
	// taken by a refresh in between.
	r.post(t, "/game/"+p.Name+"/do/pause", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
	if resp := poll(r, "/game/"+p.Name, ""); resp.StatusCode != http.StatusOK {
		t.Fatal(resp.Status)
	}
	if _, body := r.get(t, "/game/"+p.Name); !strings.Contains(body, "Paused.") {
		t.Error("a refresh took the flash message before the GM saw it")
	}
	if st := r.report(t).Status; st != moderator.Paused {
		t.Errorf("status %s", st)
	}
	// A session that ended: the refresh is sent to the login, not served.
	anon := newRigClient(r)
	if resp := poll(anon, "/game/"+p.Name, ""); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a refresh without a session: %s", resp.Status)
	}
}

// TestSafeSVG: a drawing goes into a page only as shapes and text; script,
// events, links, styles and foreign content are refused, text escaped.
func TestSafeSVG(t *testing.T) {
	good := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="10"><title>a &lt;b&gt;</title><g class="hex" data-hex="A1"><rect x="0" y="0" width="5" height="5" fill="#fff"/><text x="1" y="1" transform="translate(1,2)">Bob &amp; "Ann"</text></g></svg>`
	out, err := safeSVG([]byte(good))
	if err != nil {
		t.Fatalf("a plain drawing refused: %v", err)
	}
	if strings.Contains(string(out), "<b>") || !strings.Contains(string(out), "&lt;b&gt;") || !strings.Contains(string(out), "Bob &amp; &#34;Ann&#34;") {
		t.Errorf("text not escaped: %s", out)
	}
	for _, bad := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><a href="https://evil.example/"><text>x</text></a></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect style="fill:red"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect fill="url(https://evil.example/x)"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div>x</div></foreignObject></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><image href="x.png"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"><use xlink:href="#a"/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect fill="javascript:alert(1)"/></svg>`,
		`<html><svg/></html>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><svg/></svg>`,
		`<svg xmlns="http://www.w3.org/2000/svg"><rect>`,
		``,
	} {
		if out, err := safeSVG([]byte(bad)); err == nil {
			t.Errorf("%s let through as %s", bad, out)
		}
	}
	// Every game's own drawings pass.
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		pr, ok := g.(rules.Presenter)
		if !ok {
			continue
		}
		st, _, err := g.Setup(demoCfg(t, g))
		if err != nil {
			t.Fatal(err)
		}
		for _, gm := range []bool{false, true} {
			for _, s := range pr.Present(st, rules.Viewing{GM: gm}) {
				for _, p := range s.Pictures {
					if _, err := safeSVG(p.Data); err != nil {
						t.Errorf("%s's drawing in %q refused: %v", name, s.Title, err)
					}
				}
			}
		}
	}
}

func demoCfg(t *testing.T, g rules.Game) rules.Config {
	tb := g.(rules.Demo).DemoTable(1)
	return rules.Config{Players: tb.Players, Options: tb.Options, Setup: tb.Setup, Seed: 1, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

// TestNamesIsolated: every player name the pages write is in its own
// <bdi>, so that a right-to-left override in one cannot turn the text
// after it around (the browser test sees it drawn so).
func TestNamesIsolated(t *testing.T) {
	evil := "Bob\u202eevil"
	d, err := New(Config{Moderator: &moderator.Moderator{}, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	err = d.tmpl["public"].Execute(&buf, page{Title: "t", Data: bidiPage(evil)})
	if err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	n := strings.Count(html, evil)
	isolated := len(regexp.MustCompile(`<bdi>`+regexp.QuoteMeta(evil)+`</bdi>`).FindAllString(html, -1))
	if n < 4 || isolated != n {
		t.Errorf("the name is written %d times, %d of them in a <bdi> of its own:\n%s", n, isolated, html)
	}
	if got := string(who([]string{evil, "<Ann>"})); got != "<bdi>Bob\u202eevil</bdi>, <bdi>&lt;Ann&gt;</bdi>" {
		t.Errorf("who = %q", got)
	}
}

// bidiPage is a public page whose players include name: in the head's
// lists and in a view's facts, table head and cells.
func bidiPage(name string) publicPage {
	rep := moderator.GameReport{Name: "bidi", Game: "resistance", Status: "running",
		Rules: rules.Status{Title: "Mission 1, proposal 1", Acted: []string{name, "Ann"}, Waiting: []string{"Cat", name}}}
	sec := rules.Section{Title: "Proposals",
		Facts:  []rules.Fact{{Label: "Leader", Value: rules.Who(name)}},
		Tables: []rules.Table{{Caption: "Votes", Head: []rules.Cell{rules.Text("Proposal"), rules.Who(name)}, RowHeads: true, Rows: []rules.Row{{Cells: []rules.Cell{rules.Who(name, "Ann"), rules.Text("✓")}}}}}}
	return publicPage{R: rep, Drawn: true, Views: []viewSection{{Section: sec}}, Now: time.Now()}
}
