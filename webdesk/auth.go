package webdesk

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"sync"
	"time"
)

// LoadSecret reads the GM's desk password (or token) from an environment
// variable or from a file only its owner can read, never from a game file.
// env is the variable's name; file, when set, wins. A secret shorter than
// 12 characters is refused: the desk may face the internet.
func LoadSecret(env, file string) (string, error) {
	var s string
	switch {
	case file != "":
		fi, err := os.Stat(file)
		if err != nil {
			return "", fmt.Errorf("the desk password file: %w", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return "", fmt.Errorf("the desk password file %s can be read by others (mode %v); chmod 600 it", file, fi.Mode().Perm())
		}
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("the desk password file: %w", err)
		}
		s = strings.TrimRight(string(b), "\r\n")
	case env != "":
		s = os.Getenv(env)
		if s == "" {
			return "", fmt.Errorf("no desk password: set %s (or give a password file)", env)
		}
	default:
		return "", fmt.Errorf("no desk password: give an environment variable or a password file")
	}
	if len(s) < 12 {
		return "", fmt.Errorf("the desk password is too short (%d characters; use at least 12)", len(s))
	}
	return s, nil
}

const (
	sessionCookie = "forumgm_desk"
	loginCookie   = "forumgm_login" // the login form's CSRF token, before any session
)

// session is one logged-in GM browser.
type session struct {
	csrf    string
	expires time.Time
	flash   string // one message for the next page (a control's outcome)
	flashOK bool
	created map[string]Created // games this GM created on the desk, for the page after
}

// sessions are kept in memory: a restart logs the GM out, which is fine
// for one GM and keeps no secret on disk.
type sessions struct {
	mu   sync.Mutex
	m    map[string]*session
	fail map[string][]time.Time // recent failed logins by client (clientAddr), oldest first
}

func token() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// equal compares secrets in constant time; hashing first hides the length.
func equal(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

func (ss *sessions) create(now time.Time, ttl time.Duration) (string, *session) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.m == nil {
		ss.m = map[string]*session{}
	}
	for id, s := range ss.m { // drop expired sessions as new ones come
		if now.After(s.expires) {
			delete(ss.m, id)
		}
	}
	id := token()
	s := &session{csrf: token(), expires: now.Add(ttl)}
	ss.m[id] = s
	return id, s
}

func (ss *sessions) get(id string, now time.Time) *session {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	s := ss.m[id]
	if s == nil || now.After(s.expires) {
		delete(ss.m, id)
		return nil
	}
	return s
}

func (ss *sessions) drop(id string) {
	ss.mu.Lock()
	delete(ss.m, id)
	ss.mu.Unlock()
}

// Login attempts are slowed, never refused: after slowAfter failures from
// one client within failWindow, each further attempt from it waits before
// its password is checked, firstSlow doubling per failure up to maxSlow.
// The right password waits like a guess (the answer's timing tells nothing)
// and then logs in: a guesser sharing the GM's address (every visitor
// behind a reverse proxy does, unless the desk is told the proxy:
// TrustedProxies) slows the GM by at most maxSlow, and cannot lock the GM
// out. The password's 12+ characters are what makes guessing hopeless;
// the wait makes it slower still (docs/reliability.md).
const (
	slowAfter  = 5
	failWindow = 10 * time.Minute
	firstSlow  = time.Second
	maxSlow    = 8 * time.Second
	// keepFailures is how many failures per client are remembered: enough
	// for the wait to reach maxSlow.
	keepFailures = 16
	// pruneAt is how many clients with failures are kept before those
	// whose failures all aged out are dropped.
	pruneAt = 4096
)

// clientAddr is who a request is from: the connection's address, or, when
// that is a trusted proxy, the address the proxies report: the last
// X-Forwarded-For entry that is not a trusted proxy itself (the entries
// before it are the client's to write, so they are not believed). A
// garbled entry ends the walk at the trusted hop that reported it.
func (d *Desk) clientAddr(r *http.Request) string {
	remote := r.RemoteAddr
	if h, _, err := net.SplitHostPort(remote); err == nil {
		remote = h
	}
	addr, err := netip.ParseAddr(remote)
	if err != nil || !d.trusted(addr) {
		return remote
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	client := addr
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			return client.String()
		}
		client = a
		if !d.trusted(a) {
			break
		}
	}
	return client.String()
}

// parseHop reads one X-Forwarded-For entry: an address, maybe with a port.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func (d *Desk) trusted(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range d.cfg.TrustedProxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// recentLocked drops a client's failures older than failWindow and says
// how many are left. Called with ss.mu held.
func (ss *sessions) recentLocked(key string, now time.Time) int {
	fs := ss.fail[key]
	i := 0
	for i < len(fs) && now.Sub(fs[i]) >= failWindow {
		i++
	}
	if fs = fs[i:]; len(fs) == 0 {
		delete(ss.fail, key)
	} else {
		ss.fail[key] = fs
	}
	return len(fs)
}

