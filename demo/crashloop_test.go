package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestCrashLoop (issue 42): a four-player Nations game moderated by a real
// `forumgm run` that is killed with kill -9 every 1 to 4.5 s, and also
// right after deadlines and right after sends, and restarted at once, as
// on a host in an OOM loop. Beside it, the same game (same seed, same
// simulated players) runs with no kills. The game under kills must make
// progress and finish with the same state as the one without (its every
// accepted command the same), with every post and PM on the board exactly
// once. The suite plays one seed; FORUMGM_CRASHLOOP_SEEDS=10 plays seeds
// 1 to 10 (one after another) and logs each one's kills and time, for
// docs/exactly-once.md.
func TestCrashLoop(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a whole game twice in real time")
	}
	seeds := []int64{3}
	if v := os.Getenv("FORUMGM_CRASHLOOP_SEEDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("FORUMGM_CRASHLOOP_SEEDS=%q: want a number of seeds", v)
		}
		seeds = seeds[:0]
		for i := 1; i <= n; i++ {
			seeds = append(seeds, int64(i))
		}
	}
	bin := buildForumgm(t)
	for _, seed := range seeds {
		// One seed at a time (its two games side by side): a seed
		// waiting for its turn would hold a slot of the package's
		// -parallel that another seed's games need.
		t.Run(fmt.Sprintf("seed %d", seed), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			var calm, crashed crashRun
			t.Run("side by side", func(t *testing.T) {
				t.Run("without kills", func(t *testing.T) { t.Parallel(); calm = playCrashLoop(t, ctx, bin, seed, false) })
				t.Run("under kills", func(t *testing.T) { t.Parallel(); crashed = playCrashLoop(t, ctx, bin, seed, true) })
			})
			if t.Failed() {
				return
			}
			// The messages may differ in number (a receipt, a reminder
			// depends on when the bot reads); each is checked on the board.
			t.Logf("seed %d: finished after %d kill -9s (%d right after a deadline, %d right after a send) in %s, %d messages; without kills in %s, %d messages",
				seed, crashed.kills, crashed.afterDeadline, crashed.afterSend, crashed.took.Round(time.Second), crashed.messages, calm.took.Round(time.Second), calm.messages)
			if crashed.kills < 5 {
				t.Errorf("only %d kills: the test did not test much", crashed.kills)
			}
			if crashed.afterDeadline == 0 || crashed.afterSend == 0 {
				t.Errorf("no kill right after a deadline (%d) or a send (%d)", crashed.afterDeadline, crashed.afterSend)
			}
			// The same state, but for the times in it (when each round
			// opened and was published: the two games ran apart).
			if a, b := timeless(t, calm.state), timeless(t, crashed.state); a != b {
				t.Errorf("the game under kills ended in another state than without them:\nwithout: %s\nunder kills: %s\nwhat the bot read without kills:\n%s\nunder kills:\n%s", a, b, strings.Join(calm.audit, "\n"), strings.Join(crashed.audit, "\n"))
			}
		})
	}
}

// crashRun is what one game of the crash loop came to.
type crashRun struct {
	kills, afterDeadline, afterSend int
	took                            time.Duration
	state                           []byte // the rules' state at the end
	messages                        int    // posts and PMs sent
	audit                           []string
}

