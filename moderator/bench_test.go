package moderator

// How the cost of reading one order grows with a game's length: run
//
//	go test -run '^$' -bench LongGame ./moderator
//
// It reports the time to take one PM through a tick (record, apply,
// receipt, send) in a game that has already handled 1,000 messages, as a
// ratio to the same in a fresh game, measured alternately in the same run.

import (
	"context"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/store/storetest"
)

func BenchmarkLongGame(b *testing.B) {
	ctx := context.Background()
	type game struct {
		m   *Moderator
		ff  *forumtest.Board
		clk *clock.Fake
		id  int64
	}
	mk := func(name string, history int) game {
		db := storetest.SQLite(b)
		clk := clock.NewFake(start)
		ff := forumtest.New(clk)
		m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
		gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 1, "round_minutes": 1e6}, Seed: 1, Start: start}
		g, err := m.Create(ctx, name, "nations", gc, gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < history; i++ {
			ff.PM(ctx, "Alice", "PROSPER")
			clk.Advance(time.Second)
			if i%50 == 49 {
				if err := m.Tick(ctx, g.ID); err != nil {
					b.Fatal(err)
				}
			}
		}
		if err := m.Tick(ctx, g.ID); err != nil {
			b.Fatal(err)
		}
		return game{m, ff, clk, g.ID}
	}
	fresh, long := mk("fresh", 0), mk("long", 1000)
	one := func(g game) func() {
		return func() {
			g.ff.PM(ctx, "Bob", "PROSPER")
			g.clk.Advance(time.Second)
			if err := g.m.Tick(ctx, g.id); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(benchratio.Alternate(b, one(fresh), one(long)), "x-fresh-game")
}
