package demo

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

	"github.com/forumgm/forumgm/internal/pgtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// The lease the runner tests give `forumgm run`: short, so a takeover is
// quick, and long enough for a send on the local forum.
const testLease = 3 * time.Second

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
		if out, err := exec.Command("go", "build", "-o", binPath, "../cmd/forumgm").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("building forumgm: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// liveGame is one game on a local board of its own, with its players.
type liveGame struct {
	name  string
	board *Board
	send  *Senders
	table *simplayers.Table
}

// newLiveGames creates n Nations games on boards of their own in the
// database at dsn (with `forumgm new`), and returns them with the
// environment the runners need (each bot's password).
func newLiveGames(t *testing.T, bin, dsn string, n int) ([]*liveGame, []string) {
	t.Helper()
	env := os.Environ()
	var games []*liveGame
	eng, _ := rules.Lookup("nations")
	for i := 0; i < n; i++ {
		b, err := NewBoard("nations", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Stop)
		var players strings.Builder
		for _, s := range b.Seats {
			fmt.Fprintf(&players, "  - {name: %s, id: \"%d\"}\n", s.Name, s.ID)
		}
		name := fmt.Sprintf("multi-%d", i)
		pwEnv := fmt.Sprintf("FORUMGM_MULTI_PW_%d", i)
		gf := fmt.Sprintf(`name: %s
game: nations
forum: {url: "%s", engine: phpbb, thread: "%d", bot: %s, password_env: %s, poll_seconds: 0.3, flood_seconds: 0, requests_per_second: 50}
players:
%soptions: {rounds: 3, round_minutes: 0.12, break_minutes: 0.03}
seed: %d
`, name, b.Base, b.Topic, BotName, pwEnv, players.String(), 3+i)
		file := filepath.Join(t.TempDir(), name+".yaml")
		if err := os.WriteFile(file, []byte(gf), 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, pwEnv+"="+b.BotPW)
		cmd := exec.Command(bin, "new", "--db", dsn, file)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
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
	cmd *exec.Cmd
	mu  sync.Mutex
	log bytes.Buffer
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

func startRun(t *testing.T, bin, dsn string, env []string) *runProc {
	t.Helper()
	p := &runProc{cmd: exec.Command(bin, "run", "--db", dsn, "--lease", testLease.String())}
	p.cmd.Env = env
	p.cmd.Stderr = p
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p.cmd.ProcessState == nil {
			p.cmd.Process.Kill()
			p.cmd.Wait()
		}
	})
	return p
}

// runnerOf names a runner's process id as the leases record it.
func runnerOf(p *runProc) string { return fmt.Sprintf("-%d-", p.cmd.Process.Pid) }

// play lets every game's players act once on what the game shows them and
// reports whether every game has finished with nothing left to send.
func play(ctx context.Context, t *testing.T, db *store.DB, games []*liveGame) bool {
	done := true
	for _, g := range games {
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game(g.name); return err }); err != nil {
			t.Logf("reading %s: %v", g.name, err) // the database may be restarting
			return false
		}
		if row.Status == store.GameFinished && drained(ctx, db, row.ID) {
			continue
		}
		done = false
		if st, err := g.table.Game.Decode(row.State); err == nil {
			g.table.Act(ctx, st, g.send)
		}
	}
	return done
}

// checkGames: every game's outbox items are on its board exactly once.
func checkGames(t *testing.T, db *store.DB, games []*liveGame) {
	t.Helper()
	for _, g := range games {
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
			t.Fatal(err)
		}
		t.Run(g.name, func(t *testing.T) {
			checkExactlyOnce(t, out, botPostsOf(g.board.Sim, g.board.Topic, BotName), g.board.Sim.Sent(g.board.BotID))
		})
	}
}

func leasesOf(ctx context.Context, db *store.DB) ([]store.Lease, error) {
	var ls []store.Lease
	err := db.View(ctx, func(tx *store.Tx) error { var err error; ls, err = tx.Leases(); return err })
	return ls, err
}

