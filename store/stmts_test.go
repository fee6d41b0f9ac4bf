package store

import (
	"context"
	"path/filepath"
	"testing"
)

// TestPreparedStatementsReused: a data query run unprepared in one
// transaction is prepared once it ends, and the next transactions run it
// prepared with the same results; schema statements never are.
func TestPreparedStatementsReused(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &Game{Name: "g", Kind: "nations", Status: "running"}
	if err := db.Tx(ctx, func(tx *Tx) error { return tx.CreateGame(g) }); err != nil {
		t.Fatal(err)
	}
	q := `SELECT page, pages FROM thread_progress WHERE game_id = ?`
	for i := 1; i <= 3; i++ {
		err := db.Tx(ctx, func(tx *Tx) error {
			if err := tx.SetThreadProgress(g.ID, ThreadProgress{Page: i, Pages: 3}); err != nil {
				return err
			}
			p, ok, err := tx.ThreadProgressOf(g.ID)
			if err != nil || !ok || p.Page != i {
				t.Errorf("transaction %d read %+v, %v, %v", i, p, ok, err)
			}
			if _, bound := tx.stmts[q]; bound != (i > 1) {
				t.Errorf("transaction %d: query prepared = %v", i, bound)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, ddl := range []string{"CREATE TABLE x (a INT)", "ALTER TABLE games ADD COLUMN y INT", "SELECT 1; SELECT 2", "INSERT INTO schema_version VALUES (1, 2)"} {
		if cacheable(ddl) {
			t.Errorf("%q would be prepared", ddl)
		}
	}
}
