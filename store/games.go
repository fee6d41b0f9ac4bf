package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// Game is one game the bot runs.
type Game struct {
	ID     int64
	Name   string // unique slug
	Kind   string // nations | resistance | protest
	Status GameStatus
	Config []byte // JSON
	// Forum: JSON forum settings, including a REFERENCE to the bot's
	// credentials (env var name or file path), never a password: CreateGame
	// and SetGameSettings refuse a non-empty "password" key.
	Forum        []byte
	State        []byte // JSON
	Phase        string
	Deadline     time.Time // zero = none
	ThreadCursor []byte    // JSON
	PMCursor     []byte    // JSON
	PausedAt     time.Time // zero = not paused
	// LastRead is when the bot last began a read of the thread (zero: never).
	LastRead time.Time
	// MessageLimit is the longest message the board takes as learned from
	// its own refusal (bytes; 0: nothing learned). Set by SetMessageLimit.
	MessageLimit int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// Revision counts the saves of the game's settings and state (0 when
	// created): the same revision, the same Config, Forum and State.
	Revision int64
}

type gameRow struct {
	ID           int64         `db:"id"`
	Name         string        `db:"name"`
	Kind         string        `db:"kind"`
	Status       GameStatus    `db:"status"`
	Config       []byte        `db:"config"`
	Forum        []byte        `db:"forum"`
	State        []byte        `db:"state"`
	Phase        string        `db:"phase"`
	Deadline     sql.NullInt64 `db:"deadline"`
	ThreadCursor []byte        `db:"thread_cursor"`
	PMCursor     []byte        `db:"pm_cursor"`
	PausedAt     sql.NullInt64 `db:"paused_at"`
	LastRead     sql.NullInt64 `db:"last_read"`
	MessageLimit sql.NullInt64 `db:"message_limit"`
	CreatedAt    int64         `db:"created_at"`
	UpdatedAt    int64         `db:"updated_at"`
	Revision     int64         `db:"revision"`
}

func (r gameRow) game() Game {
	return Game{
		ID: r.ID, Name: r.Name, Kind: r.Kind, Status: r.Status,
		Config: r.Config, Forum: r.Forum, State: r.State, Phase: r.Phase,
		Deadline: timeOfNull(r.Deadline), ThreadCursor: r.ThreadCursor, PMCursor: r.PMCursor,
		PausedAt: timeOfNull(r.PausedAt), LastRead: timeOfNull(r.LastRead), MessageLimit: int(r.MessageLimit.Int64), CreatedAt: timeOfMicros(r.CreatedAt), UpdatedAt: timeOfMicros(r.UpdatedAt),
		Revision: r.Revision,
	}
}

const gameCols = `id, name, kind, status, config, forum, state, phase, deadline, thread_cursor, pm_cursor, paused_at, last_read, message_limit, created_at, updated_at, revision`

// ErrSecret: forum settings carry a password instead of a reference to one.
var ErrSecret = errors.New("forum settings must say where the password is, not contain it")

// checkForum refuses forum settings with a non-empty password-like key at
// any depth: the database is not a place for secrets.
func checkForum(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("forum settings are not JSON: %w", err)
	}
	var walk func(any) error
	walk = func(v any) error {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				switch strings.ToLower(k) {
				case "password", "passwd", "pass":
					if s, ok := x.(string); !ok || s != "" {
						return fmt.Errorf("%w (key %q)", ErrSecret, k)
					}
				}
				if err := walk(x); err != nil {
					return err
				}
			}
		case []any:
			for _, x := range v {
				if err := walk(x); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk(v)
}

