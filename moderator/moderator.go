// Package moderator is the bot's loop: for each running game it reads the
// thread and the inbox, records every post and PM as first seen (and later
// edits), applies the commands in forum order through the referee, resolves
// each phase at its deadline, and sends the results exactly once through an
// outbox.
//
// Every step is computed, then stored once: it loads what it needs in one
// call (store.Tx.LoadStep), lets the referee and the game compute the new
// state, events, statuses and outbox rows as plain values (a step), and
// saves them in one call (store.Tx.Save), all in one transaction, so a crash
// at any point leaves either all of a step or none of it.
//
// A game's board is resolved once when the game is loaded and held
// (gameconfig.Site: its profile, zone, deadline unit, message limit and
// body reader), so no step looks anything about the board up. The board is
// reached only through the port forum.Board: its reading half by a poll
// (read.go), its sending half by the outbox (send.go). The state is
// rebuilt from the game's seed and its journal (package journal).
// docs/architecture.md draws the whole seam.
//
// The files follow the steps: read.go (thread and inbox into the store),
// apply.go (one message's commands), resolve.go (deadlines, rebuilding the
// state), create.go, control.go (the GM's commands), send.go (the outbox),
// step.go (what a step loads and saves), game.go (a game as loaded, with
// its board).
//
// The GM's work beside the loop is not here: counts, reminders and prods
// (package between), sign-ups (signups), the GM's own words (gmwords) and
// a game's records read back (gamelog). The loop calls them at known
// points of its steps, handing each the step as it may see and add to it;
// between.go, signups.go, words.go and records.go are those calls.
package moderator

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/store"
)

// Game statuses, as the store keeps them.
const (
	Running  = store.GameRunning
	Paused   = store.GamePaused
	Finished = store.GameFinished // the rules ended it
	Ended    = store.GameEnded    // the GM ended it
	// Signups and Cancelled: a game filled by sign-ups in its thread
	// (signups.go) before it starts, and one that never did.
	Signups   = store.GameSignups
	Cancelled = store.GameCancelled
)

// Moderator runs games kept in a store.
type Moderator struct {
	DB      *store.DB
	Connect Connector
	Clock   clock.Clock
	Log     *slog.Logger
	// Crash, when set, is called at named points of a tick; an error aborts
	// the tick there, as a crash would (tests kill the moderator with it).
	Crash func(point string) error
	// MaxAttempts before an outbox item is given up as failed (for the GM).
	MaxAttempts int
	// Run's leases (run.go): how long a game's lease lasts after each
	// renewal (default 30 s), this process's name in the leases table
	// (default host-pid-random), and Alone: no other runner can exist
	// (SQLite's file lock), so every game's lease is taken at once.
	Lease  time.Duration
	Runner string
	Alone  bool
	// Pool bounds and spreads Run's work (pool.go); nil: every game polls
	// on its own.
	Pool *Pool

	mu         sync.Mutex
	sites      map[int64]siteEntry           // by game: its board, resolved once
	readers    map[string]*parser.BodyReader // by profile (JSON): shared by its games
	sibs       *siblingCache                 // the games sharing an inbox, decoded (siblings.go)
	conns      map[int64]Forum
	hails      hails               // the workers' wake-ups (hail.go)
	flood      map[int64]time.Time // by game: when flood control lets the next post or PM go
	floodSaved map[int64]string    // by game: the flood status last recorded
	// healthy: by game, its last read recorded by this moderator left
	// the board and the inbox readable with no outage waiting (readPMs).
	healthy map[int64]bool
	// retryAt: by outbox item, when a send that went wrong may be tried
	// again (its lane waits; the others go on). Lost on restart, harmlessly.
	retryAt map[int64]time.Time
	takenAt map[int64]time.Time // when a taken item is looked for again (send.go)
	// decodes counts the games a tick decoded (its view, its steps): a
	// quiet tick decodes its game once.
	decodes atomic.Int64
	// backfilling: the games whose last read stopped before the thread's
	// end (read.go, readSlice); polls: what each game's polls saw (poll.go).
	backfilling map[int64]bool
	polls       map[int64]*pollState
	// forumOf: by account, the forum its games' thread pages named last:
	// a new game's first guess (poll.go, signalForum).
	forumOf map[forum.Account]string
	// work is the GM's work between deadlines (package between), which
	// the steps call at known points (between.go).
	work between.Work
	// settle: by outbox item, when its last submission (perhaps another
	// runner's, cancelled) has surely ended on the board (send.go, settled).
	settle map[int64]time.Time
}

// ErrCrash is what a Crash hook returns to simulate a crash.
var ErrCrash = errors.New("simulated crash")

