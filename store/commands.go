package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/journal"
)

// CommandRow is one audited segment: a command and what became of it.
type CommandRow struct {
	ID        int64         `json:"id"`
	GameID    int64         `json:"game_id"`
	MessageID int64         `json:"message_id"` // 0 = from the GM
	Seq       int           `json:"seq"`        // segment index in the message
	Phase     string        `json:"phase"`
	Player    string        `json:"player"`
	Channel   string        `json:"channel"`
	Text      string        `json:"text"`
	Kind      string        `json:"kind"`
	Args      []string      `json:"args"`
	Status    CommandStatus `json:"status"`
	Reason    string        `json:"reason"`
	Time      time.Time     `json:"time"` // the command's (forum) time
	CreatedAt time.Time     `json:"created_at"`
}

// CommandFilter selects commands; zero fields match anything.
type CommandFilter struct {
	Player    string
	Phase     string
	MessageID int64
	Status    CommandStatus
}

type commandRow struct {
	ID        int64         `db:"id"`
	GameID    int64         `db:"game_id"`
	MessageID sql.NullInt64 `db:"message_id"`
	Seq       int           `db:"seq"`
	Phase     string        `db:"phase"`
	Player    string        `db:"player"`
	Channel   string        `db:"channel"`
	Text      string        `db:"text"`
	Kind      string        `db:"kind"`
	Args      string        `db:"args"`
	Status    string        `db:"status"`
	Reason    string        `db:"reason"`
	Time      sql.NullInt64 `db:"cmd_time"`
	CreatedAt int64         `db:"created_at"`
}

func (r commandRow) command() (CommandRow, error) {
	c := CommandRow{ID: r.ID, GameID: r.GameID, MessageID: r.MessageID.Int64, Seq: r.Seq, Phase: r.Phase,
		Player: r.Player, Channel: r.Channel, Text: r.Text, Kind: r.Kind, Status: CommandStatus(r.Status), Reason: r.Reason,
		Time: timeOfNull(r.Time), CreatedAt: timeOfMicros(r.CreatedAt)}
	if err := json.Unmarshal([]byte(r.Args), &c.Args); err != nil {
		return c, fmt.Errorf("args of command #%d: %w", r.ID, err)
	}
	if len(c.Args) == 0 {
		c.Args = nil
	}
	return c, nil
}

const commandCols = `id, game_id, message_id, seq, phase, player, channel, text, kind, args, status, reason, cmd_time, created_at`

