package moderator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// sleepHookClock is a fake clock that calls hook before each sleep (with
// the time it starts and its length), then advances.
type sleepHookClock struct {
	*clock.Fake
	hook func(at time.Time, d time.Duration)
}

func (c *sleepHookClock) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.hook(c.Now(), d)
	c.Advance(d)
	return nil
}

// TestBackoffCapAndRecovery is issue 22 item 3: under a long outage a
// game's tick backoff reached 5 min 58 s, above the documented 5-minute
// cap, and the game sat idle for about 5 minutes after the board was back.
// Now no two full reads of a failing board are more than 5 minutes apart,
// jitter included; meanwhile the worker checks the board with one cheap
// request (Ping) at most a minute apart, never more often than a minute;
// and the board, back a second after a failed read, is read within a
// minute (RULINGS "Backing off a failing board").
func TestBackoffCapAndRecovery(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	r.ff.Down = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		mu        sync.Mutex
		recovered time.Time // when the board came back
	)
	hc := &sleepHookClock{Fake: r.clk}
	hc.hook = func(at time.Time, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		// The board comes back one second into the first wait that
		// begins 20 minutes into the outage (the backoff is long at its
		// cap by then): on a failed read's heels, the worst moment.
		if recovered.IsZero() && at.Sub(start) >= 20*time.Minute {
			recovered = at.Add(time.Second)
		}
		if !recovered.IsZero() && !at.Add(d).Before(recovered) {
			r.ff.Lock()
			r.ff.Down = false
			r.ff.Unlock()
		}
		if at.Sub(start) > 2*time.Hour {
			cancel() // never got there: fail below rather than hang
		}
	}
	r.m.Clock = hc
	r.ff.OnRead = func(down bool) {
		if !down {
			cancel() // the first good read: the test has what it needs
		}
	}
	var g *store.Game
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; g, err = tx.GameByID(r.id); return err })
	r.m.worker(ctx, *g)

	r.ff.Lock()
	defer r.ff.Unlock()
	reads, pings := r.ff.Reads, r.ff.Pings
	if len(reads) < 2 {
		t.Fatalf("%d reads", len(reads))
	}
	last := reads[len(reads)-1]
	if recovered.IsZero() || last.Before(recovered) {
		t.Fatalf("no read after the board came back at %v (reads %v)", recovered, reads)
	}
	if idle := last.Sub(recovered); idle > time.Minute {
		t.Errorf("the board came back at +%v and was read at +%v: %v idle, want at most a minute", recovered.Sub(start), last.Sub(start), idle)
	}
	sawCap := false
	for i := 1; i < len(reads)-1; i++ {
		gap := reads[i].Sub(reads[i-1])
		if gap > 5*time.Minute {
			t.Errorf("full reads %d and %d of the failing board %v apart: above the 5-minute cap", i, i+1, gap)
		}
		sawCap = sawCap || gap >= 4*time.Minute
	}
	if !sawCap {
		t.Errorf("the backoff never came near its cap (reads %v): the outage is too short to test it", reads)
	}
	if len(pings) == 0 {
		t.Fatal("no cheap check of the board while backed off")
	}
	for i := 1; i < len(pings); i++ {
		if gap := pings[i].Sub(pings[i-1]); gap < time.Minute {
			t.Errorf("pings %d and %d %v apart: more often than a minute", i, i+1, gap)
		}
	}
}
