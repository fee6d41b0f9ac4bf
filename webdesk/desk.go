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
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"sync"
	"time"

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
	// Now is the desk's clock (default time.Now); tests move it.
	Now func() time.Time
}

// Desk serves the web desk.
type Desk struct {
	cfg  Config
	m    *moderator.Moderator
	sess sessions
	tmpl map[string]*template.Template
	maps mapCache
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
	d := &Desk{cfg: cfg, m: cfg.Moderator, tmpl: map[string]*template.Template{}}
	for _, name := range []string{"login", "games", "audit", "history", "state", "maps", "confirm", "public"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
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
	mux.HandleFunc("GET /game/{name}/maps", d.gm(d.mapsPage))
	mux.HandleFunc("GET /game/{name}/map/{pic}", d.gm(d.gmMap))
	mux.HandleFunc("POST /game/{name}/do/{action}", d.gm(d.control))
	mux.HandleFunc("GET /p/{name}", d.publicPage)
	mux.HandleFunc("GET /p/{name}/map/{pic}", d.publicMap)
	return headers(mux)
}

// headers sets the security headers on every answer: nothing from
// elsewhere, no framing, no sniffing, no referrer to the board, no caching
// of pages that may hold secrets.
func headers(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'self'; script-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
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
}

func (d *Desk) gmPage(s *session, title, game, tab string, data any) page {
	p := page{Title: title, CSRF: s.csrf, GM: true, Game: game, Tab: tab, Data: data}
	p.Flash, p.FlashOK = d.sess.takeFlash(s)
	return p
}

func (d *Desk) render(w http.ResponseWriter, status int, name string, p page) {
	var buf bytes.Buffer
	if err := d.tmpl[name].Execute(&buf, p); err != nil {
		d.cfg.Log.Error("desk: rendering", "page", name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
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