func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// addCommand inserts c and sets c.ID (and CreatedAt when zero).
func (tx *Tx) addCommand(c *CommandRow) error {
	args := c.Args
	if args == nil {
		args = []string{}
	}
	aj, err := json.Marshal(args)
	if err != nil {
		return err
	}
	if c.CreatedAt.IsZero() {
		c.CreatedAt = Now()
	}
	id, _, err := tx.insertID(`INSERT INTO commands (game_id, message_id, seq, phase, player, channel, text, kind, args, status, reason, cmd_time, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
		c.GameID, nullID(c.MessageID), c.Seq, c.Phase, c.Player, c.Channel, c.Text, c.Kind, string(aj), c.Status, c.Reason, sqlTime(c.Time), c.CreatedAt.UnixMicro())
	if err != nil {
		return err
	}
	c.ID = id
	return nil
}

// Command finds a command by id.
func (tx *Tx) Command(id int64) (*CommandRow, error) {
	var r commandRow
	if err := tx.get(&r, `SELECT `+commandCols+` FROM commands WHERE id = ?`, id); err != nil {
		return nil, notFound(err, fmt.Sprintf("command #%d", id))
	}
	c, err := r.command()
	return &c, err
}

// setCommandStatus changes a command's status and reason.
func (tx *Tx) setCommandStatus(id int64, status CommandStatus, reason string) error {
	res, err := tx.exec(`UPDATE commands SET status = ?, reason = ? WHERE id = ?`, status, reason, id)
	return mustAffect(res, err, fmt.Sprintf("command #%d", id))
}

// Commands lists a game's commands matching f, by id.
func (tx *Tx) Commands(gameID int64, f CommandFilter) ([]CommandRow, error) {
	q, args := `SELECT `+commandCols+` FROM commands WHERE game_id = ?`, []any{gameID}
	if f.Player != "" {
		q, args = q+` AND player = ?`, append(args, f.Player)
	}
	if f.Phase != "" {
		q, args = q+` AND phase = ?`, append(args, f.Phase)
	}
	if f.MessageID != 0 {
		q, args = q+` AND message_id = ?`, append(args, f.MessageID)
	}
	if f.Status != "" {
		q, args = q+` AND status = ?`, append(args, f.Status)
	}
	var rows []commandRow
	if err := tx.sel(&rows, q+` ORDER BY id`, args...); err != nil {
		return nil, err
	}
	out := make([]CommandRow, len(rows))
	for i, r := range rows {
		var err error
		if out[i], err = r.command(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The journal's entries are journal.Entry: the store keeps them, package
// journal says what they mean.

type journalRow struct {
	Seq       int64         `db:"seq"`
	GameID    int64         `db:"game_id"`
	Kind      journal.Kind  `db:"kind"`
	Payload   []byte        `db:"payload"`
	CommandID sql.NullInt64 `db:"command_id"`
	At        int64         `db:"at"`
	Voided    bool          `db:"voided"`
}

// appendJournal appends e to its game's journal and sets e.Seq (1, 2, … per
// game; Time is now when zero). One writer per game is assumed: two
// PostgreSQL transactions appending to the same game at once would collide
// on the key and one would fail.
func (tx *Tx) appendJournal(e *journal.Entry) error {
	var seq int64
	if err := tx.get(&seq, `SELECT COALESCE(MAX(seq), 0) + 1 FROM journal WHERE game_id = ?`, e.GameID); err != nil {
		return err
	}
	if e.Time.IsZero() {
		e.Time = Now()
	}
	if _, err := tx.exec(`INSERT INTO journal (game_id, seq, kind, payload, command_id, at, voided) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		e.GameID, seq, e.Kind, sqlJSON(e.Payload), nullID(e.CommandID), e.Time.UnixMicro(), e.Voided); err != nil {
		return wrap(err)
	}
	e.Seq = seq
	return nil
}

// Journal lists a game's journal in Seq order, voided entries included.
func (tx *Tx) Journal(gameID int64) ([]journal.Entry, error) {
	var rows []journalRow
	if err := tx.sel(&rows, `SELECT seq, game_id, kind, payload, command_id, at, voided FROM journal WHERE game_id = ? ORDER BY seq`, gameID); err != nil {
		return nil, err
	}
	out := make([]journal.Entry, len(rows))
	for i, r := range rows {
		out[i] = journal.Entry{Seq: r.Seq, GameID: r.GameID, Kind: r.Kind, Payload: r.Payload,
			CommandID: r.CommandID.Int64, Time: timeOfMicros(r.At), Voided: r.Voided}
	}
	return out, nil
}

// voidJournalForCommand marks the journal entries of a command voided (a
// GM's "void"); replay skips them. No entries is not an error.
func (tx *Tx) voidJournalForCommand(commandID int64) error {
	_, err := tx.exec(`UPDATE journal SET voided = ? WHERE command_id = ?`, true, commandID)
	return err
}

// EventRow is a stored engine event.
type EventRow struct {
	ID        int64
	GameID    int64
	Phase     string
	To        string // "" = everyone, else a slot id
	Kind      string
	Text      string
	NotBefore time.Time
	At        time.Time
}

// Events lists a game's events in the order they were stored.
func (tx *Tx) Events(gameID int64) ([]EventRow, error) {
	var rows []struct {
		ID        int64         `db:"id"`
		GameID    int64         `db:"game_id"`
		Phase     string        `db:"phase"`
		To        string        `db:"recipient"`
		Kind      string        `db:"kind"`
		Text      string        `db:"text"`
		NotBefore sql.NullInt64 `db:"not_before"`
		At        int64         `db:"at"`
	}
	if err := tx.sel(&rows, `SELECT id, game_id, phase, recipient, kind, text, not_before, at FROM events WHERE game_id = ? ORDER BY id`, gameID); err != nil {
		return nil, err
	}
	out := make([]EventRow, len(rows))
	for i, r := range rows {
		out[i] = EventRow{ID: r.ID, GameID: r.GameID, Phase: r.Phase, To: r.To, Kind: r.Kind, Text: r.Text,
			NotBefore: timeOfNull(r.NotBefore), At: timeOfMicros(r.At)}
	}
	return out, nil
}
