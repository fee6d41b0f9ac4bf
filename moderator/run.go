package moderator

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/store"
)

// Run moderates the games until ctx is done, sharing them with any other
// runs on the same database (PostgreSQL) through fenced leases: it takes a
// game only when the game's lease is free or has run out, at most its fair
// share of the games (ceil(games / live runners)), renews its leases every
// third of a lease period, gives games back when runners join, and works a
// game only while its lease is current (store.WithFence: a lost lease
// refuses every save and send). A runner that dies loses its games when
// their leases run out, within one lease period. Each game has its own
// worker and poll interval; one game's failing forum only backs that game
// off, never the others.
func (m *Moderator) Run(ctx context.Context) error {
	r := &runner{m: m, id: m.Runner, ttl: m.lease(), held: map[int64]*job{}}
	if r.id == "" {
		host, _ := os.Hostname()
		r.id = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), instanceToken())
	}
	defer r.stop()
	m.log().Info("runner started", "runner", r.id, "lease", r.ttl)
	for {
		r.round(ctx)
		if err := m.sleep(ctx, min(time.Second, r.ttl/3)); err != nil {
			return nil
		}
	}
}

// DefaultLease is how long a game's lease lasts after each renewal.
const DefaultLease = 30 * time.Second

func (m *Moderator) lease() time.Duration {
	if m.Lease > 0 {
		return m.Lease
	}
	return DefaultLease
}

// runner is Run's bookkeeping: the games it holds, each worked by a job.
// Only Run's goroutine touches it.
type runner struct {
	m       *Moderator
	id      string
	ttl     time.Duration
	held    map[int64]*job
	wg      sync.WaitGroup
	renewed time.Time
}

// job is one held game's worker.
type job struct {
	name   string
	fence  store.Fence
	cancel context.CancelFunc
	done   chan struct{}
	lost   atomic.Bool // the lease went to another runner: do not release it
}

func (r *runner) round(ctx context.Context) {
	m := r.m
	r.reap(ctx)
	if time.Since(r.renewed) >= r.ttl/3 {
		r.renew(ctx)
	}
	var games []store.GameHead
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		games, err = tx.GameHeads(Running, Paused, Signups, Finished, Ended, Cancelled)
		return err
	})
	if err != nil {
		if ctx.Err() == nil {
			m.log().Error("listing games", "err", err)
		}
		return
	}
	var want []store.GameHead
	for _, g := range games {
		if r.held[g.ID] != nil || m.wantsWork(ctx, g.ID, g.Status) {
			want = append(want, g)
		}
	}
	share := len(want)
	if !m.Alone {
		live := 1
		if err := m.DB.View(ctx, func(tx *store.Tx) error { n, err := tx.LiveRunners(); live = max(n, 1); return err }); err != nil {
			m.log().Warn("counting runners", "err", err)
		}
		share = (len(want) + live - 1) / live
	}
	if len(r.held) > share {
		// Runners joined: give the games above the share back (the highest
		// ids), each once its worker has stopped (reap).
		ids := make([]int64, 0, len(r.held))
		for id := range r.held {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		for _, id := range ids[share:] {
			j := r.held[id]
			m.log().Info("giving a game back to share the load", "game", j.name, "runner", r.id)
			j.cancel()
		}
		return
	}
	for _, g := range want {
		if len(r.held) >= share || ctx.Err() != nil {
			return
		}
		if r.held[g.ID] != nil {
			continue
		}
		var epoch int64
		var ok bool
		err := m.DB.Tx(ctx, func(tx *store.Tx) error {
			var err error
			epoch, ok, err = tx.AcquireLease(g.ID, r.id, r.ttl, m.Alone)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				m.log().Warn("taking a game's lease", "game", g.Name, "err", err)
			}
			return
		}
		if !ok {
			continue // another runner's
		}
		var row *store.Game
		if err := m.DB.View(ctx, func(tx *store.Tx) (err error) { row, err = tx.GameByID(g.ID); return err }); err != nil {
			if ctx.Err() == nil {
				m.log().Warn("loading a game to work on it (its lease runs out by itself)", "game", g.Name, "err", err)
			}
			return
		}
		r.start(ctx, *row, store.Fence{GameID: g.ID, Owner: r.id, Epoch: epoch, Budget: r.ttl / 2})
	}
}

// start works game g under fence f until the game needs nothing more, the
// lease is lost or the job is cancelled.
func (r *runner) start(ctx context.Context, g store.Game, f store.Fence) {
	jctx, cancel := context.WithCancel(ctx)
	j := &job{name: g.Name, fence: f, cancel: cancel, done: make(chan struct{})}
	r.held[g.ID] = j
	r.m.log().Info("took a game", "game", g.Name, "runner", r.id, "epoch", f.Epoch)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(j.done)
		defer cancel()
		if r.m.worker(store.WithFence(jctx, f), g) {
			j.lost.Store(true)
		}
	}()
}

