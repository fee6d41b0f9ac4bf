package moderator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestWholeGameOnALegacyCharsetBoard (issue 44): a whole two-round Nations
// game on a board in ISO-8859-1 (declared in its Content-Type) and on one
// in windows-1252 (in a <meta> only), with players named Zoë and Łukasz
// (not in either charset) whose orders name each other: every order is
// read and accepted, every outbox post and PM is confirmed and on the
// board exactly once, and the receipts (“…” ✔ —, the names) show as
// written.
// On this board the opening post went out again every 30 s.
func TestWholeGameOnALegacyCharsetBoard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		charset string
		inMeta  bool
	}{
		{forumsim.CharsetLatin1, false},
		{forumsim.CharsetCP1252, true},
	} {
		t.Run(tc.charset, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			db := storetest.SQLite(t)
			clk := clock.NewFake(start)
			th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true, Charset: tc.charset, CharsetInMeta: tc.inMeta},
				"GMBot", "gm-pass", true, []string{"Zoë", "Łukasz", "Ann"}, "Nations — the game starts here…")
			fc := th.Forum(t, "FORUMGM_CHARSET_TEST_PW")
			m := simModerator(db, clk, 0)
			g := simtest.Start(t, m, "legacy", "nations", th.Nations(start, 2, 10, 1), fc, th.Roster())
			g.Tick()
			must := simtest.Must(t)
			orders := map[string]string{"Zoë": "INVADE Łukasz", "Łukasz": "INVADE Zoë", "Ann": "PROSPER"}
			for round := 1; round <= 2; round++ {
				for _, p := range th.Names {
					must(th.Sim.SendPM(th.Players[p], []int{th.Bot}, fmt.Sprintf("Ordres — round %d", round), orders[p]))
				}
				for range 12 {
					clk.Advance(time.Minute)
					g.Tick()
				}
			}
			for range 5 {
				clk.Advance(time.Minute)
				g.Tick()
			}
			if r := reportOf(t, m, "legacy"); r.Status != store.GameFinished {
				t.Errorf("the game is %s, want finished", r.Status)
			}
			var cmds []store.CommandRow
			if err := db.View(ctx, func(tx *store.Tx) error {
				var err error
				cmds, err = tx.Commands(g.ID, store.CommandFilter{})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			accepted := map[string]int{}
			for _, c := range cmds {
				if c.Status == store.CommandAccepted {
					accepted[c.Player+": "+c.Text]++
				} else {
					t.Errorf("%s's %q: %s", c.Player, c.Text, c.Status)
				}
			}
			for p, o := range orders {
				if accepted[p+": "+o] != 2 {
					t.Errorf("%s's %q accepted %d times, want in both rounds (%v)", p, o, accepted[p+": "+o], accepted)
				}
			}
			box := simtest.Outbox(t, db, g.ID)
			if len(box) < 8 {
				t.Fatalf("%d outbox items: want the posts and PMs of two rounds", len(box))
			}
			for _, it := range box {
				if it.State != store.OutboxSent || th.OnBoard(it) != 1 {
					t.Errorf("%s (%s): %s, on the board %d times (%s); want sent, once", it.Marker, it.Kind, it.State, th.OnBoard(it), it.LastError)
				}
			}
			for _, p := range []string{"Zoë", "Łukasz"} {
				in := th.Sim.Inbox(th.Players[p])
				if len(in) == 0 {
					t.Fatalf("%s has no PMs", p)
				}
				named := false
				for _, pm := range in {
					shown := th.Sim.Shown(pm.Source)
					if strings.Contains(shown, "Ã") || strings.Contains(shown, "Â") {
						t.Errorf("%s's PM shows mangled: %q", p, shown)
					}
					// The receipt quotes the order, the other's name as written.
					named = named || strings.Contains(shown, "✔ “"+orders[p]+"” — accepted")
					if ks := forum.Markers(shown); len(ks) != 1 {
						t.Errorf("%s's PM carries the markers %q", p, ks)
					}
				}
				if !named {
					for _, pm := range in {
						t.Logf("%s: %q", p, th.Sim.Shown(pm.Source))
					}
					t.Errorf("no PM to %s quotes their order %q as accepted", p, orders[p])
				}
			}
		})
	}
}