// TestThreeRunnersKillNine: three `forumgm run` processes on one PostgreSQL
// database share four games (at most ceil(4/3) = 2 each); one holding games
// is killed with SIGKILL mid-game. Its games go to the others within a
// lease period (plus the one-second scan), and at the end every post and
// PM of every game is on its board exactly once.
func TestThreeRunnersKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("plays four games in real time")
	}
	bin := forumgmBin(t)
	dsn := pgtest.DSN(t)
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	games, env := newLiveGames(t, bin, dsn, 4)
	var runs []*runProc
	for i := 0; i < 3; i++ {
		runs = append(runs, startRun(t, bin, dsn, env))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	logs := func() string {
		var b strings.Builder
		for i, r := range runs {
			fmt.Fprintf(&b, "--- run %d (pid %d):\n%s", i, r.cmd.Process.Pid, r.output())
		}
		return b.String()
	}

	// Wait for a spread: every game leased, nobody above its share, and
	// at least two runners working. Then kill one that holds games.
	var victim *runProc
	var victimGames []int64
	spreadBy := time.Now().Add(30 * time.Second)
	for victim == nil {
		if time.Now().After(spreadBy) {
			ls, _ := leasesOf(ctx, db)
			t.Fatalf("the games were not spread within 30 s: %+v\n%s", ls, logs())
		}
		play(ctx, t, db, games)
		time.Sleep(200 * time.Millisecond)
		ls, err := leasesOf(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		held := map[string][]int64{}
		for _, l := range ls {
			if time.Until(l.Expires) > 0 {
				held[l.Owner] = append(held[l.Owner], l.GameID)
			}
		}
		n, fair := 0, true
		for _, ids := range held {
			n += len(ids)
			fair = fair && len(ids) <= 2
		}
		if n != len(games) || !fair || len(held) < 2 {
			continue
		}
		for _, r := range runs {
			for owner, ids := range held {
				if strings.Contains(owner, runnerOf(r)) && victim == nil {
					victim, victimGames = r, ids
				}
			}
		}
		t.Logf("spread: %v", held)
	}
	time.Sleep(2 * time.Second) // mid-game, mid-send as it may be
	killed := time.Now()
	victim.cmd.Process.Signal(syscall.SIGKILL)
	victim.cmd.Wait()
	t.Logf("killed pid %d holding games %v", victim.cmd.Process.Pid, victimGames)

	// Its games must pass to a live runner within a lease period (and the
	// one-second scan that notices it).
	taken := map[int64]time.Duration{}
	for len(taken) < len(victimGames) && ctx.Err() == nil {
		play(ctx, t, db, games)
		ls, err := leasesOf(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			for _, id := range victimGames {
				if l.GameID == id && !strings.Contains(l.Owner, runnerOf(victim)) && time.Until(l.Expires) > 0 {
					if _, ok := taken[id]; !ok {
						taken[id] = time.Since(killed)
					}
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	for id, d := range taken {
		t.Logf("game #%d taken over %s after the kill", id, d.Round(10*time.Millisecond))
		if d > testLease+1500*time.Millisecond {
			t.Errorf("game #%d stalled %s after its runner died (lease %s)", id, d, testLease)
		}
	}

	for !play(ctx, t, db, games) {
		if ctx.Err() != nil {
			t.Fatalf("the games did not finish in time\n%s", logs())
		}
		time.Sleep(150 * time.Millisecond)
	}
	for _, r := range runs {
		if r == victim {
			continue
		}
		r.cmd.Process.Signal(syscall.SIGTERM)
		if err := r.cmd.Wait(); err != nil {
			t.Errorf("a runner did not stop cleanly: %v", err)
		}
	}
	checkGames(t, db, games)
	for _, g := range games {
		if strings.Contains(logs(), g.board.BotPW) {
			t.Errorf("a bot password is in the runners' logs")
		}
	}
	if t.Failed() {
		t.Logf("runner logs:\n%s", logs())
	}
}

// TestPostgresRestartSecondRunnerWaiting: two `forumgm run` processes on
// one PostgreSQL database and one game, so one works it and the other
// waits; the server is restarted mid-game and kept down longer than a
// lease, so when it is back the waiting runner may take the game over.
// Whichever works it, every post and PM goes out exactly once (the issue:
// the restart cut the first runner's lock connection, the second got in,
// both sent, and the final post appeared twice).
func TestPostgresRestartSecondRunnerWaiting(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a game in real time")
	}
	bin := forumgmBin(t)
	srv := pgtest.Own(t)
	dsn := srv.DSN(t)
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	games, env := newLiveGames(t, bin, dsn, 1)
	runs := []*runProc{startRun(t, bin, dsn, env), startRun(t, bin, dsn, env)}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logs := func() string { return runs[0].output() + "\n---\n" + runs[1].output() }

	restartAt := time.Now().Add(12 * time.Second)
	restarted := false
	for !play(ctx, t, db, games) {
		if ctx.Err() != nil {
			t.Fatalf("the game did not finish in time\n%s", logs())
		}
		if !restarted && time.Now().After(restartAt) {
			srv.Restart(t, testLease+time.Second)
			restarted = true
			t.Log("PostgreSQL restarted")
		}
		time.Sleep(150 * time.Millisecond)
	}
	for _, r := range runs {
		r.cmd.Process.Signal(syscall.SIGTERM)
		if err := r.cmd.Wait(); err != nil {
			t.Errorf("a runner did not stop cleanly: %v", err)
		}
	}
	checkGames(t, db, games)
	ls, _ := leasesOf(context.Background(), db)
	for _, l := range ls {
		t.Logf("game #%d: last worked by %s under epoch %d", l.GameID, l.Owner, l.Epoch)
	}
	t.Logf("refused for a lost lease: %d time(s)", strings.Count(logs(), "lost the game's lease"))
	if t.Failed() {
		t.Logf("runner logs:\n%s", logs())
	}
}
