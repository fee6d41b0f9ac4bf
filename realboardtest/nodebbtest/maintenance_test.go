//go:build linux

package nodebbtest

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestMaintenanceMode: NodeBB's admin turns maintenance mode on mid-game
// (ACP → Settings → Advanced; members get HTTP 503, the admin goes on) for
// 35 s across round 1's deadline of a Nations game, just after Bob posts
// his pick. The bot, not an administrator, sees the maintenance answer
// (forum health names the closure, no login refused), loses nothing
// (no message fails, nothing is resolved unread) and waits; once the board
// is back it reads Bob's pick, made before the closure, into round 1,
// resolves the round only then, and every post and chat is on the board
// once. 35 s is a blip (under the minute an outage must last to move a
// deadline): no notice of an outage in the topic. A board of its own:
// maintenance mode shuts every member out.
func TestMaintenanceMode(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a real board in maintenance mode across a deadline")
	}
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.StartNodeBB(t, realboardtest.NodeBBOptions{Players: []string{"Alice", "Bob"}, Subject: "Nations, closed"})
	names := realboardtest.Names(b.Players)
	gc := gameconfig.GameConfig{Players: names, Seed: 1, Start: time.Now().UTC(),
		Options: rules.Options{"rounds": 1, "round_minutes": 0.75, "break_minutes": 0}}
	zero := 0.0
	fc := forumConfig(t, b)
	fc.FloodSeconds, fc.DeadlineUnitSeconds = &zero, &zero
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "nodebbtest"}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))}
	var ps []store.Player
	for _, a := range b.Players {
		ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
	}
	g, err := m.Create(ctx, "closed", "nations", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); m.Run(runCtx) }()
	var once sync.Once
	halt := func() { once.Do(func() { stop(); <-done }) }
	defer halt()
	eng, _ := rules.Lookup("nations")
	row := func() *store.Game {
		var r *store.Game
		db.View(ctx, func(tx *store.Tx) error { var err error; r, err = tx.GameByID(g.ID); return err })
		return r
	}
	state := func() *nations.State {
		st, err := eng.Decode(row().State)
		if err != nil {
			t.Fatal(err)
		}
		return st.(*nations.State)
	}
	outbox := func() []store.OutboxItem {
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(g.ID); return err })
		return out
	}
	health := func() store.Health {
		var h store.Health
		db.View(ctx, func(tx *store.Tx) error { var err error; h, err = tx.Health(g.ID); return err })
		return h
	}
	waitFor(t, "the opening post", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	deadline := eng.Status(state()).Deadline
	alice, bob := user(t, b, b.Player("Alice")), user(t, b, b.Player("Bob"))
	if _, err := alice.Post(ctx, "Here we go. **CIV: Fire**"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "Alice's pick applied", 30*time.Second, func() bool { return state().CivOf(names[0]) == nations.Fire })
	if d := time.Until(deadline.Add(-20 * time.Second)); d > 0 {
		time.Sleep(d)
	}
	if time.Until(deadline) < 10*time.Second {
		t.Fatalf("Alice's pick was applied only %v before the deadline: the round is too short for this machine", time.Until(deadline))
	}
	if _, err := bob.Post(ctx, "Just in time. **CIV: Earth**"); err != nil {
		t.Fatal(err)
	}
	b.SetSetting(t, "maintenanceMode", 1)
	closedAt := time.Now()
	reopened := false
	reopen := func() {
		if !reopened {
			reopened = true
			b.SetSetting(t, "maintenanceMode", 0)
		}
	}
	defer reopen()
	// The board is closed to members: a player's post is refused 503.
	var ae *realboardtest.APIError
	if _, err := alice.Post(ctx, "Is the board down? **CIV: Air**"); !errors.As(err, &ae) || ae.Status != http.StatusServiceUnavailable {
		t.Fatalf("a member's post in maintenance mode: %v, want HTTP 503", err)
	}
	waitFor(t, "forum health naming the maintenance", 20*time.Second, func() bool {
		return strings.Contains(health().LastError, "closed for maintenance")
	})
	time.Sleep(time.Until(closedAt.Add(35 * time.Second)))
	if h := health(); !h.Failing() || strings.Contains(h.LastError, "refused") {
		t.Errorf("forum health after 35 s in maintenance: %+v", h)
	}
	if time.Now().Before(deadline) {
		t.Fatalf("the maintenance ended before round 1's deadline %s", deadline.Format("15:04:05"))
	}
	if r := row(); r.Status == moderator.Finished {
		t.Errorf("the game finished while the board was closed")
	}
	for _, it := range outbox() {
		if it.State == store.OutboxFailed {
			t.Errorf("outbox %s failed in maintenance mode: %s", it.Marker, it.LastError)
		}
	}
	reopen()
	reopenedAt := time.Now()
	waitFor(t, "the game's end and its messages sent", 2*time.Minute, func() bool {
		if row().Status != moderator.Finished {
			return false
		}
		for _, it := range outbox() {
			if it.State.Unsent() {
				return false
			}
		}
		return true
	})
	halt()
	if civ := state().CivOf(names[1]); civ != nations.Earth {
		t.Errorf("Bob's pick, posted just before the maintenance: civ %q, want Earth", civ)
	}
	if civ := state().CivOf(names[0]); civ != nations.Fire {
		t.Errorf("Alice's civ %q, want Fire (her post in maintenance mode was refused)", civ)
	}
	// Resolved only once the board was back: the round's result (the
	// bot's last post) is on the board after the reopening, by its clock.
	// (The journal dates the resolution at the deadline it was due.)
	var resolved time.Time
	for _, r := range b.Query(t, `SELECT (data->>'timestamp')::bigint AS at FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'tid' = $1 AND data->>'uid' = $2 ORDER BY (data->>'pid')::int DESC LIMIT 1`,
		b.ThreadIDString(), b.Bot.IDString()) {
		resolved = time.UnixMilli(r["at"].(int64))
	}
	if resolved.Before(reopenedAt) {
		t.Errorf("round 1's result posted at %s, before the board reopened at %s", resolved.Format("15:04:05.000"), reopenedAt.Format("15:04:05.000"))
	}
	var j []journal.Entry
	db.View(ctx, func(tx *store.Tx) error { var err error; j, err = tx.Journal(g.ID); return err })
	for _, e := range j {
		if p, _ := e.Decode(); p != nil {
			if r, ok := p.(journal.Resolve); ok && r.Phase == "round-1" && e.Time.After(deadline.Add(time.Second)) {
				t.Errorf("round 1 resolved as of %s, want its deadline %s (a blip does not move it)", e.Time.Format("15:04:05.000"), deadline.Format("15:04:05.000"))
			}
		}
	}
	if h := health(); h.Failing() {
		t.Errorf("forum health after the reopening: %+v", h)
	}
	notices := 0
	for _, r := range b.Query(t, `SELECT data->>'content' AS content FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'tid' = $1`, b.ThreadIDString()) {
		if strings.Contains(r["content"].(string), "could not be read") {
			notices++
		}
	}
	if notices != 0 {
		t.Errorf("%d notices of an outage in the topic after a 35 s closure, want none (a blip)", notices)
	}
	posts, pms := checkExactlyOnce(t, b, outbox())
	t.Logf("closed %v; round 1's result posted %v after the reopening; bot: %d posts, %d chats, each once",
		reopenedAt.Sub(closedAt).Round(time.Second), resolved.Sub(reopenedAt).Round(time.Millisecond), posts, pms)
}
