package moderator

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestTheWindowOpensWhenTheRequestLeaves: runner A claims the opening post
// and is killed (issue 42's crash loop), either before its request left
// (the form still ageing, the pacer holding it) or just after it started
// to leave (recorded as on its way, its bytes possibly still reaching the
// board). Runner B takes the game over. Killed before: nothing can be on
// its way, so B checks the marker once and posts at once, not after the
// window (a runner that lives shorter than the window would otherwise
// never post). Killed after: B waits the window out before it posts, as
// the board may still take A's request. Either way the post is on the
// board once.
func TestTheWindowOpensWhenTheRequestLeaves(t *testing.T) {
	// How long a request may still land: the rest of the fence's budget,
	// then the board's lateness (late_seconds).
	const budget, late = 2 * time.Second, time.Second
	const window = budget + late
	for _, tc := range []struct {
		point   string // where A is killed
		atLeast time.Duration
		atMost  time.Duration
	}{
		{point: "before-send", atMost: window / 2},
		{point: "submitting", atLeast: window * 2 / 3, atMost: 3 * window},
	} {
		t.Run(tc.point, func(t *testing.T) {
			t.Parallel()
			db := storetest.SQLite(t)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			fake := forumtest.New(clock.Real{})
			connect := func(context.Context, *gameconfig.Site) (Forum, error) { return fake, nil }
			// A kill: A's context ends with the crash, so A writes nothing
			// more (a crash hook's error alone would be handled as A's
			// own failure, recorded).
			actx, kill := context.WithCancel(ctx)
			defer kill()
			var killed atomic.Bool
			a := &Moderator{DB: db, Clock: clock.Real{}, Connect: connect, Crash: func(point string) error {
				if point == tc.point {
					kill()
					killed.Store(true)
					return errors.New("kill -9")
				}
				return nil
			}}
			lateSec := late.Seconds()
			fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X", LateSeconds: &lateSec}
			g, err := a.Create(ctx, "window", "nations", gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}, fc, nil)
			if err != nil {
				t.Fatal(err)
			}
			lease := func(owner string) store.Fence {
				var epoch int64
				if err := db.Tx(ctx, func(tx *store.Tx) (err error) {
					epoch, _, err = tx.AcquireLease(g.ID, owner, time.Minute, true)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				return store.Fence{GameID: g.ID, Owner: owner, Epoch: epoch, Budget: budget}
			}
			sa := a.startSender(store.WithFence(actx, lease("A")), g.ID, fc.Account())
			sa.poke()
			waitFor(t, ctx, killed.Load, "A killed at "+tc.point)
			sa.close()
			if n := len(fake.BotPosts()); n != 0 {
				t.Fatalf("%d posts on the board after A was killed before its request", n)
			}

			b := &Moderator{DB: db, Clock: clock.Real{}, Connect: connect}
			t0 := time.Now()
			sb := b.startSender(store.WithFence(ctx, lease("B")), g.ID, fc.Account())
			defer sb.close()
			// B's sender is poked as a worker does after each tick.
			for len(fake.BotPosts()) == 0 {
				if ctx.Err() != nil {
					t.Fatal("B never posted")
				}
				sb.poke()
				time.Sleep(50 * time.Millisecond)
			}
			took := time.Since(t0)
			if took < tc.atLeast || took > tc.atMost {
				t.Errorf("B posted %.1fs after taking over; want between %s and %s", took.Seconds(), tc.atLeast, tc.atMost)
			}
			time.Sleep(200 * time.Millisecond)
			if n := len(fake.BotPosts()); n != 1 {
				t.Errorf("%d posts on the board, want the opening post once", n)
			}
			if fake.Finds == 0 {
				t.Error("B posted without looking for A's marker first")
			}
		})
	}
}
