package store

import (
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// OutboxItem is a post or PM to send, and what became of it.
type OutboxItem struct {
	ID            int64             `json:"id"`
	GameID        int64             `json:"game_id"`
	Kind          forum.MessageKind `json:"kind"`
	Recipient     string            `json:"recipient"`      // slot id; "" for posts
	RecipientName string            `json:"recipient_name"` // forum name
	RecipientID   string            `json:"recipient_id"`   // forum user id
	Subject       string            `json:"subject"`
	Body          string            `json:"body"`
	Marker        string            `json:"marker"` // unique across the store
	// PartOf is the id of the item this one is a part of (0: none): the
	// board refused that one as too long. Parts go out in its place.
	PartOf int64 `json:"part_of,omitempty"`
	// Class is what it is to the players waiting for it: the order an
	// account's sends go out in across its games (SendClass).
	Class     SendClass   `json:"class"`
	NotBefore time.Time   `json:"not_before"`
	State     OutboxState `json:"state"`
	Attempts  int         `json:"attempts"`
	ForumID   string      `json:"forum_id"` // the post/PM id once sent
	LastError string      `json:"last_error"`
	CreatedAt time.Time   `json:"created_at"`
	SentAt    time.Time   `json:"sent_at"`
}

type outboxRow struct {
	ID            int64             `db:"id"`
	GameID        int64             `db:"game_id"`
	Kind          forum.MessageKind `db:"kind"`
	Recipient     string            `db:"recipient"`
	RecipientName string            `db:"recipient_name"`
	RecipientID   string            `db:"recipient_id"`
	Subject       string            `db:"subject"`
	Body          string            `db:"body"`
	Marker        string            `db:"marker"`
	PartOf        sql.NullInt64     `db:"part_of"`
	Class         SendClass         `db:"class"`
	NotBefore     sql.NullInt64     `db:"not_before"`
	State         string            `db:"state"`
	Attempts      int               `db:"attempts"`
	ForumID       string            `db:"forum_id"`
	LastError     string            `db:"last_error"`
	CreatedAt     int64             `db:"created_at"`
	SentAt        sql.NullInt64     `db:"sent_at"`
}

func (r outboxRow) item() OutboxItem {
	return OutboxItem{ID: r.ID, GameID: r.GameID, Kind: r.Kind, Recipient: r.Recipient,
		RecipientName: r.RecipientName, RecipientID: r.RecipientID, Subject: r.Subject, Body: r.Body,
		Marker: r.Marker, PartOf: r.PartOf.Int64, Class: r.Class, NotBefore: timeOfNull(r.NotBefore), State: OutboxState(r.State), Attempts: r.Attempts,
		ForumID: r.ForumID, LastError: r.LastError, CreatedAt: timeOfMicros(r.CreatedAt), SentAt: timeOfNull(r.SentAt)}
}

const outboxCols = `id, game_id, kind, recipient, recipient_name, recipient_id, subject, body, marker, part_of, class, not_before, state, attempts, forum_id, last_error, created_at, sent_at`

// enqueue adds items in order and sets their IDs (State OutboxPending and
// CreatedAt now when empty). A Marker already in the store is ErrExists;
// the caller's transaction should then be rolled back (items before the
// duplicate were inserted).
func (tx *Tx) enqueue(items []OutboxItem) error {
	now := Now()
	for i := range items {
		it := &items[i]
		if it.Marker == "" {
			return errors.New("outbox item needs a marker")
		}
		if it.State == "" {
			it.State = OutboxPending
		}
		if it.CreatedAt.IsZero() {
			it.CreatedAt = now
		}
		id, ok, err := tx.insertID(`INSERT INTO outbox (game_id, kind, recipient, recipient_name, recipient_id, subject, body, marker, part_of, class, not_before, state, attempts, forum_id, last_error, created_at, sent_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (marker) DO NOTHING RETURNING id`,
			it.GameID, it.Kind, it.Recipient, it.RecipientName, it.RecipientID, it.Subject, it.Body, it.Marker, nullID(it.PartOf), it.Class,
			sqlTime(it.NotBefore), it.State, it.Attempts, it.ForumID, it.LastError, it.CreatedAt.UnixMicro(), sqlTime(it.SentAt))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: outbox marker %q", ErrExists, it.Marker)
		}
		it.ID = id
	}
	return nil
}

// NextOutbox returns the game's next item to send at now: the lowest-id
// item still pending or sending. Items go out strictly in order, so when
// that item is not yet due (NotBefore > now) nothing is returned, even if
// a later one is due. nil, nil when there is nothing to send now.
func (tx *Tx) NextOutbox(gameID int64, now time.Time) (*OutboxItem, error) {
	var r outboxRow
	err := tx.get(&r, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND state IN (?, ?, ?, ?) ORDER BY COALESCE(part_of, id), id LIMIT 1`, gameID, OutboxPending, OutboxSending, OutboxUnconfirmed, OutboxUnknown)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if r.NotBefore.Valid && r.NotBefore.Int64 > now.UnixMicro() {
		return nil, nil
	}
	it := r.item()
	return &it, nil
}

// UpdateOutbox writes it's State, Attempts, ForumID, LastError and SentAt;
// under a fence (WithFence) only while the fence's epoch is the game's
// (ErrLeaseLost otherwise).
func (tx *Tx) UpdateOutbox(it *OutboxItem) error {
	q := `UPDATE outbox SET state = ?, attempts = ?, forum_id = ?, last_error = ?, sent_at = ? WHERE id = ?`
	args := []any{it.State, it.Attempts, it.ForumID, it.LastError, sqlTime(it.SentAt), it.ID}
	if f := tx.fence; f != nil {
		q += ` AND EXISTS (SELECT 1 FROM leases WHERE game_id = outbox.game_id AND owner = ? AND epoch = ?)`
		args = append(args, f.Owner, f.Epoch)
		res, err := tx.exec(q, args...)
		return leaseAffected(res, err, *f)
	}
	res, err := tx.exec(q, args...)
	return mustAffect(res, err, fmt.Sprintf("outbox #%d", it.ID))
}

// OutboxByMarker is a game's outbox item with this marker (nil, nil:
// none).
func (tx *Tx) OutboxByMarker(gameID int64, marker string) (*OutboxItem, error) {
	var r outboxRow
	err := tx.get(&r, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? AND marker = ?`, gameID, marker)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	it := r.item()
	return &it, nil
}

// Outbox lists a game's outbox by id.
func (tx *Tx) Outbox(gameID int64) ([]OutboxItem, error) {
	var rows []outboxRow
	if err := tx.sel(&rows, `SELECT `+outboxCols+` FROM outbox WHERE game_id = ? ORDER BY id`, gameID); err != nil {
		return nil, err
	}
	out := make([]OutboxItem, len(rows))
	for i, r := range rows {
		out[i] = r.item()
	}
	return out, nil
}
