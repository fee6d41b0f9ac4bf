package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// Message is one post or PM as the store knows it.
type Message struct {
	ID         int64             `json:"id"`
	GameID     int64             `json:"game_id"`
	Kind       forum.MessageKind `json:"kind"`
	ForumID    string            `json:"forum_id"`
	AuthorName string            `json:"author_name"`
	AuthorID   string            `json:"author_id"`
	Time       time.Time         `json:"time"` // the forum's timestamp: Stamp.Earliest
	// Stamp is the interval the board's time stamp allows, narrowed by what
	// the bot saw (set by the caller before RecordMessage; kept as first
	// recorded). An unreadable time has Stamp.Err set.
	Stamp        forum.Stamp   `json:"stamp"`
	BodyHTML     string        `json:"body_html"`  // the current body
	Hash         string        `json:"hash"`       // of the current body (the caller's choice of hash)
	FirstSeen    time.Time     `json:"first_seen"` // for RecordMessage: when this observation was made
	Status       MessageStatus `json:"status"`
	Deleted      bool          `json:"deleted"`
	DeletedSeen  time.Time     `json:"deleted_seen"`
	Edits        int           `json:"edits"`
	LastEditSeen time.Time     `json:"last_edit_seen"`
	// Commands are what the bot read as commands from BodyHTML when it
	// read the page (parser.BodyReader's Segments of a post, Lines of a
	// PM), when CommandsRead: applying the message then need not parse
	// the body again. A row without them (recorded before they were
	// kept, or text appended to a merged post) is read when applied.
	Commands     []string `json:"commands,omitempty"`
	CommandsRead bool     `json:"commands_read,omitempty"`
}

// MessageVersion is an earlier body of an edited message; Seen is when that
// version was first seen.
type MessageVersion struct {
	MessageID int64
	BodyHTML  string
	Hash      string
	Seen      time.Time
}

// Change is what RecordMessage found.
type Change int

const (
	Unchanged Change = iota
	New
	Edited
)

func (c Change) String() string {
	switch c {
	case Unchanged:
		return "unchanged"
	case New:
		return "new"
	case Edited:
		return "edited"
	}
	return "change(" + strconv.Itoa(int(c)) + ")"
}

type messageRow struct {
	ID           int64             `db:"id"`
	GameID       int64             `db:"game_id"`
	Kind         forum.MessageKind `db:"kind"`
	ForumID      string            `db:"forum_id"`
	AuthorName   string            `db:"author_name"`
	AuthorID     string            `db:"author_id"`
	Time         sql.NullInt64     `db:"posted_at"`
	BodyHTML     string            `db:"body_html"`
	Hash         string            `db:"hash"`
	FirstSeen    int64             `db:"first_seen"`
	Status       string            `db:"status"`
	Deleted      bool              `db:"deleted"`
	DeletedSeen  sql.NullInt64     `db:"deleted_seen"`
	Edits        int               `db:"edits"`
	LastEditSeen sql.NullInt64     `db:"last_edit_seen"`
	StampFrom    sql.NullInt64     `db:"stamp_earliest"`
	StampTo      sql.NullInt64     `db:"stamp_latest"`
	StampPrec    string            `db:"stamp_precision"`
	StampText    string            `db:"stamp_text"`
	StampErr     string            `db:"stamp_error"`
	Commands     sql.NullString    `db:"commands"`
}

// stamp reads the stored stamp. A row from before stamps were kept (no
// precision) had its posted_at taken as exact.
func (r messageRow) stamp() forum.Stamp {
	if r.StampPrec == "" {
		if !r.Time.Valid {
			return forum.Stamp{}
		}
		return forum.ExactStamp(timeOfNull(r.Time), "")
	}
	var p forum.Precision
	if err := p.UnmarshalText([]byte(r.StampPrec)); err != nil {
		return forum.Stamp{Text: r.StampText, Err: "stored precision: " + err.Error()}
	}
	return forum.Stamp{Earliest: timeOfNull(r.StampFrom), Latest: timeOfNull(r.StampTo), Precision: p, Text: r.StampText, Err: r.StampErr}
}

