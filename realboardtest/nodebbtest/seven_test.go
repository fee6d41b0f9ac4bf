package nodebbtest

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/store"
)

// TestResistanceSeven plays the demo's seven-player Resistance, where the
// plot cards are dealt, to its end on a real NodeBB board (the matrix's
// "Resistance, 7+ players" cell): plot cards given and played, and
// accepted, and every message on the board once (playGame's checks). It
// runs with FORUMGM_MATRIX=full only: a seventh whole game on NodeBB is
// more than CI's 15 minutes hold.
func TestResistanceSeven(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Resistance7)
	if testing.Short() {
		t.Skip("plays a whole game on the real clock (minutes)")
	}
	if !matrix.Full() {
		t.Skip("a seventh whole game on NodeBB: with " + matrix.FullEnv + "=full only (CI's time)")
	}
	g, _ := rules.Lookup("resistance")
	demo := g.(rules.Demo).DemoTable(1)
	if len(demo.Players) != 7 {
		t.Fatalf("the demo table has %d players", len(demo.Players))
	}
	res := playGame(t, "resistance", demo, 13, 12*time.Minute, gameOpts{})
	given, played := 0, map[string]int{}
	for _, c := range res.commands {
		switch {
		case c.Kind == resistance.KindGive && c.Status == store.CommandAccepted:
			given++
		case c.Kind == resistance.KindPlay && c.Status == store.CommandAccepted && len(c.Args) > 0:
			played[c.Args[0]]++
		}
	}
	if given == 0 || len(played) == 0 {
		t.Errorf("plot cards given %d times, played %v: want both", given, played)
	}
	t.Logf("seven players with plot cards on NodeBB: %d cards given, played %v; %s", given, played, res)
}
