package store

import (
	"context"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
)

// Hooks for the external tests of the migration runner.

var Statements = statements

// HasToConfirmQuery is HasToConfirm's query, for its plan.
const HasToConfirmQuery = hasToConfirmQuery

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

// The writes only Save makes (Changes), each on its own, for the store's
// tests of them: no other package can call them.

func (tx *Tx) LockGame(id int64) (*Game, error) { return tx.lockGame(id) }
func (tx *Tx) LastResolve(gameID int64) (time.Time, error) {
	at, _, err := tx.lastResolution(gameID)
	return at, err
}
func (tx *Tx) OutboxCount(gameID int64) (int, error) { return tx.outboxCount(gameID) }
func (tx *Tx) AddCommand(c *CommandRow) error        { return tx.addCommand(c) }
func (tx *Tx) AppendJournal(e *journal.Entry) error  { return tx.appendJournal(e) }
func (tx *Tx) VoidJournalForCommand(commandID int64) error {
	return tx.voidJournalForCommand(commandID)
}
func (tx *Tx) SetMessageStatus(id int64, status MessageStatus) error {
	return tx.setMessageStatus(id, status)
}
func (tx *Tx) SetPlayers(gameID int64, ps []Player) error { return tx.setPlayers(gameID, ps) }
func (tx *Tx) SaveGame(g *Game) error                     { return tx.saveGame(g) }
func (tx *Tx) Enqueue(items []OutboxItem) error           { return tx.enqueue(items) }
func (tx *Tx) SetMessageLimit(id int64, max int) error    { return tx.setMessageLimit(id, max) }
func (tx *Tx) SetGameSettings(id int64, config, forum []byte) error {
	return tx.setGameSettings(id, config, forum)
}
func (tx *Tx) SetThreadProgress(gameID int64, p ThreadProgress) error {
	return tx.setThreadProgress(gameID, p)
}
func (tx *Tx) SetCommandStatus(id int64, status CommandStatus, reason string) error {
	return tx.setCommandStatus(id, status, reason)
}
func (tx *Tx) MarkDeleted(gameID int64, kind forum.MessageKind, forumID string, seen time.Time) error {
	return tx.markDeleted(gameID, kind, forumID, seen)
}

// Plan is the database's plan for q: SQLite's EXPLAIN QUERY PLAN, or
// PostgreSQL's EXPLAIN with sequential scans priced out (a test's tables
// are small enough for a scan to win otherwise; priced out, an index the
// query can use is used).
func (tx *Tx) Plan(q string, args ...any) (string, error) {
	q = tx.rebind(q)
	explain := "EXPLAIN QUERY PLAN "
	if tx.driver == "postgres" {
		if _, err := tx.tx.Exec("SET LOCAL enable_seqscan = off"); err != nil {
			return "", err
		}
		explain = "EXPLAIN "
	}
	rows, err := tx.tx.Queryx(explain+q, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		cols, err := rows.SliceScan()
		if err != nil {
			return "", err
		}
		out = append(out, fmt.Sprint(cols[len(cols)-1]))
	}
	return strings.Join(out, "\n"), rows.Err()
}
