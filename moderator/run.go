package moderator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/store"
)

// Run moderates every running game until ctx is done. Each game has its own
// worker and poll interval; one game's failing forum only backs that game
// off, never the others.
func (m *Moderator) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	var mu sync.Mutex
	workers := map[int64]bool{}
	for {
		var games []store.Game
		err := m.DB.View(ctx, func(tx *store.Tx) error {
			var err error
			games, err = tx.Games(Running, Paused, Finished, Ended)
			return err
		})
		if err != nil && ctx.Err() == nil {
			m.log().Error("listing games", "err", err)
		}
		for _, g := range games {
			mu.Lock()
			busy := workers[g.ID]
			mu.Unlock()
			if busy || !m.wantsWork(ctx, g) {
				continue
			}
			mu.Lock()
			workers[g.ID] = true
			mu.Unlock()
			wg.Add(1)
			go func(g store.Game) {
				defer wg.Done()
				defer func() { mu.Lock(); delete(workers, g.ID); mu.Unlock() }()
				m.worker(ctx, g)
			}(g)
		}
		if err := m.sleep(ctx, time.Second); err != nil {
			return nil
		}
	}
}

// wantsWork: running and paused games always; finished ones while they still
// have something to send.
func (m *Moderator) wantsWork(ctx context.Context, g store.Game) bool {
	if g.Status == Running || g.Status == Paused {
		return true
	}
	pending := false
	m.DB.View(ctx, func(tx *store.Tx) error {
		it, err := tx.NextOutbox(g.ID, m.now().Add(24*time.Hour))
		pending = err == nil && it != nil
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

// worker polls one game until it has nothing left to do or ctx ends.
func (m *Moderator) worker(ctx context.Context, g store.Game) {
	var fc gameconfig.ForumConfig
	if l, err := decodeGame(&g); err == nil {
		fc = l.forum
	}
	poll := fc.Poll()
	backoff := retry.New(poll, max(poll, 5*time.Minute))
	cleared := false
	for ctx.Err() == nil {
		err := m.safeTick(ctx, g.ID)
		m.noteStep(ctx, g.ID, err, &cleared)
		wait := poll
		if err != nil && ctx.Err() == nil {
			wait = backoff.Next()
			m.log().Warn("game tick failed; backing off", "game", g.Name, "err", err, "retry_in", wait)
			m.Forget(g.ID)
		} else {
			backoff.Reset()
		}
		var cur *store.Game
		m.DB.View(ctx, func(tx *store.Tx) error {
			cur, _ = tx.GameByID(g.ID)
			return nil
		})
		if cur == nil || !m.wantsWork(ctx, *cur) {
			return
		}
		// Wake up for a deadline that comes sooner than the next poll.
		if !cur.Deadline.IsZero() && cur.Status == Running {
			if d := cur.Deadline.Sub(m.now()) + 50*time.Millisecond; d > 0 && d < wait {
				wait = d
			}
		}
		// And for the end of a flood wait, so queued messages go out then.
		if d := m.FloodUntil(g.ID).Sub(m.now()); d > 0 && d < wait {
			wait = d
		}
		if m.sleep(ctx, wait) != nil {
			return
		}
	}
}

// safeTick is Tick with a panic turned into an error, so one game's bug (a
// message that crashes its engine) backs that game off instead of taking
// every game down.
func (m *Moderator) safeTick(ctx context.Context, id int64) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return m.Tick(ctx, id)
}
