// Package store keeps everything forumgm must remember, through sqlx, over
// an embedded SQLite file (the default, modernc.org/sqlite, pure Go) or
// PostgreSQL (lib/pq). Each has its numbered migration files
// (migrations/sqlite, migrations/postgres; the same steps in each engine's
// SQL), and both run the same conformance suite (store_test.go via
// storetest.Each).
//
// Conventions (see migrations/*/0001_schema.sql): times are stored as UTC
// microseconds since the Unix epoch (values read back are UTC and truncated
// to microseconds; a zero time.Time is NULL and reads back as zero); JSON is
// TEXT.
//
// All access goes through DB.Tx (read-write) or DB.View (read-only), which
// hand the callback a *Tx. On SQLite all writers share one connection and
// begin with BEGIN IMMEDIATE, so concurrent goroutines queue instead of
// failing with SQLITE_BUSY; readers use a separate pool (WAL lets them run
// beside the writer). Do not call Tx or View inside another Tx callback: on
// SQLite the inner call would wait for the single writer connection forever.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

var (
	// ErrNotFound: no such row.
	ErrNotFound = errors.New("not found")
	// ErrExists: a unique key (game name, message identity, outbox marker) is taken.
	ErrExists = errors.New("already exists")
	// ErrSchemaTooNew: the database was written by a newer forumgm.
	ErrSchemaTooNew = errors.New("the database was written by a newer forumgm (its schema is newer than this program knows)")
)

// DB is an open store.
type DB struct {
	driver string
	path   string // SQLite file ("" in memory)
	dsn    string
	w      *sqlx.DB // read-write; on SQLite exactly one connection
	r      *sqlx.DB // read-only; may be w
	// wStmts and rStmts are the prepared statements of w and r.
	wStmts, rStmts *stmtCache
	once           sync.Once
}

// Tx is one transaction. Its methods are the store's API.
type Tx struct {
	tx     *sqlx.Tx
	driver string
	fence  *Fence                // from the context of DB.Tx (WithFence); nil: unfenced
	cache  *stmtCache            // the pool's prepared statements
	stmts  map[string]*sqlx.Stmt // those bound to this transaction
	missed []string              // queries run unprepared, to prepare after it
}

// Open opens (creating if needed) the store named by dsn:
//   - "" → ./forumgm.db; a path, or "sqlite:PATH", or "file:PATH" → a SQLite
//     file (WAL, busy timeout, foreign keys on); ":memory:" (or
//     "sqlite::memory:") → a private in-memory database, for tests;
//   - "postgres://…" or "postgresql://…" → PostgreSQL.
//
// It applies the embedded migrations (migrations/DRIVER/NNNN_name.sql) the
// database has not had yet, in order, recording each in schema_version; it
// refuses (ErrSchemaTooNew) a database whose recorded version is newer.
// A SQLite file and its WAL and SHM files are made owner-only (files.go).
// Its errors never hold the DSN's password (Redact).
func Open(ctx context.Context, dsn string) (*DB, error) {
	db, err := open(ctx, dsn)
	return db, redactErr(err, dsn)
}

func open(ctx context.Context, dsn string) (*DB, error) {
	var db *DB
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		db, err = openPostgres(dsn)
	case looksLikeURL(dsn):
		// Not a file name: a mistyped postgres URL would otherwise become
		// a SQLite file named after it, password and all.
		return nil, fmt.Errorf("store: %s is not a database this program opens: give postgres://… or a SQLite file path", Redact(dsn))
	default:
		db, err = openSQLite(dsn)
	}
	if err != nil {
		return nil, err
	}
	if err := db.migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if db.path != "" {
		// The first write has created -wal and -shm by now.
		if err := tightenFiles(db.path); err != nil {
			db.Close()
			return nil, err
		}
	}
	db.dsn = dsn
	return db, nil
}

