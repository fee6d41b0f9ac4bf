package nations

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

// Between deadlines (RULINGS.md "Counts and reminders"): the count of a
// round and what a nation still owes.

var (
	_ rules.Counter   = Game{}
	_ rules.Owing     = Game{}
	_ rules.PublicLog = Game{}
)

// Count implements rules.Counter: who has sent an order for the round and
// who has not (never what the order is), and in round 1 the civilisations
// posted so far.
func (g Game) Count(st rules.State, _ rules.CountInput) string {
	s := st.(*State)
	if s.Finished {
		return "The game is over."
	}
	status := g.Status(s)
	text := rules.ActedCount(s.Seats, "Orders sent", status.Acted, "Still to send an order", status.Waiting)
	if s.Round > 1 {
		return text
	}
	var picked, left []string
	for _, id := range s.AliveIDs() {
		if c, ok := s.Civ[id]; ok {
			picked = append(picked, fmt.Sprintf("%s %s", s.Seats.Name(id), c))
		} else {
			left = append(left, s.Seats.Name(id))
		}
	}
	text += "\nCivilisations posted: " + orNone(picked)
	if len(left) > 0 {
		text += fmt.Sprintf("; not yet (%s unless they post one): %s", Air, strings.Join(left, ", "))
	}
	return text + "."
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}

// Owed implements rules.Owing: a nation still in the game without an
// order for the round owes one.
func (Game) Owed(st rules.State, p string) []string {
	s := st.(*State)
	if s.Finished || !s.Alive(p) {
		return nil
	}
	if _, ok := s.Orders[p]; ok {
		return nil
	}
	return []string{fmt.Sprintf("send me your order for round %d by PM: INVADE name, DEFEND, DEFEND GUESS name, or PROSPER", s.Round)}
}

// Replaces implements rules.PublicLog: a later CIV replaces the earlier.
func (Game) Replaces(kind string) bool { return kind == KindCiv }

// PublicReason implements rules.PublicLog: no refusal of a thread command
// tells anything private.
func (Game) PublicReason(_ string, reason string) string { return reason }