// reap forgets the jobs that stopped, releasing their leases unless lost.
func (r *runner) reap(ctx context.Context) {
	for id, j := range r.held {
		select {
		case <-j.done:
		default:
			continue
		}
		delete(r.held, id)
		r.m.Forget(id)
		// Even a job that stopped for a lost lease releases it: the
		// release is fenced (a lease another runner took is left alone),
		// and a lease that ran out during a database outage may have been
		// renewed by this runner's heartbeat just after the job's save was
		// refused for it; held by nobody's job, it would keep the game idle
		// until it ran out again.
		r.release(ctx, j)
	}
}

func (r *runner) release(ctx context.Context, j *job) {
	if err := r.m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(j.fence) }); err != nil {
		r.m.log().Warn("releasing a game's lease (it runs out by itself)", "game", j.name, "err", err)
	}
}

// renew beats the runner's heartbeat and renews every held lease; a lease
// another runner took stops its job at once.
func (r *runner) renew(ctx context.Context) {
	m := r.m
	if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.Heartbeat(r.id, r.ttl) }); err != nil {
		if ctx.Err() == nil {
			m.log().Warn("runner heartbeat failed; leases last until they run out", "err", err)
		}
		return
	}
	r.renewed = time.Now()
	ids := slices.Sorted(maps.Keys(r.held))
	for len(ids) > 0 {
		// A few hundred games a transaction: one per game cost a thousand
		// commits every ten seconds at 1,000 games; all in one would hold
		// the database's writer long on a big runner.
		n := min(len(ids), renewBatch)
		fs := make([]store.Fence, n)
		for i, id := range ids[:n] {
			fs[i] = r.held[id].fence
		}
		var lost []store.Fence
		err := m.DB.Tx(ctx, func(tx *store.Tx) (err error) { lost, err = tx.RenewLeases(fs, r.ttl); return err })
		if err != nil && ctx.Err() == nil {
			m.log().Warn("renewing the games' leases", "games", n, "err", err)
		}
		for _, f := range lost {
			j := r.held[f.GameID]
			m.log().Warn("lost a game's lease to another runner; stopping work on it", "game", j.name, "epoch", f.Epoch)
			j.lost.Store(true)
			j.cancel()
		}
		ids = ids[n:]
	}
}

// renewBatch is how many leases one transaction renews.
const renewBatch = 250

// stop ends every job, then releases the leases (so other runners take the
// games at once rather than when they run out) and leaves the runners.
func (r *runner) stop() {
	for _, j := range r.held {
		j.cancel()
	}
	r.wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, j := range r.held {
		if !j.lost.Load() {
			r.release(ctx, j)
		}
	}
	if err := r.m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.LeaveRunners(r.id) }); err != nil {
		r.m.log().Warn("leaving the runners", "err", err)
	}
}

// wantsWork: running, paused and signing-up games always; finished (and
// cancelled) ones while they still have something to send or to confirm.
func (m *Moderator) wantsWork(ctx context.Context, id int64, status store.GameStatus) bool {
	if status == Running || status == Paused || status == Signups {
		return true
	}
	pending := false
	m.DB.View(ctx, func(tx *store.Tx) error {
		it, err := tx.NextOutbox(id, m.now().Add(24*time.Hour))
		pending = err == nil && it != nil
		if !pending {
			pending, _ = tx.HasToConfirm(id) // sent, its marker still to look for
		}
		return nil
	})
	return pending
}

func (m *Moderator) sleep(ctx context.Context, d time.Duration) error {
	if m.Clock == nil {
		return clock.Real{}.Sleep(ctx, d)
	}
	return m.Clock.Sleep(ctx, d)
}

