package store

import (
	"database/sql"
	"errors"
	"time"

	"github.com/forumgm/forumgm/journal"
)

// Queries the moderator runs on every step, kept cheap however long a game
// grows (they would otherwise read the whole journal or outbox each time).

// lastResolution is when the last resolution was made and the phase it
// closed, as its journal entry names it (zero and "" if none; "" if not
// named): one query for a step's load.
func (tx *Tx) lastResolution(gameID int64) (time.Time, string, error) {
	var r struct {
		At      sql.NullInt64 `db:"at"`
		Payload []byte        `db:"payload"`
	}
	err := tx.get(&r, `SELECT at, payload FROM journal WHERE game_id = ? AND kind = ? AND NOT voided ORDER BY seq DESC LIMIT 1`, gameID, journal.KindResolve)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, "", nil
	}
	if err != nil {
		return time.Time{}, "", err
	}
	at := timeOfNull(r.At)
	d, err := journal.Decode(journal.KindResolve, r.Payload)
	if err != nil {
		return at, "", nil
	}
	p := d.(journal.Resolve)
	if p.Title != "" {
		return at, p.Title, nil
	}
	return at, p.Phase, nil
}

// outboxCount is how many items a game has ever queued.
func (tx *Tx) outboxCount(gameID int64) (int, error) {
	var n int
	err := tx.get(&n, `SELECT COUNT(*) FROM outbox WHERE game_id = ?`, gameID)
	return n, err
}

// ToConfirm is a game's sent items whose markers are still to be looked
// for (ConfirmLaterNote), by id.
func (tx *Tx) ToConfirm(gameID int64) ([]OutboxItem, error) {
	var rows []outboxRow
	if err := tx.sel(&rows, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND state = 'sent' AND forum_id = '' AND last_error = ? ORDER BY id`, gameID, ConfirmLaterNote); err != nil {
		return nil, err
	}
	out := make([]OutboxItem, len(rows))
	for i, r := range rows {
		out[i] = r.item()
	}
	return out, nil
}

// hasToConfirmQuery has the state and the empty id as literals, the
// partial index outbox_to_confirm's own terms: a planner uses that index
// only where a query's terms imply its.
const hasToConfirmQuery = `SELECT COUNT(*) FROM (SELECT 1 FROM outbox WHERE game_id = ? AND state = 'sent' AND forum_id = '' AND last_error = ? LIMIT 1) t`

// HasToConfirm says whether the game has a sent item whose marker is still
// to be looked for (ToConfirm): its sender has work though nothing is left
// to send.
func (tx *Tx) HasToConfirm(gameID int64) (bool, error) {
	var n int
	err := tx.get(&n, hasToConfirmQuery, gameID, ConfirmLaterNote)
	return n > 0, err
}

// Taken is a game's items the board said it took whose markers were not
// found (OutboxTaken), by id: looked for again now and then, never resent.
func (tx *Tx) Taken(gameID int64) ([]OutboxItem, error) {
	var rows []outboxRow
	if err := tx.sel(&rows, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND state = ? ORDER BY id`, gameID, OutboxTaken); err != nil {
		return nil, err
	}
	out := make([]OutboxItem, len(rows))
	for i, r := range rows {
		out[i] = r.item()
	}
	return out, nil
}

// Unsent is a game's items still to send (pending, or sending or
// unconfirmed and not yet confirmed), in order: a too-long item's parts in
// its place.
func (tx *Tx) Unsent(gameID int64) ([]OutboxItem, error) {
	var rows []outboxRow
	if err := tx.sel(&rows, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND state IN (?, ?, ?, ?) ORDER BY COALESCE(part_of, id), id`, gameID, OutboxPending, OutboxSending, OutboxUnconfirmed, OutboxUnknown); err != nil {
		return nil, err
	}
	out := make([]OutboxItem, len(rows))
	for i, r := range rows {
		out[i] = r.item()
	}
	return out, nil
}
