//go:build linux

package nodebbtest

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestStoppedAcrossDeadline: the bot (forumgm run's moderator) is stopped
// 15 s before round 1's deadline of a Nations game on a real NodeBB board
// and started again 15 s after it. Alice chats her order 8 s before the
// deadline and Bob his 5 s after it, both while the bot is away. The
// restarted bot resolves round 1 with Alice's order (the board's
// millisecond times tell it was in time), Bob's is not one of round 1's,
// and every post and chat is on the board once.
func TestStoppedAcrossDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("stops the bot across a deadline on the real clock")
	}
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.StoppedAcrossDeadline)
	ctx := context.Background()
	b := board(t, realboardtest.NodeBBOptions{Players: []string{"Alice", "Bob"}, BotAdmin: true, Subject: "Nations, the bot away"})
	names := realboardtest.Names(b.Players)
	gc := gameconfig.GameConfig{Players: names, Seed: 2, Start: time.Now().UTC(),
		Options: rules.Options{"rounds": 2, "round_minutes": 1.5, "break_minutes": 0}}
	zero := 0.0
	fc := forumConfig(t, b)
	fc.FloodSeconds, fc.DeadlineUnitSeconds = &zero, &zero
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	newModerator := func() *moderator.Moderator {
		ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "nodebbtest"}
		return &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board,
			Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))}
	}
	var ps []store.Player
	for _, a := range b.Players {
		ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
	}
	g, err := newModerator().Create(ctx, "away", "nations", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	run := func() func() {
		runCtx, stop := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); newModerator().Run(runCtx) }()
		var once sync.Once
		return func() { once.Do(func() { stop(); <-done }) }
	}
	halt := run()
	defer func() { halt() }()
	eng, _ := rules.Lookup("nations")
	state := func() *nations.State {
		var r *store.Game
		db.View(ctx, func(tx *store.Tx) error { var err error; r, err = tx.GameByID(g.ID); return err })
		st, err := eng.Decode(r.State)
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
	drained := func() bool {
		for _, it := range outbox() {
			if it.State.Unsent() {
				return false
			}
		}
		return true
	}
	waitFor(t, "the opening post", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	deadline := eng.Status(state()).Deadline
	alice, bob := user(t, b, b.Player("Alice")), user(t, b, b.Player("Bob"))
	if _, err := alice.Post(ctx, "For the fire. **CIV: Fire**"); err != nil {
		t.Fatal(err)
	}
	if _, err := bob.Post(ctx, "For the earth. **CIV: Earth**"); err != nil {
		t.Fatal(err)
	}
	at := func(d time.Duration) {
		t.Helper()
		wait := time.Until(deadline.Add(d))
		if wait < 0 {
			t.Fatalf("%v late for the script at deadline%+v: the round is too short for this machine", -wait, d)
		}
		time.Sleep(wait)
	}
	at(-15 * time.Second)
	halt()
	at(-8 * time.Second)
	if _, err := alice.Chat(ctx, b.Bot, "PROSPER"); err != nil {
		t.Fatal(err)
	}
	at(5 * time.Second)
	if _, err := bob.Chat(ctx, b.Bot, "DEFEND"); err != nil {
		t.Fatal(err)
	}
	at(15 * time.Second)
	if r := state().Round; r != 1 {
		t.Fatalf("round %d while the bot was away, want round 1 still", r)
	}
	halt = run()
	waitFor(t, "round 1 resolved and reported", 2*time.Minute, func() bool { return state().Round >= 2 && drained() })
	halt()
	if st := state(); st.CivOf(names[0]) != nations.Fire || st.CivOf(names[1]) != nations.Earth {
		t.Errorf("civs %q and %q, want Fire and Earth, picked in round 1", st.CivOf(names[0]), st.CivOf(names[1]))
	}
	var cs []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		cs, err = tx.Commands(g.ID, store.CommandFilter{})
		return err
	})
	aliceIn, bobIn := false, false
	for _, c := range cs {
		switch {
		case c.Player == names[0] && strings.EqualFold(c.Text, "PROSPER"):
			aliceIn = c.Phase == "round-1" && c.Status == store.CommandAccepted
		case c.Player == names[1] && strings.EqualFold(c.Text, "DEFEND"):
			bobIn = true
			if c.Phase == "round-1" && c.Status == store.CommandAccepted {
				t.Errorf("Bob's order, chatted 5 s after round 1's deadline, counted in round 1: %+v", c)
			}
		}
	}
	if !aliceIn {
		t.Errorf("Alice's order, chatted 8 s before the deadline while the bot was away, is not round 1's: %+v", cs)
	}
	if !bobIn {
		t.Errorf("Bob's order, chatted after the deadline, was not read: %+v", cs)
	}
	posts, pms := checkExactlyOnce(t, b, outbox())
	t.Logf("the bot away from %s to %s across round 1's deadline %s; bot: %d posts, %d chats, each once",
		deadline.Add(-15*time.Second).Format("15:04:05"), deadline.Add(15*time.Second).Format("15:04:05"), deadline.Format("15:04:05"), posts, pms)
}
