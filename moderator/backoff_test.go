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

// TestFailingBoardReadAtTheMinute: a game whose board fails is read again
// at the minute of its failing, wherever the backoff's doubling falls (with
// a 10 s poll its reads would be at +0, +10, +30 and +70 s or later, jitter
// included). So a closure shorter than a minute is a blip, read good at
// +60 s, and one longer is an outage, read failing at +60 s (RULINGS
// "Outages of the board", 1).
func TestFailingBoardReadAtTheMinute(t *testing.T) {
	for _, tc := range []struct {
		name   string
		back   time.Duration // the board is back this long after the first failed read
		slow   time.Duration // each failed read takes this long (a board timing out)
		outage bool
	}{
		{"back at +50 s", 50 * time.Second, 0, false},
		{"back at +65 s", 65 * time.Second, 0, true},
		// Reads begun at +0 and about +45 s end at +35 s and +80 s: the
		// one begun before the minute does not decide it, so the board
		// is read again at once (and fails), not after another backoff.
		{"failed reads of 35 s, back at +90 s", 90 * time.Second, 35 * time.Second, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newOutageRig(t, storetest.SQLite(t), nil)
			r.tick() // the opening post: proposal 1 is due at +30 s
			r.ff.Down = true
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			hc := &sleepHookClock{Fake: r.clk}
			hc.hook = func(at time.Time, d time.Duration) {
				if !at.Add(d).Before(start.Add(tc.back)) {
					r.ff.Lock()
					r.ff.Down = false
					r.ff.Unlock()
				}
				if at.Sub(start) > time.Hour {
					cancel() // never got there: fail below rather than hang
				}
			}
			r.m.Clock = hc
			r.ff.OnRead = func(down bool) {
				if !down {
					cancel() // the first good read: the outage is decided
				} else {
					r.clk.Advance(tc.slow)
				}
			}
			var g *store.Game
			r.db.View(r.ctx, func(tx *store.Tx) error { var err error; g, err = tx.GameByID(r.id); return err })
			r.m.worker(ctx, *g)

			r.ff.Lock()
			reads := append([]time.Time(nil), r.ff.Reads...)
			r.ff.Unlock()
			atMinute := false // a read begun at the minute, or at once after one begun before it ended
			for i, at := range reads {
				d := at.Sub(start)
				atMinute = atMinute || d >= time.Minute && d < time.Minute+time.Second ||
					tc.slow > 0 && i > 0 && reads[i-1].Sub(start) < time.Minute && at.Sub(reads[i-1]) <= tc.slow+time.Second && d >= time.Minute
			}
			if len(reads) < 2 || !reads[1].Equal(start) || !atMinute {
				t.Fatalf("reads at %v: want the first failed one at the start and one at +1m0s", reads)
			}
			// Proposal 1 was due at +30 s: an outage moved it and told the
			// thread (in the good read's step); a blip did neither.
			r.tick()
			if n := len(r.threadPosts("could not be read")); (n == 1) != tc.outage || n > 1 {
				t.Errorf("%d notices of an outage, want an outage: %v (reads at %v)", n, tc.outage, reads)
			}
		})
	}
}
