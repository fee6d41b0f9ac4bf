package moderator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestOutageOnForumsim: a Nations game on forumsim, through the real
// connection, behind a handler that answers 503 while the board is "down"
// (from 8 to 13 minutes in, across the round's 10-minute deadline). While
// down, status says the board is not readable, since when, with the
// board's error and the next try; once it is back the last good read moves
// on, the error clears, the round is still open with its deadline moved on
// by the outage, and the thread says so in the board's time zone.
func TestOutageOnForumsim(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
	m := simModerator(db, clk, 0)
	fc := th.Forum(t, "FORUMGM_OUTAGE_TEST_PW")
	fc.TimeZone = "Europe/Berlin"
	g := simtest.Start(t, m, "outage", "nations", th.Nations(start, 2, 10, 1), fc, th.Roster())
	report := func() GameReport { return reportOf(t, m, "outage") }
	g.Tick()
	deadline := report().Rules.Deadline
	clk.Set(start.Add(7 * time.Minute))
	g.Tick()
	good := report().ForumHealth.LastGoodRead

	th.Down.Store(true)
	wentDown := start.Add(8 * time.Minute)
	clk.Set(wentDown)
	for clk.Now().Before(start.Add(13 * time.Minute)) {
		if err := m.Tick(ctx, g.ID); err == nil {
			t.Fatal("a tick succeeded with the board down")
		}
		rep := report()
		h := rep.ForumHealth
		if !h.Failing() || !h.FailingSince.Equal(wentDown) || !h.LastGoodRead.Equal(good) || !strings.Contains(h.LastError, "503") ||
			!h.NextRetry.After(h.LastFailure) || strings.Contains(h.LastError, "gm-pass") {
			t.Fatalf("while down: %+v", h)
		}
		if text := rep.HealthText(); !strings.Contains(text, "NOT READABLE since Sun 1 Mar 13:08:00 CET") || !strings.Contains(text, "next try") {
			t.Errorf("status line while down: %q", text)
		}
		clk.Set(h.NextRetry)
	}
	th.Down.Store(false)
	back := clk.Now().Truncate(time.Microsecond)
	g.Tick()
	rep := report()
	if h := rep.ForumHealth; h.Failing() || h.LastError != "" || !h.LastGoodRead.Equal(back) {
		t.Errorf("after recovery (back at %v): %+v", back, h)
	}
	if rep.Rules.Phase != "round-1" && !strings.HasPrefix(rep.Rules.Phase, "round-1") {
		t.Errorf("phase %s after the outage, want round 1 still open", rep.Rules.Phase)
	}
	if out := back.Sub(wentDown); !rep.Rules.Deadline.After(deadline.Add(out-time.Second)) || rep.Rules.Deadline.After(deadline.Add(out+time.Minute)) {
		t.Errorf("deadline %v, want %v moved on by the outage (%v), on a whole minute", rep.Rules.Deadline, deadline, out)
	}
	var said []string
	for _, p := range th.Sim.Posts(th.Topic) {
		if strings.Contains(p.Source, "could not be read") {
			said = append(said, p.Source)
		}
	}
	if len(said) != 1 || !strings.Contains(said[0], "from Sun 1 Mar 2026, 13:08 CET to") {
		t.Errorf("outage posts in the thread: %q", said)
	} else {
		t.Logf("the thread was told: %s", said[0])
	}
}
