// Package scraper fetches a forum over HTTP as the bot account: login and
// session upkeep, thread pages read incrementally from a cursor, the PM
// inbox and sent folder, all polite (per-host spacing, timeouts, retries
// with backoff, Retry-After) and all waiting through a clock.Clock.
//
// The Session is the seam shared with the poster: it owns the cookie jar,
// the login, the profile and the politeness, so the scraper (colly, for
// reading) and the poster (net/http, for forms) act as one logged-in user.
package scraper

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/gocolly/colly/v2"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/parser"
)

// UserAgent is the bot's User-Agent for a program version.
func UserAgent(version string) string {
	if version == "" {
		version = "dev"
	}
	return "forumgm/" + version + " (+play-by-forum GM bot)"
}

// Options tune a Session. Zero values give the defaults in brackets.
type Options struct {
	Clock     clock.Clock // [clock.Real]
	UserAgent string      // [UserAgent("dev")]
	// MinInterval is the least time between two requests to one host [1s].
	MinInterval time.Duration
	// Timeout bounds one HTTP request [30s].
	Timeout time.Duration
	// Retries is how many times a failed GET (network error, 429, 5xx) is
	// retried [4]; the wait doubles from Backoff [2s] up to MaxWait [5m]
	// plus jitter (internal/retry), or is what Retry-After says (capped at
	// MaxWait).
	Retries int
	Backoff time.Duration
	MaxWait time.Duration
	// LoginBackoff is the least wait after a failed login before another
	// attempt [5m, doubling up to a day, plus jitter]: boards lock accounts
	// after a few failures.
	LoginBackoff time.Duration
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
	// Logf receives one line per notable event (never secrets); may be nil.
	Logf func(format string, args ...any)
}

