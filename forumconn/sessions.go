package forumconn

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// Sessions keeps one logged-in session per (board, bot account), shared by
// every game played on it, and one pacer per board, shared by every
// account on it: N games on one board make one login, one inbox read per
// poll (when their polls meet), and never more requests than the board's
// requests_per_second (the slowest any of its games asks for).
type Sessions struct {
	Clock   clock.Clock
	Version string
	// Log, when set, gets the sessions' own news: a login, a read retried,
	// a Retry-After that holds the board's requests.
	Log *slog.Logger
	// InboxAge is how old an inbox list may be for another game of the
	// account to take it in its poll [5s]: one list serves every game
	// polling within it. A game's deadline is resolved once a list asked
	// for after it is in, so at most this late.
	InboxAge time.Duration

	mu       sync.Mutex
	accounts map[forum.Account]*account
	pacers   map[string]*scraper.Pacer
	apis     map[forum.Account]forum.Board // the accounts on API boards (api.go)
}

// account is one bot account on one board: what its games share.
type account struct {
	session *scraper.Session
	scraper *scraper.Scraper
	poster  *poster.Poster
	inbox   listing
	// inboxAge: how old a shared inbox list may be (0: it must be asked
	// for after the call, as for a game on its own).
	inboxAge time.Duration
	pmMu     sync.Mutex
	pms      map[string]*pmRead // PMs read or being read, by id (a PM never changes)
	topics   topicLists         // the topic lists of its games' forums (topics.go)
}

// pmRead is one PM's read, shared by the games that want it at once.
type pmRead struct {
	done chan struct{}
	pm   forum.PrivateMessage
	err  error
}

// Connect returns a game's connection on the shared session of its board
// and bot account (site.Account), opening that session for the first game
// on it.
func (ss *Sessions) Connect(site *gameconfig.Site) (*Conn, error) {
	if err := notAPI(site); err != nil {
		return nil, err
	}
	fc := site.Forum
	interval := time.Second
	if fc.RequestsPerSecond > 0 {
		interval = time.Duration(float64(time.Second) / fc.RequestsPerSecond)
	}
	board := site.Account.Board
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.accounts == nil {
		ss.accounts = map[forum.Account]*account{}
	}
	if ss.pacers == nil {
		ss.pacers = map[string]*scraper.Pacer{}
	}
	pc := ss.pacers[board]
	if pc == nil {
		pc = scraper.NewPacer(ss.Clock, interval)
		ss.pacers[board] = pc
	}
	pc.SlowTo(interval) // the board's most cautious setting wins
	a := ss.accounts[site.Account]
	if a == nil {
		c, err := connect(site, ss.Clock, ss.Version, pc, ss.Log)
		if err != nil {
			return nil, err
		}
		a = c.acct
		a.inboxAge = ss.InboxAge
		if a.inboxAge <= 0 {
			a.inboxAge = 5 * time.Second
		}
		ss.accounts[site.Account] = a
	}
	return a.conn(), nil
}

// Board is Connect as the moderator's connector (moderator.Connector):
// the game's connection as the port it uses.
func (ss *Sessions) Board(_ context.Context, site *gameconfig.Site) (forum.Board, error) {
	if site.Err == nil && site.Profile.API != "" {
		return ss.connectAPI(site)
	}
	c, err := ss.Connect(site)
	if err != nil {
		return nil, err // not a nil *Conn in a non-nil interface
	}
	return c, nil
}

// connectAPI is Board for a board read through its API: one client per
// (board, bot account), shared by its games, on the board's pacer.
func (ss *Sessions) connectAPI(site *gameconfig.Site) (forum.Board, error) {
	pc := ss.pacer(site)
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.apis == nil {
		ss.apis = map[forum.Account]forum.Board{}
	}
	if b := ss.apis[site.Account]; b != nil {
		return b, nil
	}
	// The chat room list is shared as an inbox list is: for InboxAge when
	// set, else for nine tenths of the first game's poll (games polling
	// within one poll share a list; a game on its own lists afresh at each
	// of its polls, as before), at most 5 s.
	age := ss.InboxAge
	if age <= 0 {
		age = min(site.Forum.Poll()*9/10, 5*time.Second)
	}
	b, err := connectAPI(site, ss.Clock, ss.Version, pc, ss.Log, age)
	if err != nil {
		return nil, err
	}
	ss.apis[site.Account] = b
	return b, nil
}

