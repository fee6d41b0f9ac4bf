package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// StepError is why a game's moderation steps are failing (migration 4): a
// board that refuses the bot, an engine that panics on a message, a database
// that went away. The web desk and `forumgm status` show it; the next step
// that succeeds clears it.
type StepError struct {
	GameID int64 `json:"-"`
	// Error is the last failure as a GM reads it, with no secret in it.
	Error string `json:"error"`
	// Since is when the first of the current run of failed steps happened,
	// Last when the latest did; Failures counts them.
	Since    time.Time `json:"since"`
	Last     time.Time `json:"last"`
	Failures int       `json:"failures"`
}

type stepErrorRow struct {
	GameID   int64  `db:"game_id"`
	Error    string `db:"error"`
	Since    int64  `db:"since"`
	Last     int64  `db:"last"`
	Failures int    `db:"failures"`
}

// StepError is the game's current step error, nil while its steps succeed.
func (tx *Tx) StepError(gameID int64) (*StepError, error) {
	var r stepErrorRow
	err := tx.get(&r, `SELECT game_id, error, since, last, failures FROM step_errors WHERE game_id = ?`, gameID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: step error of game #%d: %w", gameID, err)
	}
	return &StepError{GameID: r.GameID, Error: r.Error, Since: timeOfMicros(r.Since), Last: timeOfMicros(r.Last), Failures: r.Failures}, nil
}

// RecordStepError adds a failed step at at: the first of a run sets Since,
// each one the error, Last and the count.
func (tx *Tx) RecordStepError(gameID int64, msg string, at time.Time) error {
	_, err := tx.exec(`INSERT INTO step_errors (game_id, error, since, last, failures) VALUES (?, ?, ?, ?, 1)
		ON CONFLICT (game_id) DO UPDATE SET error = excluded.error, last = excluded.last, failures = step_errors.failures + 1`,
		gameID, msg, microsOrNow(at), microsOrNow(at))
	if err != nil {
		return fmt.Errorf("store: step error of game #%d: %w", gameID, err)
	}
	return nil
}

// ClearStepError ends a run of failed steps (nothing when there is none).
func (tx *Tx) ClearStepError(gameID int64) error {
	if _, err := tx.exec(`DELETE FROM step_errors WHERE game_id = ?`, gameID); err != nil {
		return fmt.Errorf("store: step error of game #%d: %w", gameID, err)
	}
	return nil
}