// CreateGame inserts g and sets g.ID (and CreatedAt/UpdatedAt when zero).
// ErrExists if the name is taken.
func (tx *Tx) CreateGame(g *Game) error {
	if g.Name == "" {
		return errors.New("a game needs a name")
	}
	if err := checkForum(g.Forum); err != nil {
		return err
	}
	if g.CreatedAt.IsZero() {
		g.CreatedAt = Now()
	}
	if g.UpdatedAt.IsZero() {
		g.UpdatedAt = g.CreatedAt
	}
	id, ok, err := tx.insertID(`INSERT INTO games (name, kind, status, config, forum, state, phase, deadline, thread_cursor, pm_cursor, paused_at, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (name) DO NOTHING RETURNING id`,
		g.Name, g.Kind, g.Status, sqlJSON(g.Config), sqlJSON(g.Forum), sqlJSON(g.State), g.Phase, sqlTime(g.Deadline),
		sqlJSON(g.ThreadCursor), sqlJSON(g.PMCursor), sqlTime(g.PausedAt), g.CreatedAt.UnixMicro(), g.UpdatedAt.UnixMicro())
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: game %q", ErrExists, g.Name)
	}
	g.ID = id
	return tx.gamesChanged(id)
}

// GamesVersion counts the changes of any game's status, forum settings,
// players' names or roster (Changes.Roster), and the games' creation (games are never
// deleted): while it stays, no game started or stopped running and every
// game's roster and account are as they were. A reader keeping them decoded
// (the games sharing a bot's inbox) checks this one row instead of every
// game's revision, which each save of a game's state counts.
func (tx *Tx) GamesVersion() (int64, error) {
	var n int64
	err := tx.get(&n, `SELECT n FROM games_version`)
	return n, err
}

// gamesChanged counts one change GamesVersion counts, of game id, and
// marks the game with the new count (GamesChangedSince). On PostgreSQL the
// row's lock, held to the commit, orders such transactions: a reader that
// sees a count sees every change counted before it.
func (tx *Tx) gamesChanged(id int64) error {
	if _, err := tx.exec(`UPDATE games_version SET n = n + 1`); err != nil {
		return err
	}
	_, err := tx.exec(`UPDATE games SET changed_at_version = (SELECT n FROM games_version) WHERE id = ?`, id)
	return err
}

// GamesChangedSince lists, by id, the games whose last change GamesVersion
// counted came after count v: a reader that keeps the running games decoded
// as of v reloads only these.
func (tx *Tx) GamesChangedSince(v int64) ([]GameHead, error) {
	var out []GameHead
	if err := tx.sel(&out, `SELECT id, name, status FROM games WHERE changed_at_version > ? ORDER BY id`, v); err != nil {
		return nil, err
	}
	return out, nil
}

// Game finds a game by name.
func (tx *Tx) Game(name string) (*Game, error) {
	var r gameRow
	if err := tx.get(&r, `SELECT `+gameCols+` FROM games WHERE name = ?`, name); err != nil {
		return nil, notFound(err, "game "+name)
	}
	g := r.game()
	return &g, nil
}

// GameByID finds a game by id.
func (tx *Tx) GameByID(id int64) (*Game, error) {
	var r gameRow
	if err := tx.get(&r, `SELECT `+gameCols+` FROM games WHERE id = ?`, id); err != nil {
		return nil, notFound(err, fmt.Sprintf("game #%d", id))
	}
	g := r.game()
	return &g, nil
}

// Games lists the games with any of the given statuses (all when none is
// given), by id.
func (tx *Tx) Games(status ...GameStatus) ([]Game, error) {
	q, args, err := gamesByStatus(gameCols, status)
	if err != nil {
		return nil, err
	}
	var rows []gameRow
	if err := tx.sel(&rows, q, args...); err != nil {
		return nil, err
	}
	out := make([]Game, len(rows))
	for i, r := range rows {
		out[i] = r.game()
	}
	return out, nil
}

// gamesByStatus selects cols of the games with these statuses (all when
// none), by id.
func gamesByStatus(cols string, status []GameStatus) (string, []any, error) {
	if len(status) == 0 {
		return `SELECT ` + cols + ` FROM games ORDER BY id`, nil, nil
	}
	return sqlx.In(`SELECT `+cols+` FROM games WHERE status IN (?) ORDER BY id`, status)
}

