package moderator

import (
	"fmt"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// settle resolves what is due after a read that began at t (it was complete
// up to then): a phase by its time limit only when t is past the deadline,
// or one every player has acted in.
func settle(s *step, t time.Time) error {
	for range 100 {
		st := s.l.game.Status(s.l.state)
		if st.Finished || s.l.row.Status != Running {
			extendForOutage(s, time.Time{}, true)
			return nil
		}
		if dl := st.Deadline; !dl.IsZero() && t.After(dl) {
			if !extendForOutage(s, dl, false) && !giveGrace(s, dl) {
				resolve(s, dl)
			}
			continue
		}
		if !dueEarly(s, st, t) {
			// What stays open may have been open during an outage.
			extendForOutage(s, time.Time{}, true)
			return nil
		}
		resolve(s, laterOf(t, s.opened))
	}
	return fmt.Errorf("resolve %s: the game keeps resolving", s.l.row.Name)
}

// settleBefore closes the phases whose deadline a message was surely made
// after (its stamp starts at or after it), before the message is applied.
// A stamp that cannot say (it straddles the deadline) closes nothing: the
// message counts in the phase still open.
func settleBefore(s *step, stamp forum.Stamp) error {
	for range 100 {
		st := s.l.game.Status(s.l.state)
		if st.Finished || s.l.row.Status != Running || st.Deadline.IsZero() || stamp.Before(st.Deadline) != forum.No {
			return nil
		}
		if extendForOutage(s, st.Deadline, false) || giveGrace(s, st.Deadline) {
			continue // the message may count in the phase after all
		}
		resolve(s, st.Deadline)
	}
	return fmt.Errorf("resolve %s: the game keeps resolving", s.l.row.Name)
}

// settleAfter closes the phase a message completed ("everyone has acted"):
// the close takes effect at that message, so everything after it in the
// order belongs to the next phase. at is the message's earliest time.
func settleAfter(s *step, at time.Time) error {
	for range 100 {
		st := s.l.game.Status(s.l.state)
		if st.Finished || s.l.row.Status != Running || !dueEarly(s, st, at) {
			return nil
		}
		resolve(s, laterOf(at, s.opened))
	}
	return fmt.Errorf("resolve %s: the game keeps resolving", s.l.row.Name)
}

// dueEarly says whether the phase is due at t for a reason other than its
// time limit (every player has acted): the game is asked as of just before
// the deadline when t is not before it. A phase in its grace period is due
// as soon as nobody is missing, in every game.
func dueEarly(s *step, st rules.Status, t time.Time) bool {
	if !st.Deadline.IsZero() && !t.Before(st.Deadline) {
		t = st.Deadline.Add(-time.Nanosecond)
	}
	return s.l.game.Due(s.l.state, t) || (inGrace(s) && len(st.Waiting) == 0)
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// resolve closes the current phase at at. The next phase's deadline is the
// GM's schedule's when it sets that kind of phase (openDeadline), and on
// the board's unit (a whole minute where stamps are to the minute), so no
// stamp straddles it; the journal keeps that, so a rebuild has it too. It
// is set before the posts are made, so they state it.
func resolve(s *step, at time.Time) {
	// On the journal's precision (microseconds), rounded up so a phase
	// never closes before its deadline: a deadline counted from a start
	// or a length in nanoseconds must replay to the very same instant.
	if r := at.Truncate(time.Microsecond); r.Before(at) {
		at = r.Add(time.Microsecond)
	}
	phase := s.l.phase()
	title := s.l.game.Status(s.l.state).Title
	r := referee.Resolve(s.l.game, s.l.state, at)
	s.l.state = r.State
	s.journal(at, journal.Resolve{Phase: phase, Title: title})
	openDeadline(s, openedAt(r, at), at)
	r.State = s.l.state
	s.opened = at
	s.closed = title
	if s.closed == "" {
		s.closed = phase
	}
	s.resolved = append(s.resolved, phase)
	s.closings = append(s.closings, between.Closed{Phase: phase, Title: s.closed})
	r = s.withFlavor(phase, s.closed, r)
	s.emit(store.SendResults, phase, r, at)
}

// rebuild recomputes the state from the seed and the journal, leaving out
// the entries of the commands in voided (superseded or voided by this very
// step, not yet saved). Events are not sent again: what was said was said;
// only the state changes.
func rebuild(tx *store.Tx, s *step, voided map[int64]bool) error {
	j, err := tx.Journal(s.l.row.ID)
	if err != nil {
		return fmt.Errorf("rebuild %s: journal: %w", s.l.row.Name, err)
	}
	for i := range j {
		if voided[j[i].CommandID] && j[i].CommandID != 0 {
			j[i].Voided = true
		}
	}
	st, err := journal.Replay(s.l.game, s.l.cfg.Rules(), j, journal.Lenient)
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", s.l.row.Name, err)
	}
	s.l.state = st
	return nil
}
