package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/gofrs/flock"
)

// ErrLocked: another `forumgm run` is already moderating this SQLite database.
var ErrLocked = errors.New("another forumgm run is already moderating this database")

// LockDaemon makes this process the only daemon on a SQLite file until
// release is called or the process ends (a kill -9 frees it too): an
// exclusive file lock on a file beside the database. With it the daemon may
// take every game's lease at once (Tx.AcquireLease with force). On
// PostgreSQL it does nothing: several daemons may share a database there,
// each game worked by the holder of its fenced lease (lease.go), since a
// lock held on a connection dies with the connection while its daemon may
// still be sending.
func (db *DB) LockDaemon(ctx context.Context) (release func(), err error) {
	switch {
	case db.driver == "postgres":
		return func() {}, nil
	case db.path != "":
		// gofrs/flock: flock(2) on Unix, LockFileEx on Windows, so the
		// store builds and locks on every platform Go targets.
		l := flock.New(db.path+".run-lock", flock.SetPermissions(0o600))
		ok, err := l.TryLock()
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("the one-daemon lock: %w", err)
		}
		if !ok {
			l.Close()
			return nil, ErrLocked
		}
		return func() { l.Close() }, nil // Close unlocks
	default:
		return func() {}, nil // in memory: only this process can see it
	}
}
