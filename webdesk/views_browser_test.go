package webdesk

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/webdesk/browsertest"
)

// browser is a Chromium for one test, with the checks the views tests
// share. Screenshots go to $FORUMGM_SCREENSHOTS when it is set (the
// pictures in docs/screenshots).
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

func newBrowser(t *testing.T, limit time.Duration) *browser {
	t.Helper()
	if testing.Short() {
		t.Skip("drives a browser")
	}
	if _, ok := browsertest.Path(); !ok && !browsertest.Required() {
		t.Skip("no Chromium on this machine (apt-get install chromium); browser tests skipped")
	}
	b := &browser{t: t, ctx: browsertest.Start(t, limit), shots: os.Getenv("FORUMGM_SCREENSHOTS")}
	if err := browsertest.Desktop(b.ctx); err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *browser) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	if err := chromedp.Do(b.ctx, steps...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](b *browser, js string) T {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		b.t.Fatalf("%s: %v", js, err)
	}
	return v
}

func (b *browser) shot(name string) {
	b.t.Helper()
	if b.shots == "" {
		return
	}
	if err := browsertest.Screenshot(b.ctx, filepath.Join(b.shots, name+".png")); err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
}

func (b *browser) shotOf(css, name string) {
	b.t.Helper()
	if b.shots == "" {
		return
	}
	if err := browsertest.ElementScreenshot(b.ctx, css, filepath.Join(b.shots, name+".png")); err != nil {
		b.t.Fatalf("screenshot %s of %s: %v", name, css, err)
	}
}

// open loads a page and waits for css in it.
func (b *browser) open(url, css string) {
	b.t.Helper()
	b.do("open "+url, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(css)))
}

// shownImages are the page's images not folded away in a closed
// <details> (those load when opened).
const shownImages = `Array.from(document.images).filter(i => !i.closest('details:not([open])'))`

// picturesLoaded: every image shown in the page has loaded.
func (b *browser) picturesLoaded(what string) {
	b.t.Helper()
	b.wait(shownImages+`.every(i => i.complete)`, 30*time.Second)
	if broken := eval[[]string](b, shownImages+`.filter(i => !(i.naturalWidth > 0)).map(i => i.src)`); len(broken) > 0 {
		b.t.Errorf("%s: pictures that do not load: %v", what, broken)
	}
}

