package store_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestHealth: a game's forum health reads back as written, on both
// engines; a game never read has a zero one; it goes with its game.
func TestHealth(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "h")
		tx(t, db, func(tx *store.Tx) error {
			h, err := tx.Health(g.ID)
			if err != nil || h != (store.Health{GameID: g.ID}) || h.Failing() || h.Outage() {
				t.Errorf("never read: %+v, %v", h, err)
			}
			return err
		})
		at := us(t0)
		failing := store.Health{GameID: g.ID, LastGoodRead: at, LastError: "the thread: 502 Bad Gateway",
			FailingSince: at.Add(30 * time.Second), Failures: 3, LastFailure: at.Add(90 * time.Second), NextRetry: at.Add(150 * time.Second)}
		recovered := store.Health{GameID: g.ID, LastGoodRead: at.Add(3 * time.Minute), OutageFrom: at.Add(30 * time.Second), OutageTo: at.Add(3 * time.Minute)}
		inbox := store.Health{GameID: g.ID, LastGoodRead: at.Add(4 * time.Minute), InboxError: "the PM inbox (ucp.php?i=pm&folder=inbox): HTTP 404",
			InboxFailingSince: at.Add(4 * time.Minute), InboxFailures: 2}
		for _, want := range []store.Health{failing, recovered, inbox, recovered} {
			tx(t, db, func(tx *store.Tx) error { return tx.SaveHealth(want) })
			tx(t, db, func(tx *store.Tx) error {
				got, err := tx.Health(g.ID)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("read back %+v\nwant %+v", got, want)
				}
				return err
			})
		}
		if !failing.Failing() || failing.Outage() || recovered.Failing() || !recovered.Outage() || !inbox.InboxFailing() || inbox.Failing() || recovered.InboxFailing() {
			t.Errorf("Failing/Outage wrong")
		}
	})
}
