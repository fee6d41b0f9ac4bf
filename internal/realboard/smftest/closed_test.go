package smftest

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/realboard"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestMaintenanceMode: SMF's admin puts the board in maintenance mode (HTTP
// 503 and the maintenance page, with a login form for administrators) for
// 70 s across round 1's deadline of a Nations game. The bot reads that as
// the board being away at the first answer (forum health names it), tries
// no login, fails no message; once the board is back the round's deadline
// moves on by the closure, a pick made after it counts, and every message
// is on the board once.
func TestMaintenanceMode(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a real board in maintenance mode for over a minute")
	}
	t.Parallel()
	ctx := context.Background()
	b := realboard.Start(t, realboard.SMF, realboard.Options{Players: []string{"Alice", "Bob"}, Subject: "Nations"})
	b.ExemptBot(t) // a global moderator: SMF's maintenance mode still shuts it out
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5, time_format = '%%b %%d, %%Y, %%I:%%M:%%S %%p' WHERE id_member = %d", b.Bot.ID))
	db, err := store.Open(ctx, t.TempDir()+"/game.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := "FORUMGM_SMF_TEST_PW_CLOSED"
	os.Setenv(env, b.Bot.Password) // its own name: the parallel tests' do not clash
	defer os.Unsetenv(env)
	zero := 0.0
	fc := gameconfig.ForumConfig{URL: b.URL, Engine: "smf", Thread: b.ThreadIDString(), Bot: b.Bot.Name, PasswordEnv: env,
		PollSeconds: 0.5, FloodSeconds: &zero, RequestsPerSecond: 50}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: time.Now().UTC(),
		Options: map[string]any{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
	var players []store.Player
	for _, p := range b.Players {
		players = append(players, store.Player{Slot: p.Name, ForumName: p.Name, ForumUserID: p.IDString()})
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, fc gameconfig.ForumConfig) (moderator.Forum, error) {
		return forumconn.Connect(fc, clock.Real{}, "test")
	}}
	g, err := m.Create(ctx, "smf-closed", "nations", gc, fc, players)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); m.Run(runCtx) }()
	defer func() { stop(); wg.Wait() }()

	eng := nations.Game{}
	state := func() *nations.State {
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.GameByID(g.ID); return err }); err != nil {
			t.Fatal(err)
		}
		st, err := eng.Decode(row.State)
		if err != nil {
			t.Fatal(err)
		}
		return st.(*nations.State)
	}
	health := func() store.Health {
		var h store.Health
		db.View(ctx, func(tx *store.Tx) error { var err error; h, err = tx.Health(g.ID); return err })
		return h
	}
	drained := func() bool {
		var it *store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			it, err = tx.NextOutbox(g.ID, time.Now().Add(time.Hour))
			return err
		})
		return it == nil
	}
	wait := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		for end := time.Now().Add(limit); !cond(); time.Sleep(200 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("gave up after %v waiting for %s", limit, what)
			}
		}
	}
	wait("the opening post", time.Minute, func() bool { return countPosts(t, b, "") > 1 && drained() })
	deadline := state().Deadline
	if _, err := b.PostErr(b.Player("Alice"), "[b]CIV: Fire[/b]"); err != nil {
		t.Fatal(err)
	}
	wait("Alice's pick applied", 30*time.Second, func() bool { return state().CivOf("Alice") == nations.Fire })

	b.CloseBoard(t)
	closedAt := time.Now()
	wait("forum health naming the maintenance", 20*time.Second, func() bool {
		return strings.Contains(health().LastError, "closed for maintenance")
	})
	time.Sleep(time.Until(closedAt.Add(70 * time.Second)))
	if h := health(); !h.Failing() || strings.Contains(h.LastError, "refused") {
		t.Errorf("forum health after 70 s in maintenance: %+v", h)
	}
	b.ReopenBoard(t)
	reopenedAt := time.Now()
	if _, err := b.PostErr(b.Player("Bob"), "Back again. [b]CIV: Earth[/b]"); err != nil {
		t.Fatal(err)
	}
	wait("round 1 resolved and reported", 4*time.Minute, func() bool { return state().Round == 2 && drained() })
	if state().CivOf("Bob") != nations.Earth {
		t.Errorf("Bob's pick posted after the maintenance: civ %q, want Earth", state().CivOf("Bob"))
	}
	var resolved time.Time
	var out []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error {
		j, err := tx.Journal(g.ID)
		for _, e := range j {
			if e.Kind == "resolve" && strings.Contains(string(e.Payload), `"round-1"`) {
				resolved = e.Time
			}
		}
		if err == nil {
			out, err = tx.Outbox(g.ID)
		}
		return err
	})
	if resolved.Before(reopenedAt) || !resolved.After(deadline.Add(time.Minute)) {
		t.Errorf("round 1 resolved at %s; want after the reopening (%s) and over a minute after its deadline %s",
			resolved.Format("15:04:05"), reopenedAt.Format("15:04:05"), deadline.Format("15:04:05"))
	}
	stop()
	wg.Wait()
	bodies := b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}messages WHERE id_topic = %d", b.ThreadID))
	notices := 0
	for _, r := range bodies {
		if strings.Contains(fmt.Sprint(r["body"]), "could not be read") {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("%d notices of the outage in the thread, want 1", notices)
	}
	for _, it := range out {
		if it.State != store.OutboxSent {
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
			continue
		}
		n := 0
		for _, r := range bodies {
			if forum.HasMarker(fmt.Sprint(r["body"]), it.Marker) {
				n++
			}
		}
		if it.Kind == "post" && n != 1 {
			t.Errorf("post %s is in the thread %d times, want once", it.Marker, n)
		}
	}
}
