// Package gamelog is what a game's records say, read back for people: the
// audit log (every post and PM with what became of each command in it),
// the GM's command export for a spreadsheet (CSV), the public vote log
// (only what players may see), each player's activity phase by phase, and
// the GM's own words as they went out. It only reads the store, in the
// caller's transaction, a game decoded by its caller (Game); the moderator
// writes what it reads.
package gamelog

import (
	"strings"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Game is a game as its records are read: its row, its rules and state
// decoded, when it began, and its board (for posts' addresses and the
// zone times are written in; nil where none is needed).
type Game struct {
	Row   *store.Game
	Rules rules.Game
	State rules.State
	// Start is when the game began: posts before it were sign-ups'.
	Start time.Time
	Site  *gameconfig.Site
}

// Zone is the board's time zone (UTC without a board).
func (g Game) Zone() *time.Location {
	if g.Site == nil {
		return time.UTC
	}
	return g.Site.Zone
}

// Filter narrows the audit log and the export.
type Filter struct {
	Player string // slot id or forum name
	Phase  string
}

// AuditRow is one line of the audit log: a post or PM and what became of
// each command in it.
type AuditRow struct {
	Message  store.Message      `json:"message"`
	Commands []store.CommandRow `json:"commands"`
	Versions int                `json:"versions"`
}

// Audit lists every post and PM of game id with its commands, filtered,
// and the game's outbox. The messages are listed in order: the order the
// moderator applied them in (its time model), by the board's stamps and a
// PM stamped to the minute after the posts seen in the same read or before
// it. By stamps alone, a PM page's minute put PMs above posts made before
// them.
func Audit(tx *store.Tx, id int64, f Filter, order func([]store.Message) []store.Message) ([]AuditRow, []store.OutboxItem, error) {
	var rows []AuditRow
	msgs, err := tx.Messages(id)
	if err != nil {
		return nil, nil, err
	}
	msgs = order(msgs)
	cmds, err := tx.Commands(id, store.CommandFilter{})
	if err != nil {
		return nil, nil, err
	}
	byMsg := map[int64][]store.CommandRow{}
	for _, c := range cmds {
		byMsg[c.MessageID] = append(byMsg[c.MessageID], c)
	}
	for _, msg := range msgs {
		r := AuditRow{Message: msg}
		for _, c := range byMsg[msg.ID] {
			if f.Phase != "" && c.Phase != f.Phase {
				continue
			}
			r.Commands = append(r.Commands, c)
		}
		if f.Player != "" && !matchesPlayer(f.Player, msg, r.Commands) {
			continue
		}
		if f.Phase != "" && len(r.Commands) == 0 {
			continue
		}
		if msg.Edits > 0 {
			vs, err := tx.Versions(msg.ID)
			if err != nil {
				return nil, nil, err
			}
			r.Versions = len(vs)
		}
		rows = append(rows, r)
	}
	out, err := tx.Outbox(id)
	if err != nil {
		return nil, nil, err
	}
	return rows, out, nil
}

func matchesPlayer(p string, msg store.Message, cmds []store.CommandRow) bool {
	k := rules.NormName(p)
	if rules.NormName(msg.AuthorName) == k {
		return true
	}
	for _, c := range cmds {
		if rules.NormName(c.Player) == k {
			return true
		}
	}
	return false
}

// postURL is a thread post's address on the game's board ("" unknown);
// text a board appended to a post (MyBB's merges, "123+1") is the post's.
func postURL(g Game, forumID string) string {
	id, _, _ := strings.Cut(forumID, "+")
	if id == "" {
		return ""
	}
	return g.Site.PostURL(id)
}

// phaseTitles is each phase's title for people, by its id: the closed ones
// as the journal has them, the current one as the game says.
func phaseTitles(tx *store.Tx, g Game) (map[string]string, error) {
	res, err := tx.Resolutions(g.Row.ID)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, r := range res {
		out[r.Phase] = r.Title
	}
	if st := g.Rules.Status(g.State); !st.Finished {
		out[st.Phase] = st.Title
	}
	return out, nil
}