// looksLikeURL: a DSN with a scheme other than the SQLite ones, or with
// user:password@ in it.
func looksLikeURL(dsn string) bool {
	for _, p := range []string{"sqlite:", "file:"} {
		if strings.HasPrefix(dsn, p) {
			return false
		}
	}
	if strings.HasPrefix(dsn, "postgres:") || strings.HasPrefix(dsn, "postgresql:") || strings.Contains(dsn, "://") {
		return true
	}
	return Redact(dsn) != dsn
}

func openSQLite(dsn string) (*DB, error) {
	path := dsn
	for _, p := range []string{"sqlite://", "sqlite:", "file:"} {
		if strings.HasPrefix(path, p) {
			path = strings.TrimPrefix(path, p)
			break
		}
	}
	if strings.ContainsRune(path, '?') {
		// The store sets its own pragmas; letting a DSN override them
		// (journal mode, locking) would void the concurrency guarantees.
		return nil, fmt.Errorf("SQLite database paths with parameters are not supported: %q", dsn)
	}
	if path == "" {
		path = "forumgm.db"
	}
	mem := path == ":memory:"
	if !mem {
		if err := createPrivate(path); err != nil {
			return nil, err
		}
	}
	base := "file:" + (&url.URL{Path: path}).EscapedPath()
	if mem {
		base = "file::memory:"
	}
	common := "_pragma=foreign_keys(1)&_pragma=busy_timeout(10000)"
	if !mem {
		// WAL: readers do not block the writer; NORMAL sync is durable
		// across application crashes and cannot corrupt the file.
		common += "&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)"
	}
	w, err := sqlx.Open("sqlite", base+"?"+common+"&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("opening the SQLite database: %w", err)
	}
	// One writer connection: writes queue in database/sql instead of
	// racing for the file lock. (An in-memory database exists per
	// connection, so it must be this one connection for everything.)
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	db := &DB{driver: "sqlite", w: w, r: w}
	if !mem {
		db.path = path
		r, err := sqlx.Open("sqlite", base+"?"+common+"&_pragma=query_only(1)")
		if err != nil {
			w.Close()
			return nil, fmt.Errorf("opening the SQLite database: %w", err)
		}
		r.SetMaxOpenConns(4)
		db.r = r
	}
	return db, nil
}

// Driver is "sqlite" or "postgres".
func (db *DB) Driver() string { return db.driver }

// DSN is what the store was opened with (it may hold a password: never log it).
func (db *DB) DSN() string { return db.dsn }

// Close closes the store.
func (db *DB) Close() error {
	db.wStmts.close()
	db.rStmts.close()
	err := db.w.Close()
	if db.r != db.w {
		if e := db.r.Close(); err == nil {
			err = e
		}
	}
	return err
}

// Tx runs fn in one read-write transaction, committed when fn returns nil
// and rolled back when it returns an error or panics (the panic goes on).
func (db *DB) Tx(ctx context.Context, fn func(*Tx) error) error {
	return run(ctx, db.w, db.statements(db.w), db.driver, nil, fn)
}

// statements is the statement cache of pool x (w or r), made on first use.
func (db *DB) statements(x *sqlx.DB) *stmtCache {
	db.once.Do(func() {
		db.wStmts = newStmtCache(db.w)
		db.rStmts = db.wStmts
		if db.r != db.w {
			db.rStmts = newStmtCache(db.r)
		}
	})
	if x == db.w {
		return db.wStmts
	}
	return db.rStmts
}

// View runs fn in one read-only transaction (a consistent snapshot).
func (db *DB) View(ctx context.Context, fn func(*Tx) error) error {
	var opts *sql.TxOptions
	if db.driver == "postgres" {
		opts = &sql.TxOptions{ReadOnly: true}
	}
	// SQLite files: the reader pool is query_only. In-memory: the one
	// connection (read-only is not enforced there).
	return run(ctx, db.r, db.statements(db.r), db.driver, opts, fn)
}