func (o *Options) defaults() {
	if o.Clock == nil {
		o.Clock = clock.Real{}
	}
	if o.UserAgent == "" {
		o.UserAgent = UserAgent("")
	}
	if o.MinInterval == 0 {
		o.MinInterval = time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Retries == 0 {
		o.Retries = 4
	}
	if o.Backoff == 0 {
		o.Backoff = 2 * time.Second
	}
	if o.MaxWait == 0 {
		o.MaxWait = 5 * time.Minute
	}
	if o.LoginBackoff == 0 {
		o.LoginBackoff = 5 * time.Minute
	}
}

// Errors a caller may test with errors.Is.
var (
	// ErrUnavailable: the forum did not answer usefully (connection
	// refused, timeouts, 5xx, 429) even after the retries.
	ErrUnavailable = errors.New("forum unavailable")
	// ErrLogin: the board refused the bot's login, or a login is held back
	// after a recent failure.
	ErrLogin = errors.New("forum login failed")
	// ErrNotFound: the page does not exist (404) or holds nothing the
	// profile recognises.
	ErrNotFound = errors.New("not found on the forum")
)

// Page is one fetched page.
type Page struct {
	URL    string // final URL after redirects
	Status int
	Header http.Header
	Body   []byte
	Doc    *goquery.Document
	// Sent and Received are the session clock's time when the request went
	// out and when the response was in: the board rendered the page in
	// between, which is what relative times ("9 hours ago") are read against.
	Sent, Received time.Time
}

// Fetch is when the page was fetched, for the parser.
func (p *Page) Fetch() parser.Fetch { return parser.Fetch{Sent: p.Sent, Received: p.Received} }

// Location is the redirect target of a 3xx response, resolved to an
// absolute URL ("" when none).
func (p *Page) Location() string {
	loc := p.Header.Get("Location")
	if loc == "" {
		return ""
	}
	b, err := url.Parse(p.URL)
	if err != nil {
		return loc
	}
	r, err := url.Parse(loc)
	if err != nil {
		return loc
	}
	return b.ResolveReference(r).String()
}

// Session is one logged-in bot account on one board.
type Session struct {
	Profile forum.Profile
	Parser  *parser.Parser
	Base    string // board root URL

	creds    forum.Credentials
	opt      Options
	jar      http.CookieJar
	client   *http.Client // follows redirects (reading)
	noFollow *http.Client // stops at redirects (forms: the redirect names the new post)

	mu        sync.Mutex // one request at a time per session
	last      map[string]time.Time
	loginMu   sync.Mutex
	loginFail time.Time
	loginWait time.Duration
	// loginBackoff yields loginWait; set at the first failure in a row.
	loginBackoff *retry.Backoff
	requests     int
}

// NewSession prepares a session; it does not log in until a page needs it
// (or Login is called).
func NewSession(base string, prof forum.Profile, creds forum.Credentials, opt Options) (*Session, error) {
	opt.defaults()
	x, err := parser.New(prof)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return nil, fmt.Errorf("board URL %q: want http(s)://host/path/", base)
	}
	jar, _ := cookiejar.New(nil)
	tr := opt.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	s := &Session{
		Profile: prof, Parser: x, Base: base, creds: creds, opt: opt, jar: jar,
		last: map[string]time.Time{},
	}
	s.client = &http.Client{Jar: jar, Timeout: opt.Timeout, Transport: tr}
	s.noFollow = &http.Client{Jar: jar, Timeout: opt.Timeout, Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return s, nil
}

// Username is the bot account's name.
func (s *Session) Username() string { return s.creds.Username }

// Clock is the session's clock.
func (s *Session) Clock() clock.Clock { return s.opt.Clock }

// Requests is how many HTTP requests the session has made.
func (s *Session) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// URL makes a profile-relative URL absolute.
func (s *Session) URL(rel string) (string, error) { return forum.Resolve(s.Base, rel) }

func (s *Session) logf(format string, args ...any) {
	if s.opt.Logf != nil {
		s.opt.Logf(format, args...)
	}
}

// pace waits until the host may be asked again. Called with s.mu held.
func (s *Session) pace(ctx context.Context, rawURL string) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return err
	}
	now := s.opt.Clock.Now()
	if t, ok := s.last[u.Host]; ok {
		if wait := t.Add(s.opt.MinInterval).Sub(now); wait > 0 {
			if err := s.opt.Clock.Sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
	s.last[u.Host] = s.opt.Clock.Now()
	s.requests++
	return nil
}

// get fetches a page with colly (no cache, revisits allowed), retrying
// network errors, 429 and 5xx with backoff and Retry-After. It does not
// check the login.
func (s *Session) get(ctx context.Context, rel string) (*Page, error) {
	abs, err := s.URL(rel)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	backoff := retry.New(s.opt.Backoff, s.opt.MaxWait)
	wait := backoff.Next()
	var lastErr error
	for attempt := 0; attempt <= s.opt.Retries; attempt++ {
		if attempt > 0 {
			s.logf("forum: retrying GET %s in %s (%v)", abs, wait, lastErr)
			if err := s.opt.Clock.Sleep(ctx, wait); err != nil {
				return nil, err
			}
			wait = backoff.Next()
		}
		if err := s.pace(ctx, abs); err != nil {
			return nil, err
		}
		sent := s.opt.Clock.Now()
		pg, err := s.collyGet(ctx, abs)
		if pg != nil {
			pg.Sent, pg.Received = sent, s.opt.Clock.Now()
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = err
			continue
		}
		if retryable(pg.Status) {
			lastErr = fmt.Errorf("HTTP %d", pg.Status)
			if ra, ok := RetryAfter(pg.Header, s.opt.Clock.Now()); ok {
				wait = min(ra, s.opt.MaxWait)
			}
			continue
		}
		if pg.Status == http.StatusNotFound {
			return pg, fmt.Errorf("GET %s: %w (HTTP 404)", abs, ErrNotFound)
		}
		if pg.Status >= 400 && pg.Status != http.StatusForbidden && pg.Status != http.StatusUnauthorized {
			// 401/403 are login pages on some boards: the caller checks.
			return pg, fmt.Errorf("GET %s: HTTP %d", abs, pg.Status)
		}
		return pg, nil
	}
	return nil, fmt.Errorf("GET %s: %w after %d attempts: %v", abs, ErrUnavailable, s.opt.Retries+1, lastErr)
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// RetryAfter reads a Retry-After header: seconds or an HTTP date.
func RetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d, true
		}
		return 0, true
	}
	return 0, false
}

func (s *Session) collyGet(ctx context.Context, abs string) (*Page, error) {
	c := colly.NewCollector()
	// Set after construction so COLLY_* environment variables cannot
	// switch on a cache or revisit checks behind our back.
	c.AllowURLRevisit = true
	c.CacheDir = ""
	c.IgnoreRobotsTxt = true // one thread of the GM's own board, paced below robots' usual delays
	c.ParseHTTPErrorResponse = true
	c.UserAgent = s.opt.UserAgent
	c.MaxBodySize = 16 << 20
	c.Async = false
	c.MaxDepth = 0
	c.Context = ctx
	c.SetClient(s.client)
	var pg *Page
	c.OnResponse(func(r *colly.Response) {
		h := http.Header{}
		if r.Headers != nil {
			h = r.Headers.Clone()
		}
		pg = &Page{URL: r.Request.URL.String(), Status: r.StatusCode, Header: h, Body: r.Body}
	})
	if err := c.Visit(abs); err != nil {
		return nil, err
	}
	if pg == nil {
		return nil, errors.New("no response")
	}
	doc, err := parser.Doc(pg.Body)
	if err != nil {
		return nil, err
	}
	pg.Doc = doc
	return pg, nil
}