func (r messageRow) message() Message {
	m := Message{
		ID: r.ID, GameID: r.GameID, Kind: r.Kind, ForumID: r.ForumID,
		AuthorName: r.AuthorName, AuthorID: r.AuthorID, Time: timeOfNull(r.Time),
		BodyHTML: r.BodyHTML, Hash: r.Hash, FirstSeen: timeOfMicros(r.FirstSeen), Status: MessageStatus(r.Status),
		Deleted: r.Deleted, DeletedSeen: timeOfNull(r.DeletedSeen), Edits: r.Edits, LastEditSeen: timeOfNull(r.LastEditSeen),
		Stamp: r.stamp(),
	}
	if r.Commands.Valid {
		// A row that does not decode is read again from its body.
		m.CommandsRead = json.Unmarshal([]byte(r.Commands.String), &m.Commands) == nil
	}
	return m
}

// sqlCommands is how a message's commands are stored: NULL when not read.
func sqlCommands(m *Message) any {
	if !m.CommandsRead {
		return nil
	}
	cmds := m.Commands
	if cmds == nil {
		cmds = []string{}
	}
	b, _ := json.Marshal(cmds)
	return string(b)
}

const messageCols = `id, game_id, kind, forum_id, author_name, author_id, posted_at, body_html, hash, first_seen, status, deleted, deleted_seen, edits, last_edit_seen,
	stamp_earliest, stamp_latest, stamp_precision, stamp_text, stamp_error, commands`

// forumOrder is the order of MessagesByStatus and Messages.
// NULLS FIRST: the engines disagree on where NULL sorts by default.
const forumOrder = ` ORDER BY posted_at NULLS FIRST, sort_key, id`

