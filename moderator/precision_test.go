package moderator

import (
	"context"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestTimedOutPhaseReplaysExactly: a deadline finer than the journal's
// microseconds (a start or a phase length in nanoseconds, as time.Now()
// and fractional hours give) closes its phase on the journal's precision,
// so the state rebuilt from the journal is the live one to the nanosecond.
// The soak test found it: the live state had ….90459842Z, the replay
// ….904598Z.
func TestTimedOutPhaseReplaysExactly(t *testing.T) {
	for _, extra := range []time.Duration{0, 1, 420, 999} {
		r := &rig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
		r.ff = forumtest.New(r.clk)
		r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
		gc := gameconfig.GameConfig{Players: []string{"Ann", "Ben"}, Seed: 3, Start: start.Add(extra)}
		zero := 0.0 // deadlines as the game sets them, not on whole minutes
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", DeadlineUnitSeconds: &zero}
		g, err := r.m.Create(r.ctx, "g", "laps-test", gc, fc, []store.Player{{Slot: "Ann", ForumName: "Ann"}, {Slot: "Ben", ForumName: "Ben"}})
		if err != nil {
			t.Fatal(err)
		}
		r.id = g.ID
		r.eng, _ = rules.Lookup("laps-test")
		r.tick() // the opening post
		r.at(11 * time.Minute)
		r.tick() // two phases time out
		_, st, _ := r.game()
		if s := st.(*lapsState); s.Phase != 3 {
			t.Fatalf("start +%dns: phase %d, want 3", extra, s.Phase)
		}
		if got, want := mustJSONString(r.rebuilt()), mustJSONString(st); got != want {
			t.Errorf("start +%dns: the journal rebuilds\n%s\nthe live state is\n%s", extra, got, want)
		}
	}
}
