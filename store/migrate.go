package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm"
)

// migrationFiles are the schema's history, one numbered file per step and
// one set per engine (migrations/sqlite, migrations/postgres): the SQL in a
// file is exactly what runs on that engine. Both sets have the same numbers
// and names (TestMigrationSetsAgree).
//
//go:embed migrations
var migrationFiles embed.FS

// migration is one numbered step: NNNN_name.sql.
type migration struct {
	version int
	name    string // the file name
	sql     string
}

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

// loadMigrations reads driver's migrations from fsys (migrations/DRIVER/),
// in order; they must be numbered 1, 2, … without gaps, so a file can be
// neither skipped nor applied twice under two names.
func loadMigrations(fsys fs.FS, driver string) ([]migration, error) {
	dir := path.Join("migrations", driver)
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("migrations for %s: %w", driver, err)
	}
	var out []migration
	for _, e := range entries {
		m := migrationName.FindStringSubmatch(e.Name())
		if e.IsDir() || m == nil {
			return nil, fmt.Errorf("%s/%s is not a migration (want NNNN_name.sql)", dir, e.Name())
		}
		v, _ := strconv.Atoi(m[1])
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].version < out[j].version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("%s: migration %s out of sequence (want number %d)", dir, m.name, i+1)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no migrations in %s", dir)
	}
	return out, nil
}

// CurrentSchemaVersion is the schema version this program writes: the
// number of its last migration.
func CurrentSchemaVersion() int {
	ms, err := loadMigrations(migrationFiles, "sqlite")
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	return len(ms)
}

// statements splits a migration into statements: "--" comments stripped,
// then split on ";".
func statements(sql string) []string {
	var b strings.Builder
	for _, line := range strings.Split(sql, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	var out []string
	for _, s := range strings.Split(b.String(), ";") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// migrate brings the database to this program's schema.
func (db *DB) migrate(ctx context.Context) error { return db.migrateFrom(ctx, migrationFiles) }

// migrateFrom applies, in one transaction, every migration in fsys newer
// than the version the database records (all of them to an empty
// database), recording each; it refuses a database newer than the last.
func (db *DB) migrateFrom(ctx context.Context, fsys fs.FS) error {
	ms, err := loadMigrations(fsys, db.driver)
	if err != nil {
		return err
	}
	return db.Tx(ctx, func(tx *Tx) error {
		if tx.driver == "postgres" {
			// Two programs opening one database must not both migrate
			// it. (SQLite: BEGIN IMMEDIATE already serialises.)
			if _, err := tx.exec(`SELECT pg_advisory_xact_lock(4242001)`); err != nil {
				return fmt.Errorf("lock for migration: %w", err)
			}
		}
		have := 0
		exists, err := tx.hasVersionTable()
		if err != nil {
			return err
		}
		if exists {
			if have, err = tx.schemaVersion(); err != nil {
				return err
			}
		}
		if have > len(ms) {
			return fmt.Errorf("%w: database has version %d, this forumgm (%s) knows up to %d", ErrSchemaTooNew, have, forumgm.Version, len(ms))
		}
		for _, m := range ms[have:] {
			for _, s := range statements(m.sql) {
				if _, err := tx.exec(s); err != nil {
					return fmt.Errorf("migration %s/%s: %w\n%s", tx.driver, m.name, err, s)
				}
			}
			if _, err := tx.exec(`INSERT INTO schema_version (version, applied_at) VALUES (?, ?)`, m.version, time.Now().UnixMicro()); err != nil {
				return fmt.Errorf("record migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}

func (tx *Tx) hasVersionTable() (bool, error) {
	q := `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'`
	if tx.driver == "postgres" {
		q = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_version'`
	}
	var n int
	if err := tx.get(&n, q); err != nil {
		return false, fmt.Errorf("look for schema_version: %w", err)
	}
	return n > 0, nil
}

func (tx *Tx) schemaVersion() (int, error) {
	var v *int
	if err := tx.get(&v, `SELECT MAX(version) FROM schema_version`); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if v == nil {
		return 0, fmt.Errorf("schema_version is empty")
	}
	return *v, nil
}
