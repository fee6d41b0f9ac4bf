// Package scraper fetches a forum over HTTP as the bot account: login and
// session upkeep, thread pages read incrementally from a cursor, the PM
// inbox and sent folder, all polite (per-host spacing, timeouts, retries
// with backoff, Retry-After) and all waiting through a clock.Clock.
//
// The Session is the seam shared with the poster: it owns the one colly
// collector every request goes through (GETs and form POSTs alike: one
// cookie jar, one user agent, one request at a time), the login, the
// profile and the politeness (a Pacer shared by every session on the
// board), so the scraper and the poster act as one logged-in user. Other
// packages reach colly only through it.
package scraper

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// Pacer, when set, is the board's pacer shared with other sessions on
	// it (MinInterval is then its interval); else the session has its own.
	Pacer *Pacer
	// Timeout bounds one HTTP request [30s].
	Timeout time.Duration
	// Retries is how many times a failed GET (network error, 429, 5xx) is
	// retried [4]; the wait doubles from Backoff [2s] up to MaxWait [5m]
	// plus jitter (internal/retry), or is what Retry-After says (capped at
	// MaxWait).
	Retries int
	Backoff time.Duration
	MaxWait time.Duration
	// LoginBackoff is the least wait after the board refused the bot's
	// name or password before another attempt [5m, doubling up to a day,
	// plus jitter]: boards lock accounts after a few failures. Anything
	// else going wrong with a login (a stale token, a page that is not the
	// login form, a 5xx) is an ordinary failure, retried on the next poll.
	LoginBackoff time.Duration
	// Password, when set, is asked for the bot's password at each login
	// attempt (the GM may fix a wrong password file while the bot runs, and
	// the next attempt after the wait uses it); else the session's
	// credentials are used.
	Password func() (string, error)
	// Transport replaces the HTTP transport (tests).
	Transport http.RoundTripper
	// Log receives the session's notable events (a GET retried, a login),
	// never a secret; nil discards them.
	Log *slog.Logger
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
	// ErrNotSent: the request's context ended before it was made (while
	// it waited for its turn or the pacer): the board never saw it.
	ErrNotSent = errors.New("the request was not made")
	// ErrLogin: the board refused the bot's login, or a login is held back
	// after a recent refusal.
	ErrLogin = errors.New("forum login failed")
	// ErrLoginRefused: the board said the name or password is wrong (an
	// ErrLogin too); only this starts the login lockout.
	ErrLoginRefused = fmt.Errorf("%w: the board refused the name or password", ErrLogin)
	// ErrClosed: the board shows its "closed for maintenance" page (the
	// profile's closed_text) instead of what was asked: away for now, like
	// a 503 (an ErrUnavailable too), never a refusal or an empty thread.
	ErrClosed = fmt.Errorf("%w: the board is closed for maintenance", ErrUnavailable)
	// ErrNotFound: the page does not exist (404) or holds nothing the
	// profile recognises.
	ErrNotFound = errors.New("not found on the forum")
)

// Page is one fetched page.
type Page struct {
	URL    string // final URL after redirects
	Status int
	Header http.Header
	Body   []byte // in UTF-8, decoded from the page's charset
	Doc    *goquery.Document
	// Charset is the charset the page came in (and its forms are
	// submitted in, unless a form names its own): the profile's, else
	// what the page declares (parser.PageCharset).
	Charset parser.Charset
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

	creds   forum.Credentials
	opt     Options
	pacer   *Pacer
	refused *regexp.Regexp // the board's wrong-password answers; nil: any login error

	turns turns // one request at a time per session (colly's Context is per collector), reads first
	coll  *colly.Collector
	resp  *Page // what the collector's OnResponse caught, during the turn

	loginMu   sync.Mutex
	loginGen  atomic.Uint64 // successful logins so far
	loginFail time.Time
	loginWait time.Duration
	// loginBackoff yields loginWait; set at the first refusal in a row.
	loginBackoff *retry.Backoff
	requests     atomic.Int64
	// noLoginFirst: a login failed (other than on a closed board): pages
	// are fetched first again, before any login (FetchAs).
	noLoginFirst atomic.Bool
	clock        boardClock // the board's clock, from the forms it made
	// charset is the profile's charset (zero: each page's own); forms,
	// the charsets of the form pages fetched last (charset.go).
	charset parser.Charset
	forms   formCharsets
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
	s := &Session{Profile: prof, Parser: x, Base: base, creds: creds, opt: opt, pacer: opt.Pacer}
	cs, ok := ProfileCharset(prof.Charset)
	if !ok {
		return nil, fmt.Errorf("profile %s: charset %q is not a charset browsers know (try ISO-8859-1, windows-1252, UTF-8)", prof.Name, prof.Charset)
	}
	s.charset = cs
	if s.pacer == nil {
		s.pacer = NewPacer(opt.Clock, opt.MinInterval)
	}
	if len(prof.LoginRefusedText) > 0 {
		var alts []string
		for _, t := range prof.LoginRefusedText {
			alts = append(alts, regexp.QuoteMeta(t))
		}
		s.refused = regexp.MustCompile("(?i)" + strings.Join(alts, "|"))
	}
	if s.coll, err = s.collector(); err != nil {
		return nil, err
	}
	return s, nil
}