func run(ctx context.Context, x *sqlx.DB, cache *stmtCache, driver string, opts *sql.TxOptions, fn func(*Tx) error) (err error) {
	stx, err := x.BeginTxx(ctx, opts)
	if err != nil {
		return fmt.Errorf("starting a database transaction: %w", unavailable(err))
	}
	done := false
	tx := &Tx{tx: stx, driver: driver, cache: cache, fence: FenceFrom(ctx)}
	defer func() {
		if !done {
			_ = stx.Rollback()
		}
		if cache != nil && len(tx.missed) > 0 {
			cache.prepare(tx.missed)
		}
	}()
	if err := fn(tx); err != nil {
		return err
	}
	done = true
	if err := stx.Commit(); err != nil {
		return fmt.Errorf("saving to the database: %w", err)
	}
	return nil
}

// SchemaVersion is the schema version recorded in the database.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := db.View(ctx, func(tx *Tx) error {
		var err error
		v, err = tx.schemaVersion()
		return err
	})
	return v, err
}

// Driver is "sqlite" or "postgres".
func (tx *Tx) Driver() string { return tx.driver }

// rebind turns the ?-placeholders every query is written with into the
// driver's own.
func (tx *Tx) rebind(q string) string {
	if tx.driver == "postgres" {
		return sqlx.Rebind(sqlx.DOLLAR, q)
	}
	return q
}

func (tx *Tx) exec(q string, args ...any) (sql.Result, error) {
	q = tx.rebind(q)
	if s := tx.stmt(q); s != nil {
		return s.Exec(args...)
	}
	return tx.tx.Exec(q, args...)
}

func (tx *Tx) get(dest any, q string, args ...any) error {
	q = tx.rebind(q)
	if s := tx.stmt(q); s != nil {
		return s.Get(dest, args...)
	}
	return tx.tx.Get(dest, q, args...)
}

func (tx *Tx) sel(dest any, q string, args ...any) error {
	q = tx.rebind(q)
	if s := tx.stmt(q); s != nil {
		return s.Select(dest, args...)
	}
	return tx.tx.Select(dest, q, args...)
}

// insertID runs an INSERT … RETURNING id. ok is false when ON CONFLICT DO
// NOTHING skipped the row (which, unlike a failed statement, leaves a
// PostgreSQL transaction usable).
func (tx *Tx) insertID(q string, args ...any) (id int64, ok bool, err error) {
	err = tx.get(&id, q, args...)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, wrap(err)
	}
	return id, true, nil
}

// wrap maps unique-constraint violations to ErrExists.
func wrap(err error) error {
	if err == nil {
		return nil
	}
	if isUnique(err) {
		return fmt.Errorf("%w: %v", ErrExists, err)
	}
	return err
}

func isUnique(err error) bool {
	var pe *pq.Error
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}

func notFound(err error, what string) error {
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	return err
}

func mustAffect(res sql.Result, err error, what string) error {
	if err != nil {
		return wrap(err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: %s", ErrNotFound, what)
	}
	return nil
}

// Time and JSON conversions (see the package comment).

// sqlTime is a time as stored: UTC microseconds, NULL for the zero time.
func sqlTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// microsOrNow is t as stored, or now when t is zero.
func microsOrNow(t time.Time) int64 {
	if t.IsZero() {
		t = time.Now()
	}
	return t.UnixMicro()
}

// timeOfNull reads a stored time that may be NULL (the zero time).
func timeOfNull(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.UnixMicro(n.Int64).UTC()
}

// timeOfMicros reads a stored time.
func timeOfMicros(n int64) time.Time { return time.UnixMicro(n).UTC() }

// sqlJSON passes JSON as a string: lib/pq would send a []byte as bytea.
func sqlJSON(b []byte) any {
	if b == nil {
		return nil
	}
	return string(b)
}

// Now is the store's idea of the current time, as stored (UTC, µs).
func Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