func (m *Moderator) crash(point string) error {
	if m.Crash != nil {
		return m.Crash(point)
	}
	return nil
}

func (m *Moderator) log() *slog.Logger {
	if m.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return m.Log
}

// now is the moderator's clock at the store's precision (microseconds), so
// a state rebuilt from the journal has exactly the times the live one had.
func (m *Moderator) now() time.Time {
	if m.Clock == nil {
		return time.Now().UTC().Truncate(time.Microsecond)
	}
	return m.Clock.Now().UTC().Truncate(time.Microsecond)
}

func (m *Moderator) conn(ctx context.Context, l *loaded) (Forum, error) {
	m.mu.Lock()
	f, ok := m.conns[l.row.ID]
	m.mu.Unlock()
	if ok {
		return f, nil
	}
	if l.site.Err != nil {
		return nil, l.site.Err
	}
	f, err := m.Connect(ctx, l.site)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.conns == nil {
		m.conns = map[int64]Forum{}
	}
	m.conns[l.row.ID] = f
	m.mu.Unlock()
	return f, nil
}

// Forget drops a game's cached forum connection (after it failed).
func (m *Moderator) Forget(id int64) {
	m.mu.Lock()
	delete(m.conns, id)
	delete(m.healthy, id)
	m.mu.Unlock()
}

// Tick is one poll of one game: read, record, apply, resolve what is due,
// send what is queued. The read uses only the board's reading half and
// the sends only its sending half (forum.BoardReader, forum.BoardSender).
func (m *Moderator) Tick(ctx context.Context, id int64) error {
	_, err := m.tick(ctx, id, true)
	return err
}

// tick is Tick; with send false it leaves the outbox to the game's sender
// (Run: sender.go).
func (m *Moderator) tick(ctx context.Context, id int64, send bool) (*tickEnd, error) {
	l, err := m.viewForRead(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("game #%d: %w", id, err)
	}
	readAt := m.now()
	f, err := m.conn(ctx, l)
	if err != nil {
		err = fmt.Errorf("game %s: connecting to the forum: %w", l.row.Name, err)
		m.readFailed(ctx, l, readAt, err)
		return nil, err
	}
	if l.row.Status == Running || l.row.Status == Paused || l.row.Status == Signups {
		readAt, err := m.read(ctx, l, f, readAt)
		if err != nil {
			m.readFailed(ctx, l, readAt, err)
			// Still send what is queued: reading and posting fail apart.
			if !send {
				return nil, err
			}
			if derr := m.drain(ctx, l, f); derr != nil && ctx.Err() == nil {
				m.log().Warn("sending failed too", "game", l.row.Name, "err", derr)
			}
			return nil, err
		}
		if err := m.crash("after-read"); err != nil {
			return nil, err
		}
		if l.row.Status == Signups {
			if err := m.processSignups(ctx, l, readAt); err != nil {
				return nil, err
			}
		} else if err := m.process(ctx, l, readAt); err != nil {
			return nil, err
		}
	} else if err := m.process(ctx, l, m.now()); err != nil {
		// Messages recorded before the game ended are closed off (ignored).
		return nil, err
	}
	if !send {
		return l.end, nil
	}
	err = m.drain(ctx, l, f)
	if ferr := m.saveFlood(ctx, l.row.ID, f); ferr != nil && ctx.Err() == nil {
		m.log().Warn("flood status not recorded", "game", l.row.Name, "err", ferr)
	}
	return nil, err
}

// readRank ranks a game's thread reads on its account's session: a game
// whose opening post is not up yet has nobody waiting on its thread (its
// clock starts once the post is up), so its reads of it go after the
// running games' reads and every send, the opening posts' included (its
// own goes without a read first). With 19 games opening beside a running
// one at the board's 1 request a second, their first reads of their
// threads went first and the running game's answer took 38 s, nearly 4
// polls (BenchmarkRealBurst); ranked with the opening posts, they held up
// the one send lane an answer waited for. Not the reads the account's
// games share (its inbox list, its topic lists): a running game that
// joins one a new game asked for would wait at the new game's rank.
func readRank(ctx context.Context, l *loaded) context.Context {
	if awaitingOpening(l) {
		return forum.LaterRank(ctx, int(store.SendChores)+1)
	}
	return ctx
}

// awaitingOpening says whether the game runs but its opening post is not
// known to be up: nobody plays it yet, so its work goes after the running
// games' (readRank, Pool.Do).
func awaitingOpening(l *loaded) bool {
	return l.row.Status == Running && l.cfg.OpeningPost == "" && !l.cfg.SigningUp()
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func instanceToken() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 4)
	rand.Read(b)
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b)
}
