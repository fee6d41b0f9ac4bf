package store

import (
	"database/sql"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
)

// Between deadlines (docs/between-deadlines.md): what the moderator reads
// to prod a silent player and to show each player's activity, and the
// outbox items that lapse when their phase closes (a reminder for a phase
// that has closed must never go out).

// lapse makes pending items lapse, each only while it is still pending
// (a compare-and-set, as a claim is): one a send has claimed meanwhile is
// left alone.
func (tx *Tx) lapse(ids []int64, why string) error {
	for _, id := range ids {
		if _, err := tx.exec(`UPDATE outbox SET state = ?, last_error = ? WHERE id = ? AND state = ?`, OutboxLapsed, why, id, OutboxPending); err != nil {
			return wrap(err)
		}
	}
	return nil
}

// LastHeard is, by author name as the board wrote it, when each author's
// latest post or PM in the game was made (its stamp's earliest time, or
// when the bot first saw it).
func (tx *Tx) LastHeard(gameID int64) (map[string]time.Time, error) {
	var rows []struct {
		Author string `db:"author_name"`
		At     int64  `db:"at"`
	}
	if err := tx.sel(&rows, `SELECT author_name, MAX(COALESCE(posted_at, first_seen)) AS at FROM messages WHERE game_id = ? GROUP BY author_name`, gameID); err != nil {
		return nil, err
	}
	out := make(map[string]time.Time, len(rows))
	for _, r := range rows {
		out[r.Author] = timeOfMicros(r.At)
	}
	return out, nil
}

// MessageTime is when one post or PM was made and by whom, without its body.
type MessageTime struct {
	Kind   forum.MessageKind
	Author string
	Time   time.Time
}

// MessageTimes lists a game's posts and PMs, oldest first, bodies left out.
func (tx *Tx) MessageTimes(gameID int64) ([]MessageTime, error) {
	var rows []struct {
		Kind   forum.MessageKind `db:"kind"`
		Author string            `db:"author_name"`
		At     int64             `db:"at"`
	}
	if err := tx.sel(&rows, `SELECT kind, author_name, COALESCE(posted_at, first_seen) AS at FROM messages WHERE game_id = ? ORDER BY at, id`, gameID); err != nil {
		return nil, err
	}
	out := make([]MessageTime, len(rows))
	for i, r := range rows {
		out[i] = MessageTime{Kind: r.Kind, Author: r.Author, Time: timeOfMicros(r.At)}
	}
	return out, nil
}

// Resolution is one close of a phase, as the journal has it.
type Resolution struct {
	Phase, Title string
	At           time.Time
}

// Resolutions lists a game's phase closes that stand, in order.
func (tx *Tx) Resolutions(gameID int64) ([]Resolution, error) {
	var rows []struct {
		Payload []byte        `db:"payload"`
		At      sql.NullInt64 `db:"at"`
	}
	if err := tx.sel(&rows, `SELECT payload, at FROM journal WHERE game_id = ? AND kind = ? AND NOT voided ORDER BY seq`, gameID, journal.KindResolve); err != nil {
		return nil, err
	}
	out := make([]Resolution, 0, len(rows))
	for _, r := range rows {
		res := Resolution{At: timeOfNull(r.At)}
		if d, err := journal.Decode(journal.KindResolve, r.Payload); err == nil {
			p := d.(journal.Resolve)
			res.Phase, res.Title = p.Phase, p.Title
		}
		out = append(out, res)
	}
	return out, nil
}

// CommandPost is a command with its message's forum id: its post's, for a
// thread command, so a link to the post can be made ("" for none).
type CommandPost struct {
	CommandRow
	ForumID string `json:"forum_id"`
}

// CommandPosts lists a game's commands matching f, by id, each with its
// message's forum id.
func (tx *Tx) CommandPosts(gameID int64, f CommandFilter) ([]CommandPost, error) {
	cmds, err := tx.Commands(gameID, f)
	if err != nil || len(cmds) == 0 {
		return nil, err
	}
	var rows []struct {
		ID      int64  `db:"id"`
		ForumID string `db:"forum_id"`
	}
	if err := tx.sel(&rows, `SELECT id, forum_id FROM messages WHERE game_id = ?`, gameID); err != nil {
		return nil, err
	}
	ids := make(map[int64]string, len(rows))
	for _, r := range rows {
		ids[r.ID] = r.ForumID
	}
	out := make([]CommandPost, len(cmds))
	for i, c := range cmds {
		out[i] = CommandPost{CommandRow: c, ForumID: ids[c.MessageID]}
	}
	return out, nil
}

// PublicEvents lists a game's events of kind said in the thread (to no
// player), in order: what the vote log may show of them.
func (tx *Tx) PublicEvents(gameID int64, kind string) ([]EventRow, error) {
	var rows []struct {
		ID    int64  `db:"id"`
		Phase string `db:"phase"`
		Text  string `db:"text"`
		At    int64  `db:"at"`
	}
	if err := tx.sel(&rows, `SELECT id, phase, text, at FROM events WHERE game_id = ? AND kind = ? AND recipient = '' ORDER BY id`, gameID, kind); err != nil {
		return nil, err
	}
	out := make([]EventRow, len(rows))
	for i, r := range rows {
		out[i] = EventRow{ID: r.ID, GameID: gameID, Phase: r.Phase, Kind: kind, Text: r.Text, At: timeOfMicros(r.At)}
	}
	return out, nil
}
