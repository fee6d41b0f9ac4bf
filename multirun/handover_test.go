package multirun

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/demo"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/store"
)

// The handover tests (issues 22 and 42): a board that takes a bot's POST
// late (forumsim's slow-apply: it carries the request out after a delay
// whether or not its client is still there), and a runner that lets go of
// the game while that POST is on its way: stopped (SIGTERM), giving the
// game back to a runner that joined, or killed with kill -9. Every case
// ends with each post and PM on the board exactly once and the game at
// its end, counted on the board. A clean stop or give-back lets the POST
// on its way end and records what became of it before it lets go; a
// request that timed out is recorded unknown, and whoever takes the game
// waits out its window (the rest of its send's time plus the board's
// late_seconds) before it looks for its marker a last time and sends.
const (
	// handoverLease: its send budget (half of it, 10 s) outlasts a board
	// slowAfter late with room to spare on a loaded machine.
	handoverLease = 20 * time.Second
	slowAfter     = 7 * time.Second
	// verySlow is later than the lease itself: the request times out
	// (its send's budget, 10 s) before the board takes it; the games say
	// late_seconds: 30.
	verySlow = 25 * time.Second
)

// slowNext makes the board take the bot's next POST to path (mode=reply,
// mode=compose) after delay.
func slowNext(t *testing.T, g *liveGame, path string, delay time.Duration) {
	t.Helper()
	if err := g.board.Sim.AddFault(forumsim.FaultRule{Kind: forumsim.FaultSlowApply, Method: "POST", Path: path, Agent: "forumgm/", Delay: delay, Count: 1}); err != nil {
		t.Fatal(err)
	}
}

