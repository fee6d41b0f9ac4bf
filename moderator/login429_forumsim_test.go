package moderator

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestLoginPost429OnForumsimGame is issue 22 item 6 in a game, through the
// real connection: `forumgm run` restarts (a new session, no cookies) and
// the bot's login POST is answered 429 with Retry-After 45 s (forumsim's
// fault kinds). The tick
// fails as the board being away, not as a wrong password (no lockout, no
// word of the password for the GM); the next tick waits the 45 s out on
// the board's pacer, logs in and reads.
func TestLoginPost429OnForumsimGame(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
	m := simModerator(db, clk, 0)
	g := simtest.Start(t, m, "login429", "nations", th.Nations(start, 2, 10, 1), th.Forum(t, "FORUMGM_LOGIN429_TEST_PW"), th.Roster())
	g.Tick()
	clk.Advance(time.Minute)
	if err := th.Sim.SetFaults(1,
		forumsim.FaultRule{Kind: forumsim.Fault429, Method: http.MethodPost, Path: "mode=login", Count: 1, RetryAfter: 45 * time.Second}); err != nil {
		t.Fatal(err)
	}
	m = simModerator(db, clk, 0) // the restart
	err := m.Tick(ctx, g.ID)
	if err == nil || !strings.Contains(err.Error(), "429") {
		t.Fatalf("the tick whose login got a 429: %v; want an error naming the 429", err)
	}
	st := th.Sim.Faults()
	if st.ByKind[forumsim.Fault429] != 1 {
		t.Fatalf("faults: %v; want the login POST's 429", st.ByKind)
	}
	var refusedAt time.Time
	for _, ev := range st.Log {
		if ev.Kind == forumsim.Fault429 {
			refusedAt = ev.Time
		}
	}
	rep := reportOf(t, m, "login429")
	if h := rep.ForumHealth; !h.Failing() || !strings.Contains(h.LastError, "429") {
		t.Errorf("health after the 429: %+v; want the board away, naming the 429", h)
	}
	for _, bad := range []string{"refused the name or password", "password", "gm-pass"} {
		if strings.Contains(rep.ForumHealth.LastError, bad) || strings.Contains(GMError(err), bad) {
			t.Errorf("the GM is told %q (step: %q): a 429 is no wrong password", rep.ForumHealth.LastError, GMError(err))
		}
	}
	clk.Advance(time.Second)
	if err := m.Tick(ctx, g.ID); err != nil { // the next poll: waits the Retry-After out, logs in, reads
		t.Fatalf("the tick after the 429: %v", err)
	}
	if now := clk.Now(); now.Before(refusedAt.Add(45 * time.Second)) {
		t.Errorf("the next tick ended at +%v after the 429: it did not wait the 45 s out", now.Sub(refusedAt))
	}
	if h := reportOf(t, m, "login429").ForumHealth; h.Failing() {
		t.Errorf("after the wait the board still reads as failing: %+v", h)
	}
	if st := th.Sim.Faults(); st.ByKind[forumsim.Fault429] != 1 {
		t.Errorf("faults after: %v", st.ByKind)
	}
}
