package simtest

import (
	"context"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
)

// Moderator is what Start needs of moderator.Moderator; an interface, so
// that the moderator's own tests can use this package without a cycle.
type Moderator interface {
	Create(ctx context.Context, name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig, players []store.Player) (*store.Game, error)
	Tick(ctx context.Context, id int64) error
}

// Game is a game a test created through a moderator.
type Game struct {
	*store.Game
	t testing.TB
	m Moderator
}

// Start creates the game through m, failing the test if it cannot.
func Start(t testing.TB, m Moderator, name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig, players []store.Player) *Game {
	t.Helper()
	g, err := m.Create(context.Background(), name, kind, gc, fc, players)
	if err != nil {
		t.Fatal(err)
	}
	return &Game{Game: g, t: t, m: m}
}

// Tick runs one tick of the game and fails the test on an error.
func (g *Game) Tick() {
	g.t.Helper()
	if err := g.m.Tick(context.Background(), g.ID); err != nil {
		g.t.Fatal(err)
	}
}

// Outbox is the game's outbox as the database holds it.
func Outbox(t testing.TB, db *store.DB, id int64) []store.OutboxItem {
	t.Helper()
	var out []store.OutboxItem
	if err := db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Outbox(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// LongLetterGame plays what the long-PM tests look at: a two-round Nations
// game of the thread's players from start (30-minute rounds, 5-minute
// breaks, no flood wait configured) through m, in which Alice sends the bot
// a 3,000-line PM (LongLetter) after the opening post; then the clock runs
// past round 1's close and round 2's report, a tick a minute.
func (th *Thread) LongLetterGame(t testing.TB, m Moderator, clk *clock.Fake, name, pwEnv string, start time.Time) *Game {
	t.Helper()
	zero := 0.0
	fc := th.Forum(t, pwEnv)
	fc.FloodSeconds = &zero
	g := Start(t, m, name, "nations", th.Nations(start, 2, 30, 5), fc, th.Roster())
	g.Tick()
	if _, err := th.Sim.SendPM(th.Players["Alice"], []int{th.Bot}, "orders", LongLetter(3000)); err != nil {
		t.Fatal(err)
	}
	g.Tick()
	clk.Advance(31 * time.Minute) // round 1 closes; round 2's report after the break
	for range 8 {
		g.Tick()
		clk.Advance(time.Minute)
	}
	return g
}