// SortKey is the numeric value of a forum id: the run of digits at its end
// ("12345", "p12345" and "post-12345" all give 12345); 0 when there is none
// (or it does not fit in 63 bits).
func SortKey(forumID string) int64 {
	i := len(forumID)
	for i > 0 && forumID[i-1] >= '0' && forumID[i-1] <= '9' {
		i--
	}
	n, err := strconv.ParseInt(forumID[i:], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// RecordMessage records one observation of a post or PM, identified by
// (GameID, Kind, ForumID):
//   - unknown: inserted with Status MessageNew → New;
//   - same Hash as stored → Unchanged;
//   - different Hash: the stored body and hash go to message_versions (with
//     the time that version was first seen), the new ones replace them,
//     Edits+1 and LastEditSeen = m.FirstSeen → Edited, and the commands
//     read from the new body replace the old ones (none: NULL, the body
//     is read when applied). The stored Status is kept: the moderator
//     decides what an edit means.
//
// m.FirstSeen is the time of this observation (now when zero). A message
// seen again after MarkDeleted is no longer Deleted (DeletedSeen stays as a
// record). m is filled from the stored row: ID, Status, FirstSeen, Edits,
// LastEditSeen, Deleted, DeletedSeen (and Time/author stay the first seen).
func (tx *Tx) RecordMessage(m *Message) (Change, error) {
	seen := microsOrNow(m.FirstSeen)
	var r messageRow
	err := tx.get(&r, `SELECT `+messageCols+` FROM messages WHERE game_id = ? AND kind = ? AND forum_id = ?`, m.GameID, m.Kind, m.ForumID)
	switch {
	case err == sql.ErrNoRows:
		st := m.Stamp
		if st.Precision == forum.PrecisionUnknown && st.Err == "" && !m.Time.IsZero() {
			st = forum.ExactStamp(m.Time, "") // a caller that gave only a time
		}
		st.Earliest, st.Latest = st.Earliest.UTC().Truncate(time.Microsecond), st.Latest.UTC().Truncate(time.Microsecond)
		if st.Known() {
			m.Time = st.Earliest
		}
		id, ok, err := tx.insertID(`INSERT INTO messages (game_id, kind, forum_id, sort_key, author_name, author_id, posted_at, body_html, hash, first_seen, status,
				stamp_earliest, stamp_latest, stamp_precision, stamp_text, stamp_error, commands)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (game_id, kind, forum_id) DO NOTHING RETURNING id`,
			m.GameID, m.Kind, m.ForumID, SortKey(m.ForumID), m.AuthorName, m.AuthorID, sqlTime(m.Time), m.BodyHTML, m.Hash, seen, MessageNew,
			sqlTime(st.Earliest), sqlTime(st.Latest), st.Precision.String(), st.Text, st.Err, sqlCommands(m))
		if err != nil {
			return 0, err
		}
		if !ok {
			// Another transaction recorded it first (PostgreSQL):
			// treat this as a second observation.
			return tx.RecordMessage(m)
		}
		*m = Message{ID: id, GameID: m.GameID, Kind: m.Kind, ForumID: m.ForumID,
			AuthorName: m.AuthorName, AuthorID: m.AuthorID, Time: m.Time.UTC().Truncate(time.Microsecond),
			BodyHTML: m.BodyHTML, Hash: m.Hash, FirstSeen: timeOfMicros(seen), Status: MessageNew, Stamp: st,
			Commands: m.Commands, CommandsRead: m.CommandsRead}
		return New, nil
	case err != nil:
		return 0, err
	}
	change := Unchanged
	if r.Hash != m.Hash {
		from := r.FirstSeen
		if r.LastEditSeen.Valid {
			from = r.LastEditSeen.Int64
		}
		if _, err := tx.exec(`INSERT INTO message_versions (message_id, body_html, hash, seen) VALUES (?, ?, ?, ?)`,
			r.ID, r.BodyHTML, r.Hash, from); err != nil {
			return 0, err
		}
		cmds := sqlCommands(m)
		if _, err := tx.exec(`UPDATE messages SET body_html = ?, hash = ?, edits = edits + 1, last_edit_seen = ?, deleted = ?, commands = ? WHERE id = ?`,
			m.BodyHTML, m.Hash, seen, false, cmds, r.ID); err != nil {
			return 0, err
		}
		r.BodyHTML, r.Hash, r.Edits, r.LastEditSeen, r.Deleted = m.BodyHTML, m.Hash, r.Edits+1, sql.NullInt64{Int64: seen, Valid: true}, false
		r.Commands = sql.NullString{}
		if s, ok := cmds.(string); ok {
			r.Commands = sql.NullString{String: s, Valid: true}
		}
		change = Edited
	} else if r.Deleted {
		if _, err := tx.exec(`UPDATE messages SET deleted = ? WHERE id = ?`, false, r.ID); err != nil {
			return 0, err
		}
		r.Deleted = false
	}
	*m = r.message()
	return change, nil
}

// MessageByForumID finds a message by its forum id (ErrNotFound if unknown).
func (tx *Tx) MessageByForumID(gameID int64, kind forum.MessageKind, forumID string) (*Message, error) {
	var r messageRow
	if err := tx.get(&r, `SELECT `+messageCols+` FROM messages WHERE game_id = ? AND kind = ? AND forum_id = ?`, gameID, kind, forumID); err != nil {
		return nil, notFound(err, fmt.Sprintf("%s %s", kind, forumID))
	}
	m := r.message()
	return &m, nil
}

// LastMessageBefore is the stored message of kind with the largest numeric
// id (SortKey) below forumID's, nil if none: the post made just before it
// in a thread, whose stamp bounds its own.
func (tx *Tx) LastMessageBefore(gameID int64, kind forum.MessageKind, forumID string) (*Message, error) {
	var rows []messageRow
	if err := tx.sel(&rows, `SELECT `+messageCols+` FROM messages WHERE game_id = ? AND kind = ? AND sort_key < ? ORDER BY sort_key DESC, id DESC LIMIT 1`,
		gameID, kind, SortKey(forumID)); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	m := rows[0].message()
	return &m, nil
}

// Message finds a message by id.
func (tx *Tx) Message(id int64) (*Message, error) {
	var r messageRow
	if err := tx.get(&r, `SELECT `+messageCols+` FROM messages WHERE id = ?`, id); err != nil {
		return nil, notFound(err, fmt.Sprintf("message #%d", id))
	}
	m := r.message()
	return &m, nil
}

func (tx *Tx) messages(q string, args ...any) ([]Message, error) {
	var rows []messageRow
	if err := tx.sel(&rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]Message, len(rows))
	for i, r := range rows {
		out[i] = r.message()
	}
	return out, nil
}

// MessagesByStatus lists a game's messages (posts and PMs) with a status,
// in forum order: Time, then numeric ForumID, then ID.
func (tx *Tx) MessagesByStatus(gameID int64, status MessageStatus) ([]Message, error) {
	return tx.messages(`SELECT `+messageCols+` FROM messages WHERE game_id = ? AND status = ?`+forumOrder, gameID, status)
}

// PostsSeenSince lists a game's posts the bot first saw at or after since,
// in forum order: what a recent send may be among, without loading the
// whole thread.
func (tx *Tx) PostsSeenSince(gameID int64, since time.Time) ([]Message, error) {
	return tx.messages(`SELECT `+messageCols+` FROM messages WHERE game_id = ? AND kind = ? AND first_seen >= ?`+forumOrder, gameID, forum.KindPost, since.UnixMicro())
}

// Messages lists all of a game's messages in forum order.
func (tx *Tx) Messages(gameID int64) ([]Message, error) {
	return tx.messages(`SELECT `+messageCols+` FROM messages WHERE game_id = ?`+forumOrder, gameID)
}

// setMessageStatus sets a message's status.
func (tx *Tx) setMessageStatus(id int64, status MessageStatus) error {
	res, err := tx.exec(`UPDATE messages SET status = ? WHERE id = ?`, status, id)
	return mustAffect(res, err, fmt.Sprintf("message #%d", id))
}

// markDeleted records that a message is gone from the forum, first noticed
// at seen (a later call keeps the first time). ErrNotFound if unknown.
func (tx *Tx) markDeleted(gameID int64, kind forum.MessageKind, forumID string, seen time.Time) error {
	res, err := tx.exec(`UPDATE messages SET deleted = ?, deleted_seen = CASE WHEN deleted THEN deleted_seen ELSE ? END
		WHERE game_id = ? AND kind = ? AND forum_id = ?`, true, microsOrNow(seen), gameID, kind, forumID)
	return mustAffect(res, err, fmt.Sprintf("%s %s", kind, forumID))
}

// PostIDsBetween lists the forum ids of a game's stored, not deleted posts
// whose numeric id (SortKey) is within [lo, hi], in that order. The
// scraper compares it with a page's ids to notice deletions.
func (tx *Tx) PostIDsBetween(gameID int64, lo, hi string) ([]string, error) {
	var ids []string
	err := tx.sel(&ids, `SELECT forum_id FROM messages WHERE game_id = ? AND kind = ? AND deleted = ? AND sort_key BETWEEN ? AND ? ORDER BY sort_key, id`,
		gameID, forum.KindPost, false, SortKey(lo), SortKey(hi))
	return ids, err
}

// Versions lists the earlier bodies of a message, oldest first.
func (tx *Tx) Versions(messageID int64) ([]MessageVersion, error) {
	var rows []struct {
		MessageID int64  `db:"message_id"`
		BodyHTML  string `db:"body_html"`
		Hash      string `db:"hash"`
		Seen      int64  `db:"seen"`
	}
	if err := tx.sel(&rows, `SELECT message_id, body_html, hash, seen FROM message_versions WHERE message_id = ? ORDER BY id`, messageID); err != nil {
		return nil, err
	}
	out := make([]MessageVersion, len(rows))
	for i, r := range rows {
		out[i] = MessageVersion{MessageID: r.MessageID, BodyHTML: r.BodyHTML, Hash: r.Hash, Seen: timeOfMicros(r.Seen)}
	}
	return out, nil
}
