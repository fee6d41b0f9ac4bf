package referee

import (
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Deadline ends the thread post that opens a phase with the phase's deadline,
// in the board's time zone and how long from when the post goes out
// ("Deadline: Tue 1 Dec 2026, 18:00 UTC (in 24 hours)"). before is the phase
// the step started in ("" or "setup" for a game being set up); at is when
// the step happened. Engines say "the deadline below" and deal in instants
// only: the zone is the board's, which only the caller knows, so every game
// states its deadlines in one format without carrying a zone in its state.
//
// A step that leaves the phase as it was, or ends the game, is unchanged. A
// step that opens a phase without a thread post (none of today's games does
// that) gets a post of its own with the phase's title, since players must be
// told.
func Deadline(g rules.Game, st Step, before string, at time.Time, loc *time.Location) Step {
	if st.State == nil {
		return st
	}
	s := g.Status(st.State)
	if s.Finished || s.Deadline.IsZero() || s.Phase == before {
		return st
	}
	last := -1
	for i, o := range st.Out {
		if o.Public() {
			last = i
		}
	}
	if last < 0 {
		st.Out = append([]Outgoing{{Text: "[b]" + rules.Esc(s.Title) + "[/b] is open."}}, st.Out...)
		last = 0
	}
	out := append([]Outgoing(nil), st.Out...)
	o := &out[last]
	from := at
	if o.NotBefore.After(from) {
		from = o.NotBefore // a report held back until the phase opens
	}
	o.Text += "\n\n" + rules.Deadline(s.Deadline, loc, from)
	st.Out = out
	return st
}
