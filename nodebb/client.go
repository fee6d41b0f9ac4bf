// Package nodebb is a bot account on a NodeBB board through NodeBB's JSON
// API: topics read as JSON (/api/topic/TID?page=N: post ids, user ids,
// millisecond times, edit times and each post's rendered HTML), replies
// through the write API (/api/v3/topics/TID), private messages as
// one-to-one chat rooms, and the markers of interrupted sends looked for
// in the topic's JSON and the rooms' messages. It implements the board
// port (forum.Board) for forumconn; the posts' HTML is read by the same
// body reader as every board's (parser.BodyReader).
package nodebb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/scraper"
)

// Options configure a client.
type Options struct {
	Clock     clock.Clock
	UserAgent string
	// Pacer is the board's, shared by its accounts (nil: one of its own
	// at MinInterval).
	Pacer       *scraper.Pacer
	MinInterval time.Duration
	// Password, when set, is asked at each login (a password file the GM
	// fixes is used at the next one).
	Password func() (string, error)
	Log      *slog.Logger
	// Timeout bounds one request [30s].
	Timeout time.Duration
	// ListAge is how old a chat room list (and the room reads made with
	// it) may be for another of the account's games to take it in its read
	// of new chats: one list serves every game polling within it (0: each
	// read lists for itself). forumconn's Sessions gives its InboxAge.
	ListAge time.Duration
	// LoginBackoff is the least wait after the board refused the bot's
	// name or password before it is tried again, doubling while refused,
	// at most a day [5m]: boards lock an account after a few failures.
	LoginBackoff time.Duration
}

// UserAgent is the bot's User-Agent on NodeBB. Not the scraper's: NodeBB
// takes a User-Agent with "bot" in it for a search engine's spider, which
// gets no session (no CSRF token, no login).
func UserAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return "forumgm/" + version + " (+play-by-forum game master)"
}

// Client is one logged-in (on demand) account on a NodeBB board.
type Client struct {
	base  *url.URL
	prof  forum.Profile
	creds forum.Credentials
	opt   Options
	hc    *http.Client
	pacer *scraper.Pacer

	loginMu   sync.Mutex // one login at a time
	loginFail time.Time  // the board's last refusal of the name or password
	loginWait time.Duration
	loginBo   *retry.Backoff

	mu       sync.Mutex // the session: login, token, uid
	loggedIn bool
	csrf     string
	uid      string
	gen      uint64 // login generation

	requests int64
	reqMu    sync.Mutex

	flood  floodState
	roomOf roomCache
	chats  roomListing // the room list shared by the account's games
}

// New prepares a client; it logs in on first use.
func New(base string, prof forum.Profile, creds forum.Credentials, opt Options) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(base, "/") + "/")
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("bad board URL %q", base)
	}
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Timeout <= 0 {
		opt.Timeout = 30 * time.Second
	}
	if opt.LoginBackoff <= 0 {
		opt.LoginBackoff = 5 * time.Minute
	}
	if opt.UserAgent == "" {
		opt.UserAgent = UserAgent("")
	}
	jar, _ := cookiejar.New(nil)
	c := &Client{base: u, prof: prof, creds: creds, opt: opt,
		hc: &http.Client{Jar: jar, Timeout: opt.Timeout,
			// A redirect is an answer in itself (/topic/1 → /topic/1/slug,
			// a write answered with a page): not followed.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }},
		pacer: opt.Pacer}
	if c.pacer == nil {
		c.pacer = scraper.NewPacer(opt.Clock, opt.MinInterval)
	}
	c.flood.prof = time.Duration(prof.FloodSeconds) * time.Second
	return c, nil
}

// Username is the bot's name.
func (c *Client) Username() string { return c.creds.Username }

// Clock is the client's clock.
func (c *Client) Clock() clock.Clock { return c.opt.Clock }

// Requests is how many requests the client made.
func (c *Client) Requests() int {
	c.reqMu.Lock()
	defer c.reqMu.Unlock()
	return int(c.requests)
}

// URL is a board-relative address made absolute.
func (c *Client) URL(rel string) string {
	r, err := url.Parse(rel)
	if err != nil {
		return c.base.String() + rel
	}
	return c.base.ResolveReference(r).String()
}

