package rules

import (
	"fmt"
	"slices"
	"strings"
)

// Between deadlines (docs/between-deadlines.md): what the bot says while a
// phase is open. A count of the phase goes into the thread when a player
// asks for one, on the GM's schedule and at the GM's word; a reminder goes
// by PM to each player who still has something to do; the public vote log
// shows every thread command of each phase. Each is an optional capability
// below; a game without one gets the generic version (CountOf, OwedOf,
// Replaces, PublicReason), made of its Status.

// CountInput is what a count is made of besides the state.
type CountInput struct {
	// Thread is every command accepted from the thread in the current
	// phase, in the order applied: what the players posted for everyone to
	// read. Src.Ref is each one's post id.
	Thread []Command
	// Link is a post's address on the board by its id ("" when unknown).
	Link func(ref string) string
}

// Counter is a game that counts its current phase while it is open. The
// count is posted in the thread, so it is made of what every player may
// know: the public view, the thread's commands, and what the game's rules
// make public while the phase is open (the Resistance: how many have voted
// by PM, never which way).
type Counter interface {
	Game
	// Count is the body of a count of s's current phase, in BBCode with
	// every player-supplied string escaped; the bot heads it with the
	// phase's title and the count's number.
	Count(s State, in CountInput) string
}

// Owing is a game that tells a player what he still has to do in the
// current phase, for the reminder the bot sends him by PM before the
// deadline. It may name his own secret duty (a Resistance team member's
// mission order): the lines go to him only.
type Owing interface {
	Game
	// Owed is what player still owes in s's current phase, one short line
	// each ("vote APPROVE or REJECT on Ann's team"); nothing when he has
	// done it all or the phase waits for nothing of his.
	Owed(s State, player string) []string
}

// PublicLog is a game that says how its thread commands read in the
// public vote log.
type PublicLog interface {
	Game
	// Replaces says whether a player's later accepted thread command of
	// kind in a phase replaces his earlier one of the same kind (a vote):
	// the log strikes the earlier one through.
	Replaces(kind string) bool
	// PublicReason is what the log shows of the reason a thread command of
	// kind was refused: the reason, or "" when it tells what only the
	// player may know (that he voted by PM).
	PublicReason(kind, reason string) string
}

// CountOf is g's count of s: the game's own (Counter), else who has acted
// in the phase and who has not.
func CountOf(g Game, s State, in CountInput) string {
	if c, ok := g.(Counter); ok {
		return c.Count(s, in)
	}
	st := g.Status(s)
	return ActedCount(s.Roster(), "Acted", st.Acted, "Still to act", st.Waiting)
}

// ActedCount is the count of a phase where each player acts once: who has
// ("Acted (2): Ann, Ben") and who has not.
func ActedCount(r *Roster, acted string, done []string, waiting string, left []string) string {
	return fmt.Sprintf("%s (%d): %s\n%s (%d): %s", acted, len(done), orNobody(r, done), waiting, len(left), orNobody(r, left))
}

func orNobody(r *Roster, ids []string) string {
	if len(ids) == 0 {
		return "nobody"
	}
	return r.Names(ids)
}

// OwedOf is what player owes in s: the game's own (Owing), else, while the
// phase waits for him, to act in it.
func OwedOf(g Game, s State, player string) []string {
	if o, ok := g.(Owing); ok {
		return o.Owed(s, player)
	}
	st := g.Status(s)
	if slices.Contains(st.Waiting, player) {
		return []string{"act in " + Esc(st.Title)}
	}
	return nil
}

// Replaces is g's PublicLog.Replaces (false without it).
func Replaces(g Game, kind string) bool {
	if p, ok := g.(PublicLog); ok {
		return p.Replaces(kind)
	}
	return false
}

// PublicReason is g's PublicLog.PublicReason (the reason as it is without it).
func PublicReason(g Game, kind, reason string) string {
	if p, ok := g.(PublicLog); ok {
		return p.PublicReason(kind, reason)
	}
	return reason
}

// PostLink is a name followed by a link to its post: "Ann ([url=…]post[/url])",
// or the name alone without an address.
func PostLink(name, url string) string {
	if url == "" || strings.ContainsAny(url, "[]\"' \t\r\n") {
		return name
	}
	return name + " ([url=" + url + "]post[/url])"
}
