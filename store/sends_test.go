package store_test

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/store"
)

// A learned message limit is stored per game and only ever lowered; the
// parts of a too-long item come in its place among the unsent, an
// unconfirmed item stays unsent.
func TestMessageLimitAndParts(t *testing.T) {
	t.Parallel()
	eachDSN(t, func(t *testing.T, driver, dsn string) {
		db, err := store.Open(ctx, dsn)
		must(t, err)
		defer db.Close()
		g := newGame(t, db, "g")
		limit := func() int {
			var n int
			must(t, db.View(ctx, func(tx *store.Tx) error {
				got, err := tx.GameByID(g.ID)
				if got != nil {
					n = got.MessageLimit
				}
				return err
			}))
			return n
		}
		if n := limit(); n != 0 {
			t.Errorf("limit before any: %d", n)
		}
		for _, set := range []int{60000, 65535, 20000} {
			must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.SetMessageLimit(g.ID, set) }))
		}
		if n := limit(); n != 20000 {
			t.Errorf("limit %d, want 20000 (lowered only)", n)
		}

		items := []store.OutboxItem{
			{GameID: g.ID, Kind: "pm", Recipient: "Alice", Body: "long", Marker: "g/1/1"},
			{GameID: g.ID, Kind: "post", Body: "result", Marker: "g/1/2"},
			{GameID: g.ID, Kind: "pm", Recipient: "Bob", Body: "bob", Marker: "g/1/3", State: store.OutboxUnconfirmed},
		}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.Enqueue(items) }))
		items[0].State = store.OutboxSplit
		parts := []store.OutboxItem{
			{GameID: g.ID, Kind: "pm", Recipient: "Alice", Body: "part 1", Marker: "g/1/1.p1", PartOf: items[0].ID},
			{GameID: g.ID, Kind: "pm", Recipient: "Alice", Body: "part 2", Marker: "g/1/1.p2", PartOf: items[0].ID},
		}
		must(t, db.Tx(ctx, func(tx *store.Tx) error {
			if err := tx.UpdateOutbox(&items[0]); err != nil {
				return err
			}
			return tx.Enqueue(parts)
		}))
		var got []string
		must(t, db.View(ctx, func(tx *store.Tx) error {
			un, err := tx.Unsent(g.ID)
			for _, it := range un {
				got = append(got, it.Marker+":"+string(it.State))
				if it.Marker == "g/1/1.p2" && it.PartOf != items[0].ID {
					t.Errorf("part_of read back %d", it.PartOf)
				}
			}
			return err
		}))
		want := "g/1/1.p1:pending g/1/1.p2:pending g/1/2:pending g/1/3:unconfirmed"
		if s := strings.Join(got, " "); s != want {
			t.Errorf("unsent %q, want %q", s, want)
		}
	})
}
