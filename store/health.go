package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Health is how a game's forum reads are going (migration 5): what
// `forumgm status` and the web desk show, and the outage the moderator has
// still to act on. Zero times mean "none".
type Health struct {
	GameID int64 `json:"-"`
	// LastGoodRead is when the last read that succeeded began.
	LastGoodRead time.Time `json:"last_good_read"`
	// LastError is what the last failed read met, as a GM reads it (the
	// moderator writes it with secrets cut out); "" while reads succeed.
	LastError string `json:"last_error"`
	// FailingSince is when the first of the current run of failed reads
	// began; Failures counts them; LastFailure is when the latest began.
	FailingSince time.Time `json:"failing_since"`
	Failures     int       `json:"failures"`
	LastFailure  time.Time `json:"last_failure"`
	// NextRetry is when the bot means to read again after a failure.
	NextRetry time.Time `json:"next_retry"`
	// OutageFrom and OutageTo are an outage (reads failing for longer than
	// a poll or two) the game has not acted on yet: its deadline is not yet
	// extended.
	OutageFrom time.Time `json:"outage_from"`
	OutageTo   time.Time `json:"outage_to"`
	// InboxError is what the last read of the PM inbox met when the
	// thread read and the inbox did not, as a GM reads it, naming the
	// page ("" while the inbox reads); InboxFailingSince is when the
	// first of that run of failed inbox reads began, InboxFailures how
	// many. The thread's health above is a good read meanwhile.
	InboxError        string    `json:"inbox_error,omitempty"`
	InboxFailingSince time.Time `json:"inbox_failing_since,omitzero"`
	InboxFailures     int       `json:"inbox_failures,omitempty"`
}

// InboxFailing says whether the PM inbox fails to read now (the thread
// reading).
func (h Health) InboxFailing() bool { return !h.InboxFailingSince.IsZero() }

// Failing says whether reads are failing now.
func (h Health) Failing() bool { return !h.FailingSince.IsZero() }

// Outage says whether an outage waits to be acted on.
func (h Health) Outage() bool { return !h.OutageFrom.IsZero() && h.OutageTo.After(h.OutageFrom) }

type healthRow struct {
	GameID       int64         `db:"game_id"`
	LastGoodRead sql.NullInt64 `db:"last_good_read"`
	LastError    string        `db:"last_error"`
	FailingSince sql.NullInt64 `db:"failing_since"`
	Failures     int           `db:"failures"`
	LastFailure  sql.NullInt64 `db:"last_failure"`
	NextRetry    sql.NullInt64 `db:"next_retry"`
	OutageFrom   sql.NullInt64 `db:"outage_from"`
	OutageTo     sql.NullInt64 `db:"outage_to"`
	InboxError   string        `db:"inbox_error"`
	InboxSince   sql.NullInt64 `db:"inbox_failing_since"`
	InboxFails   int           `db:"inbox_failures"`
}

// Health is a game's forum health (a zero Health, for the game, when
// nothing has been recorded yet).
func (tx *Tx) Health(gameID int64) (Health, error) {
	var r healthRow
	err := tx.get(&r, `SELECT game_id, last_good_read, last_error, failing_since, failures, last_failure, next_retry, outage_from, outage_to,
		inbox_error, inbox_failing_since, inbox_failures
		FROM forum_health WHERE game_id = ?`, gameID)
	if errors.Is(err, sql.ErrNoRows) {
		return Health{GameID: gameID}, nil
	}
	if err != nil {
		return Health{}, fmt.Errorf("store: forum health of game #%d: %w", gameID, err)
	}
	return Health{GameID: r.GameID, LastGoodRead: timeOfNull(r.LastGoodRead), LastError: r.LastError,
		FailingSince: timeOfNull(r.FailingSince), Failures: r.Failures, LastFailure: timeOfNull(r.LastFailure),
		NextRetry: timeOfNull(r.NextRetry), OutageFrom: timeOfNull(r.OutageFrom), OutageTo: timeOfNull(r.OutageTo),
		InboxError: r.InboxError, InboxFailingSince: timeOfNull(r.InboxSince), InboxFailures: r.InboxFails}, nil
}

// SaveHealth writes a game's forum health, all of it.
func (tx *Tx) SaveHealth(h Health) error {
	_, err := tx.exec(`INSERT INTO forum_health (game_id, last_good_read, last_error, failing_since, failures, last_failure, next_retry, outage_from, outage_to,
			inbox_error, inbox_failing_since, inbox_failures)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (game_id) DO UPDATE SET last_good_read = excluded.last_good_read, last_error = excluded.last_error,
			failing_since = excluded.failing_since, failures = excluded.failures, last_failure = excluded.last_failure,
			next_retry = excluded.next_retry, outage_from = excluded.outage_from, outage_to = excluded.outage_to,
			inbox_error = excluded.inbox_error, inbox_failing_since = excluded.inbox_failing_since, inbox_failures = excluded.inbox_failures`,
		h.GameID, sqlTime(h.LastGoodRead), h.LastError, sqlTime(h.FailingSince), h.Failures, sqlTime(h.LastFailure),
		sqlTime(h.NextRetry), sqlTime(h.OutageFrom), sqlTime(h.OutageTo), h.InboxError, sqlTime(h.InboxFailingSince), h.InboxFailures)
	if err != nil {
		return fmt.Errorf("store: forum health of game #%d: %w", h.GameID, err)
	}
	return nil
}
