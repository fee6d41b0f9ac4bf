package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestLockDaemon: a second daemon on the same SQLite file is refused until
// the first lets go; on PostgreSQL several may run (leases share the games).
func TestLockDaemon(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if db.Driver() == "postgres" {
			r1, err := db.LockDaemon(ctx)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := storetest.Reopen(t, db).LockDaemon(ctx)
			if err != nil {
				t.Fatalf("second daemon on PostgreSQL: %v, want allowed", err)
			}
			r1()
			r2()
			return
		}
		release, err := db.LockDaemon(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// A second handle on the same database is a second process's view.
		other := storetest.Reopen(t, db)
		if _, err := other.LockDaemon(ctx); !errors.Is(err, store.ErrLocked) {
			t.Fatalf("second daemon: %v, want ErrLocked", err)
		}
		release()
		r2, err := other.LockDaemon(ctx)
		if err != nil {
			t.Fatalf("after release: %v", err)
		}
		r2()
	})
}
