//go:build linux

package nodebbtest

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestKillNine moderates a game of Nations on a real NodeBB board with a
// real `forumgm` process, as a GM runs it: `forumgm new` with a game file
// naming `engine: nodebb` (its probe passes), then `forumgm run`, killed
// with SIGKILL again and again at random moments (mid-read, mid-send) and
// started again. The game finishes, and every post and chat the bot
// queued is on the board exactly once.
func TestKillNine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a whole game on the real clock with a forumgm process killed again and again")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "forumgm")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/forumgm").CombinedOutput(); err != nil {
		t.Fatalf("building forumgm: %v\n%s", err, out)
	}
	g, _ := rules.Lookup("nations")
	demo := g.(rules.Demo).DemoTable(1)
	b := gameBoard(t, realboardtest.NodeBBOptions{Players: demo.Players, BotAdmin: true, Subject: "Nations, killed"})
	dbPath := filepath.Join(dir, "kill.db")
	gameFile := filepath.Join(dir, "game.yaml")
	var players strings.Builder
	for _, a := range b.Players {
		fmt.Fprintf(&players, "  - {name: %s, id: \"%d\"}\n", a.Name, a.ID)
	}
	gf := fmt.Sprintf(`name: kill9
game: nations
forum: {url: "%s", engine: nodebb, thread: "%d", bot: %s, password_env: FORUMGM_NODEBB_KILL_PW, poll_seconds: 0.5, flood_seconds: 0, requests_per_second: 50, deadline_unit_seconds: 0}
players:
%soptions: {rounds: 2, round_minutes: 0.3, break_minutes: 0.05}
seed: 3
`, b.URL, b.ThreadID, b.Bot.Name, players.String())
	if err := os.WriteFile(gameFile, []byte(gf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "FORUMGM_NODEBB_KILL_PW="+b.Bot.Password)
	cmd := exec.Command(bin, "new", "--db", dbPath, gameFile)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("forumgm new: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	pl := newPlayers(t, b)
	defer pl.close()
	table := &simplayers.Table{Game: g, Seed: 3}
	rng := rand.New(rand.NewPCG(9, 9))
	var proc *exec.Cmd
	var logs bytes.Buffer
	var killAt time.Time
	kills := 0
	start := func() {
		proc = exec.Command(bin, "run", "--db", dbPath)
		proc.Env = env
		proc.Stderr = &logs
		proc.WaitDelay = 5 * time.Second
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		killAt = time.Now().Add(time.Duration(2000+rng.IntN(4000)) * time.Millisecond)
	}
	defer func() {
		if proc != nil {
			proc.Process.Kill()
			proc.Wait()
		}
	}()
	var row *store.Game
	for {
		if ctx.Err() != nil {
			t.Fatalf("the game did not finish in time after %d kills; the bot's log:\n%s", kills, tail(logs.String(), 6000))
		}
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game("kill9"); return err }); err != nil {
			t.Fatal(err)
		}
		if row.Status == "finished" && drainedBox(t, db, row.ID) {
			break
		}
		if proc == nil {
			start()
		} else if time.Now().After(killAt) {
			proc.Process.Signal(syscall.SIGKILL)
			proc.Wait()
			proc = nil
			kills++
			continue
		}
		if st, err := g.Decode(row.State); err == nil {
			table.Act(ctx, st, pl)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if proc != nil {
		proc.Process.Signal(syscall.SIGTERM)
		proc.Wait()
		proc = nil
	}
	for _, err := range pl.close() {
		t.Errorf("a player's move failed on the board: %v", err)
	}
	if kills < 5 {
		t.Errorf("only %d kills: the test did not test much", kills)
	}
	var box []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error { var err error; box, err = tx.Outbox(row.ID); return err })
	posts, pms := checkExactlyOnce(t, b, box)
	t.Logf("finished after %d kill -9s; bot: %d posts, %d chats, each once", kills, posts, pms)
}

// drainedBox: nothing of the game's outbox left to send or confirm.
func drainedBox(t *testing.T, db *store.DB, game int64) bool {
	var box []store.OutboxItem
	if err := db.View(context.Background(), func(tx *store.Tx) error { var err error; box, err = tx.Outbox(game); return err }); err != nil {
		t.Fatal(err)
	}
	for _, it := range box {
		if it.State.Unsent() {
			return false
		}
	}
	return true
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
