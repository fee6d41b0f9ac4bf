package store

import (
	"database/sql"
	"errors"
	"time"

	"github.com/forumgm/forumgm/journal"
)

// Queries the moderator runs on every step, kept cheap however long a game
// grows (they would otherwise read the whole journal or outbox each time).

// lastResolve is when the game's phase was last resolved (a journal entry of
// kind resolve that stands), zero if it never was.
func (tx *Tx) lastResolve(gameID int64) (time.Time, error) {
	var at sql.NullInt64
	err := tx.get(&at, `SELECT at FROM journal WHERE game_id = ? AND kind = ? AND NOT voided ORDER BY seq DESC LIMIT 1`, gameID, journal.KindResolve)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, nil
	}
	return timeOfNull(at), err
}

// lastResolvedPhase is the phase the last resolution closed, as its
// journal entry names it ("" if none, or not named).
func (tx *Tx) lastResolvedPhase(gameID int64) (string, error) {
	var payload []byte
	err := tx.get(&payload, `SELECT payload FROM journal WHERE game_id = ? AND kind = ? AND NOT voided ORDER BY seq DESC LIMIT 1`, gameID, journal.KindResolve)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	d, err := journal.Decode(journal.KindResolve, payload)
	if err != nil {
		return "", nil
	}
	p := d.(journal.Resolve)
	if p.Title != "" {
		return p.Title, nil
	}
	return p.Phase, nil
}

// outboxCount is how many items a game has ever queued.
func (tx *Tx) outboxCount(gameID int64) (int, error) {
	var n int
	err := tx.get(&n, `SELECT COUNT(*) FROM outbox WHERE game_id = ?`, gameID)
	return n, err
}

// Unsent is a game's items still to send (pending, or sending or
// unconfirmed and not yet confirmed), in order: a too-long item's parts in
// its place.
func (tx *Tx) Unsent(gameID int64) ([]OutboxItem, error) {
	var rows []outboxRow
	if err := tx.sel(&rows, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND state IN (?, ?, ?) ORDER BY COALESCE(part_of, id), id`, gameID, OutboxPending, OutboxSending, OutboxUnconfirmed); err != nil {
		return nil, err
	}
	out := make([]OutboxItem, len(rows))
	for i, r := range rows {
		out[i] = r.item()
	}
	return out, nil
}