// playCrashLoop plays a Nations game of seed on a board of its own to its
// end under one `forumgm run` after another, each killed (kill) at random
// and after deadlines and sends, and checks every message is on the board
// exactly once.
func playCrashLoop(t *testing.T, ctx context.Context, bin string, seed int64, kill bool) crashRun {
	t.Helper()
	dir := t.TempDir()
	b, err := NewBoard("nations", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	name := fmt.Sprintf("loop%d", seed)
	dbPath := filepath.Join(dir, "loop.db")
	var players strings.Builder
	for _, s := range b.Seats {
		fmt.Fprintf(&players, "  - {name: %s, id: \"%d\"}\n", s.Name, s.ID)
	}
	pwEnv := fmt.Sprintf("FORUMGM_LOOP_PW_%d_%v", seed, kill) // side by side: no t.Setenv
	gf := fmt.Sprintf(`name: %s
game: nations
forum: {url: "%s", engine: phpbb, thread: "%d", bot: %s, password_env: %s, poll_seconds: 0.2, flood_seconds: 0, requests_per_second: 50, deadline_unit_seconds: 0}
players:
%soptions: {rounds: 3, round_minutes: 0.15, break_minutes: 0.03}
seed: %d
`, name, b.Base, b.Topic, BotName, pwEnv, players.String(), seed)
	gameFile := filepath.Join(dir, "game.yaml")
	if err := os.WriteFile(gameFile, []byte(gf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), pwEnv+"="+b.BotPW)
	cmd := exec.Command(bin, "new", "--db", dbPath, gameFile)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("forumgm new: %v\n%s", err, out)
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	send, err := b.Senders(false, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	defer send.Close()
	eng, _ := rules.Lookup("nations")
	// Each player acts once a phase: how often a player's view changes
	// within a phase (a receipt, a count) depends on the bot's timing,
	// and each new look would draw from the player's dice again.
	acted := map[string]bool{}
	table := &simplayers.Table{Game: eng, Seed: seed, Hold: func(p string, s rules.State) bool { return acted[s.Roster().Display(p)] }}
	rng := rand.New(rand.NewPCG(uint64(seed), 42))

	var run crashRun
	var proc *exec.Cmd
	var logs bytes.Buffer
	var killAt time.Time
	start := func() {
		proc = exec.Command(bin, "run", "--db", dbPath)
		proc.Env = env
		proc.Stderr = &logs
		proc.WaitDelay = 5 * time.Second // Wait returns even if the log pipe stays open
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		killAt = time.Now().Add(time.Duration(1000+rng.IntN(3500)) * time.Millisecond)
	}
	killNow := func() {
		proc.Process.Signal(syscall.SIGKILL)
		proc.Wait()
		proc = nil
		run.kills++
	}
	defer func() {
		if proc != nil {
			proc.Process.Kill()
			proc.Wait()
		}
	}()
	began := time.Now()
	phase, sent := "", 0
	for {
		if ctx.Err() != nil {
			t.Fatalf("the game (kills: %v) did not finish in time after %d kills; the bot's log ends:\n%s", kill, run.kills, tail(logs.String(), 60))
		}
		var row *store.Game
		var out []store.OutboxItem
		if err := db.View(ctx, func(tx *store.Tx) error {
			var err error
			if row, err = tx.Game(name); err != nil {
				return err
			}
			out, err = tx.Outbox(row.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, it := range out {
			if it.State == store.OutboxSent {
				n++
			}
		}
		if row.Status == "finished" && isDrained(t, ctx, db, row.ID) {
			run.state, run.messages = row.State, n
			break
		}
		switch {
		case proc == nil:
			start()
		case !kill:
		case row.Phase != phase && phase != "":
			killNow() // right after a deadline's resolution
			run.afterDeadline++
		case n > sent && rng.IntN(3) == 0:
			killNow() // right after a send
			run.afterSend++
		case time.Now().After(killAt):
			killNow()
		}
		if row.Phase != phase {
			clear(acted)
		}
		phase, sent = row.Phase, n
		if proc == nil {
			continue
		}
		// A move before the opening post would not count.
		if st, err := eng.Decode(row.State); err == nil && opened(out) {
			moves, err := table.Act(ctx, st, send)
			if os.Getenv("FORUMGM_CRASHLOOP_DEBUG") != "" && (len(moves) > 0 || err != nil) {
				t.Logf("kill=%v phase %s: %d moves, %v", kill, row.Phase, len(moves), err)
			}
			for _, mv := range moves {
				acted[mv.Player] = true
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	run.took = time.Since(began)
	if proc != nil && !kill {
		// A clean stop still works.
		proc.Process.Signal(syscall.SIGTERM)
		exited := make(chan error, 1)
		go func() { exited <- proc.Wait() }()
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("forumgm run did not stop cleanly on SIGTERM: %v", err)
			}
		case <-time.After(20 * time.Second):
			proc.Process.Kill()
			<-exited
			t.Errorf("forumgm run did not stop within 20 s of SIGTERM (killed)")
		}
		proc = nil
	}
	var out []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err == nil {
			out, err = tx.Outbox(g.ID)
		}
		return err
	})
	checkExactlyOnce(t, out, botPostsOf(b.Sim, b.Topic, BotName), b.Sim.Sent(b.BotID))
	db.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return err
		}
		// For a failure's report: what the bot read and made of it.
		msgs, _ := tx.Messages(g.ID)
		for _, m := range msgs {
			run.audit = append(run.audit, fmt.Sprintf("message %s by %s %s, stamped %s, first seen %s: %s", m.Kind, m.AuthorName, m.Status, m.Time.Format("15:04:05.000"), m.FirstSeen.Format("15:04:05.000"), strings.Join(m.Commands, " | ")))
		}
		cmds, err := tx.Commands(g.ID, store.CommandFilter{})
		for _, c := range cmds {
			run.audit = append(run.audit, fmt.Sprintf("command %s %s %s %q %s %s", c.Phase, c.Player, c.Channel, c.Text, c.Status, c.Reason))
		}
		return err
	})
	if strings.Contains(logs.String(), b.BotPW) {
		t.Error("the bot's password appears in its log")
	}
	return run
}

// opened says whether the game's opening post (its first thread post) is
// on the board.
func opened(out []store.OutboxItem) bool {
	for _, it := range out {
		if it.Kind == "post" {
			return it.State == store.OutboxSent
		}
	}
	return false
}

// timeless is a state's JSON with every time in it replaced by "<time>".
func timeless(t *testing.T, state []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(state, &v); err != nil {
		t.Fatalf("a state that is no JSON: %v", err)
	}
	var walk func(any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		case string:
			if _, err := time.Parse(time.RFC3339Nano, x); err == nil {
				return "<time>"
			}
		}
		return v
	}
	b, _ := json.Marshal(walk(v))
	return string(b)
}
