package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestStepLoadAndSave: a step's changes go in with one Save, a journal entry
// tied to a command of the same step gets that command's id, and a
// superseded command's journal entry is voided with it.
func TestStepLoadAndSave(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			g := &store.Game{Name: "s", Kind: "nations", Status: "running", Config: json.RawMessage(`{}`), Forum: json.RawMessage(`{}`), State: json.RawMessage(`{}`)}
			if err := tx.CreateGame(g); err != nil {
				return err
			}
			msg := &store.Message{GameID: g.ID, Kind: "post", ForumID: "p1", AuthorName: "Ann", Time: t0, Hash: "h"}
			if _, err := tx.RecordMessage(msg); err != nil {
				return err
			}
			in, err := tx.LoadStep(g.ID)
			if err != nil {
				return err
			}
			if in.Game.ID != g.ID || in.OutboxCount != 0 || !in.LastResolve.IsZero() || len(in.Players) != 0 {
				t.Errorf("loaded %+v", in)
			}
			in.Game.Phase = "day-2"
			first := store.Changes{
				Commands: []store.CommandRow{
					{GameID: g.ID, MessageID: msg.ID, Player: "Ann", Text: "x", Status: store.CommandRejected},
					{GameID: g.ID, MessageID: msg.ID, Seq: 1, Player: "Ann", Text: "vote bob", Status: store.CommandAccepted},
				},
				Journal: []store.JournalWrite{
					{Entry: journal.Entry{GameID: g.ID, Kind: "resolve", Time: t0}},
					{Entry: journal.Entry{GameID: g.ID, Kind: "command", Time: t0}, ForCommand: 2},
				},
				Events:          []store.EventRow{{GameID: g.ID, Phase: "day-1", Kind: "vote", Text: "Ann votes", At: t0}},
				Outbox:          []store.OutboxItem{{GameID: g.ID, Kind: "post", Marker: "s/day-1/1"}},
				MessageStatuses: []store.MessageStatusChange{{ID: msg.ID, Status: store.MessageProcessed}},
				Players:         []store.Player{{GameID: g.ID, Slot: "Ann", ForumName: "Ann", ForumUserID: "7"}},
				Game:            in.Game,
			}
			if err := tx.Save(&first); err != nil {
				return err
			}
			accepted := first.Commands[1].ID
			j, err := tx.Journal(g.ID)
			if err != nil || len(j) != 2 || j[0].CommandID != 0 || j[1].CommandID != accepted {
				t.Errorf("journal %+v %v (accepted command %d)", j, err, accepted)
			}
			in, err = tx.LoadStep(g.ID)
			if err != nil {
				return err
			}
			if in.Game.Phase != "day-2" || in.OutboxCount != 1 || !in.LastResolve.Equal(t0) || len(in.Players) != 1 || in.Players[0].ForumUserID != "7" {
				t.Errorf("after save: %+v", in)
			}
			if m, err := tx.Message(msg.ID); err != nil || m.Status != store.MessageProcessed {
				t.Errorf("message %+v %v", m, err)
			}
			if ev, err := tx.Events(g.ID); err != nil || len(ev) != 1 || ev[0].Text != "Ann votes" {
				t.Errorf("events %+v %v", ev, err)
			}
			second := store.Changes{CommandStatuses: []store.CommandStatusChange{{ID: accepted, Status: store.CommandSuperseded, Reason: "edited"}}}
			if err := tx.Save(&second); err != nil {
				return err
			}
			if c, err := tx.Command(accepted); err != nil || c.Status != store.CommandSuperseded || c.Reason != "edited" {
				t.Errorf("command %+v %v", c, err)
			}
			if j, err := tx.Journal(g.ID); err != nil || j[0].Voided || !j[1].Voided {
				t.Errorf("journal after superseding %+v %v", j, err)
			}
			bad := store.Changes{Journal: []store.JournalWrite{{Entry: journal.Entry{GameID: g.ID, Kind: "command"}, ForCommand: 1}}}
			if err := tx.Save(&bad); err == nil {
				t.Error("a journal entry for a command not in the step was saved")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestStepSavesWhatWasWrittenBeside: what a step used to write beside
// Save (its forum health, the thread's progress, the game's settings, the
// board's learned message limit, an item replaced by its parts) is in its
// Changes, saved by the same Save, and only by it.
func TestStepSavesWhatWasWrittenBeside(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			g := &store.Game{Name: "b", Kind: "nations", Status: "running", Config: json.RawMessage(`{}`), Forum: json.RawMessage(`{"url":"x"}`), State: json.RawMessage(`{}`)}
			if err := tx.CreateGame(g); err != nil {
				return err
			}
			long := []store.OutboxItem{{GameID: g.ID, Kind: "pm", Recipient: "Ann", Body: "long", Marker: "b/1/1"}}
			if err := tx.Save(&store.Changes{Outbox: long}); err != nil {
				return err
			}
			if c := (store.Changes{Health: &store.Health{GameID: g.ID}}); c.Empty() {
				t.Error("changes holding only the forum health are empty")
			}
			long[0].State, long[0].LastError = store.OutboxSplit, "sent instead in 2 parts"
			c := store.Changes{
				Settings:      &store.SettingsChange{GameID: g.ID, Config: json.RawMessage(`{"opening_post":"7"}`), Forum: g.Forum},
				MessageLimit:  &store.MessageLimitChange{GameID: g.ID, Max: 2000},
				Progress:      &store.ProgressChange{GameID: g.ID, Progress: store.ThreadProgress{Page: 3, Pages: 10}},
				Health:        &store.Health{GameID: g.ID, LastGoodRead: t0},
				OutboxUpdates: long,
				Outbox: []store.OutboxItem{
					{GameID: g.ID, Kind: "pm", Recipient: "Ann", Body: "part 1", Marker: "b/1/1.p1", PartOf: long[0].ID},
					{GameID: g.ID, Kind: "pm", Recipient: "Ann", Body: "part 2", Marker: "b/1/1.p2", PartOf: long[0].ID},
				},
			}
			if err := tx.Save(&c); err != nil {
				return err
			}
			got, err := tx.GameByID(g.ID)
			if err != nil || string(got.Config) != `{"opening_post":"7"}` || string(got.Forum) != `{"url":"x"}` || got.MessageLimit != 2000 {
				t.Errorf("game after save: %v %+v", err, got)
			}
			if p, ok, err := tx.ThreadProgressOf(g.ID); err != nil || !ok || p != (store.ThreadProgress{Page: 3, Pages: 10}) {
				t.Errorf("progress %+v %v %v", p, ok, err)
			}
			if h, err := tx.Health(g.ID); err != nil || !h.LastGoodRead.Equal(t0) {
				t.Errorf("health %+v %v", h, err)
			}
			un, err := tx.Unsent(g.ID)
			if err != nil || len(un) != 2 || un[0].Marker != "b/1/1.p1" || un[1].Marker != "b/1/1.p2" {
				t.Errorf("unsent %+v %v", un, err)
			}
			box, err := tx.Outbox(g.ID)
			if err != nil || len(box) != 3 || box[0].State != store.OutboxSplit || box[0].LastError != "sent instead in 2 parts" {
				t.Errorf("outbox %+v %v", box, err)
			}
			// A learned limit is only ever lowered.
			if err := tx.Save(&store.Changes{MessageLimit: &store.MessageLimitChange{GameID: g.ID, Max: 5000}}); err != nil {
				return err
			}
			if got, err := tx.GameByID(g.ID); err != nil || got.MessageLimit != 2000 {
				t.Errorf("a higher limit replaced the learned one: %v %d", err, got.MessageLimit)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