// Refusal is the board's refusal of a write: HTTP 400 (or another 4xx) with
// its words.
type Refusal struct {
	Status  int
	Message string
}

func (e *Refusal) Error() string {
	return fmt.Sprintf("the board refused it (HTTP %d): %s", e.Status, e.Message)
}

// ErrForbidden: the board answered 403 (no session, or a stale CSRF token)
// again after a fresh login.
var ErrForbidden = errors.New("forbidden")

// response is one answer: its status, body and when it was asked for.
type response struct {
	status int
	body   []byte
	header http.Header
	sent   time.Time
	// maintenance: a 503 while /api/config says the board is in
	// maintenance mode (NodeBB's 503 itself names it only when the admin
	// wrote a message for it).
	maintenance bool
}

// envelope is the write API's wrapper.
type envelope struct {
	Status struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"status"`
	Response json.RawMessage `json:"response"`
}

// request makes one request, paced, not retried. For a write (submit),
// forum.Submitting(ctx) runs after every wait, just before it leaves;
// an error there means it was not made (scraper.ErrNotSent).
func (c *Client) request(ctx context.Context, method, rel string, body any, submit bool) (*response, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.URL(rel), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.opt.UserAgent)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.mu.Lock()
	if c.csrf != "" {
		req.Header.Set("x-csrf-token", c.csrf)
	}
	c.mu.Unlock()
	if err := c.pacer.Wait(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", scraper.ErrNotSent, err)
	}
	if submit {
		ended, err := forum.Submitting(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", scraper.ErrNotSent, err)
		}
		defer ended() // once the request has ended: answered, failed or timed out
	}
	c.reqMu.Lock()
	c.requests++
	c.reqMu.Unlock()
	sent := c.opt.Clock.Now()
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: %w", scraper.ErrUnavailable, method, rel, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, fmt.Errorf("%w: %s %s: reading the answer: %w", scraper.ErrUnavailable, method, rel, err)
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if d, ok := scraper.RetryAfter(resp.Header, c.opt.Clock.Now()); ok {
			c.pacer.Hold(c.opt.Clock.Now().Add(min(d, 10*time.Minute)))
		}
	}
	return &response{status: resp.StatusCode, body: b, header: resp.Header, sent: sent}, nil
}

// login logs in unless a login newer than gen already did (the callers
// that found the session gone together wait for one login). After the
// board refused the name or password, no login is tried before the
// backoff's wait (scraper.ErrLogin says until when).
func (c *Client) login(ctx context.Context, gen uint64) error {
	c.loginMu.Lock()
	defer c.loginMu.Unlock()
	c.mu.Lock()
	if c.gen != gen && c.loggedIn {
		c.mu.Unlock()
		return nil
	}
	c.loggedIn, c.csrf = false, ""
	c.mu.Unlock()
	now := c.opt.Clock.Now()
	if !c.loginFail.IsZero() && now.Before(c.loginFail.Add(c.loginWait)) {
		return fmt.Errorf("%w: the board refused the last attempt; next attempt after %s", scraper.ErrLogin, c.loginFail.Add(c.loginWait).UTC().Format(time.RFC3339))
	}
	err := c.loginNow(ctx)
	switch {
	case errors.Is(err, scraper.ErrLoginRefused):
		c.loginFail = c.opt.Clock.Now()
		if c.loginBo == nil {
			c.loginBo = retry.New(c.opt.LoginBackoff, 24*time.Hour)
		}
		c.loginWait = c.loginBo.Next()
	case err == nil:
		c.loginFail, c.loginWait, c.loginBo = time.Time{}, 0, nil
	}
	return err
}

// loginNow logs in: the session's token, the login form, a fresh token.
func (c *Client) loginNow(ctx context.Context) error {
	pw := c.creds.Password
	if c.opt.Password != nil {
		p, err := c.opt.Password()
		if err != nil {
			return fmt.Errorf("%w: %w", scraper.ErrLogin, err)
		}
		pw = p
	}
	// The login form's token: the session's, from /api/config.
	cfg, err := c.config(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", scraper.ErrLogin, err)
	}
	c.mu.Lock()
	c.csrf = cfg.CSRF
	c.mu.Unlock()
	form := url.Values{"username": {c.creds.Username}, "password": {pw}, "_csrf": {cfg.CSRF}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL("login"), strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", c.opt.UserAgent)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("x-csrf-token", cfg.CSRF)
	if err := c.pacer.Wait(ctx); err != nil {
		return err
	}
	c.reqMu.Lock()
	c.requests++
	c.reqMu.Unlock()
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %w: %w", scraper.ErrLogin, scraper.ErrUnavailable, err)
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	said := strings.TrimSpace(string(b))
	if resp.StatusCode != http.StatusOK {
		if forum.Mentions(said, c.prof.LoginRefusedText) != "" {
			return fmt.Errorf("%w (HTTP %d: %s)", scraper.ErrLoginRefused, resp.StatusCode, short(said))
		}
		if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
			return fmt.Errorf("%w: %w: HTTP %d", scraper.ErrLogin, scraper.ErrUnavailable, resp.StatusCode)
		}
		return fmt.Errorf("%w: HTTP %d: %s", scraper.ErrLogin, resp.StatusCode, short(said))
	}
	// The token belongs to the session: a fresh one after logging in.
	cfg, err = c.config(ctx)
	if err != nil {
		return fmt.Errorf("%w: %w", scraper.ErrLogin, err)
	}
	if cfg.UID == 0 {
		return fmt.Errorf("%w: the board does not show the bot logged in after its login", scraper.ErrLogin)
	}
	c.mu.Lock()
	c.csrf, c.uid, c.loggedIn = cfg.CSRF, strconv.Itoa(cfg.UID), true
	c.gen++
	c.mu.Unlock()
	if c.opt.Log != nil {
		c.opt.Log.Info("logged in", "uid", cfg.UID)
	}
	return nil
}

type siteConfig struct {
	CSRF        string `json:"csrf_token"`
	UID         int    `json:"uid"`
	Maintenance bool   `json:"maintenanceMode"`
	PostQueue   int    `json:"postQueue"`
	DisableChat bool   `json:"disableChat"`
	MinPostLen  int    `json:"minimumPostLength"`
	MaxPostLen  int    `json:"maximumPostLength"`
	MaxChatLen  int    `json:"maximumChatMessageLength"`
	PostDelay   int    `json:"postDelay"`
}

func (c *Client) config(ctx context.Context) (siteConfig, error) {
	var cfg siteConfig
	r, err := c.request(ctx, http.MethodGet, "api/config", nil, false)
	if err != nil {
		return cfg, err
	}
	if r.status != http.StatusOK {
		return cfg, statusErr("api/config", r)
	}
	if err := json.Unmarshal(r.body, &cfg); err != nil {
		return cfg, fmt.Errorf("%w: api/config: %w", scraper.ErrUnavailable, err)
	}
	return cfg, nil
}

// Login logs in now (the probe's first step).
func (c *Client) Login(ctx context.Context) error {
	c.mu.Lock()
	gen := c.gen
	c.mu.Unlock()
	return c.login(ctx, gen)
}

// session logs in if needed and returns the login generation and the bot's uid.
func (c *Client) session(ctx context.Context) (uint64, string, error) {
	c.mu.Lock()
	ok, gen, uid := c.loggedIn, c.gen, c.uid
	c.mu.Unlock()
	if ok {
		return gen, uid, nil
	}
	if err := c.login(ctx, gen); err != nil {
		return 0, "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.uid, nil
}

// UID is the bot's user id (logging in if needed).
func (c *Client) UID(ctx context.Context) (string, error) {
	_, uid, err := c.session(ctx)
	return uid, err
}

// call is one API request as the logged-in bot: a 401 or 403 logs in again
// once and repeats it (a 403 is the board refusing the session or its
// token before anything was done, so a write is safe to repeat). The
// answer's status is the caller's to judge, apart from those.
func (c *Client) call(ctx context.Context, method, rel string, body any, submit bool) (*response, error) {
	gen, _, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	for attempt := 0; ; attempt++ {
		r, err := c.request(ctx, method, rel, body, submit)
		if err != nil {
			return nil, err
		}
		if r.status == http.StatusServiceUnavailable && !bytes.Contains(bytes.ToLower(r.body), []byte("maintenance")) {
			// One more request, only while the board fails: is it the
			// admin's maintenance mode (the board closed, not down)?
			if cr, err := c.request(ctx, http.MethodGet, "api/config", nil, false); err == nil && cr.status == http.StatusOK {
				var cfg siteConfig
				r.maintenance = json.Unmarshal(cr.body, &cfg) == nil && cfg.Maintenance
			}
		}
		if r.status != http.StatusForbidden && r.status != http.StatusUnauthorized {
			return r, nil
		}
		if attempt == 1 {
			return nil, fmt.Errorf("%w: %s %s: HTTP %d after a fresh login: %s", ErrForbidden, method, rel, r.status, short(string(r.body)))
		}
		if err := c.login(ctx, gen); err != nil {
			return nil, err
		}
		c.mu.Lock()
		gen = c.gen
		c.mu.Unlock()
	}
}

// getJSON reads an API page as the bot into out.
func (c *Client) getJSON(ctx context.Context, rel string, out any) error {
	_, err := c.getJSONDated(ctx, rel, out)
	return err
}

// getJSONDated is getJSON that also returns the board's clock when it
// answered, from its Date header (to the second; zero when there is none).
func (c *Client) getJSONDated(ctx context.Context, rel string, out any) (time.Time, error) {
	r, err := c.call(ctx, http.MethodGet, rel, nil, false)
	if err != nil {
		return time.Time{}, err
	}
	date, _ := http.ParseTime(r.header.Get("Date"))
	return date, decodeAnswer(rel, r, out)
}

// decodeAnswer reads a 200 answer into out (the write API's response, or
// the page's JSON); any other status is an error.
func decodeAnswer(rel string, r *response, out any) error {
	if r.status != http.StatusOK {
		return statusErr(rel, r)
	}
	if strings.HasPrefix(rel, "api/v3/") {
		var env envelope
		if err := json.Unmarshal(r.body, &env); err != nil {
			return fmt.Errorf("%w: %s: %w", scraper.ErrUnavailable, rel, err)
		}
		if err := json.Unmarshal(env.Response, out); err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		return nil
	}
	if err := json.Unmarshal(r.body, out); err != nil {
		return fmt.Errorf("%w: %s: %w", scraper.ErrUnavailable, rel, err)
	}
	return nil
}

// statusErr is a read's error for an answer that is not 200.
func statusErr(rel string, r *response) error {
	switch {
	case r.status == http.StatusNotFound:
		return fmt.Errorf("%w: %s (HTTP 404)", scraper.ErrNotFound, rel)
	case r.status == http.StatusServiceUnavailable && (r.maintenance || bytes.Contains(bytes.ToLower(r.body), []byte("maintenance"))):
		return fmt.Errorf("%w: %s", scraper.ErrClosed, rel)
	case r.status >= 500 || r.status == http.StatusTooManyRequests:
		return fmt.Errorf("%w: %s: HTTP %d", scraper.ErrUnavailable, rel, r.status)
	}
	return fmt.Errorf("%s: HTTP %d: %s", rel, r.status, short(refusalText(r.body)))
}

// refusalText is the board's words in an error answer: the write API's
// status message, a read's "error" field, or the text itself.
func refusalText(b []byte) string {
	var env envelope
	if json.Unmarshal(b, &env) == nil && env.Status.Message != "" {
		return env.Status.Message
	}
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return e.Error
	}
	return strings.TrimSpace(string(b))
}

func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// Ping tells whether the board answers: one request, no login.
func (c *Client) Ping(ctx context.Context) error {
	r, err := c.request(ctx, http.MethodGet, "api/config", nil, false)
	if err != nil {
		return err
	}
	if r.status != http.StatusOK {
		return statusErr("api/config", r)
	}
	var cfg siteConfig
	if json.Unmarshal(r.body, &cfg) == nil && cfg.Maintenance {
		return fmt.Errorf("%w: api/config says maintenanceMode", scraper.ErrClosed)
	}
	return nil
}