// wait is waitFor with a bound of its own.
func (b *browser) wait(js string, limit time.Duration) {
	b.t.Helper()
	end := time.Now().Add(limit)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](js))
		if err == nil && ok {
			return
		}
		if time.Now().After(end) || b.ctx.Err() != nil {
			b.t.Fatalf("gave up after %v waiting for %s (%v)", limit, js, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// contrastJS lists the text whose colour is too close to its background
// (WCAG AA: 4.5 to 1, 3 to 1 for large text).
const contrastJS = `(() => {
  const parse = c => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const p = m[1].split(',').map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lin = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
  const lum = c => 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
  const bg = el => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c && c.a > 0.5) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const bad = [], seen = new Set();
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) {
    const t = w.currentNode, el = t.parentElement;
    if (!t.data.trim() || seen.has(el)) continue;
    seen.add(el);
    const cs = getComputedStyle(el), r = el.getBoundingClientRect();
    if (cs.visibility === 'hidden' || r.width <= 1 || r.height <= 1 || el.closest('.skip')) continue;
    const fg = parse(cs.color), b = bg(el);
    const ratio = (Math.max(lum(fg), lum(b)) + 0.05) / (Math.min(lum(fg), lum(b)) + 0.05);
    const size = parseFloat(cs.fontSize), large = size >= 24 || (parseInt(cs.fontWeight) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) bad.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ' "' + t.data.trim().slice(0, 30) + '": ' + ratio.toFixed(2));
  }
  return bad;
})()`

func (b *browser) contrast(what string) {
	b.t.Helper()
	if bad := eval[[]string](b, contrastJS); len(bad) > 0 {
		b.t.Errorf("%s: text too faint to read: %v", what, bad)
	}
}

// fitsThePhone: at a phone's width the page does not scroll sideways
// (a wide table scrolls in its own box).
func (b *browser) fitsThePhone(what string) {
	b.t.Helper()
	if w := eval[[]int](b, `[document.documentElement.scrollWidth, window.innerWidth]`); w[0] > w[1]+1 {
		b.t.Errorf("%s at a phone's width: the page is %d px wide in a %d px window", what, w[0], w[1])
	}
}

// keyboard tabs through the page: the skip link comes first and takes the
// focus to the page, every stop is on screen (or scrolled to) with a
// visible focus ring, and every form field has a label.
func (b *browser) keyboard(what string, stops int) {
	b.t.Helper()
	if unlabelled := eval[[]string](b, `Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea')).filter(e => !(e.labels && e.labels.length) && !e.getAttribute('aria-label')).map(e => e.name || e.id)`); len(unlabelled) > 0 {
		b.t.Errorf("%s: form fields without a label: %v", what, unlabelled)
	}
	b.do("focus the top", chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.scrollTo(0, 0)`))
	b.do("tab", chromedp.KeyEvent(kb.Tab))
	if first := eval[string](b, `document.activeElement.className + ' ' + document.activeElement.getAttribute('href')`); first != "skip #main" {
		b.t.Errorf("%s: the first tab stop is %q, want the skip link", what, first)
	}
	for i := 0; i < stops; i++ {
		if eval[bool](b, `document.activeElement === document.body`) {
			break // past the last stop
		}
		ring := eval[[]string](b, `(() => { const e = document.activeElement, cs = getComputedStyle(e), r = e.getBoundingClientRect();
		  return [e.tagName + ' ' + (e.id || e.textContent.trim().slice(0, 20)), cs.outlineStyle, String(r.width > 0 && r.height > 0)]; })()`)
		if ring[1] == "none" || ring[2] != "true" {
			b.t.Errorf("%s: tab stop %d (%s) has no visible focus ring (outline %s, shown %s)", what, i, ring[0], ring[1], ring[2])
		}
		b.do("tab", chromedp.KeyEvent(kb.Tab))
	}
}

// shotAt scrolls the element matching css to the top of the window and
// saves the window.
func (b *browser) shotAt(css, name string) {
	b.t.Helper()
	if b.shots == "" {
		return
	}
	b.do("scroll to "+css, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.querySelector(`+jsString(css)+`).getBoundingClientRect().top + window.scrollY - 8)`))
	b.shot(name)
	b.do("scroll back", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
}

// gameShots are the pictures taken of each game: [public, GM] sections to
// show at the top of the window, and single sections to save on their
// own, by name.
var gameShots = map[string]struct {
	public, gm string
	parts      map[string]string
}{
	"resistance": {"#view-missions", "#view-roles-gm-only", map[string]string{"resistance-grid": "#view-proposals-and-votes", "resistance-track": "#view-missions"}},
	"nations":    {"#view-scoreboard", "#view-orders-received-gm-only", map[string]string{"nations-chart": "#view-victory-points-by-round", "nations-rounds": "#view-rounds"}},
	"protest":    {"#view-map", "#view-map-with-the-hidden-sites-gm-only", map[string]string{"protest-scans-gm": "#view-scans-and-silent-protests-gm-only"}},
}

// maybeBrowser is a Chromium for a test that also has checks of its own
// without one: nil when there is none (and FORUMGM_REQUIRE_BROWSER is not
// set) or in -short.
func maybeBrowser(t *testing.T, limit time.Duration) *browser {
	t.Helper()
	if _, ok := browsertest.Path(); testing.Short() || (!ok && !browsertest.Required()) {
		t.Log("no Chromium: the pages are checked over HTTP only")
		return nil
	}
	return newBrowser(t, limit)
}

// viewsInBrowser checks a game's public page and GM view in Chromium
// (TestDeskViews, during the game and at its end): the drawings load,
// the text is dark enough to read, the page fits a phone's width, and the
// keyboard alone reaches every control with a visible focus; and takes
// the screenshots of each.
func viewsInBrowser(t *testing.T, b *browser, r *rig, kind, when string) {
	t.Helper()
	p := r.played
	sh := gameShots[kind]
	// The GM's view, with the GM's session.
	r.loginBrowser(t, b)
	b.open(r.srv.URL+"/game/"+p.Name+"/state", "section.view.gm")
	b.picturesLoaded(kind + " GM view")
	b.contrast(kind + " GM view")
	if when == "during" || kind == "protest" {
		b.shotAt(sh.gm, "gm-"+kind+"-"+when)
	}
	if kind == "protest" && when == "end" {
		b.shotAt(sh.parts["protest-scans-gm"], "protest-scans-gm")
	}
	// The public page, as a player opens it.
	b.open(r.srv.URL+"/p/"+p.Name, "section.view")
	b.picturesLoaded(kind + " public page")
	if body := eval[string](b, `document.body.innerText`); strings.Contains(body, "GM only") || strings.Contains(body, "Log out") {
		t.Errorf("%s public page (%s) shows GM parts", kind, when)
	}
	b.contrast(kind + " public page")
	if when == "during" {
		b.shot("public-" + kind + "-top")
	}
	b.shotAt(sh.public, "public-"+kind+"-"+when)
	for name, css := range sh.parts {
		if name != "protest-scans-gm" {
			b.shotOf(css, name+"-"+when)
		}
	}
	if when == "during" {
		b.keyboard(kind+" public page", 8)
		if err := browsertest.Phone(b.ctx); err != nil {
			t.Fatal(err)
		}
		b.open(r.srv.URL+"/p/"+p.Name, "section.view")
		b.fitsThePhone(kind + " public page")
		b.shotAt(sh.public, "public-"+kind+"-phone")
		b.open(r.srv.URL+"/game/"+p.Name+"/state", "section.view.gm")
		b.fitsThePhone(kind + " GM view")
		if err := browsertest.Desktop(b.ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// loginBrowser logs the browser in to this rig's desk (each rig is its
// own desk, with its own sessions).
func (r *rig) loginBrowser(t *testing.T, b *browser) {
	t.Helper()
	b.open(r.srv.URL+"/login", "#password")
	b.do("log in", chromedp.SendKeys(chromedp.CSS("#password"), testSecret), chromedp.Click(chromedp.CSS("#login")))
	b.wait(`location.pathname !== "/login" && document.readyState === "complete" && !!document.querySelector(".logout")`, 30*time.Second)
}

// TestRefreshInBrowser: an open page brings itself up to date without a
// reload when the game moves on, says how fresh it is, and leaves a form
// the GM is typing in alone.
func TestRefreshInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 5*time.Minute)
	p := playGame(t, "protest", 1) // a game of many turns: it runs on throughout
	r := newRig(t, p, p.Name)
	r.desk.cfg.Refresh = time.Second
	// The desk behind a switch: it can stop answering.
	var down atomic.Bool
	h := r.desk.Handler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		h.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.srv = srv
	phase := func() string { return eval[string](b, `document.querySelector('.gamehead dd').textContent`) }

	b.open(r.srv.URL+"/p/"+p.Name, "section.view")
	before := phase()
	b.do("mark the page", chromedp.Evaluate[chromedp.Void](`window.__notReloaded = true`))
	p.play(t, 1, false)
	b.wait(`document.querySelector('.gamehead dd').textContent !== `+jsString(before), time.Minute)
	if !eval[bool](b, `window.__notReloaded === true`) {
		t.Error("the page was reloaded, not brought up to date in place")
	}
	b.wait(`/^updated \d+ s ago$/.test(document.getElementById('updated').textContent)`, 30*time.Second)
	b.picturesLoaded("the refreshed public page")
	b.shot("refresh-public")
	t.Logf("public page: %q → %q, %s", before, phase(), eval[string](b, `document.getElementById('updated').textContent`))

	// The GM types a length into the extend form: the page waits.
	r.loginBrowser(t, b)
	b.open(r.srv.URL+"/game/"+p.Name, "#audit")
	before = phase()
	b.do("type", chromedp.Click(chromedp.CSS("#c-extend-by")), chromedp.KeyEvent(kb.End), chromedp.KeyEvent("5"))
	typed := eval[string](b, `document.getElementById('c-extend-by').value`)
	p.play(t, 1, false)
	time.Sleep(3 * time.Second) // three refreshes' time: none may take the form away
	if got := eval[string](b, `document.getElementById('c-extend-by').value`); got != typed || phase() != before {
		t.Errorf("the page changed under the GM's typing: the field holds %q (typed %q), the phase %q (was %q)", got, typed, phase(), before)
	}
	b.shot("refresh-waits-for-the-form")

	// The desk stops answering: the page says so, and catches up after.
	b.open(r.srv.URL+"/p/"+p.Name, "section.view")
	down.Store(true)
	b.wait(`document.getElementById('updated').textContent.includes('does not answer')`, 30*time.Second)
	b.shot("refresh-desk-down")
	down.Store(false)
	b.wait(`/^updated \d+ s ago$/.test(document.getElementById('updated').textContent)`, 30*time.Second)
}

func jsString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}

// TestBidiInBrowser: a player named with a right-to-left override does not
// turn the names after theirs around, as it does in text that does not
// isolate it (the control).
func TestBidiInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, time.Minute)
	evil := "Bob\u202eevil"
	d, err := New(Config{Moderator: &moderator.Moderator{}, Secret: testSecret})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(headers(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/static/") {
			d.Handler().ServeHTTP(w, r)
			return
		}
		d.render(w, r, http.StatusOK, "public", page{Title: "bidi", Data: bidiPage(evil)})
	})))
	t.Cleanup(srv.Close)
	b.open(srv.URL+"/p/bidi", ".acted")
	// Where each letter of "Ann" is drawn, left to right.
	const order = `(el => { const t = Array.from(el.querySelectorAll('*')).concat([el]).flatMap(e => Array.from(e.childNodes)).find(n => n.nodeType === 3 && n.data.includes('Ann'));
	  const i = t.data.indexOf('Ann'), xs = [];
	  for (let k = 0; k < 3; k++) { const r = document.createRange(); r.setStart(t, i + k); r.setEnd(t, i + k + 1); xs.push(r.getBoundingClientRect().left); }
	  return xs; })`
	xs := eval[[]float64](b, order+`(document.querySelector('.acted'))`)
	if !(xs[0] < xs[1] && xs[1] < xs[2]) {
		t.Errorf("after the isolated name, Ann is drawn right to left: %v", xs)
	}
	b.do("the control", chromedp.Evaluate[chromedp.Void](`(() => { const p = document.createElement('p'); p.id = 'control'; p.textContent = `+jsString(evil)+` + ', Ann'; document.querySelector('main').appendChild(p); })()`))
	if xs := eval[[]float64](b, order+`(document.getElementById('control'))`); !(xs[0] > xs[2]) {
		t.Errorf("the control (no isolation) is not turned around, so this test could not fail: %v", xs)
	}
	if n := len(regexp.MustCompile(`\x{202e}`).FindAllString(eval[string](b, `document.querySelector('main').innerHTML`), -1)); n < 4 {
		t.Errorf("the page writes the name %d times", n)
	}
	b.shot("bidi")
}