// pacer is the pacer of a game's board, made for its first game and
// slowed to the most cautious rate any game on it asks for.
func (ss *Sessions) pacer(site *gameconfig.Site) *scraper.Pacer {
	interval := time.Second
	if rps := site.Forum.RequestsPerSecond; rps > 0 {
		interval = time.Duration(float64(time.Second) / rps)
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.pacers == nil {
		ss.pacers = map[string]*scraper.Pacer{}
	}
	pc := ss.pacers[site.Account.Board]
	if pc == nil {
		pc = scraper.NewPacer(ss.Clock, interval)
		ss.pacers[site.Account.Board] = pc
	}
	pc.SlowTo(interval)
	return pc
}

// Pacer is the pacer of a board (nil when no game on it has connected).
func (ss *Sessions) Pacer(boardURL string) *scraper.Pacer {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.pacers[forum.BoardKey(boardURL)]
}

// Accounts is how many sessions (board, bot account) are open.
func (ss *Sessions) Accounts() int {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return len(ss.accounts)
}

func newAccount(s *scraper.Session) *account {
	return &account{session: s, scraper: scraper.New(s), poster: poster.New(s), pms: map[string]*pmRead{}}
}

// conn is a game's view of the account: its own scraper (its own progress
// report) on the shared session, poster and PM cache.
func (a *account) conn() *Conn {
	return &Conn{Session: a.session, Scraper: scraper.New(a.session), Poster: a.poster, acct: a}
}

// inboxList is an inbox list asked for no earlier than notBefore, shared
// with every game of the account that can take it, oldest first, and when
// it was asked for. The list is shared, not copied: callers only read it.
func (a *account) inboxList(ctx context.Context, notBefore time.Time) ([]forum.PMHeader, time.Time, error) {
	return a.inbox.get(ctx, notBefore, func(ctx context.Context) ([]forum.PMHeader, time.Time, error) {
		hs, at, err := a.scraper.InboxAt(ctx)
		// Sorted once for all its callers (a game finds its cursor in it
		// by bisection): sorting and copying it for each game was, at
		// 1,000 games, an eighth of the bot's CPU while they all had PMs.
		slices.SortFunc(hs, func(x, y forum.PMHeader) int { return scraper.CompareIDs(x.ID, y.ID) })
		return hs, at, err
	})
}

// readPM reads a PM once for all the account's games (a failed read is
// forgotten, so the next poll tries again).
func (a *account) readPM(ctx context.Context, id string) (forum.PrivateMessage, error) {
	a.pmMu.Lock()
	r, ok := a.pms[id]
	if !ok {
		if len(a.pms) >= maxCachedPMs {
			clear(a.pms) // ids only grow: the games' cursors are past the old ones
		}
		r = &pmRead{done: make(chan struct{})}
		a.pms[id] = r
	}
	a.pmMu.Unlock()
	if !ok {
		r.pm, r.err = a.scraper.ReadPM(ctx, id)
		if r.err != nil {
			a.pmMu.Lock()
			if a.pms[id] == r {
				delete(a.pms, id)
			}
			a.pmMu.Unlock()
		}
		close(r.done)
	}
	select {
	case <-r.done:
	case <-ctx.Done():
		return forum.PrivateMessage{}, ctx.Err()
	}
	return r.pm, r.err
}

const maxCachedPMs = 2000

// listing shares one folder list among the callers that want it. A caller
// takes a list whose request went out no earlier than its notBefore: the
// list then holds every PM that arrived before then. Callers arriving while
// a request is queued or under way join it; a list already in may serve
// callers that accept its age.
type listing struct {
	mu   sync.Mutex
	cur  *batch // the request under way
	last *batch // the newest list in
}

type batch struct {
	done chan struct{}
	hs   []forum.PMHeader
	sent time.Time
	err  error
}

func (l *listing) get(ctx context.Context, notBefore time.Time, fetch func(context.Context) ([]forum.PMHeader, time.Time, error)) ([]forum.PMHeader, time.Time, error) {
	for {
		l.mu.Lock()
		if lb := l.last; lb != nil && !lb.sent.Before(notBefore) {
			l.mu.Unlock()
			return lb.hs, lb.sent, nil
		}
		b, lead := l.cur, false
		if b == nil {
			b, lead = &batch{done: make(chan struct{})}, true
			l.cur = b
		}
		l.mu.Unlock()
		if lead {
			b.hs, b.sent, b.err = fetch(ctx)
			l.mu.Lock()
			l.cur = nil
			if b.err == nil && (l.last == nil || b.sent.After(l.last.sent)) {
				l.last = b
			}
			l.mu.Unlock()
			close(b.done)
			if b.err != nil {
				return nil, time.Time{}, b.err
			}
		} else {
			select {
			case <-b.done:
			case <-ctx.Done():
				return nil, time.Time{}, ctx.Err()
			}
			if b.err != nil {
				if errors.Is(b.err, context.Canceled) || errors.Is(b.err, context.DeadlineExceeded) {
					continue // the leader gave up; this caller has not
				}
				return nil, time.Time{}, b.err
			}
		}
		if !b.sent.Before(notBefore) {
			return b.hs, b.sent, nil
		}
		// The list was asked for before this caller's bound: it may lack
		// a PM the caller must see. Another request.
	}
}

// connect opens a connection (and its account) to a game's board on the
// given board pacer (nil: its own).
func connect(site *gameconfig.Site, clk clock.Clock, version string, pc *scraper.Pacer, log *slog.Logger) (*Conn, error) {
	if site.Err != nil {
		return nil, site.Err
	}
	fc := site.Forum
	creds, err := fc.Credentials()
	if err != nil {
		return nil, err
	}
	if log != nil {
		log = log.With("board", fc.URL, "account", fc.Bot)
	}
	opt := scraper.Options{Clock: clk, UserAgent: scraper.UserAgent(version), Pacer: pc, Log: log,
		// Read again at each login: a password file the GM fixes while the
		// bot runs is used at the next attempt after the lockout's wait.
		Password: func() (string, error) {
			c, err := fc.Credentials()
			return c.Password, err
		}}
	if fc.RequestsPerSecond > 0 {
		opt.MinInterval = time.Duration(float64(time.Second) / fc.RequestsPerSecond)
	}
	c, err := Open(fc.URL, site.Profile, creds, opt)
	if err != nil {
		return nil, fmt.Errorf("board %s: %w", fc.URL, err)
	}
	// Look further back for an interrupted send than a poster alone would:
	// several games may share the bot's thread pages.
	c.Poster.ScanPages = 3
	if fc.FloodSeconds != nil {
		c.Poster.SetFlood(time.Duration(*fc.FloodSeconds * float64(time.Second)))
	}
	return c, nil
}
