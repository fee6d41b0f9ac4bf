package multirun

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/demo"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
)

// TestMain runs the tests side by side (partest.Default): each has its own
// database (one its own server) and mostly waits on its runners' leases.
func TestMain(m *testing.M) {
	partest.Default(4)
	pgtest.Main(m)
}

const (
	// testLease is the lease the tests give `forumgm run`: short, so a
	// takeover is quick, and long enough for a send on the local forum.
	testLease = 3 * time.Second
	// slack is what a check of "within a lease period" allows on top: the
	// runners' one-second scan, and a loaded machine.
	slack = 4 * time.Second
	// stopWait is how long a runner may take to stop after SIGTERM.
	stopWait = 20 * time.Second
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// forumgmBin builds the forumgm binary once per test binary.
func forumgmBin(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "forumgm-multirun-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "forumgm")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, "go", "build", "-o", binPath, "github.com/forumgm/forumgm/cmd/forumgm").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("building forumgm: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// rig is what a test of live runners starts from: the forumgm binary, a
// database of its own on the test binary's PostgreSQL, open, and the
// test's deadline.
func rig(t *testing.T, within time.Duration) (bin, dsn string, ctx context.Context, db *store.DB) {
	t.Helper()
	bin, dsn = forumgmBin(t), pgtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), within)
	t.Cleanup(cancel)
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return bin, dsn, ctx, db
}

// liveGame is one game on a local board of its own, with its players, and
// what the tests saw of its phases.
type liveGame struct {
	name  string
	board *demo.Board
	send  *demo.Senders
	table *simplayers.Table

	phase       string        // the phase last seen
	deadline    time.Time     // its deadline
	late        time.Duration // the longest a deadline went unresolved past its due
	unheldSince time.Time     // when it was first seen with no current lease (zero: held)
	gap         time.Duration // the longest it went with no current lease while it had work
}

// newLiveGames creates n Nations games of rounds rounds, on boards of
// their own, in the database at dsn (with `forumgm new`), and returns them
// with the environment the runners need (each bot's password). Deadlines
// are not rounded to the board's minute (deadline_unit_seconds: 0), so a
// game lasts seconds, not minutes.
func newLiveGames(t *testing.T, bin, dsn string, n, rounds int) ([]*liveGame, []string) {
	t.Helper()
	return newLiveGamesWith(t, bin, dsn, n, rounds, "")
}

// newLiveGamesWith is newLiveGames with more settings in each game file's
// forum map (", late_seconds: 30").
func newLiveGamesWith(t *testing.T, bin, dsn string, n, rounds int, forumMore string) ([]*liveGame, []string) {
	t.Helper()
	env := os.Environ()
	var games []*liveGame
	eng, _ := rules.Lookup("nations")
	for i := 0; i < n; i++ {
		b, err := demo.NewBoard("nations", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := b.Stop(); err != nil {
				t.Error(err)
			}
		})
		var players strings.Builder
		for _, s := range b.Seats {
			fmt.Fprintf(&players, "  - {name: %s, id: \"%d\"}\n", s.Name, s.ID)
		}
		name := fmt.Sprintf("multi-%d", i)
		pwEnv := fmt.Sprintf("FORUMGM_MULTI_PW_%d", i)
		gf := fmt.Sprintf(`name: %s
game: nations
forum: {url: "%s", engine: phpbb, thread: "%d", bot: %s, password_env: %s, poll_seconds: 0.3, flood_seconds: 0, requests_per_second: 50, deadline_unit_seconds: 0%s}
players:
%soptions: {rounds: %d, round_minutes: 0.12, break_minutes: 0.03}
seed: %d
`, name, b.Base, b.Topic, demo.BotName, pwEnv, forumMore, players.String(), rounds, 3+i)
		file := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(file, []byte(gf), 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, pwEnv+"="+b.BotPW)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, "new", "--db", dsn, "--no-probe", file)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("forumgm new: %v\n%s", err, out)
		}
		send, err := b.Senders(false, t.Logf)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(send.Close)
		games = append(games, &liveGame{name: name, board: b, send: send, table: &simplayers.Table{Game: eng, Seed: int64(3 + i)}})
	}
	return games, env
}

// runProc is one `forumgm run` process and its log.
type runProc struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has been waited for
	err    error         // its exit, once exited
	mu     sync.Mutex
	log    bytes.Buffer
}

