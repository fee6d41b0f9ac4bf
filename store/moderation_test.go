package store_test

import (
	"encoding/json"
	"testing"
	"time"

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