// worker polls one game until it has nothing left to do or ctx ends; lost
// says it stopped because the game's lease went to another runner.
func (m *Moderator) worker(ctx context.Context, g store.Game) (lost bool) {
	var fc gameconfig.ForumConfig
	var account forum.Account
	opening := false // its opening post not up yet (awaitingOpening)
	if l, err := decodeGame(&g); err == nil {
		fc, account, opening = l.forum, l.forum.Account(), awaitingOpening(l)
	}
	poll := fc.Poll()
	backoff := retry.New(poll, max(poll, 5*time.Minute))
	if m.sleep(ctx, m.Pool.firstWait(m.now())) != nil {
		return
	}
	cleared := false
	snd := m.startSender(ctx, g.ID, account)
	defer snd.close()
	wake, drop := m.hailable(g.ID)
	defer drop()
	hailed := false
	var end *tickEnd // what the last tick's last step saw (nil: unknown)
	for ctx.Err() == nil {
		// What is queued goes out while the thread is read (a long first
		// read takes many ticks), and what the tick queues after it;
		// reading and sending fail apart. A tick that saw nothing queued
		// asks for no drain (one queued by a GM's command meanwhile is
		// seen by the next tick).
		if end == nil || end.unsent {
			snd.poke()
		}
		var err error
		if end != nil {
			opening = end.opening
		}
		rank := tickRunning
		switch {
		case hailed:
			rank = tickHailed
		case opening:
			rank = tickOpening
		}
		tctx := ctx
		if hailed {
			tctx = withHailed(ctx)
		}
		err = m.Pool.do(ctx, rank, func() error { end, err = m.safeTick(tctx, g.ID); return err })
		if !errors.Is(err, store.ErrLeaseLost) && (end == nil || end.unsent) {
			snd.poke()
		}
		m.noteStep(ctx, g.ID, err, &cleared)
		if errors.Is(err, store.ErrLeaseLost) {
			m.log().Warn("lost the game's lease to another runner; stopping work on it", "game", g.Name, "err", err)
			m.Forget(g.ID)
			return true
		}
		wait := m.pollWait(g.ID, account, fc)
		if err != nil && ctx.Err() == nil {
			wait = backoff.Next()
			if errors.Is(err, store.ErrUnavailable) {
				// The database, not the forum: retry within a third of
				// a lease, so the game goes on within a lease period of
				// the database's return (a forum's long backoff would
				// stall it for minutes while this runner holds it).
				wait = min(wait, max(poll, m.lease()/3))
			}
			m.Forget(g.ID)
		} else {
			backoff.Reset()
		}
		var cur *store.Game
		boardDown := false   // the game's reads of its board are failing
		var minute time.Time // minuteRead
		var verr error
		if err == nil && end != nil {
			// As the tick's last step left it: no need to load it again.
			cur, boardDown = &store.Game{ID: g.ID, Status: end.status, Deadline: end.deadline}, end.failing
		} else {
			verr = m.DB.View(ctx, func(tx *store.Tx) error {
				var err error
				if cur, err = tx.GameByID(g.ID); err != nil {
					return err
				}
				h, herr := tx.Health(g.ID)
				boardDown = herr == nil && h.Failing()
				minute = minuteRead(h, poll)
				return nil
			})
		}
		switch {
		case errors.Is(verr, store.ErrNotFound):
			return false // deleted
		case verr != nil:
			// The database is away: keep the game (and its lease) and
			// try again, rather than hand it back to wait out a lease
			// no runner can take until it ends.
			cur = &g
		case !m.wantsWork(ctx, cur.ID, cur.Status):
			return false
		}
		// Wake up for a deadline that comes sooner than the next poll.
		if !cur.Deadline.IsZero() && (cur.Status == Running || cur.Status == Signups) {
			if d := cur.Deadline.Sub(m.now()) + 50*time.Millisecond; d > 0 && d < wait {
				wait = d
			}
		}
		// And for the end of a flood wait, so queued messages go out then.
		if d := m.FloodUntil(g.ID).Sub(m.now()); d > 0 && d < wait {
			wait = d
		}
		// A failing board is read again at the minute of its failing, or
		// at once if that is past, so a read decides the outage.
		if !minute.IsZero() && err != nil && boardDown {
			if d := max(minute.Sub(m.now()), 0); d < wait {
				wait = d
			}
		}
		if err != nil && ctx.Err() == nil {
			m.log().Warn("game tick failed; backing off", "game", g.Name, "err", err, "retry_in", wait)
			m.noteNextRead(ctx, g.ID, m.now().Add(wait)) // for status
		}
		if err != nil && boardDown {
			err = m.waitForBoard(ctx, g, fc, wait)
		} else {
			hailed, err = m.sleepOrHail(ctx, wait, wake)
		}
		if err != nil {
			return false
		}
	}
	return false
}

// PingEvery is how often a game backed off for a board it cannot read
// checks whether the board answers again (RULINGS "Backing off a failing
// board").
const PingEvery = time.Minute

// waitForBoard waits d, the backoff of a game whose board cannot be read,
// checking the board with one Ping every PingEvery meanwhile, and ends the
// wait as soon as the board answers: a board back is read within a minute,
// while a board still down gets one request a minute, not full reads.
func (m *Moderator) waitForBoard(ctx context.Context, g store.Game, fc gameconfig.ForumConfig, d time.Duration) error {
	until := m.now().Add(d)
	site := m.site(g.ID, g.Forum, fc)
	if site.Err != nil {
		return m.sleep(ctx, d)
	}
	p, err := m.Connect(ctx, site)
	if err != nil {
		return m.sleep(ctx, d)
	}
	for until.Sub(m.now()) > PingEvery {
		if err := m.sleep(ctx, PingEvery); err != nil {
			return err
		}
		if p.Ping(ctx) == nil {
			return ctx.Err()
		}
	}
	return m.sleep(ctx, until.Sub(m.now()))
}

// safeTick is Run's tick (its sends left to the game's sender) with a
// panic turned into an error, so one game's bug (a message that crashes its
// engine) backs that game off instead of taking every game down.
func (m *Moderator) safeTick(ctx context.Context, id int64) (end *tickEnd, err error) {
	defer func() {
		if r := recover(); r != nil {
			end, err = nil, fmt.Errorf("internal error: %v", r)
		}
	}()
	return m.tick(ctx, id, false)
}
