package store

import (
	"context"
	"io/fs"
)

// Hooks for the external tests of the migration runner.

var Statements = statements

// MigrationNames lists driver's embedded migration files in order.
func MigrationNames(driver string) ([]string, error) {
	ms, err := loadMigrations(migrationFiles, driver)
	var names []string
	for _, m := range ms {
		names = append(names, m.name)
	}
	return names, err
}

// MigrateFrom applies the migrations in fsys (migrations/DRIVER/…) instead
// of the embedded ones.
func (db *DB) MigrateFrom(ctx context.Context, fsys fs.FS) error { return db.migrateFrom(ctx, fsys) }

// EmbeddedMigrations are the migrations the program ships.
var EmbeddedMigrations fs.FS = migrationFiles

// LockWaiters counts what is waiting for a lock, for tests that must know a
// transaction is blocked: on SQLite, waits so far for the one writer
// connection (cumulative); on PostgreSQL, sessions on this database
// waiting for a lock now.
func (db *DB) LockWaiters(ctx context.Context) (int64, error) {
	if db.driver == "postgres" {
		var n int64
		err := db.r.GetContext(ctx, &n, `SELECT COUNT(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`)
		return n, err
	}
	return db.w.Stats().WaitCount, nil
}
