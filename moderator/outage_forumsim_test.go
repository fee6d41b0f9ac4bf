package moderator

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
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
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true})
	must := func(id int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	bot := must(sim.AddUser("GMBot", "gm-pass", true))
	alice := must(sim.AddUser("Alice", "a", false))
	bob := must(sim.AddUser("Bob", "b", false))
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Nations", "The game starts here.")
	if err != nil {
		t.Fatal(err)
	}
	var down atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "the board is down for maintenance", http.StatusServiceUnavailable)
			return
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("FORUMGM_OUTAGE_TEST_PW", "gm-pass")
	m := &Moderator{DB: db, Clock: clk, Connect: func(ctx context.Context, fc gameconfig.ForumConfig) (Forum, error) {
		return forumconn.Connect(fc, clk, "test")
	}}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 2, "round_minutes": 10, "break_minutes": 1}, Seed: 4, Start: start}
	fc := gameconfig.ForumConfig{URL: srv.URL + "/forum/", Engine: "phpbb", Thread: fmt.Sprint(topic), Bot: "GMBot",
		PasswordEnv: "FORUMGM_OUTAGE_TEST_PW", TimeZone: "Europe/Berlin"}
	g, err := m.Create(ctx, "outage", "nations", gc, fc, []store.Player{
		{Slot: "Alice", ForumName: "Alice", ForumUserID: fmt.Sprint(alice)},
		{Slot: "Bob", ForumName: "Bob", ForumUserID: fmt.Sprint(bob)}})
	if err != nil {
		t.Fatal(err)
	}
	report := func() GameReport {
		t.Helper()
		rs, err := m.Report(ctx, "outage")
		if err != nil || len(rs) != 1 {
			t.Fatalf("report %v %v", rs, err)
		}
		return rs[0]
	}
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	deadline := report().Rules.Deadline
	clk.Set(start.Add(7 * time.Minute))
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	good := report().ForumHealth.LastGoodRead

	down.Store(true)
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
	down.Store(false)
	back := clk.Now().Truncate(time.Microsecond)
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
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
	for _, p := range sim.Posts(topic) {
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
