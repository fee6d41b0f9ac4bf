package store_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestBetweenQueries: what the moderator reads between deadlines (when each
// author was last heard from, every message's time without its body, the
// phase closes), and lapsing: only a pending item lapses, one claimed for a
// send meanwhile is left alone, and a lapsed item is never sent.
func TestBetweenQueries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		err := db.Tx(ctx, func(tx *store.Tx) error {
			g := &store.Game{Name: "b", Kind: "nations", Status: "running", Config: json.RawMessage(`{}`), Forum: json.RawMessage(`{}`), State: json.RawMessage(`{}`)}
			if err := tx.CreateGame(g); err != nil {
				return err
			}
			for i, m := range []store.Message{
				{Kind: forum.KindPost, ForumID: "10", AuthorName: "Ann", Time: t0},
				{Kind: forum.KindPM, ForumID: "3", AuthorName: "Ann", Time: t0.Add(2 * time.Hour)},
				{Kind: forum.KindPost, ForumID: "11", AuthorName: "Ben", Time: t0.Add(time.Hour)},
			} {
				m.GameID, m.Hash, m.FirstSeen = g.ID, "h", t0.Add(time.Duration(i)*time.Minute)
				if _, err := tx.RecordMessage(&m); err != nil {
					return err
				}
			}
			heard, err := tx.LastHeard(g.ID)
			if err != nil {
				return err
			}
			if len(heard) != 2 || !heard["Ann"].Equal(t0.Add(2*time.Hour)) || !heard["Ben"].Equal(t0.Add(time.Hour)) {
				t.Errorf("last heard %v", heard)
			}
			times, err := tx.MessageTimes(g.ID)
			if err != nil {
				return err
			}
			if len(times) != 3 || times[0].Author != "Ann" || times[1].Author != "Ben" || times[2].Kind != forum.KindPM || !times[2].Time.Equal(t0.Add(2*time.Hour)) {
				t.Errorf("message times %+v", times)
			}
			ch := store.Changes{
				Journal: []store.JournalWrite{
					{Entry: journal.New(g.ID, t0.Add(time.Hour), journal.Resolve{Phase: "round-1", Title: "Round 1 of 3"})},
					{Entry: journal.New(g.ID, t0.Add(3*time.Hour), journal.Resolve{Phase: "round-2", Title: "Round 2 of 3"})},
				},
				Outbox: []store.OutboxItem{
					{GameID: g.ID, Kind: forum.KindPM, Recipient: "Ann", Marker: "b/round-3/1.lapse", Body: "a reminder"},
					{GameID: g.ID, Kind: forum.KindPM, Recipient: "Ben", Marker: "b/round-3/2.lapse", Body: "another"},
				},
			}
			if err := tx.Save(&ch); err != nil {
				return err
			}
			msgs, err := tx.Messages(g.ID)
			if err != nil {
				return err
			}
			cmd := store.Changes{Commands: []store.CommandRow{{GameID: g.ID, MessageID: msgs[0].ID, Phase: "round-1", Player: "Ann", Channel: "public", Text: "CIV: Fire", Status: store.CommandAccepted}}}
			if err := tx.Save(&cmd); err != nil {
				return err
			}
			cps, err := tx.CommandPosts(g.ID, store.CommandFilter{Phase: "round-1"})
			if err != nil {
				return err
			}
			if len(cps) != 1 || cps[0].ForumID != msgs[0].ForumID || cps[0].Text != "CIV: Fire" {
				t.Errorf("commands with their posts %+v", cps)
			}
			ev := store.Changes{Events: []store.EventRow{
				{GameID: g.ID, Phase: "round-1", Kind: "count", Text: "count 1", At: t0},
				{GameID: g.ID, Phase: "round-1", To: "Ann", Kind: "count", Text: "not for the thread", At: t0},
				{GameID: g.ID, Phase: "round-1", Kind: "reminder", Text: "a reminder", At: t0},
			}}
			if err := tx.Save(&ev); err != nil {
				return err
			}
			if pub, err := tx.PublicEvents(g.ID, "count"); err != nil || len(pub) != 1 || pub[0].Text != "count 1" || pub[0].Phase != "round-1" {
				t.Errorf("public count events %+v %v", pub, err)
			}
			res, err := tx.Resolutions(g.ID)
			if err != nil {
				return err
			}
			if len(res) != 2 || res[1].Phase != "round-2" || res[1].Title != "Round 2 of 3" || !res[1].At.Equal(t0.Add(3*time.Hour)) {
				t.Errorf("resolutions %+v", res)
			}
			claimed := ch.Outbox[1]
			if err := tx.ClaimOutbox(&claimed); err != nil {
				return err
			}
			lapse := store.Changes{Lapse: &store.LapseChange{IDs: []int64{ch.Outbox[0].ID, ch.Outbox[1].ID}, Why: "round 3 closed first"}}
			if lapse.Empty() {
				t.Error("a lapse is nothing to save")
			}
			if err := tx.Save(&lapse); err != nil {
				return err
			}
			box, err := tx.Outbox(g.ID)
			if err != nil {
				return err
			}
			if box[0].State != store.OutboxLapsed || box[0].LastError != "round 3 closed first" || box[1].State != store.OutboxSending {
				t.Errorf("after the lapse: %s (%s), %s", box[0].State, box[0].LastError, box[1].State)
			}
			un, err := tx.Unsent(g.ID)
			if err != nil {
				return err
			}
			if len(un) != 1 || un[0].ID != claimed.ID {
				t.Errorf("unsent %+v, want only the claimed one", un)
			}
			if box[0].State.Unsent() {
				t.Error("a lapsed item counts as unsent")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