func (p *runProc) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

func (p *runProc) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// startRun starts `forumgm run` on dsn; it is killed when the test ends if
// still running.
func startRun(t *testing.T, bin, dsn string, env []string) *runProc {
	t.Helper()
	p := &runProc{cmd: exec.Command(bin, "run", "--db", dsn, "--lease", testLease.String()), exited: make(chan struct{})}
	p.cmd.Env = env
	p.cmd.Stderr = p
	// Its stderr is copied by a goroutine of ours: Wait returns once the
	// process has exited even if something kept the pipe open.
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

// runnerOf names a runner's process id as the leases record it.
func runnerOf(p *runProc) string { return fmt.Sprintf("-%d-", p.cmd.Process.Pid) }

// kill9 kills p with SIGKILL and waits (boundedly) for it to be gone.
func kill9(t *testing.T, p *runProc) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-p.exited:
	case <-time.After(stopWait):
		t.Fatalf("pid %d still there %s after SIGKILL", p.cmd.Process.Pid, stopWait)
	}
}

// stop asks p to stop (SIGTERM) and fails the test if it does not stop
// cleanly within stopWait.
func stop(t *testing.T, p *runProc) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
		if p.err != nil {
			t.Errorf("runner pid %d did not stop cleanly: %v", p.cmd.Process.Pid, p.err)
		}
	case <-time.After(stopWait):
		p.cmd.Process.Kill()
		<-p.exited
		t.Errorf("runner pid %d did not stop within %s of SIGTERM (killed)", p.cmd.Process.Pid, stopWait)
	}
}

func logsOf(runs []*runProc) string {
	var b strings.Builder
	for i, r := range runs {
		fmt.Fprintf(&b, "--- run %d (pid %d):\n%s", i, r.cmd.Process.Pid, r.output())
	}
	return b.String()
}