// collector builds the session's one colly collector: no cache, revisits
// allowed, HTTP errors handed back as responses (the session judges them),
// redirects followed for GETs and stopped for POSTs (a form's redirect names
// the new post).
func (s *Session) collector() (*colly.Collector, error) {
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
	jar, _ := cookiejar.New(nil)
	tr := s.opt.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	// colly would decode only pages whose header names a charset: the
	// session decodes every page itself (charset.go).
	c.SetClient(&http.Client{Jar: jar, Timeout: s.opt.Timeout, Transport: rawTransport{tr}})
	c.SetRedirectHandler(func(req *http.Request, via []*http.Request) error {
		if via[0].Method == http.MethodPost || len(via) >= 10 {
			return http.ErrUseLastResponse
		}
		return nil
	})
	// One request at a time to the board from this account; the spacing
	// is the Pacer's (on the session's clock).
	if err := c.Limit(&colly.LimitRule{DomainGlob: "*", Parallelism: 1}); err != nil {
		return nil, err
	}
	c.OnResponse(func(r *colly.Response) {
		h := http.Header{}
		if r.Headers != nil {
			h = r.Headers.Clone()
		}
		restoreContentType(h)
		cs := s.pageCharset(h, r.Body)
		s.resp = &Page{URL: r.Request.URL.String(), Status: r.StatusCode, Header: h,
			Body: parser.DecodePage(r.Body, cs.Name), Charset: cs}
	})
	return c, nil
}

// Username is the bot account's name.
func (s *Session) Username() string { return s.creds.Username }

// Clock is the session's clock.
func (s *Session) Clock() clock.Clock { return s.opt.Clock }

// Requests is how many HTTP requests the session has made.
func (s *Session) Requests() int { return int(s.requests.Load()) }

// URL makes a profile-relative URL absolute.
func (s *Session) URL(rel string) (string, error) { return forum.Resolve(s.Base, rel) }

func (s *Session) log() *slog.Logger {
	if s.opt.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.opt.Log
}

// Pacer is the board's pacer this session waits on.
func (s *Session) Pacer() *Pacer { return s.pacer }

// do makes one request through the collector, after the board's pacer
// allows it; a Retry-After in the answer (any request, GET or POST) holds
// every later request to the board back until it passes. Called in the
// session's turn (turns): colly takes the context per collector, not per
// request.
func (s *Session) do(ctx context.Context, method, abs string, body []byte, hdr http.Header) (*Page, error) {
	// Ended while it waited for its turn or for the pacer: never made.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	if err := s.pacer.Wait(ctx); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
	}
	if method == http.MethodPost {
		// After every wait, just before the bytes leave: the sender
		// records the submission as on its way (forum.WithSubmit), and
		// hears when it has ended.
		ended, err := forum.Submitting(ctx)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNotSent, err)
		}
		defer ended()
	}
	s.requests.Add(1)
	sent := s.opt.Clock.Now()
	s.coll.Context = ctx
	s.resp = nil
	var rd *strings.Reader
	if body != nil {
		rd = strings.NewReader(string(body))
	}
	var err error
	if rd != nil {
		err = s.coll.Request(method, abs, rd, nil, hdr)
	} else {
		err = s.coll.Request(method, abs, nil, nil, hdr)
	}
	pg := s.resp
	s.resp = nil
	if err != nil {
		return nil, err
	}
	if pg == nil {
		return nil, errors.New("no response")
	}
	pg.Sent, pg.Received = sent, s.opt.Clock.Now()
	if retryable(pg.Status) {
		if ra, ok := RetryAfter(pg.Header, pg.Received); ok {
			until := pg.Received.Add(min(ra, s.opt.MaxWait))
			if s.pacer.Hold(until) {
				// Every game on the board waits: the GM should know why.
				s.log().Warn("forum: the board asked us to wait; no request to it before then",
					"status", pg.Status, "retry_after", ra, "until", until.Format(time.RFC3339), "url", abs)
			}
		}
	}
	return pg, nil
}

