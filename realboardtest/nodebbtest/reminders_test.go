//go:build linux

package nodebbtest

import (
	"context"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestReminders plays one round of Nations on a real NodeBB board with
// reminders before its deadline: Pia and Quin chat their orders early;
// the reminders go out by chat to exactly Rob and Sue, who have not
// ordered, once each, in their rooms with the bot, saying what they still
// have to do; Sue, who never says a word, is prodded by chat after 30 s of
// silence; Rob orders, the round closes at its deadline and the game
// ends; every post and chat is on the board once.
func TestReminders(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Reminders)
	if testing.Short() {
		t.Skip("plays a round on the real clock (about a minute and a half)")
	}
	ctx := context.Background()
	b := board(t, realboardtest.NodeBBOptions{Players: []string{"Pia", "Quin", "Rob", "Sue"}, BotAdmin: true, Subject: "Nations, reminded"})
	names := realboardtest.Names(b.Players)
	before := gameconfig.Offsets{"35s"}
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: time.Now().UTC(),
		Options:   rules.Options{"rounds": 1, "round_minutes": 1.25, "break_minutes": 0},
		Reminders: &gameconfig.Reminders{Before: &before, Prod: "30s"}}
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
	g, err := m.Create(ctx, "reminded", "nations", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); m.Run(runCtx) }()
	var once sync.Once
	halt := func() { once.Do(func() { stop(); <-done }) }
	defer halt()
	outbox := func() []store.OutboxItem {
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(g.ID); return err })
		return out
	}
	row := func() *store.Game {
		var r *store.Game
		db.View(ctx, func(tx *store.Tx) error { var err error; r, err = tx.GameByID(g.ID); return err })
		return r
	}
	accepted := func(who string) bool {
		var cs []store.CommandRow
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(g.ID, store.CommandFilter{})
			return err
		})
		for _, c := range cs {
			if c.Player == b.Player(who).Name && c.Status == store.CommandAccepted {
				return true
			}
		}
		return false
	}
	waitFor(t, "the opening post", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	chat := func(who, text string) {
		t.Helper()
		if _, err := user(t, b, b.Player(who)).Chat(ctx, b.Bot, text); err != nil {
			t.Fatal(err)
		}
	}
	chat("Pia", "PROSPER")
	chat("Quin", "DEFEND")
	waitFor(t, "Pia's and Quin's orders read", time.Minute, func() bool { return accepted("Pia") && accepted("Quin") })
	reminders := func() []store.OutboxItem {
		var out []store.OutboxItem
		for _, it := range outbox() {
			if it.Kind == forum.KindPM && strings.Contains(it.Body, "a reminder") {
				out = append(out, it)
			}
		}
		return out
	}
	waitFor(t, "the reminders sent", 2*time.Minute, func() bool {
		rs := reminders()
		for _, it := range rs {
			if it.State != store.OutboxSent {
				return false
			}
		}
		return len(rs) > 0
	})
	chat("Rob", "INVADE Sue")
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

	var to []string
	for _, it := range reminders() {
		to = append(to, it.RecipientName)
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		rows := b.Query(t, `SELECT data->>'content' AS content, data->>'roomId' AS room FROM legacy_hash WHERE _key LIKE 'message:%' AND data->>'content' LIKE $1`, "%"+strings.ReplaceAll(key, "_", `\_`)+"%")
		if len(rows) != 1 {
			t.Errorf("the reminder %s to %s is on the board %d times, want once", key, it.RecipientName, len(rows))
			continue
		}
		if c := rows[0]["content"].(string); !strings.Contains(c, "send me your order for round 1") {
			t.Errorf("%s's reminder on the board says:\n%s", it.RecipientName, c)
		}
	}
	slices.Sort(to)
	if !reflect.DeepEqual(to, []string{b.Player("Rob").Name, b.Player("Sue").Name}) {
		t.Errorf("reminders to %v, want Rob and Sue", to)
	}
	prodded := false
	for _, it := range outbox() {
		if it.Kind == forum.KindPM && strings.Contains(it.Body, "has not heard from you") && it.RecipientName == b.Player("Sue").Name {
			prodded = it.State == store.OutboxSent
		}
	}
	if !prodded {
		t.Errorf("no prod sent to %s, silent all round", b.Player("Sue").Name)
	}
	posts, pms := checkExactlyOnce(t, b, outbox())
	t.Logf("reminders to %v; bot: %d posts, %d chats, each once", to, posts, pms)
}
