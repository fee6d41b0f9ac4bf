package store_test

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestStepError: a run of failed steps keeps when it began, counts its
// failures and shows the latest error; clearing ends the run, and the next
// failure begins a new one.
func TestStepError(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g := newGame(t, db, "g")
		read := func() *store.StepError {
			t.Helper()
			var e *store.StepError
			must(t, db.View(ctx, func(tx *store.Tx) error { var err error; e, err = tx.StepError(g.ID); return err }))
			return e
		}
		if e := read(); e != nil {
			t.Fatalf("a step error before any step: %+v", e)
		}
		at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		record := func(msg string, at time.Time) {
			must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.RecordStepError(g.ID, msg, at) }))
		}
		record("the board is down", at)
		record("the board refused the login", at.Add(time.Minute))
		want := store.StepError{GameID: g.ID, Error: "the board refused the login", Since: at, Last: at.Add(time.Minute), Failures: 2}
		if e := read(); e == nil || *e != want {
			t.Errorf("after two failures: %+v, want %+v", e, want)
		}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.ClearStepError(g.ID) }))
		if e := read(); e != nil {
			t.Errorf("after clearing: %+v", e)
		}
		record("again", at.Add(time.Hour))
		if e := read(); e == nil || e.Since != at.Add(time.Hour) || e.Failures != 1 {
			t.Errorf("a new run: %+v", e)
		}
	})
}
