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