// slowdown is how long a login attempt from key waits before its password
// is checked (0: none).
func (ss *sessions) slowdown(key string, now time.Time) time.Duration {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	n := ss.recentLocked(key, now)
	if n < slowAfter {
		return 0
	}
	return min(firstSlow<<min(n-slowAfter, 16), maxSlow)
}

func (ss *sessions) failed(key string, now time.Time) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.fail == nil {
		ss.fail = map[string][]time.Time{}
	}
	if len(ss.fail) >= pruneAt {
		for k := range ss.fail {
			ss.recentLocked(k, now)
		}
	}
	fs := append(ss.fail[key], now)
	if len(fs) > keepFailures {
		fs = fs[len(fs)-keepFailures:]
	}
	ss.fail[key] = fs
}

func (ss *sessions) setFlash(s *session, msg string, ok bool) {
	ss.mu.Lock()
	s.flash, s.flashOK = msg, ok
	ss.mu.Unlock()
}

func (ss *sessions) setCreated(s *session, game string, c Created) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if s.created == nil {
		s.created = map[string]Created{}
	}
	s.created[game] = c
}

func (ss *sessions) getCreated(s *session, game string) (Created, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	c, ok := s.created[game]
	return c, ok
}

func (ss *sessions) takeFlash(s *session) (string, bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	msg, ok := s.flash, s.flashOK
	s.flash = ""
	return msg, ok
}

func (d *Desk) cookie(r *http.Request, name, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: name, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: d.cfg.SecureCookies || r.TLS != nil}
}

// current is the request's live session, or nil.
func (d *Desk) current(r *http.Request) (string, *session) {
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		return "", nil
	}
	return c.Value, d.sess.get(c.Value, d.now())
}

// gm wraps a GM-only handler: no session, no page (the login instead); a
// POST without the session's CSRF token is refused.
func (d *Desk) gm(h func(w http.ResponseWriter, r *http.Request, s *session)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		_, s := d.current(r)
		if s == nil {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+safeNext(r.URL.RequestURI()), http.StatusSeeOther)
				return
			}
			http.Error(w, "not logged in", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodPost && !equal(r.PostFormValue("csrf"), s.csrf) {
			http.Error(w, "this form has expired or did not come from the desk (CSRF check failed): reload the page and try again", http.StatusForbidden)
			return
		}
		h(w, r, s)
	}
}

// safeNext keeps a post-login redirect on this site (a path, never a URL
// to elsewhere).
func safeNext(p string) string {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.Contains(p, `\`) {
		return "/"
	}
	return p
}

func (d *Desk) loginPage(w http.ResponseWriter, r *http.Request) {
	tok := token()
	http.SetCookie(w, d.cookie(r, loginCookie, tok, 600))
	d.render(w, r, http.StatusOK, "login", page{Title: "Log in", CSRF: tok, Data: map[string]string{"Next": safeNext(r.URL.Query().Get("next"))}})
}

func (d *Desk) login(w http.ResponseWriter, r *http.Request) {
	addr := d.clientAddr(r)
	c, err := r.Cookie(loginCookie)
	// An empty token is no token, even with an empty cookie to match.
	if err != nil || c.Value == "" || !equal(c.Value, r.PostFormValue("csrf")) {
		http.Error(w, "this login form has expired (CSRF check failed): reload the page and try again", http.StatusForbidden)
		return
	}
	if wait := d.sess.slowdown(addr, d.now()); wait > 0 {
		if d.cfg.Sleep(r.Context(), wait) != nil {
			return // the client left: nothing checked, nothing counted
		}
	}
	now := d.now()
	if !equal(r.PostFormValue("password"), d.cfg.Secret) {
		d.sess.failed(addr, now)
		d.cfg.Log.Warn("desk: failed login", "from", addr)
		tok := token()
		http.SetCookie(w, d.cookie(r, loginCookie, tok, 600))
		d.render(w, r, http.StatusUnauthorized, "login", page{Title: "Log in", CSRF: tok, Error: "Wrong password.",
			Data: map[string]string{"Next": safeNext(r.PostFormValue("next"))}})
		return
	}
	id, _ := d.sess.create(now, d.cfg.SessionTTL)
	http.SetCookie(w, d.cookie(r, sessionCookie, id, int(d.cfg.SessionTTL.Seconds())))
	http.SetCookie(w, d.cookie(r, loginCookie, "", -1))
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (d *Desk) logout(w http.ResponseWriter, r *http.Request, _ *session) {
	id, _ := d.current(r)
	d.sess.drop(id)
	http.SetCookie(w, d.cookie(r, sessionCookie, "", -1))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
