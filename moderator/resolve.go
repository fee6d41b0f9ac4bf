package moderator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// settle resolves while the game is due at t.
func settle(s *step, t time.Time) error {
	for range 100 {
		st := s.l.game.Status(s.l.state)
		if st.Finished || s.l.row.Status != Running || !s.l.game.Due(s.l.state, t) {
			return nil
		}
		at := t
		if !st.Deadline.IsZero() && st.Deadline.Before(t) {
			at = st.Deadline
		}
		resolve(s, at)
	}
	return fmt.Errorf("resolve %s: the game keeps resolving", s.l.row.Name)
}

// resolve closes the current phase at at.
func resolve(s *step, at time.Time) {
	phase := s.l.phase()
	r := referee.Resolve(s.l.game, s.l.state, at)
	s.l.state = r.State
	s.journal("resolve", at, map[string]string{"phase": phase})
	s.opened = at
	s.resolved = append(s.resolved, phase)
	s.emit(phase, r, at)
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
