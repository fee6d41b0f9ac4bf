package store_test

import (
	"errors"
	"testing"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestThreadProgress: nothing until a read records a page; then the last
// page recorded, replaced by the next, in the transaction that records it
// (a rolled-back page leaves the progress as it was).
func TestThreadProgress(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := &store.Game{Name: "g", Kind: "nations", Status: "running"}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.CreateGame(g) }))
		get := func() (store.ThreadProgress, bool) {
			var p store.ThreadProgress
			var ok bool
			must(t, db.View(ctx, func(tx *store.Tx) error {
				var err error
				p, ok, err = tx.ThreadProgressOf(g.ID)
				return err
			}))
			return p, ok
		}
		if p, ok := get(); ok {
			t.Fatalf("progress before any read: %+v", p)
		}
		for _, p := range []store.ThreadProgress{{Page: 1, Pages: 40}, {Page: 20, Pages: 41}} {
			must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.SetThreadProgress(g.ID, p) }))
			if got, ok := get(); !ok || got != p || !got.Behind() {
				t.Fatalf("progress %+v (%v), want %+v, behind", got, ok, p)
			}
		}
		_ = db.Tx(ctx, func(tx *store.Tx) error {
			must(t, tx.SetThreadProgress(g.ID, store.ThreadProgress{Page: 41, Pages: 41}))
			return errors.New("roll back")
		})
		if got, _ := get(); got.Page != 20 {
			t.Errorf("a rolled-back page moved the progress to %+v", got)
		}
		must(t, db.Tx(ctx, func(tx *store.Tx) error {
			return tx.SetThreadProgress(g.ID, store.ThreadProgress{Page: 41, Pages: 41})
		}))
		if got, _ := get(); got.Behind() {
			t.Errorf("caught up, yet behind: %+v", got)
		}
	})
}
