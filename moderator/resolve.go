package moderator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
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
			if !extendForOutage(s, dl, false) {
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
		if extendForOutage(s, st.Deadline, false) {
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
// the deadline when t is not before it.
func dueEarly(s *step, st rules.Status, t time.Time) bool {
	if !st.Deadline.IsZero() && !t.Before(st.Deadline) {
		t = st.Deadline.Add(-time.Nanosecond)
	}
	return s.l.game.Due(s.l.state, t)
}

func laterOf(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// resolve closes the current phase at at. The next phase's deadline is put
// on the board's unit (a whole minute where stamps are to the minute), so
// no stamp straddles it; the journal keeps that, so a rebuild has it too.
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
	s.journal("resolve", at, map[string]string{"phase": phase, "title": title})
	s.opened = at
	s.closed = title
	if s.closed == "" {
		s.closed = phase
	}
	s.resolved = append(s.resolved, phase)
	s.emit(phase, r, at)
	roundDeadline(s, at)
}

// roundDeadline puts the current deadline on the board's unit, journalled
// at at.
func roundDeadline(s *step, at time.Time) {
	st := s.l.game.Status(s.l.state)
	if st.Finished || st.Deadline.IsZero() {
		return
	}
	if d := forum.DeadlineOn(st.Deadline, s.l.deadlineUnit()); !d.Equal(st.Deadline) {
		s.l.state = s.l.game.SetDeadline(s.l.state, d)
		s.journal("deadline", at, map[string]time.Time{"deadline": d})
	}
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
	st, err := replayJournal(s.l.game, s.l.cfg, j)
	if err != nil {
		return fmt.Errorf("rebuild %s: %w", s.l.row.Name, err)
	}
	s.l.state = st
	return nil
}

// replayJournal replays a game's journal from its seed.
func replayJournal(g rules.Game, cfg gameconfig.GameConfig, j []store.JournalEntry) (rules.State, error) {
	s, _, err := g.Setup(cfg.Rules())
	if err != nil {
		return nil, err
	}
	for _, e := range j {
		if e.Voided {
			continue
		}
		switch e.Kind {
		case "command":
			var c rules.Command
			if err := json.Unmarshal(e.Payload, &c); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			if ns, _, err := g.Apply(s, c); err == nil {
				s = ns
			}
		case "resolve":
			s, _ = g.Resolve(s, e.Time)
		case "end":
			s, _ = g.End(s, e.Time)
		case "deadline":
			var p struct {
				Deadline time.Time `json:"deadline"`
			}
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			s = g.SetDeadline(s, p.Deadline)
		case "replace":
			var p struct{ Old, New string }
			if err := json.Unmarshal(e.Payload, &p); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
			s = rules.Clone(g, s)
			if err := s.Roster().Replace(p.Old, p.New); err != nil {
				return nil, fmt.Errorf("journal %d: %w", e.Seq, err)
			}
		}
	}
	return s, nil
}