// PostForm submits a form with net/http, without following the redirect
// (its Location names the new post). It is never retried automatically: a
// repeated POST could post twice; the poster decides after checking.
func (s *Session) PostForm(ctx context.Context, abs string, vals url.Values, referer string) (*Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.pace(ctx, abs); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, abs, strings.NewReader(vals.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("User-Agent", s.opt.UserAgent)
	if referer != "" {
		req.Header.Set("Referer", referer) // same host: boards check it
	}
	sent := s.opt.Clock.Now()
	resp, err := s.noFollow.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("POST %s: %w: %v", abs, ErrUnavailable, err)
	}
	defer resp.Body.Close()
	body, err := parser.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w: reading: %v", abs, ErrUnavailable, err)
	}
	// Sent..Received brackets the moment the board recorded the submission.
	pg := &Page{URL: resp.Request.URL.String(), Status: resp.StatusCode, Header: resp.Header, Body: body,
		Sent: sent, Received: s.opt.Clock.Now()}
	pg.Doc, err = parser.Doc(body)
	if err != nil {
		return nil, err
	}
	return pg, nil
}

// Fetch gets a page as the logged-in bot: if the page shows the board
// logged us out (no logged-in marker), it logs in again and refetches.
// Without credentials pages are read as a guest.
func (s *Session) Fetch(ctx context.Context, rel string) (*Page, error) {
	pg, err := s.get(ctx, rel)
	if err != nil {
		return pg, err
	}
	if s.creds.Username == "" || s.Parser.LoggedIn(pg.Doc) {
		return pg, nil
	}
	s.logf("forum: not logged in on %s; logging in", rel)
	if err := s.Login(ctx); err != nil {
		return pg, err
	}
	pg, err = s.get(ctx, rel)
	if err != nil {
		return pg, err
	}
	if !s.Parser.LoggedIn(pg.Doc) {
		return pg, fmt.Errorf("%w: logged in, but %s still shows a guest page", ErrLogin, rel)
	}
	return pg, nil
}

// Login logs in through the board's login form: fetch it (the cookies of
// that GET carry the guest session the token is bound to), wait the
// profile's form delay, submit with the fresh tokens, and check a page for
// the logged-in marker. After a failure further attempts wait
// LoginBackoff (doubling), so a wrong password cannot lock the account.
func (s *Session) Login(ctx context.Context) error {
	s.loginMu.Lock()
	defer s.loginMu.Unlock()
	if s.creds.Username == "" {
		return fmt.Errorf("%w: no credentials configured", ErrLogin)
	}
	now := s.opt.Clock.Now()
	if !s.loginFail.IsZero() && now.Before(s.loginFail.Add(s.loginWait)) {
		return fmt.Errorf("%w: last attempt failed; next attempt after %s", ErrLogin, s.loginFail.Add(s.loginWait).Format(time.RFC3339))
	}
	err := s.login(ctx)
	if err != nil && errors.Is(err, ErrLogin) {
		s.loginFail = s.opt.Clock.Now()
		if s.loginWait == 0 {
			s.loginBackoff = retry.New(s.opt.LoginBackoff, 24*time.Hour)
		}
		s.loginWait = s.loginBackoff.Next()
	} else if err == nil {
		s.loginFail, s.loginWait = time.Time{}, 0
	}
	return err
}

func (s *Session) login(ctx context.Context) error {
	f := s.Profile.Forms.Login
	pg, err := s.get(ctx, f.Page)
	if err != nil {
		return err
	}
	if s.Parser.LoggedIn(pg.Doc) {
		return nil
	}
	form, err := parser.FindForm(pg.Doc, pg.URL, f.Selector)
	if err != nil {
		return fmt.Errorf("%w: login page: %v", ErrLogin, err)
	}
	form.Values.Set(f.User, s.creds.Username)
	form.Values.Set(f.Password, s.creds.Password)
	for k, v := range f.Extra {
		form.Values.Set(k, v)
	}
	if err := s.formWait(ctx); err != nil {
		return err
	}
	res, err := s.PostForm(ctx, form.Action, form.Values, pg.URL)
	if err != nil {
		return err
	}
	if retryable(res.Status) {
		return fmt.Errorf("login: %w: HTTP %d", ErrUnavailable, res.Status)
	}
	if s.Parser.LoggedIn(res.Doc) {
		return nil
	}
	boardErr := s.Parser.ErrorText(res.Doc)
	// Success is usually a redirect or a meta-refresh page: check a page.
	check, err := s.get(ctx, s.Profile.URLs.Index)
	if err != nil {
		return err
	}
	if s.Parser.LoggedIn(check.Doc) {
		s.logf("forum: logged in as %s", s.creds.Username)
		return nil
	}
	if boardErr == "" {
		boardErr = "the board still shows a guest page"
	}
	return fmt.Errorf("%w as %q: %s", ErrLogin, s.creds.Username, boardErr)
}

// formWait is the profile's delay between loading a form and submitting it
// (phpBB refuses a token used in the second it was issued).
func (s *Session) formWait(ctx context.Context) error {
	if n := s.Profile.FormWaitSeconds; n > 0 {
		return s.opt.Clock.Sleep(ctx, time.Duration(n)*time.Second)
	}
	return nil
}

// FormWait is formWait for the poster.
func (s *Session) FormWait(ctx context.Context) error { return s.formWait(ctx) }