// play lets every game's players act once on what the game shows them,
// notes how late each phase was resolved (after its deadline, or after
// from when the game could not be worked, whichever is later) and how long
// it went with no current lease (counted from from at the earliest: no
// runner can renew a lease while the database is down), and
// reports whether every game has finished with nothing left to send.
func play(ctx context.Context, t *testing.T, db *store.DB, games []*liveGame, from time.Time) bool {
	done := true
	ls, err := leasesOf(ctx, db)
	if err != nil {
		t.Logf("reading the leases: %v", err) // the database may be restarting
		return false
	}
	for _, g := range games {
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game(g.name); return err }); err != nil {
			t.Logf("reading %s: %v", g.name, err) // the database may be restarting
			return false
		}
		// A new phase: how late was the last one's deadline resolved? (A
		// deadline moved within a phase, as when the opening post goes
		// up and the game's clock starts, is no resolution.)
		if row.Phase != g.phase {
			if g.phase != "" && !g.deadline.IsZero() {
				g.late = max(g.late, time.Since(later(g.deadline, from)))
			}
			g.phase = row.Phase
		}
		g.deadline = row.Deadline
		if row.Status == store.GameFinished {
			drained, err := demo.Drained(ctx, db, row.ID)
			if err != nil {
				t.Logf("reading %s's outbox: %v", g.name, err) // the database may be restarting
				return false
			}
			if drained {
				continue
			}
		}
		done = false
		// A game with work to do and no runner holding a current lease
		// is stalled: note for how long.
		leased := false
		for _, l := range ls {
			leased = leased || (l.GameID == row.ID && time.Until(l.Expires) > 0)
		}
		switch {
		case !leased && g.unheldSince.IsZero():
			g.unheldSince = time.Now()
		case !leased:
			g.gap = max(g.gap, time.Since(later(g.unheldSince, from)))
		case leased && !g.unheldSince.IsZero():
			g.gap = max(g.gap, time.Since(later(g.unheldSince, from)))
			g.unheldSince = time.Time{}
		}
		if st, err := g.table.Game.Decode(row.State); err == nil {
			g.table.Act(ctx, st, g.send)
		}
	}
	return done
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// checkGames: every game's outbox items are on its board exactly once,
// and no game with work to do went unheld (no runner's current lease)
// longer than a lease period and the slack. How late its phases were
// resolved is logged, not checked: on a loaded machine a game busy
// sending a round's PMs (a second or more each) resolves its next
// deadline late with no runner lost.
func checkGames(t *testing.T, db *store.DB, games []*liveGame) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, g := range games {
		var out []store.OutboxItem
		err := db.View(ctx, func(tx *store.Tx) error {
			row, err := tx.Game(g.name)
			if err != nil {
				return err
			}
			out, err = tx.Outbox(row.ID)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(g.name, func(t *testing.T) {
			for _, bad := range demo.ExactlyOnce(out, g.board.BotPosts(), g.board.BotPMs()) {
				t.Error(bad)
			}
			t.Logf("%d messages; longest without a runner %s; latest phase resolution %s after it was due",
				len(out), g.gap.Round(10*time.Millisecond), g.late.Round(10*time.Millisecond))
			if g.gap > testLease+slack {
				t.Errorf("the game went %s with no runner holding it (lease %s)", g.gap, testLease)
			}
		})
	}
}

func leasesOf(ctx context.Context, db *store.DB) ([]store.Lease, error) {
	var ls []store.Lease
	err := db.View(ctx, func(tx *store.Tx) error { var err error; ls, err = tx.Leases(); return err })
	return ls, err
}

// held maps each runner to the games whose lease it holds now.
func held(t *testing.T, ctx context.Context, db *store.DB) map[string][]int64 {
	t.Helper()
	ls, err := leasesOf(ctx, db)
	if err != nil {
		t.Logf("reading the leases: %v", err) // the database may be restarting
		return nil
	}
	out := map[string][]int64{}
	for _, l := range ls {
		if time.Until(l.Expires) > 0 {
			out[l.Owner] = append(out[l.Owner], l.GameID)
		}
	}
	return out
}

// waitUntil plays on until ok holds, failing the test with what it waited
// for if that takes longer than within.
func waitUntil(t *testing.T, ctx context.Context, db *store.DB, games []*liveGame, from time.Time, within time.Duration, what string, runs []*runProc, ok func() bool) {
	t.Helper()
	by := time.Now().Add(within)
	for !ok() {
		if time.Now().After(by) || ctx.Err() != nil {
			ls, _ := leasesOf(context.Background(), db)
			t.Fatalf("%s: not within %s (leases %+v)\n%s", what, within, ls, logsOf(runs))
		}
		play(ctx, t, db, games, from)
		time.Sleep(150 * time.Millisecond)
	}
}

// TestAddRunnersKillNine: one `forumgm run` on a PostgreSQL database takes
// all four games; two more processes join and the games spread (at most
// ceil(4/3) = 2 each, at least two runners working); one holding games is
// killed with SIGKILL mid-game. Its games pass to the others within a
// lease period (plus the one-second scan), no phase is resolved later than
// that after it was due, and at the end every post and PM of every game is
// on its board exactly once.
func TestAddRunnersKillNine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays four games in real time")
	}
	bin, dsn, ctx, db := rig(t, 3*time.Minute)
	games, env := newLiveGames(t, bin, dsn, 4, 5)
	runs := []*runProc{startRun(t, bin, dsn, env)}

	waitUntil(t, ctx, db, games, time.Time{}, 15*time.Second, "one runner alone takes every game", runs, func() bool {
		h := held(t, ctx, db)
		return len(h) == 1 && len(h[firstKey(h)]) == len(games)
	})
	for _, g := range games {
		g.gap, g.unheldSince = 0, time.Time{} // before: waiting for the first runner to start
	}
	runs = append(runs, startRun(t, bin, dsn, env), startRun(t, bin, dsn, env))
	var spread map[string][]int64
	waitUntil(t, ctx, db, games, time.Time{}, 3*testLease+slack, "the games spread over the runners that joined", runs, func() bool {
		spread = held(t, ctx, db)
		n := 0
		for _, ids := range spread {
			n += len(ids)
			if len(ids) > 2 {
				return false
			}
		}
		return n == len(games) && len(spread) >= 2
	})
	t.Logf("spread: %v", spread)
	var victim *runProc
	var victimGames []int64
	for _, r := range runs {
		for owner, ids := range spread {
			if strings.Contains(owner, runnerOf(r)) && victim == nil {
				victim, victimGames = r, ids
			}
		}
	}

	if victim == nil {
		t.Fatalf("no runner's id in the leases %v\n%s", spread, logsOf(runs))
	}
	time.Sleep(time.Second) // mid-game, mid-send as it may be
	killed := time.Now()
	kill9(t, victim)
	t.Logf("killed pid %d holding games %v", victim.cmd.Process.Pid, victimGames)

	// Its games must pass to a live runner within a lease period (and the
	// one-second scan that notices it): the database's record of when
	// each was taken says when.
	taken := map[int64]time.Time{}
	waitUntil(t, ctx, db, games, killed, testLease+slack+5*time.Second, "the killed runner's games taken over", runs, func() bool {
		ls, err := leasesOf(ctx, db)
		if err != nil {
			t.Logf("reading the leases: %v", err)
		}
		for _, l := range ls {
			for _, id := range victimGames {
				if l.GameID == id && !strings.Contains(l.Owner, runnerOf(victim)) && time.Until(l.Expires) > 0 {
					taken[id] = l.Taken
				}
			}
		}
		return len(taken) == len(victimGames)
	})
	for id, at := range taken {
		d := at.Sub(killed)
		t.Logf("game #%d taken over %s after the kill", id, d.Round(10*time.Millisecond))
		if d > testLease+slack {
			t.Errorf("game #%d stalled %s after its runner died (lease %s)", id, d, testLease)
		}
	}

	for !play(ctx, t, db, games, killed) {
		if ctx.Err() != nil {
			t.Fatalf("the games did not finish within 3 minutes\n%s", logsOf(runs))
		}
		time.Sleep(150 * time.Millisecond)
	}
	for _, r := range runs {
		if r != victim {
			stop(t, r)
		}
	}
	checkGames(t, db, games)
	for _, g := range games {
		if strings.Contains(logsOf(runs), g.board.BotPW) {
			t.Errorf("a bot password is in the runners' logs")
		}
	}
	if t.Failed() {
		t.Logf("runner logs:\n%s", logsOf(runs))
	}
}