// waitSlowPOST plays on until the board has the slow POST in hand, and
// says when it arrived.
func waitSlowPOST(t *testing.T, ctx context.Context, db *store.DB, games []*liveGame, g *liveGame, runs []*runProc) time.Time {
	t.Helper()
	by := time.Now().Add(60 * time.Second)
	for time.Now().Before(by) {
		for _, e := range g.board.Sim.Faults().Log {
			if e.Kind == forumsim.FaultSlowApply {
				return time.Now()
			}
		}
		play(ctx, t, db, games, time.Time{})
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the slow POST never came\n%s", logsOf(runs))
	return time.Time{}
}

// startRunLease is startRun with a lease of its own.
func startRunLease(t *testing.T, bin, dsn string, env []string, lease time.Duration) *runProc {
	t.Helper()
	p := &runProc{cmd: exec.Command(bin, "run", "--db", dsn, "--lease", lease.String()), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = p
	p.cmd.WaitDelay = 5 * time.Second
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// finish plays the games to their end, stops the runners still running and
// checks that every post and PM is on its board exactly once.
func finish(t *testing.T, ctx context.Context, db *store.DB, games []*liveGame, runs []*runProc, stopped *runProc) {
	t.Helper()
	for !play(ctx, t, db, games, time.Time{}) {
		if ctx.Err() != nil {
			t.Fatalf("the games did not finish in time\n%s", logsOf(runs))
		}
		time.Sleep(150 * time.Millisecond)
	}
	for _, r := range runs {
		if r != stopped {
			stop(t, r)
		}
	}
	for _, g := range games {
		for _, bad := range exactlyOnce(t, db, g) {
			t.Errorf("%s: %s", g.name, bad)
		}
	}
	if t.Failed() {
		t.Logf("runner logs:\n%s", logsOf(runs))
	}
}

// TestHandover: two runners on PostgreSQL, one game; the first holds it
// and lets go of it 0.3 s after one of its POSTs reached a slow board.
func TestHandover(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays games in real time")
	}
	for _, tc := range []struct {
		name  string
		path  string        // the bot's POST the board takes late
		delay time.Duration // how late
		how   string        // how the holder lets go: stop, kill
		more  string        // the games' forum settings
		// What the holder and the runner taking over must have done.
		stopAtLeast time.Duration // the stop waited for the POST's answer
		wait        bool          // the successor waited out the POST's window
	}{
		// The board answers within the send's time: the stop waits for
		// the answer and records the post sent.
		{name: "SIGTERM, a post later by less than the lease", path: "mode=reply", delay: slowAfter, how: "stop", stopAtLeast: slowAfter - time.Second},
		{name: "SIGTERM, a PM later by less than the lease", path: "mode=compose", delay: slowAfter, how: "stop", stopAtLeast: slowAfter - time.Second},
		// Later than the lease: the request times out, recorded unknown;
		// the successor waits out its window (late_seconds 30).
		{name: "SIGTERM, a post later than the lease", path: "mode=reply", delay: verySlow, how: "stop", more: ", late_seconds: 30", stopAtLeast: handoverLease/2 - 4*time.Second, wait: true},
		// Killed: nothing recorded; the successor takes the game when the
		// lease runs out and finds the post its predecessor left sending.
		{name: "kill -9, a post on its way", path: "mode=reply", delay: slowAfter, how: "kill"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bin, dsn, ctx, db := rig(t, 4*time.Minute)
			games, env := newLiveGamesWith(t, bin, dsn, 1, 2, tc.more)
			slowNext(t, games[0], tc.path, tc.delay)
			a := startRunLease(t, bin, dsn, env, handoverLease)
			runs := []*runProc{a}
			waitUntil(t, ctx, db, games, time.Time{}, 30*time.Second, "the first runner takes the game", runs, func() bool {
				return len(held(t, ctx, db)) == 1
			})
			b := startRunLease(t, bin, dsn, env, handoverLease)
			runs = append(runs, b)
			slow := waitSlowPOST(t, ctx, db, games, games[0], runs)
			time.Sleep(300 * time.Millisecond)
			let := time.Now()
			if tc.how == "kill" {
				kill9(t, a)
			} else {
				stop(t, a)
			}
			took := time.Since(let)
			t.Logf("the first runner let go %s after the slow POST came, %s after the %s", time.Since(slow).Round(time.Millisecond), took.Round(time.Millisecond), tc.how)
			if took < tc.stopAtLeast {
				t.Errorf("it let go %s after the %s; want after its POST on its way had ended (at least %s)", took.Round(time.Millisecond), tc.how, tc.stopAtLeast)
			}
			finish(t, ctx, db, games, runs, a)
			if waited := strings.Contains(b.output(), waitedLog); tc.wait && !waited {
				t.Errorf("the runner that took the game over never waited for the POST on its way (no %q in its log)", waitedLog)
			}
		})
	}
}

// waitedLog is what a runner logs when it finds an item's marker missing
// while the board may still be taking its last submission.
const waitedLog = "its last submission may still land"

// TestHandoverOnJoin: one runner holds both games; the second game's
// opening post is on its way to a board that applies it late when a
// second runner joins, so the first gives that game back: it lets the
// POST on its way end first. The joiner must not post the opening again.
func TestHandoverOnJoin(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays two games in real time")
	}
	bin, dsn, ctx, db := rig(t, 3*time.Minute)
	games, env := newLiveGames(t, bin, dsn, 2, 2)
	// The game given back is the one with the higher id: the second.
	slowNext(t, games[1], "mode=reply", slowAfter)
	a := startRunLease(t, bin, dsn, env, handoverLease)
	runs := []*runProc{a}
	waitUntil(t, ctx, db, nil, time.Time{}, 30*time.Second, "the first runner takes both games", runs, func() bool {
		h := held(t, ctx, db)
		return len(h) == 1 && len(h[firstKey(h)]) == 2
	})
	slow := waitSlowPOST(t, ctx, db, nil, games[1], runs)
	runs = append(runs, startRunLease(t, bin, dsn, env, handoverLease))
	waitUntil(t, ctx, db, nil, time.Time{}, 30*time.Second, "the games spread over both runners", runs, func() bool {
		h := held(t, ctx, db)
		return len(h) == 2
	})
	given := time.Since(slow)
	t.Logf("the game was given back %s after its slow POST came", given.Round(time.Millisecond))
	finish(t, ctx, db, games, runs, nil)
	if given < slowAfter-time.Second {
		t.Errorf("the game was given back %s after its slow POST came, before the board answered it (%s)", given.Round(time.Millisecond), slowAfter)
	}
}

// exactlyOnce is demo.ExactlyOnce for one live game, from its outbox.
func exactlyOnce(t *testing.T, db *store.DB, g *liveGame) []string {
	t.Helper()
	var out []store.OutboxItem
	err := db.View(context.Background(), func(tx *store.Tx) error {
		row, err := tx.Game(g.name)
		if err != nil {
			return err
		}
		out, err = tx.Outbox(row.ID)
		return err
	})
	if err != nil {
		return []string{fmt.Sprintf("reading the outbox: %v", err)}
	}
	return demo.ExactlyOnce(out, g.board.BotPosts(), g.board.BotPMs())
}
