package webdesk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"testing"
	"time"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/demo"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// played is a real game, created through moderator.Create on SQLite and
// played for a few phases on the local forum by the simulated players
// (through the board's own forms), moderated by the real moderator.
type played struct {
	M     *moderator.Moderator
	Name  string
	Board *demo.Board
	DB    *store.DB
}

// playGame sets up game kind and plays until the game has resolved turns
// phases (the GM resolving each phase once the players have had their say,
// so the test does not wait for deadlines). The game is left running, with
// a deadline far ahead.
func playGame(t *testing.T, kind string, turns int) *played {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := demo.NewBoard(kind, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Stop)
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rnd := make([]byte, 4)
	rand.Read(rnd)
	env := "FORUMGM_DESK_TEST_PW_" + hex.EncodeToString(rnd)
	t.Setenv(env, b.BotPW)
	const speed = 0.01 // phases of hours, not seconds: only the GM resolves them here
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, fc gameconfig.ForumConfig) (moderator.Forum, error) {
		return forumconn.Connect(fc, clock.Real{}, forumgm.Version)
	}}
	name := "desk-" + kind
	g, err := m.Create(ctx, name, kind, b.GameConfig(speed, 3, time.Now()), b.ForumConfig(env, speed), b.Players())
	if err != nil {
		t.Fatal(err)
	}
	send, err := b.Senders(false, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(send.Close)
	eng, _ := rules.Lookup(kind)
	table := &simplayers.Table{Game: eng, Seed: 3}
	state := func() rules.State {
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.GameByID(g.ID); return err }); err != nil {
			t.Fatal(err)
		}
		st, err := eng.Decode(row.State)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	tick := func() {
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatalf("tick: %v", err)
		}
	}
	tick() // the opening post and role PMs go out
	for done := 0; done < turns; {
		st := state()
		phase := eng.Status(st).Phase
		if _, err := table.Act(ctx, st, send); err != nil {
			t.Logf("a player's move failed: %v", err)
		}
		// Read until the phase's moves are in (or it resolved by itself).
		for i := 0; i < 12; i++ {
			tick()
			s := eng.Status(state())
			if s.Phase != phase || len(s.Waiting) == 0 {
				break
			}
			time.Sleep(250 * time.Millisecond)
		}
		if eng.Status(state()).Phase == phase {
			if _, err := m.ResolveNow(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
		tick()
		done++
		if eng.Status(state()).Finished {
			t.Fatalf("%s finished after %d phases; the desk tests want a running game", kind, done)
		}
	}
	return &played{M: m, Name: name, Board: b, DB: db}
}