func firstKey(m map[string][]int64) string {
	for k := range m {
		return k
	}
	return ""
}

// TestPostgresRestartSecondRunnerWaiting: two `forumgm run` processes on
// one PostgreSQL database and one game, so one works it and the other
// waits; the server is restarted mid-game and kept down longer than a
// lease, so when it is back the waiting runner may take the game over.
// Whichever works it, every post and PM goes out exactly once (the issue:
// the restart cut the first runner's lock connection, the second got in,
// both sent, and the final post appeared twice), the game is worked again
// within a lease period of the server's return, and both runners stop
// cleanly (none is left waiting on a connection the restart cut).
func TestPostgresRestartSecondRunnerWaiting(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game in real time")
	}
	bin := forumgmBin(t)
	srv := pgtest.Own(t)
	dsn := srv.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	games, env := newLiveGames(t, bin, dsn, 1, 4)
	runs := []*runProc{startRun(t, bin, dsn, env), startRun(t, bin, dsn, env)}

	// Restart once the game is under way: its opening sent, a runner on it.
	waitUntil(t, ctx, db, games, time.Time{}, 30*time.Second, "a runner works the game", runs, func() bool {
		return len(held(t, ctx, db)) == 1
	})
	time.Sleep(3 * time.Second)
	srv.Restart(t, testLease+time.Second)
	back := time.Now()
	t.Log("PostgreSQL restarted")

	waitUntil(t, ctx, db, games, back, testLease+slack, "a runner holds the game again after the restart", runs, func() bool {
		return len(held(t, ctx, db)) == 1
	})
	for !play(ctx, t, db, games, back) {
		if ctx.Err() != nil {
			t.Fatalf("the game did not finish within 3 minutes\n%s", logsOf(runs))
		}
		time.Sleep(150 * time.Millisecond)
	}
	for _, r := range runs {
		stop(t, r)
	}
	checkGames(t, db, games)
	ls, _ := leasesOf(ctx, db)
	for _, l := range ls {
		t.Logf("game #%d: last worked by %s under epoch %d", l.GameID, l.Owner, l.Epoch)
	}
	t.Logf("refused for a lost lease: %d time(s)", strings.Count(logsOf(runs), "lost the game's lease"))
	if t.Failed() {
		t.Logf("runner logs:\n%s", logsOf(runs))
	}
}
