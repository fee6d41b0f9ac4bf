// Package webdesk is the GM's web desk: the games at a glance, one game's
// audit log, phase history, GM-only state and maps, and the GM controls as
// forms that call the same moderator methods the CLI does. Pages are
// rendered on the server with html/template; the only script is the
// deadline countdown. A GM logs in with a password kept outside the game
// files; a public, read-only page per game (built only from what players
// may see) is served only for the games the GM opens to the public.
package webdesk

import (
	"bytes"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"html"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/netip"
	"regexp"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/moderator"
)

// Config is how the desk is set up; cmd/forumgm fills it from flags and the
// environment.
type Config struct {
	Moderator *moderator.Moderator
	// Secret is the GM's password or token (see LoadSecret).
	Secret string
	// Public lists the games whose public page is served; AllPublic serves
	// every game's. Off by default: a public page is the GM's choice.
	Public    map[string]bool
	AllPublic bool
	// SessionTTL is how long a login lasts (default 12 hours).
	SessionTTL time.Duration
	// SecureCookies marks cookies Secure even on plain HTTP (behind a
	// TLS-terminating proxy). Over TLS they are Secure anyway.
	SecureCookies bool
	Log           *slog.Logger
	// TrustedProxies are the reverse proxies (addresses or networks) whose
	// X-Forwarded-For is believed for the client's address (the login's
	// slowdown and the log); without them the connection's address is the
	// client's.
	TrustedProxies []netip.Prefix
	// Now is the desk's clock (default time.Now); tests move it. Sleep
	// waits for it (default a real timer; it returns early with ctx's error).
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Refresh is how often open pages read themselves again (default: 10
	// seconds for the GM's pages, 20 for the public page).
	Refresh time.Duration
	// Probe checks a new game's board before the desk creates it (as
	// `forumgm probe`); nil: games are created unchecked.
	Probe ProbeFunc
	// GameDir is where the desk writes the game files of the games it
	// creates ("": it only offers them for download).
	GameDir string
}

// Desk serves the web desk.
type Desk struct {
	cfg      Config
	m        *moderator.Moderator
	sess     sessions
	tmpl     map[string]*template.Template
	maps     mapCache
	pasts    pastCache
	drawings drawingCache
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// New checks the configuration and parses the templates.
func New(cfg Config) (*Desk, error) {
	if cfg.Moderator == nil {
		return nil, fmt.Errorf("webdesk: no moderator")
	}
	if len(cfg.Secret) < 12 {
		return nil, fmt.Errorf("webdesk: the desk password is missing or too short (at least 12 characters)")
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = 12 * time.Hour
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Sleep == nil {
		cfg.Sleep = clock.Real{}.Sleep
	}
	d := &Desk{cfg: cfg, m: cfg.Moderator, tmpl: map[string]*template.Template{}}
	for _, name := range []string{"login", "games", "audit", "history", "state", "maps", "confirm", "public", "newgame", "created", "preview", "activity", "votelog"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/sections.html", "templates/checklist.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("webdesk: template %s: %w", name, err)
		}
		d.tmpl[name] = t
	}
	return d, nil
}

func (d *Desk) now() time.Time { return d.cfg.Now() }

// public says whether a game's public page is served: the GM opened it
// with --public, or gave the game a public_url (its posts then show the
// map pictures served from that page, which must not be broken links).
func (d *Desk) public(rep moderator.GameReport) bool {
	return d.cfg.AllPublic || d.cfg.Public[rep.Name] || rep.PublicURL != ""
}

// Handler is the desk's routes behind its security headers.
func (d *Desk) Handler() http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /login", d.loginPage)
	mux.HandleFunc("POST /login", d.login)
	mux.HandleFunc("POST /logout", d.gm(d.logout))
	mux.HandleFunc("GET /{$}", d.gm(d.games))
	mux.HandleFunc("GET /game/{name}", d.gm(d.audit))
	mux.HandleFunc("GET /game/{name}/history", d.gm(d.history))
	mux.HandleFunc("GET /game/{name}/state", d.gm(d.state))
	mux.HandleFunc("GET /game/{name}/state.json", d.gm(d.stateJSON))
	mux.HandleFunc("GET /game/{name}/maps", d.gm(d.mapsPage))
	mux.HandleFunc("GET /game/{name}/map/{pic}", d.gm(d.gmMap))
	mux.HandleFunc("GET /game/{name}/drawing/{file}", d.gm(d.gmDrawing))
	mux.HandleFunc("POST /game/{name}/do/{action}", d.gm(d.control))
	mux.HandleFunc("GET /game/{name}/preview", d.gm(d.previewPage))
	mux.HandleFunc("GET /game/{name}/game.yaml", d.gm(d.gameFile))
	mux.HandleFunc("GET /new", d.gm(d.newGameForm))
	mux.HandleFunc("POST /new", d.gm(d.newGame))
	mux.HandleFunc("GET /new/created/{name}", d.gm(d.createdGame))
	mux.HandleFunc("GET /game/{name}/activity", d.gm(d.activityPage))
	mux.HandleFunc("GET /game/{name}/commands.csv", d.gm(d.auditCSV))
	mux.HandleFunc("GET /p/{name}", d.publicPage)
	mux.HandleFunc("GET /p/{name}/log", d.voteLogPage)
	mux.HandleFunc("GET /p/{name}/map/{pic}", d.publicMap)
	mux.HandleFunc("GET /p/{name}/drawing/{file}", d.publicDrawing)
	return headers(mux)
}

// headers sets the security headers on every answer: nothing from
// elsewhere, no framing, no sniffing, no referrer to the board, no caching
// of pages that may hold secrets.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		// connect-src: the pages' own refresh (desk.js) reads them again.
		hd.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// page is what every template gets.
type page struct {
	Title   string
	CSRF    string // the form token: the session's, or the login form's
	GM      bool   // logged in: show the navigation and logout
	Game    string // the game the page is about, for the tabs
	Tab     string
	Flash   string
	FlashOK bool
	Error   string
	Data    any
	// Refresh is how often (seconds) the open page reads itself again
	// (desk.js); 0: never (a form being filled in, a confirmation).
	Refresh int
	// Loaded is when the page was made, shown until the refresh says how
	// long ago it was last brought up to date.
	Loaded time.Time

	sess *session // whose flash the page shows
}

// How often open pages refresh themselves: the GM's often, the public
// page, which many may keep open, less.
const (
	gmRefresh     = 10
	publicRefresh = 20
)

// pollHeader marks desk.js's refresh of an open page: it shows no flash
// (that is for the page the GM is looking at) and may be answered 304.
const pollHeader = "X-Forumgm-Refresh"

func (d *Desk) gmPage(s *session, title, game, tab string, data any) page {
	return page{Title: title, CSRF: s.csrf, GM: true, Game: game, Tab: tab, Data: data, Refresh: d.refresh(gmRefresh), sess: s}
}

// refresh is the seconds between an open page's refreshes: def, or the
// desk's setting.
func (d *Desk) refresh(def int) int {
	if d.cfg.Refresh > 0 {
		return max(1, int(d.cfg.Refresh.Seconds()))
	}
	return def
}

// volatile is what changes in a page with the clock alone: the countdown
// text and the time it was made. The page's ETag leaves them out, so a
// refresh finds the page unchanged until something happens.
var volatile = regexp.MustCompile(`(?s)(<time class="countdown"[^>]*>).*?(</time>)|(<span id="updated"[^>]*>).*?(</span>)`)

// etagSlot is where the page carries its own ETag, for desk.js's first
// refresh to ask with (the script cannot read the page's headers).
const etagSlot = `data-etag=""`

func (d *Desk) render(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	poll := r.Header.Get(pollHeader) != ""
	if p.sess != nil && !poll {
		p.Flash, p.FlashOK = d.sess.takeFlash(p.sess)
	}
	p.Loaded = d.now()
	var buf bytes.Buffer
	if err := d.tmpl[name].Execute(&buf, p); err != nil {
		d.cfg.Log.Error("desk: rendering", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	if p.Refresh > 0 && status == http.StatusOK && p.Flash == "" {
		sum := sha256.Sum256(volatile.ReplaceAll(buf.Bytes(), []byte("$1$2$3$4")))
		tag := `"` + hex.EncodeToString(sum[:16]) + `"`
		w.Header().Set("ETag", tag)
		if poll && r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		b := bytes.Replace(buf.Bytes(), []byte(etagSlot), []byte(`data-etag="`+html.EscapeString(tag)+`"`), 1)
		buf = *bytes.NewBuffer(b)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	buf.WriteTo(w)
}

func (d *Desk) fail(w http.ResponseWriter, err error) {
	d.cfg.Log.Warn("desk", "err", err)
	http.Error(w, err.Error(), http.StatusNotFound)
}

// mapCache keeps drawn map pictures: drawing every turn's PNG and SVG on
// each page view would be wasteful, and a turn's picture never changes for
// the same state.
type mapCache struct {
	mu sync.Mutex
	m  map[string][]mapPic
}

func (c *mapCache) get(key string) ([]mapPic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[key]
	return p, ok
}

func (c *mapCache) put(key string, p []mapPic) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > 64 {
		c.m = map[string][]mapPic{}
	}
	c.m[key] = p
}