// TestNewGameInBrowser: a GM sets a game up in Chromium from the desk
// alone: the form with its mistakes shown beside their fields, a board
// check that fails with its checklist and fixes, then, the password put
// right, the game created and its file offered. The form reads at a
// phone's width and with the keyboard alone.
func TestNewGameInBrowser(t *testing.T) {
	t.Parallel()
	b := newBrowser(t, 4*time.Minute)
	g := newGameDesk(t, "resistance")
	g.rig.loginBrowser(t, b)
	b.open(g.srv.URL+"/", ".gamepick, main")
	b.do("to the form", chromedp.Click(chromedp.CSS(`header nav a[href="/new"]`)))
	b.wait(`!!document.querySelector('.gamepick a[href="/new?game=resistance"]')`, 30*time.Second)
	b.shot("newgame-pick")
	b.do("pick the game", chromedp.Click(chromedp.CSS(`.gamepick a[href="/new?game=resistance"]`)))
	b.wait(`!!document.getElementById('f-name')`, 30*time.Second)
	f := g.form("", "resistance", "spring-spies")
	fill := func(fields map[string]string) {
		t.Helper()
		for name, v := range fields {
			b.do("fill "+name, chromedp.Evaluate[chromedp.Void](`document.querySelector('[name="`+name+`"]').value = `+jsString(v)))
		}
	}
	fill(map[string]string{"name": "spring spies", "url": f.Get("url"), "thread": f.Get("thread"), "bot": f.Get("bot"),
		"password_env": f.Get("password_env"), "players": "Ann, 1\nBen, 2", "opt.rejection_limit": "0"})
	b.do("send", chromedp.Click(chromedp.CSS("#create")))
	b.wait(`!!document.getElementById('error-summary')`, 30*time.Second)
	if errs := eval[[]string](b, `Array.from(document.querySelectorAll('.field .error')).map(e => e.id)`); strings.Join(errs, " ") != "err-name err-players err-opt.rejection_limit" {
		t.Errorf("errors shown: %v", errs)
	}
	b.contrast("the form with its errors")
	b.shot("newgame-errors")
	b.shotAt(`[id="f-opt.phase_hours"]`, "newgame-errors-options")
	b.keyboard("the new-game form", 30)

	// Put right, but the board refuses the bot's password.
	setEnv(t, g.env, "not-the-password")
	fill(map[string]string{"name": "spring-spies", "players": f.Get("players"), "opt.rejection_limit": ""})
	b.do("send", chromedp.Click(chromedp.CSS("#create")))
	b.wait(`!!document.getElementById('checklist')`, time.Minute)
	if txt := eval[string](b, `document.querySelector('#checklist li.fail').textContent`); !strings.Contains(txt, "login") || !strings.Contains(txt, "Fix") {
		t.Errorf("the failing check reads %q", txt)
	}
	if len(g.games(t)) != 0 {
		t.Fatal("a game was created on a board whose check failed")
	}
	b.shotAt("#checklist", "newgame-check-failed")
	if err := browsertest.Phone(b.ctx); err != nil {
		t.Fatal(err)
	}
	b.fitsThePhone("the new-game form")
	b.shotAt("#checklist", "newgame-phone")
	if err := browsertest.Desktop(b.ctx); err != nil {
		t.Fatal(err)
	}

	// The GM puts the password right on the desk's side and checks again.
	setEnv(t, g.env, g.board.BotPW)
	b.do("check again", chromedp.Click(chromedp.CSS("#check")))
	b.wait(`location.pathname === "/new/created/spring-spies" && document.readyState === "complete"`, time.Minute)
	if ok := eval[string](b, `document.getElementById('checklist-title').textContent`); ok != "Board checked: everything a game needs works" {
		t.Errorf("the checklist after creating says %q", ok)
	}
	if n := g.games(t); len(n) != 1 || n[0] != "spring-spies" {
		t.Errorf("games %v", n)
	}
	b.shot("newgame-created")
}