// parsed parses a fetched page outside the session's lock (the next
// request need not wait for it).
func parsed(pg *Page, err error) (*Page, error) {
	if pg == nil || pg.Doc != nil {
		return pg, err
	}
	doc, perr := parser.Doc(pg.Body)
	if perr != nil {
		return nil, perr
	}
	pg.Doc = doc
	return pg, err
}

// get fetches a page, retrying network errors, 429 and 5xx with backoff
// (a Retry-After holds the pacer instead). It does not check the login.
func (s *Session) get(ctx context.Context, rel string) (*Page, error) {
	abs, err := s.URL(rel)
	if err != nil {
		return nil, err
	}
	pg, err := parsed(s.getLocked(ctx, abs))
	if pg != nil && pg.Doc != nil {
		s.forms.note(pg) // the charset its forms go out in
	}
	if err == nil && pg != nil {
		// Before any login check: a closed board shows members (and the
		// login form) its closed page, and logging in there is no cure.
		if cerr := s.closedErr(abs, pg.Doc); cerr != nil {
			return pg, cerr
		}
	}
	return pg, err
}

// Get fetches a page as the session's account sees it (with its cookies),
// without the logged-in check of Fetch, nor a login: for what shows no
// logged-in marker (a board's feed). Page.Body is the whole answer, in
// UTF-8 (decoded from the page's charset).
func (s *Session) Get(ctx context.Context, rel string) (*Page, error) { return s.get(ctx, rel) }

// closedErr is ErrClosed, with the board's words, when doc is the board's
// closed page; nil otherwise.
func (s *Session) closedErr(abs string, doc *goquery.Document) error {
	if closed, said := s.Parser.Closed(doc); closed {
		return fmt.Errorf("GET %s: %w (board says: %s)", abs, ErrClosed, said)
	}
	return nil
}