// GameRevision is a game's id and revision (Game.Revision).
type GameRevision struct {
	ID       int64 `db:"id"`
	Revision int64 `db:"revision"`
}

// GameRevisions lists the games with these statuses (all when none) by id,
// each with its revision: what a reader keeping games decoded checks them
// by, without loading their settings and state.
func (tx *Tx) GameRevisions(status ...GameStatus) ([]GameRevision, error) {
	q, args, err := gamesByStatus(`id, revision`, status)
	if err != nil {
		return nil, err
	}
	var out []GameRevision
	if err := tx.sel(&out, q, args...); err != nil {
		return nil, err
	}
	return out, nil
}

// GameHead is what lists the games for work: a game's id, name and status.
type GameHead struct {
	ID     int64      `db:"id"`
	Name   string     `db:"name"`
	Status GameStatus `db:"status"`
}

// GameHeads lists the games with these statuses (all when none) by id,
// without their settings and state: a runner looks at every game each
// second, and loads a game's row only to start its work.
func (tx *Tx) GameHeads(status ...GameStatus) ([]GameHead, error) {
	q, args, err := gamesByStatus(`id, name, status`, status)
	if err != nil {
		return nil, err
	}
	var out []GameHead
	if err := tx.sel(&out, q, args...); err != nil {
		return nil, err
	}
	return out, nil
}

// saveGame writes g's Status, State, Phase, Deadline, ThreadCursor,
// PMCursor, PausedAt, LastRead and UpdatedAt (the caller's clock; now when zero, and
// then written back into g), and counts a revision (g's too). Name, Kind,
// Config, Forum and CreatedAt stay.
func (tx *Tx) saveGame(g *Game) error {
	if g.UpdatedAt.IsZero() {
		g.UpdatedAt = Now()
	}
	var was GameStatus
	if err := tx.get(&was, `SELECT status FROM games WHERE id = ?`, g.ID); err != nil {
		return notFound(err, fmt.Sprintf("game #%d", g.ID))
	}
	if was != g.Status {
		if err := tx.gamesChanged(g.ID); err != nil {
			return err
		}
	}
	res, err := tx.exec(`UPDATE games SET status = ?, state = ?, phase = ?, deadline = ?, thread_cursor = ?, pm_cursor = ?, paused_at = ?, last_read = ?, updated_at = ?, revision = revision + 1 WHERE id = ?`,
		g.Status, sqlJSON(g.State), g.Phase, sqlTime(g.Deadline), sqlJSON(g.ThreadCursor), sqlJSON(g.PMCursor), sqlTime(g.PausedAt), sqlTime(g.LastRead), g.UpdatedAt.UnixMicro(), g.ID)
	if err := mustAffect(res, err, fmt.Sprintf("game #%d", g.ID)); err != nil {
		return err
	}
	g.Revision++
	return nil
}

// setGameSettings replaces a game's Config and Forum JSON (GM edits).
func (tx *Tx) setGameSettings(id int64, config, forum []byte) error {
	if err := checkForum(forum); err != nil {
		return err
	}
	var was sql.NullString
	if err := tx.get(&was, `SELECT forum FROM games WHERE id = ?`, id); err != nil {
		return notFound(err, fmt.Sprintf("game #%d", id))
	}
	res, err := tx.exec(`UPDATE games SET config = ?, forum = ?, updated_at = ?, revision = revision + 1 WHERE id = ?`,
		sqlJSON(config), sqlJSON(forum), Now().UnixMicro(), id)
	if err := mustAffect(res, err, fmt.Sprintf("game #%d", id)); err != nil {
		return err
	}
	if was.Valid && was.String == string(forum) {
		// The game's own bookkeeping (counts, reminders, schedules) lives
		// in its config and changes at nearly every poll; who plays where
		// does not. Counting it made every game's read index the account
		// again at 1,000 games.
		return nil
	}
	return tx.gamesChanged(id)
}

// Player maps a roster slot to a forum identity.
type Player struct {
	GameID      int64
	Slot        string
	ForumName   string
	ForumUserID string
	Aliases     []string
}

