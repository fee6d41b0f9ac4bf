package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/gofrs/flock"
)

// ErrLocked: another `forumgm run` is already moderating this database.
var ErrLocked = errors.New("another forumgm run is already moderating this database")

// daemonLockKey is the PostgreSQL advisory lock key ("forumgm").
const daemonLockKey = 0x666f72756d676d

// LockDaemon makes this process the only daemon on the database until
// release is called or the process ends (a kill -9 frees it too): two
// daemons would both read and send, and the players would get everything
// twice. SQLite: an exclusive file lock on a file beside the database;
// PostgreSQL: a session advisory lock held on its own connection.
func (db *DB) LockDaemon(ctx context.Context) (release func(), err error) {
	switch {
	case db.driver == "postgres":
		conn, err := db.w.Conn(ctx)
		if err != nil {
			return nil, err
		}
		var ok bool
		if err := conn.QueryRowContext(ctx, `SELECT pg_try_advisory_lock($1)`, int64(daemonLockKey)).Scan(&ok); err != nil {
			conn.Close()
			return nil, err
		}
		if !ok {
			conn.Close()
			return nil, ErrLocked
		}
		return func() {
			conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock($1)`, int64(daemonLockKey))
			conn.Close()
		}, nil
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
