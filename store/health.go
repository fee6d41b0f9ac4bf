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
}

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
}

// Health is a game's forum health (a zero Health, for the game, when
// nothing has been recorded yet).
func (tx *Tx) Health(gameID int64) (Health, error) {
	var r healthRow
	err := tx.get(&r, `SELECT game_id, last_good_read, last_error, failing_since, failures, last_failure, next_retry, outage_from, outage_to
		FROM forum_health WHERE game_id = ?`, gameID)
	if errors.Is(err, sql.ErrNoRows) {
		return Health{GameID: gameID}, nil
	}
	if err != nil {
		return Health{}, fmt.Errorf("store: forum health of game #%d: %w", gameID, err)
	}
	return Health{GameID: r.GameID, LastGoodRead: timeOfNull(r.LastGoodRead), LastError: r.LastError,
		FailingSince: timeOfNull(r.FailingSince), Failures: r.Failures, LastFailure: timeOfNull(r.LastFailure),
		NextRetry: timeOfNull(r.NextRetry), OutageFrom: timeOfNull(r.OutageFrom), OutageTo: timeOfNull(r.OutageTo)}, nil
}

// SaveHealth writes a game's forum health, all of it.
func (tx *Tx) SaveHealth(h Health) error {
	_, err := tx.exec(`INSERT INTO forum_health (game_id, last_good_read, last_error, failing_since, failures, last_failure, next_retry, outage_from, outage_to)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (game_id) DO UPDATE SET last_good_read = excluded.last_good_read, last_error = excluded.last_error,
			failing_since = excluded.failing_since, failures = excluded.failures, last_failure = excluded.last_failure,
			next_retry = excluded.next_retry, outage_from = excluded.outage_from, outage_to = excluded.outage_to`,
		h.GameID, sqlTime(h.LastGoodRead), h.LastError, sqlTime(h.FailingSince), h.Failures, sqlTime(h.LastFailure),
		sqlTime(h.NextRetry), sqlTime(h.OutageFrom), sqlTime(h.OutageTo))
	if err != nil {
		return fmt.Errorf("store: forum health of game #%d: %w", h.GameID, err)
	}
	return nil
}
