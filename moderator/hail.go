package moderator

import (
	"context"
	"sync/atomic"
	"time"
)

// Hailing: where games share a bot account's inbox, one list of it serves
// every game polling then, and each game reads only its own players' PMs
// (newPMs). A game whose read passes by a PM from another game's player
// hails that game: its worker wakes from its wait between polls, and its
// next tick takes a worker before the other games' (Pool.Do). So a player
// who sends orders waits for the next list of the account's inbox, made by
// whichever game polls first, not for their own game's turn among many: on
// real phpBB at one request a second, with 19 games opening beside a
// running one, that game's own tick came about once in 50 s.

// hails are the wake-ups of the games this moderator's workers run.
type hails struct {
	by map[int64]chan struct{} // by game (m.mu)
	// read: by game, when the inbox list of its latest read was asked
	// for (m.mu). A hail from a list no newer is stale: the game has read
	// what it shows. Without it, at 1,000 games answering 1,000 orders,
	// each PM hailed its game once for every other game that passed it
	// by, and the games ticked without rest (a core of CPU, the answers
	// 43 s where they were 7 s: BenchmarkBurst).
	read map[int64]time.Time
}

// hailable registers game id's wake-up for its worker's life (drop ends it).
func (m *Moderator) hailable(id int64) (wake <-chan struct{}, drop func()) {
	ch := make(chan struct{}, 1)
	m.mu.Lock()
	if m.hails.by == nil {
		m.hails.by = map[int64]chan struct{}{}
	}
	m.hails.by[id] = ch
	m.mu.Unlock()
	return ch, func() {
		m.mu.Lock()
		if m.hails.by[id] == ch {
			delete(m.hails.by, id)
			delete(m.hails.read, id)
		}
		m.mu.Unlock()
	}
}

// hail wakes the games' workers (those this moderator runs; hails to one
// game before it wakes are one) for PMs an inbox list asked for at listed
// shows: not a game whose own read was of a list as new or newer.
func (m *Moderator) hail(ids []int64, listed time.Time) {
	if len(ids) == 0 {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, id := range ids {
		if !listed.After(m.hails.read[id]) {
			continue
		}
		if ch := m.hails.by[id]; ch != nil {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}
}

// noteListRead notes that game id read the inbox list asked for at listed.
func (m *Moderator) noteListRead(id int64, listed time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hails.read == nil {
		m.hails.read = map[int64]time.Time{}
	}
	if listed.After(m.hails.read[id]) {
		m.hails.read[id] = listed
	}
}

// sleepOrHail waits d, or less when the game is hailed meanwhile (hailed
// true; a hail before the wait ends it at once).
func (m *Moderator) sleepOrHail(ctx context.Context, d time.Duration, wake <-chan struct{}) (hailed bool, err error) {
	select {
	case <-wake:
		return true, nil
	default:
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var got atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		select {
		case <-wake:
			got.Store(true)
			cancel()
		case <-wctx.Done():
		}
	}()
	err = m.sleep(wctx, d)
	cancel()
	<-done // a hail it took is kept
	if got.Load() && ctx.Err() == nil {
		return true, nil
	}
	return false, err
}

// hailedKey marks a hailed tick's context.
type hailedKey struct{}

// withHailed marks ctx as a hailed tick's: what woke it is a PM of one of
// its players, which another game's inbox list showed.
func withHailed(ctx context.Context) context.Context {
	return context.WithValue(ctx, hailedKey{}, true)
}

// hailedTick says whether ctx is a hailed tick's.
func hailedTick(ctx context.Context) bool {
	v, _ := ctx.Value(hailedKey{}).(bool)
	return v
}

// inboxOnly says whether a hailed tick's read may take the inbox alone:
// outside a deadline's last stretch (where every poll reads the thread),
// while the thread's last full read is younger than the game's poll
// period, so its next poll reads the thread as it would have. It returns
// that read's start, which the thread is complete up to. A hailed tick is
// for a PM: on a board without a change signal (forum: off) it read the
// whole thread besides, and at 1,000 games the threads' own reads fell
// behind (BenchmarkBurst, forum: off).
func (m *Moderator) inboxOnly(ctx context.Context, l *loaded, now time.Time) (time.Time, bool) {
	if !hailedTick(ctx) || lastStretch(l, now) {
		return time.Time{}, false
	}
	st := m.pollStateOf(l.row.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	if st.fullAt.IsZero() || now.Sub(st.fullAt) >= pollPeriod(l.forum, st.active, st.deadline, now) {
		return time.Time{}, false
	}
	return st.fullAt, true
}
