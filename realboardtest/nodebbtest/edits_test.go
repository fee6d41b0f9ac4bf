//go:build linux

package nodebbtest

import (
	"context"
	"log/slog"
	"net/http"
	"path/filepath"
	"strconv"
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

// TestEditsAndDeletions plays the start of a Nations game on a real NodeBB
// board with players editing and a moderator deleting posts (NodeBB keeps a
// deleted post, restorable, marked in the topic's JSON):
//   - an edit before the deadline replaces the post's command (Alice's
//     civilisation becomes the edited one, the old command superseded);
//   - a post the admin deletes is flagged in the audit log as deleted, and
//     its command stands (Bob keeps his civilisation);
//   - the board forgets the bot's session mid-game (its rows in the
//     sessions table deleted): the bot logs in again and the game goes on;
//   - an edit seen after the deadline is only flagged: the civilisation
//     chosen in time stays; every post and chat of the bot's once.
func TestEditsAndDeletions(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Edits)
	if testing.Short() {
		t.Skip("plays a round on the real clock")
	}
	ctx := context.Background()
	b := board(t, realboardtest.NodeBBOptions{Players: []string{"Alice", "Bob"}, BotAdmin: true, Subject: "Nations"})
	names := realboardtest.Names(b.Players)
	aliceName, bobName := names[0], names[1]
	gc := gameconfig.GameConfig{Players: names, Seed: 1, Start: time.Now().UTC(),
		Options: rules.Options{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
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
	g, err := m.Create(ctx, "edited", "nations", gc, fc, ps)
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
	commandsOf := func(player, text string) []store.CommandRow {
		var cs, out []store.CommandRow
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(g.ID, store.CommandFilter{Player: player})
			return err
		})
		for _, c := range cs {
			if strings.Contains(c.Text, text) {
				out = append(out, c)
			}
		}
		return out
	}
	waitFor(t, "the opening post", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	deadline := eng.Status(state()).Deadline
	alice, bob := user(t, b, b.Player("Alice")), user(t, b, b.Player("Bob"))
	aliceID, err := alice.Post(ctx, "Here we go. **CIV: Fire**")
	if err != nil {
		t.Fatal(err)
	}
	bobID, err := bob.Post(ctx, "**CIV: Earth** for me")
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, "both picks applied", time.Minute, func() bool {
		return state().CivOf(aliceName) == nations.Fire && state().CivOf(bobName) == nations.Earth
	})
	if err := alice.Edit(ctx, aliceID, "Changed my mind. **CIV: Water**"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the edit applied", time.Minute, func() bool { return state().CivOf(aliceName) == nations.Water })
	if time.Now().After(deadline) {
		t.Fatalf("the edit was applied only after the deadline; the round is too short for this machine")
	}
	if cs := commandsOf(aliceName, "Fire"); len(cs) != 1 || cs[0].Status != store.CommandSuperseded {
		t.Errorf("Alice's first pick in the audit: %+v; want one, superseded", cs)
	}
	// The bot's session goes first: the read that sees the deletion is
	// then one after a new login.
	admin := user(t, b, b.Admin)
	if n := len(b.Query(t, `DELETE FROM session WHERE sess->'passport'->>'user' = $1 RETURNING sid`, b.Bot.IDString())); n == 0 {
		t.Fatalf("the bot had no session on the board to end")
	}
	if err := admin.API(ctx, http.MethodDelete, "api/v3/posts/"+strconv.Itoa(bobID)+"/state", nil, nil); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the deletion seen", time.Minute, func() bool {
		var msgs []store.Message
		db.View(ctx, func(tx *store.Tx) error { var err error; msgs, err = tx.Messages(g.ID); return err })
		for _, m := range msgs {
			if m.ForumID == strconv.Itoa(bobID) {
				return m.Deleted
			}
		}
		return false
	})
	if cs := commandsOf(bobName, "Earth"); len(cs) != 1 || cs[0].Status != store.CommandAccepted || state().CivOf(bobName) != nations.Earth {
		t.Errorf("Bob's deleted pick: %+v, civ %s; want it to stand", cs, state().CivOf(bobName))
	}
	waitFor(t, "round 1 resolved and reported", time.Until(deadline)+60*time.Second, func() bool {
		return state().Round == 2 && drained()
	})
	// The round's report went out through a new login (a guest may read
	// the topic; a write needs the session).
	if n := len(b.Query(t, `SELECT sid FROM session WHERE sess->'passport'->>'user' = $1`, b.Bot.IDString())); n == 0 {
		t.Errorf("the bot posted the round's report with no session on the board")
	}
	if err := alice.Edit(ctx, aliceID, "Too late? **CIV: Air**"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the late edit flagged", time.Minute, func() bool {
		var cs []store.CommandRow
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(g.ID, store.CommandFilter{Player: aliceName})
			return err
		})
		for _, c := range cs {
			if c.Kind == "edit" && strings.Contains(c.Reason, "after its phase's deadline") {
				return true
			}
		}
		return false
	})
	if civ := state().CivOf(aliceName); civ != nations.Water {
		t.Errorf("Alice's civilisation after the late edit: %s, want Water", civ)
	}
	halt()
	posts, pms := checkExactlyOnce(t, b, outbox())
	t.Logf("edits and a deletion read; bot: %d posts, %d chats, each once", posts, pms)
}
