package store_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

func TestModerationQueries(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			g := &store.Game{Name: "q", Kind: "nations", Status: "running", Config: json.RawMessage(`{}`), Forum: json.RawMessage(`{}`), State: json.RawMessage(`{}`)}
			if err := tx.CreateGame(g); err != nil {
				return err
			}
			if at, err := tx.LastResolve(g.ID); err != nil || !at.IsZero() {
				t.Errorf("no resolution yet: %v %v", at, err)
			}
			for i, e := range []journal.Entry{
				{Kind: "resolve", Time: t0},
				{Kind: "command", Time: t0.Add(time.Minute)},
				{Kind: "resolve", Time: t0.Add(2 * time.Minute)},
				{Kind: "deadline", Time: t0.Add(3 * time.Minute)},
			} {
				e.GameID = g.ID
				if err := tx.AppendJournal(&e); err != nil {
					t.Fatalf("journal %d: %v", i, err)
				}
			}
			if at, err := tx.LastResolve(g.ID); err != nil || !at.Equal(t0.Add(2*time.Minute)) {
				t.Errorf("last resolve %v %v", at, err)
			}
			items := []store.OutboxItem{
				{GameID: g.ID, Kind: "post", Marker: "q/1", State: "pending"},
				{GameID: g.ID, Kind: "pm", Recipient: "A", Marker: "q/2", State: "pending"},
				{GameID: g.ID, Kind: "post", Marker: "q/3", State: "pending"},
			}
			if err := tx.Enqueue(items); err != nil {
				return err
			}
			items[0].State = "sent"
			items[1].State = "sending"
			if err := tx.UpdateOutbox(&items[0]); err != nil {
				return err
			}
			if err := tx.UpdateOutbox(&items[1]); err != nil {
				return err
			}
			if n, err := tx.OutboxCount(g.ID); err != nil || n != 3 {
				t.Errorf("count %d %v", n, err)
			}
			un, err := tx.Unsent(g.ID)
			if err != nil || len(un) != 2 || un[0].Marker != "q/2" || un[1].Marker != "q/3" {
				t.Errorf("unsent %+v %v", un, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestToConfirm: a sent item the board took without naming its id (its
// marker to be looked for later) is to confirm until it gets its id, or is
// taken; items sent with an id, pending or of another game are not. Every
// tick asks HasToConfirm, so its query must use the partial index
// outbox_to_confirm, not scan the game's sent items.
func TestToConfirm(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		g, other := newGame(t, db, "g"), newGame(t, db, "h")
		items := []store.OutboxItem{
			{GameID: g.ID, Kind: "post", Body: "a", Marker: "c1"},
			{GameID: g.ID, Kind: "pm", Recipient: "Alice", RecipientName: "Alice", RecipientID: "3", Subject: "s", Body: "b", Marker: "c2"},
			{GameID: g.ID, Kind: "post", Body: "c", Marker: "c3"},
			{GameID: other.ID, Kind: "post", Body: "d", Marker: "c4"},
		}
		tx(t, db, func(tx *store.Tx) error { return tx.Enqueue(items) })
		set := func(i int, state store.OutboxState, id, note string) {
			it := items[i]
			it.State, it.ForumID, it.LastError, it.SentAt = state, id, note, t0
			tx(t, db, func(tx *store.Tx) error { return tx.UpdateOutbox(&it) })
		}
		check := func(want ...string) {
			t.Helper()
			var got []string
			var has bool
			tx(t, db, func(tx *store.Tx) error {
				its, err := tx.ToConfirm(g.ID)
				must(t, err)
				for _, it := range its {
					got = append(got, it.Marker)
				}
				has, err = tx.HasToConfirm(g.ID)
				return err
			})
			if strings.Join(got, ",") != strings.Join(want, ",") || has != (len(want) > 0) {
				t.Errorf("to confirm %v (any: %v), want %v", got, has, want)
			}
		}
		check()
		set(0, store.OutboxSent, "", store.ConfirmLaterNote)
		set(1, store.OutboxSent, "", store.ConfirmLaterNote)
		set(2, store.OutboxSent, "p9", "")
		set(3, store.OutboxSent, "", store.ConfirmLaterNote)
		check("c1", "c2")
		set(0, store.OutboxSent, "p10", "") // found
		set(1, store.OutboxTaken, "", "not found")
		check()
		var plan string
		if err := db.Tx(ctx, func(tx *store.Tx) (err error) {
			plan, err = tx.Plan(store.HasToConfirmQuery, g.ID, store.ConfirmLaterNote)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "outbox_to_confirm") {
			t.Errorf("HasToConfirm's plan does not use outbox_to_confirm:\n%s", plan)
		}
	})
}

// TestPostsSeenSince: a game's posts first seen at or after a time, in
// forum order; not its PMs, older posts or another game's.
func TestPostsSeenSince(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g, other := newGame(t, db, "g"), newGame(t, db, "h")
		add := func(gid int64, kind forum.MessageKind, id string, seen time.Time) {
			m := msg(gid, kind, id, "body "+id, t0)
			m.FirstSeen = seen
			tx(t, db, func(tx *store.Tx) error { _, err := tx.RecordMessage(m); return err })
		}
		add(g.ID, forum.KindPost, "10", t0)
		add(g.ID, forum.KindPost, "12", t0.Add(2*time.Minute))
		add(g.ID, forum.KindPost, "11", t0.Add(time.Minute))
		add(g.ID, forum.KindPM, "5", t0.Add(time.Minute))
		add(other.ID, forum.KindPost, "13", t0.Add(time.Minute))
		var got []string
		tx(t, db, func(tx *store.Tx) error {
			ms, err := tx.PostsSeenSince(g.ID, t0.Add(time.Minute))
			for _, m := range ms {
				got = append(got, m.ForumID)
			}
			return err
		})
		if strings.Join(got, ",") != "11,12" {
			t.Errorf("posts seen since: %v, want 11,12", got)
		}
	})
}
