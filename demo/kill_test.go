package demo

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

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestKillNineAndRestart moderates a game with a real `forumgm run`
// process that is killed with SIGKILL again and again at random moments
// and restarted: the game must still finish with every post and PM on the
// forum exactly once.
func TestKillNineAndRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a whole game in real time")
	}
	dir := t.TempDir()
	bin := buildForumgm(t)
	b, err := NewBoard("nations", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Stop()
	dbPath := filepath.Join(dir, "kill.db")
	gameFile := filepath.Join(dir, "game.yaml")
	var players strings.Builder
	for _, s := range b.Seats {
		fmt.Fprintf(&players, "  - {name: %s, id: \"%d\"}\n", s.Name, s.ID)
	}
	gf := fmt.Sprintf(`name: kill9
game: nations
forum: {url: "%s", engine: phpbb, thread: "%d", bot: %s, password_env: FORUMGM_KILL_PW, poll_seconds: 0.2, flood_seconds: 0, requests_per_second: 50, deadline_unit_seconds: 0}
players:
%soptions: {rounds: 3, round_minutes: 0.12, break_minutes: 0.03}
seed: 3
`, b.Base, b.Topic, BotName, players.String())
	if err := os.WriteFile(gameFile, []byte(gf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "FORUMGM_KILL_PW="+b.BotPW)
	cmd := exec.Command(bin, "new", "--db", dbPath, gameFile)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("forumgm new: %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
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
	table := &simplayers.Table{Game: eng, Seed: 3}
	rng := rand.New(rand.NewPCG(9, 9))

	var proc *exec.Cmd
	var logs bytes.Buffer
	var killAt time.Time
	kills := 0
	start := func() {
		proc = exec.Command(bin, "run", "--db", dbPath)
		proc.Env = env
		proc.Stderr = &logs
		proc.WaitDelay = 5 * time.Second // Wait returns even if the log pipe stays open
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		killAt = time.Now().Add(time.Duration(1500+rng.IntN(3500)) * time.Millisecond)
	}
	defer func() {
		if proc != nil {
			proc.Process.Kill()
			proc.Wait()
		}
	}()
	for {
		if ctx.Err() != nil {
			t.Fatalf("the game did not finish in time after %d kills; the bot's log:\n%s", kills, logs.String())
		}
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game("kill9"); return err }); err != nil {
			t.Fatal(err)
		}
		if row.Status == "finished" && isDrained(t, ctx, db, row.ID) {
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
		if st, err := eng.Decode(row.State); err == nil {
			table.Act(ctx, st, send)
		}
		time.Sleep(150 * time.Millisecond)
	}
	// A clean stop still works.
	if proc != nil {
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
	if kills < 5 {
		t.Errorf("only %d kills: the test did not test much", kills)
	}
	t.Logf("finished after %d kill -9s", kills)
	var out []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error { out, err = tx.Outbox(row(t, tx).ID); return err })
	checkExactlyOnce(t, out, botPostsOf(b.Sim, b.Topic, BotName), b.Sim.Sent(b.BotID))
	if strings.Contains(logs.String(), b.BotPW) {
		t.Error("the bot's password appears in its log")
	}
}

func row(t *testing.T, tx *store.Tx) *store.Game {
	g, err := tx.Game("kill9")
	if err != nil {
		t.Fatal(err)
	}
	return g
}
