package webdesk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
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

	id    int64
	eng   rules.Game
	table *simplayers.Table
	send  simplayers.Sender
	// sends is the players' context: their queued moves are sent under
	// the context of their first move, so it lives as long as the test.
	sends context.Context
}

// playGame sets up game kind and plays until the game has resolved turns
// phases (the GM resolving each phase once the players have had their say,
// so the test does not wait for deadlines). The game is left running, with
// a deadline far ahead.
func playGame(t *testing.T, kind string, turns int) *played {
	t.Helper()
	p := startGame(t, kind)
	p.play(t, turns, false)
	return p
}

// startGame sets up game kind on a local board, its opening post and role
// PMs sent.
func startGame(t *testing.T, kind string) *played {
	t.Helper()
	return startGameWith(t, kind, "desk-"+kind, nil)
}

// startGameWith is startGame for a game of that name, its config changed
// by edit (if not nil) before it is created, and its board set up by
// board (if any) before the opening post.
func startGameWith(t *testing.T, kind, name string, edit func(*gameconfig.GameConfig), board ...func(*demo.Board)) *played {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	b, err := demo.NewBoard(kind, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rnd := make([]byte, 4)
	rand.Read(rnd)
	env := "FORUMGM_DESK_TEST_PW_" + hex.EncodeToString(rnd)
	// Its own name, so that games may be set up side by side.
	setEnv(t, env, b.BotPW)
	const speed = 0.01 // phases of hours, not seconds: only the GM resolves them here
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return forumconn.Connect(site, clock.Real{}, forumgm.Version)
	}}
	gc := b.GameConfig(speed, 3, time.Now())
	if kind == "nations" {
		// The GM resolves each round at once: a break would hold every
		// round's report for minutes, from the board and the public page.
		gc.Options["break_minutes"] = 0
	}
	if edit != nil {
		edit(&gc)
	}
	for _, f := range board {
		f(b)
	}
	g, err := m.Create(ctx, name, kind, gc, b.ForumConfig(env, speed), b.Players())
	if err != nil {
		t.Fatal(err)
	}
	send, err := b.Senders(false, func(string, ...any) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(send.Close)
	eng, _ := rules.Lookup(kind)
	sends, stop := context.WithCancel(context.Background())
	t.Cleanup(stop)
	p := &played{M: m, Name: name, Board: b, DB: db, id: g.ID, eng: eng, table: &simplayers.Table{Game: eng, Seed: 3}, send: send, sends: sends}
	p.tick(t, ctx) // the opening post and role PMs go out
	return p
}

func (p *played) state(t *testing.T, ctx context.Context) rules.State {
	t.Helper()
	var row *store.Game
	if err := p.DB.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.GameByID(p.id); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := p.eng.Decode(row.State)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func (p *played) tick(t *testing.T, ctx context.Context) {
	t.Helper()
	if err := p.M.Tick(ctx, p.id); err != nil {
		t.Fatalf("tick: %v", err)
	}
}

// play lets the players act and the GM resolve, phase by phase, for turns
// phases; toEnd plays on until the game is over, and when it is not after
// turns phases the GM ends it (as forumgm end does), else the game must
// still be running after them.
func (p *played) play(t *testing.T, turns int, toEnd bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	eng := p.eng
	for done := 0; done < turns; {
		phase := eng.Status(p.state(t, ctx)).Phase
		// The players act on what they see, the bot reads it, and they
		// act again on what that changed (the team is proposed, then
		// they vote), until the phase has everyone's say or resolved.
		for round := 0; round < 4; round++ {
			st := p.state(t, ctx)
			if eng.Status(st).Phase != phase {
				break
			}
			sent, err := p.table.Act(p.sends, st, p.send)
			if err != nil {
				t.Logf("a player's move failed: %v", err)
			}
			before := eng.Status(st)
			for i := 0; i < 12; i++ {
				p.tick(t, ctx)
				s := eng.Status(p.state(t, ctx))
				if s.Phase != phase || len(s.Waiting) == 0 || (len(sent) > 0 && len(s.Acted) != len(before.Acted) && i > 2) {
					break
				}
				time.Sleep(250 * time.Millisecond)
			}
			if s := eng.Status(p.state(t, ctx)); s.Phase != phase || len(s.Waiting) == 0 || len(sent) == 0 {
				break
			}
		}
		if eng.Status(p.state(t, ctx)).Phase == phase {
			if _, err := p.M.ResolveNow(ctx, p.Name); err != nil {
				t.Fatal(err)
			}
		}
		p.tick(t, ctx)
		done++
		if eng.Status(p.state(t, ctx)).Finished {
			if !toEnd {
				t.Fatalf("%s finished after %d phases; the desk tests want a running game", p.Name, done)
			}
			// The last posts go out.
			for i := 0; i < 3; i++ {
				p.tick(t, ctx)
			}
			return
		}
	}
	if toEnd {
		t.Logf("%s did not finish in %d phases: the GM ends it", p.Name, turns)
		if err := p.M.End(ctx, p.Name); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			p.tick(t, ctx)
		}
	}
}

// setEnv sets an environment variable for t's time. Unlike t.Setenv it
// allows t to run beside other tests: each caller's variable has a name
// of its own (a random suffix).
func setEnv(t *testing.T, k, v string) {
	old, had := os.LookupEnv(k)
	os.Setenv(k, v)
	t.Cleanup(func() {
		if had {
			os.Setenv(k, old)
		} else {
			os.Unsetenv(k)
		}
	})
}
