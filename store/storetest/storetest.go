// Package storetest runs a test body against every database the store
// supports, for the store's own conformance suite and for other packages'
// tests. Packages using it should have
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
//
// so the throwaway PostgreSQL server stops when their tests end.
package storetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
)

// Each runs body in sub-tests "sqlite" (a fresh SQLite file in a temp dir)
// and "postgres" (a fresh PostgreSQL database; skipped when none can be
// had, see pgtest). The DB is closed when the sub-test ends.
func Each(t *testing.T, body func(t *testing.T, db *store.DB)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { body(t, SQLite(t)) })
	t.Run("postgres", func(t *testing.T) { body(t, Postgres(t)) })
}

// SQLite opens a fresh SQLite file store, closed at the end of the test.
func SQLite(t testing.TB) *store.DB {
	t.Helper()
	return open(t, filepath.Join(t.TempDir(), "forumgm.db"))
}

// Postgres opens a store on a fresh PostgreSQL database, closed at the end
// of the test (skips or fails as pgtest.DSN does when there is none).
func Postgres(t testing.TB) *store.DB {
	t.Helper()
	return open(t, pgtest.DSN(t))
}

func open(t testing.TB, dsn string) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("storetest: open %s: %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("storetest: close: %v", err)
		}
	})
	return db
}

// Reopen opens a second handle on db's database (as another process would),
// closed at the end of the test.
func Reopen(t testing.TB, db *store.DB) *store.DB {
	t.Helper()
	return open(t, db.DSN())
}
