package protest

import (
	"fmt"

	"github.com/forumgm/forumgm/rules"
)

// Between deadlines (RULINGS.md "Counts and reminders"): the count of a
// turn and what an organisation still owes.

var (
	_ rules.Counter   = Game{}
	_ rules.Owing     = Game{}
	_ rules.PublicLog = Game{}
)

// Count implements rules.Counter: who has sent orders for the turn (scans
// or a protest, by PM) and who has not, never what they are.
func (g Game) Count(st rules.State, _ rules.CountInput) string {
	s := st.(*State)
	if s.Finished {
		return "The game is over."
	}
	status := g.Status(s)
	return rules.ActedCount(s.Seats, "Orders sent", status.Acted, "No orders yet", status.Waiting)
}

// Owed implements rules.Owing: an organisation still in the game with
// neither a scan nor a protest for the turn.
func (Game) Owed(st rules.State, p string) []string {
	s := st.(*State)
	pl, ok := s.Players[p]
	if s.Finished || !ok || pl.Out || len(pl.Scans) > 0 || pl.Protest != "" {
		return nil
	}
	return []string{fmt.Sprintf("send me your orders for turn %d by PM: scans (L n HEX, e.g. A 2 K10), a protest (PROTEST HEX), or both", s.Turn)}
}

// Replaces implements rules.PublicLog: a later NAME replaces the earlier.
func (Game) Replaces(kind string) bool { return kind == KindName }

// PublicReason implements rules.PublicLog: no refusal of a thread command
// tells anything private.
func (Game) PublicReason(_ string, reason string) string { return reason }
