package store_test

import (
	"testing"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestRetargetKeepsPMsOnTheirWay: a replacement gives the slot's untried
// PMs to the new account; one already tried may be in the departed player's
// inbox, so it keeps its address (its marker check tells where it went)
// and is never sent again by itself (taken), where re-addressing it had
// recorded a PM the departed player got as the new player's.
func TestRetargetKeepsPMsOnTheirWay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "r1")
		pm := func(marker, to string) store.OutboxItem {
			return store.OutboxItem{GameID: g.ID, Kind: "pm", Recipient: to, RecipientName: to, RecipientID: "id-" + to, Subject: "s", Body: "b", Marker: marker}
		}
		tx(t, db, func(tx *store.Tx) error {
			return tx.Enqueue([]store.OutboxItem{pm("pending", "Ben"), pm("sending", "Ben"), pm("unknown", "Ben"), pm("unconfirmed", "Ben"), pm("sent", "Ben"), pm("cat", "Cat")})
		})
		tx(t, db, func(tx *store.Tx) error {
			for _, st := range []store.OutboxState{store.OutboxSending, store.OutboxUnknown, store.OutboxUnconfirmed, store.OutboxSent} {
				it, err := tx.OutboxByMarker(g.ID, string(st))
				if err != nil {
					return err
				}
				it.State, it.Attempts = st, 1
				if err := tx.UpdateOutbox(it); err != nil {
					return err
				}
			}
			return tx.Save(&store.Changes{Retarget: &store.Retarget{GameID: g.ID, Slot: "Ben", Name: "Benedict", ForumID: "99"}})
		})
		want := map[string]struct {
			to    string
			state store.OutboxState
		}{
			"pending":     {"Benedict", store.OutboxPending},
			"sending":     {"Ben", store.OutboxTaken},
			"unknown":     {"Ben", store.OutboxTaken},
			"unconfirmed": {"Ben", store.OutboxTaken},
			"sent":        {"Ben", store.OutboxSent},
			"cat":         {"Cat", store.OutboxPending},
		}
		tx(t, db, func(tx *store.Tx) error {
			out, err := tx.Outbox(g.ID)
			if err != nil {
				return err
			}
			for _, it := range out {
				w := want[it.Marker]
				if it.RecipientName != w.to || it.State != w.state {
					t.Errorf("%s: to %s, %s; want to %s, %s", it.Marker, it.RecipientName, it.State, w.to, w.state)
				}
				if w.to == "Benedict" && it.RecipientID != "99" {
					t.Errorf("%s: recipient id %s, want 99", it.Marker, it.RecipientID)
				}
				if w.state == store.OutboxTaken && it.LastError == "" {
					t.Errorf("%s: taken without a word for the GM", it.Marker)
				}
			}
			return nil
		})
	})
}