func (s *Session) getLocked(ctx context.Context, abs string) (*Page, error) {
	s.lock(ctx)
	defer s.unlock()
	backoff := retry.New(s.opt.Backoff, s.opt.MaxWait)
	var lastErr error
	for attempt := 0; attempt <= s.opt.Retries; attempt++ {
		if attempt > 0 {
			wait := backoff.Next()
			if held := s.pacer.HeldUntil(); !held.IsZero() {
				wait = 0 // the pacer waits out the board's Retry-After
			}
			s.log().Info("forum: retrying a read", "url", abs, "error", lastErr)
			// Out of the turn while it waits: the session's other
			// requests (another game's read, a send) go meanwhile. A
			// Retry-After is the pacer's, and holds them all (do).
			s.unlock()
			err := s.opt.Clock.Sleep(ctx, wait)
			s.lock(ctx)
			if err != nil {
				return nil, err
			}
		}
		pg, err := s.do(ctx, http.MethodGet, abs, nil, nil)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			lastErr = err
			continue
		}
		if retryable(pg.Status) {
			if pg.Status == http.StatusServiceUnavailable {
				// SMF's maintenance mode answers 503 with its closed page:
				// say so, and do not retry what stays closed for a while.
				if doc, perr := parser.Doc(pg.Body); perr == nil {
					if cerr := s.closedErr(abs, doc); cerr != nil {
						pg.Doc = doc
						return pg, cerr
					}
				}
			}
			lastErr = fmt.Errorf("HTTP %d", pg.Status)
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

// PostForm submits a form through the collector, without following the
// redirect (its Location names the new post). It is never retried
// automatically: a repeated POST could post twice; the poster decides after
// checking. It waits for the pacer like any request, so a Retry-After the
// board sent earlier holds it back too.
func (s *Session) PostForm(ctx context.Context, abs string, vals url.Values, referer string) (*Page, error) {
	return parsed(s.postLocked(ctx, abs, vals, referer))
}

func (s *Session) postLocked(ctx context.Context, abs string, vals url.Values, referer string) (*Page, error) {
	s.lock(ctx)
	defer s.unlock()
	hdr := http.Header{}
	hdr.Set("Content-Type", "application/x-www-form-urlencoded")
	hdr.Set("User-Agent", s.opt.UserAgent)
	if referer != "" {
		hdr.Set("Referer", referer) // same host: boards check it
	}
	// As a browser sends it from the form's page (charset.go).
	body := parser.EncodeForm(vals, s.SubmitCharset(referer, abs))
	pg, err := s.do(ctx, http.MethodPost, abs, []byte(body), hdr)
	if err != nil {
		if errors.Is(err, ErrNotSent) {
			return nil, fmt.Errorf("POST %s: %w", abs, err)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("POST %s: %w: %v", abs, ErrUnavailable, err)
	}
	return pg, nil
}

// Fetch gets a page as the logged-in bot: if the page shows the board
// logged us out (no logged-in marker), it logs in again and refetches.
// Without credentials pages are read as a guest.
func (s *Session) Fetch(ctx context.Context, rel string) (*Page, error) {
	return s.FetchAs(ctx, rel, "")
}

// FetchAs is Fetch of a kind of page, whose logged-in mark is its own
// where the profile gives one (page_marks: PM pages without the logout
// link the rest of the board shows).
func (s *Session) FetchAs(ctx context.Context, rel string, kind forum.PageKind) (*Page, error) {
	gen := s.loginGen.Load()
	if gen == 0 && s.loginFirst() {
		// Before the session's first login, the page would only show a
		// guest page: log in first (one guest GET less per game at
		// start). A login that fails says why, as the page would have
		// (the board closed: ErrClosed at its login page's GET; a wrong
		// password in the board's words); after a failure other than a
		// closed board, fetches go the old way (the page first, then the
		// login, held back after a refusal), as before.
		if err := s.loginAfter(ctx, gen, rel); err != nil {
			return nil, err
		}
		gen = s.loginGen.Load()
	}
	pg, err := s.get(ctx, rel)
	if err != nil {
		return pg, err
	}
	if s.creds.Username == "" || s.Parser.LoggedInOn(kind, pg.Doc) {
		return pg, nil
	}
	if err := s.loginAfter(ctx, gen, rel); err != nil {
		return pg, err
	}
	pg, err = s.get(ctx, rel)
	if err != nil {
		return pg, err
	}
	if !s.Parser.LoggedInOn(kind, pg.Doc) {
		_, key := s.Profile.MarksOf(kind)
		return pg, fmt.Errorf("%w: logged in, but %s still shows a guest page (no %s)", ErrLogin, rel, key.LoggedIn)
	}
	return pg, nil
}

// loginFirst says whether a fetch before the session's first login logs
// in first: with credentials, no failed attempt before, and no login held
// back.
func (s *Session) loginFirst() bool {
	if s.creds.Username == "" || s.noLoginFirst.Load() {
		return false
	}
	s.loginMu.Lock()
	defer s.loginMu.Unlock()
	return s.loginFail.IsZero()
}

// Ping asks the board for its index once, through the pacer (a Retry-After
// the board sent still holds it), never retried and never logging in: nil
// when the board answers as a working board does (any page that is not a
// 429, a 5xx or its closed page; a guest page too), else ErrUnavailable.
// It is the cheap read by which `forumgm run` notices, within a minute, a
// board that answers again while a game is backed off for it: one request
// a minute, where a full read costs several, each retried.
func (s *Session) Ping(ctx context.Context) error {
	abs, err := s.URL(s.Profile.URLs.Index)
	if err != nil {
		return err
	}
	s.lock(ctx)
	pg, err := s.do(ctx, http.MethodGet, abs, nil, nil)
	s.unlock()
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("GET %s: %w: %v", abs, ErrUnavailable, err)
	}
	if doc, perr := parser.Doc(pg.Body); perr == nil {
		if cerr := s.closedErr(abs, doc); cerr != nil {
			return cerr
		}
	}
	if retryable(pg.Status) {
		return fmt.Errorf("GET %s: %w: HTTP %d", abs, ErrUnavailable, pg.Status)
	}
	return nil
}

// Login logs in through the board's login form: fetch it (the cookies of
// that GET carry the guest session the token is bound to), wait the
// profile's form delay, submit with the fresh tokens, and check a page for
// the logged-in marker. Only the board's wrong-password answer
// (ErrLoginRefused) holds further attempts back, for LoginBackoff
// (doubling), so a wrong password cannot lock the account; a stale token,
// a truncated or unrecognised page or a 5xx is an ordinary failure.
func (s *Session) Login(ctx context.Context) error { return s.loginAfter(ctx, s.loginGen.Load(), "") }

// loginAfter logs in unless a login succeeded since the caller read
// loginGen as gen (page: the guest page that showed the need, for the
// log): the many games of one account that saw a guest page
// together (the start, an expired session) wait for one login and then
// go on, rather than each fetching the login page again to learn it is
// logged in.
func (s *Session) loginAfter(ctx context.Context, gen uint64, page string) error {
	s.loginMu.Lock()
	defer s.loginMu.Unlock()
	if s.loginGen.Load() != gen {
		return nil
	}
	if page != "" {
		s.log().Info("forum: not logged in; logging in", "page", page)
	}
	if s.creds.Username == "" {
		return fmt.Errorf("%w: no credentials configured", ErrLogin)
	}
	now := s.opt.Clock.Now()
	if !s.loginFail.IsZero() && now.Before(s.loginFail.Add(s.loginWait)) {
		return fmt.Errorf("%w: the board refused the last attempt; next attempt after %s", ErrLogin, s.loginFail.Add(s.loginWait).Format(time.RFC3339))
	}
	err := s.login(ctx)
	if err != nil && !errors.Is(err, ErrClosed) && ctx.Err() == nil {
		s.noLoginFirst.Store(true)
	}
	switch {
	case errors.Is(err, ErrLoginRefused):
		s.loginFail = s.opt.Clock.Now()
		if s.loginWait == 0 {
			s.loginBackoff = retry.New(s.opt.LoginBackoff, 24*time.Hour)
		}
		s.loginWait = s.loginBackoff.Next()
	case err == nil:
		s.loginFail, s.loginWait = time.Time{}, 0
		s.loginGen.Add(1)
	}
	return err
}

func (s *Session) login(ctx context.Context) error {
	f := s.Profile.Forms.Login
	var pg *Page
	var form parser.Form
	for try := 1; ; try++ {
		var err error
		if pg, err = s.get(ctx, f.Page); err != nil {
			return err
		}
		if s.Parser.LoggedIn(pg.Doc) {
			return nil
		}
		if form, err = parser.FindForm(pg.Doc, pg.URL, f.Selector); err == nil {
			break
		}
		// A truncated or unexpected page (a board busy beside its
		// database answers one now and then): nothing was submitted, so
		// the page is asked for once more before the login fails.
		if try == 2 {
			return fmt.Errorf("login page: %w: %v (HTTP %d, %s)", ErrUnavailable, err, pg.Status, pageSays(s.Parser, pg))
		}
		s.log().Info("forum: the login page holds no login form; asking again", "says", pageSays(s.Parser, pg))
		if err := s.opt.Clock.Sleep(ctx, time.Second); err != nil {
			return err
		}
	}
	password := s.creds.Password
	if s.opt.Password != nil {
		var err error
		if password, err = s.opt.Password(); err != nil {
			return fmt.Errorf("%w: %v", ErrLogin, err)
		}
	}
	form.Values.Set(f.User, s.creds.Username)
	form.Values.Set(f.Password, password)
	for k, v := range f.Extra {
		form.Values.Set(k, v)
	}
	if err := s.FormWait(ctx, pg, form.Values); err != nil {
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
	if loc := res.Location(); boardErr == "" && loc != "" && s.refused != nil && s.refused.MatchString(loc) {
		// SMF answers a session's third wrong password with a redirect to
		// its password reminder, no error text.
		return fmt.Errorf("%w as %q: the board sent the login on to %s", ErrLoginRefused, s.creds.Username, loc)
	}
	if boardErr != "" && s.isRefusal(boardErr) {
		return fmt.Errorf("%w as %q: %s", ErrLoginRefused, s.creds.Username, boardErr)
	}
	// Success is usually a redirect or a meta-refresh page: check a page.
	check, err := s.get(ctx, s.Profile.URLs.Index)
	if err != nil {
		return err
	}
	if s.Parser.LoggedIn(check.Doc) {
		s.log().Info("forum: logged in", "user", s.creds.Username)
		return nil
	}
	if boardErr == "" {
		boardErr = "the board still shows a guest page"
	}
	// Not a wrong password (a stale token, a form the board wants again):
	// an ordinary failure, tried again on the next poll.
	return fmt.Errorf("%w as %q: %s", ErrLogin, s.creds.Username, boardErr)
}

// isRefusal: the board's error text is its answer to a wrong name or
// password (the profile's login_refused_text; without one, any error).
func (s *Session) isRefusal(boardErr string) bool {
	return s.refused == nil || s.refused.MatchString(boardErr)
}
