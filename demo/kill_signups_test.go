package demo

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestKillNineAtSignupsClose fills a Nations game through sign-ups in its
// thread, moderated by a real `forumgm run` on a local board, and kills the
// process with SIGKILL the moment the game is seen started: the step that
// closed sign-ups has saved the close post, the opening post and the role
// PMs, and the kill comes while they are being sent. Restarted, the bot
// sends what was not sent and nothing twice; the game, played to its end
// with further kills, has every post and PM on the board exactly once, and
// its players are the accounts that signed up, with their user ids. About
// 30 s of real time.
func TestKillNineAtSignupsClose(t *testing.T) {
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
	gf := fmt.Sprintf(`name: kill9-signups
game: nations
forum: {url: "%s", engine: phpbb, thread: "%d", bot: %s, password_env: FORUMGM_KILL_PW, poll_seconds: 0.2, flood_seconds: 0, requests_per_second: 50, deadline_unit_seconds: 0}
signups: {min: 3, max: %d, close: 10m}
options: {rounds: 2, round_minutes: 0.12, break_minutes: 0.03}
seed: 3
`, b.Base, b.Topic, BotName, len(b.Seats))
	if err := os.WriteFile(gameFile, []byte(gf), 0o644); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "FORUMGM_KILL_PW="+b.BotPW)
	cmd := exec.Command(bin, "new", "--no-probe", "--db", dbPath, gameFile)
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

	var proc *exec.Cmd
	var logs bytes.Buffer
	startRun := func() {
		proc = exec.Command(bin, "run", "--db", dbPath)
		proc.Env = env
		proc.Stderr = &logs
		proc.WaitDelay = 5 * time.Second
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
	}
	kill := func() {
		proc.Process.Signal(syscall.SIGKILL)
		proc.Wait()
		proc = nil
	}
	defer func() {
		if proc != nil {
			kill()
		}
	}()
	game := func() *store.Game {
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game("kill9-signups"); return err }); err != nil {
			t.Fatal(err)
		}
		return row
	}
	unsent := func(id int64) int {
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(id); return err })
		n := 0
		for _, it := range out {
			if it.State.Unsent() {
				n++
			}
		}
		return n
	}

	startRun()
	for i, s := range b.Seats {
		if err := send.Post(ctx, s.Name, "Count me in: [b]/in[/b]"); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			time.Sleep(time.Second) // the first answered on its own
		}
	}
	// The moment the game is seen started, the process dies.
	for game().Status != "running" {
		if ctx.Err() != nil {
			t.Fatalf("sign-ups did not close; the bot's log:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	kill()
	row := game()
	atKill := unsent(row.ID)
	t.Logf("killed with the game started and %d of its messages not yet sent", atKill)

	eng, _ := rules.Lookup("nations")
	table := &simplayers.Table{Game: eng, Seed: 3}
	kills := 1
	killAt := time.Now().Add(4 * time.Second)
	for {
		if ctx.Err() != nil {
			t.Fatalf("the game did not finish in time after %d kills; the bot's log:\n%s", kills, logs.String())
		}
		row = game()
		if row.Status == "finished" && isDrained(t, ctx, db, row.ID) {
			break
		}
		switch {
		case proc == nil:
			startRun()
		case kills < 3 && time.Now().After(killAt):
			kill() // two more, at random moments of the game
			kills++
			killAt = time.Now().Add(4 * time.Second)
			continue
		}
		if st, err := eng.Decode(row.State); err == nil {
			table.Act(ctx, st, send)
		}
		time.Sleep(150 * time.Millisecond)
	}
	if proc != nil {
		proc.Process.Signal(syscall.SIGTERM)
		proc.Wait()
		proc = nil
	}
	t.Logf("finished after %d kill -9s", kills)
	var out []store.OutboxItem
	var players []store.Player
	db.View(ctx, func(tx *store.Tx) error {
		out, _ = tx.Outbox(row.ID)
		players, err = tx.Players(row.ID)
		return err
	})
	checkExactlyOnce(t, out, botPostsOf(b.Sim, b.Topic, BotName), b.Sim.Sent(b.BotID))
	if len(players) != len(b.Seats) {
		t.Fatalf("players %+v", players)
	}
	ids := map[string]string{}
	for _, s := range b.Seats {
		ids[s.Name] = fmt.Sprint(s.ID)
	}
	for _, p := range players {
		if ids[p.ForumName] == "" || p.ForumUserID != ids[p.ForumName] {
			t.Errorf("player %+v: not a seat with its user id", p)
		}
	}
}