type playerRow struct {
	GameID      int64  `db:"game_id"`
	Slot        string `db:"slot"`
	ForumName   string `db:"forum_name"`
	ForumUserID string `db:"forum_user_id"`
	Aliases     string `db:"aliases"`
}

// setPlayers replaces a game's roster; the order of ps is kept.
// GamesVersion counts it unless only forum user ids were learned: every
// game learns its players' ids from their first posts and PMs, and at
// 1,000 games counting that made every game's next read index the other
// games again and read the shared inbox unfiltered (BenchmarkBurst).
func (tx *Tx) setPlayers(gameID int64, ps []Player) error {
	was, err := tx.Players(gameID)
	if err != nil {
		return err
	}
	if !sameNames(was, ps) {
		if err := tx.gamesChanged(gameID); err != nil {
			return err
		}
	}
	if _, err := tx.exec(`DELETE FROM players WHERE game_id = ?`, gameID); err != nil {
		return err
	}
	for i, p := range ps {
		al := p.Aliases
		if al == nil {
			al = []string{}
		}
		aj, err := json.Marshal(al)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`INSERT INTO players (game_id, slot, position, forum_name, forum_user_id, aliases) VALUES (?, ?, ?, ?, ?, ?)`,
			gameID, p.Slot, i, p.ForumName, p.ForumUserID, string(aj)); err != nil {
			return wrap(err)
		}
	}
	return nil
}

// sameNames says whether two rosters differ at most in forum user ids.
func sameNames(a, b []Player) bool {
	return slices.EqualFunc(a, b, func(p, q Player) bool {
		return p.Slot == q.Slot && p.ForumName == q.ForumName && slices.Equal(p.Aliases, q.Aliases)
	})
}

// Players returns a game's roster in the order SetPlayers was given.
func (tx *Tx) Players(gameID int64) ([]Player, error) {
	var rows []playerRow
	if err := tx.sel(&rows, `SELECT game_id, slot, forum_name, forum_user_id, aliases FROM players WHERE game_id = ? ORDER BY position`, gameID); err != nil {
		return nil, err
	}
	out := make([]Player, len(rows))
	for i, r := range rows {
		out[i] = Player{GameID: r.GameID, Slot: r.Slot, ForumName: r.ForumName, ForumUserID: r.ForumUserID}
		if err := json.Unmarshal([]byte(r.Aliases), &out[i].Aliases); err != nil {
			return nil, fmt.Errorf("aliases of %s: %w", r.Slot, err)
		}
		if len(out[i].Aliases) == 0 {
			out[i].Aliases = nil
		}
	}
	return out, nil
}

// SetFlood records what the bot has learned of its account's flood control
// in a game (a JSON document the moderator writes; `forumgm status` shows it).
func (tx *Tx) SetFlood(id int64, doc []byte) error {
	res, err := tx.exec(`UPDATE games SET flood = ? WHERE id = ?`, sqlJSON(doc), id)
	return mustAffect(res, err, fmt.Sprintf("game #%d", id))
}

// Flood is what SetFlood recorded (nil: nothing yet).
func (tx *Tx) Flood(id int64) ([]byte, error) {
	var doc *string
	if err := tx.get(&doc, `SELECT flood FROM games WHERE id = ?`, id); err != nil {
		return nil, fmt.Errorf("store: flood of game #%d: %w", id, err)
	}
	if doc == nil {
		return nil, nil
	}
	return []byte(*doc), nil
}

// setMessageLimit records the longest message the game's board takes, as
// learned from its refusal of a longer one; a limit is only ever lowered.
func (tx *Tx) setMessageLimit(id int64, max int) error {
	res, err := tx.exec(`UPDATE games SET message_limit = ? WHERE id = ? AND (message_limit IS NULL OR message_limit > ?)`, max, id, max)
	if err != nil {
		return fmt.Errorf("store: message limit of game #%d: %w", id, err)
	}
	_, err = res.RowsAffected()
	return err
}
