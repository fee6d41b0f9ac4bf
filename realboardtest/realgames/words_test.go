package realgames

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
)

// TestFlavorInEveryUpdate: a whole Nations game on real phpBB, in a house
// style, where the GM writes flavor ahead of every round (the thread's and
// one player's) and announces once, and resolves each round: every update
// on the board opens with its round's flavor, once; every bot post is in
// the style; the player's private results open with theirs; every message
// is on the board exactly once. About 30 s of real time.
func TestFlavorInEveryUpdate(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.PhpBB, matrix.Nations) // a whole Nations game
	if testing.Short() {
		t.Skip("plays a whole game on a real board")
	}
	ctx := context.Background()
	names := []string{"Ann", "Ben"}
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: names, Subject: "Nations, in the GM's words"})
	b.ExemptBot(t)
	zero := 0.0
	gc := gameconfig.GameConfig{Players: names, Seed: 7, Start: time.Now().UTC(),
		Options: map[string]any{"rounds": 3, "round_minutes": 600, "break_minutes": 0},
		Style:   &gameconfig.Style{Header: "[b]{game}[/b] — {title}", Footer: "[i]House rules: be kind.[/i]", Color: "navy"}}
	tb := setup(t, b, "nations", gc, &zero)
	tb.opened()
	name := tb.g.Name
	thread := func() string { return strings.Join(bodies(threadRows(t, b)), "\n") }
	var phases []string
	for round := 1; ; round++ {
		st := tb.eng.Status(tb.state())
		if st.Finished {
			break
		}
		if round > 5 {
			t.Fatalf("the game is still in %s after %d rounds", st.Phase, round)
		}
		phases = append(phases, st.Phase)
		if _, err := tb.m.SetFlavor(ctx, name, st.Phase, "", "Flavor of "+st.Phase+"."); err != nil {
			t.Fatal(err)
		}
		if _, err := tb.m.SetFlavor(ctx, name, st.Phase, "Ann", "Private flavor of "+st.Phase+"."); err != nil {
			t.Fatal(err)
		}
		if round == 2 {
			if _, err := tb.m.Say(ctx, name, "", "", "The deadline moves for the holiday."); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := tb.m.ResolvePhase(ctx, name, st.Phase); err != nil {
			t.Fatal(err)
		}
		waitFor(t, st.Phase+"'s update on the board", 60*time.Second, func() bool {
			return tb.drained() && strings.Contains(thread(), "Flavor of "+st.Phase+".")
		})
	}
	posts, _ := tb.checkExactlyOnce()
	all := thread()
	for _, ph := range phases {
		if n := strings.Count(all, "Flavor of "+ph+"."); n != 1 {
			t.Errorf("the flavor of %s is in the thread %d times, want once", ph, n)
		}
	}
	if n := strings.Count(all, "House rules: be kind."); n != posts || posts < len(phases)+2 {
		t.Errorf("%d of the bot's %d posts are in the house style", n, posts)
	}
	if strings.Count(all, "The deadline moves for the holiday.") != 1 || strings.Contains(all, "Private flavor") {
		t.Error("the announcement is not in the thread once, or a private flavor is")
	}
	private := 0
	for _, it := range tb.outbox() {
		if it.Kind == "pm" && strings.HasPrefix(it.Body, "Private flavor of ") {
			private++
			if it.RecipientName != "Ann" {
				t.Errorf("Ann's flavor went to %s", it.RecipientName)
			}
		}
	}
	if private != len(phases) {
		t.Errorf("%d of Ann's private results open with her flavor, want %d", private, len(phases))
	}
}
