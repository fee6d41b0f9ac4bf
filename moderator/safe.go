package moderator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Safe GM actions (docs/gm-controls.md): resolving the phase the GM saw,
// not whatever phase is current by the time the click arrives, and a
// preview of what resolving would post and send, computed as the
// resolution itself is and then thrown away.

// StalePhaseError is a resolve-now for a phase the game has left.
type StalePhaseError struct {
	Game         string
	Asked        string // the phase the GM named
	Phase, Title string // the phase the game is in
}

func (e *StalePhaseError) Error() string {
	now := e.Phase
	if e.Title != "" && e.Title != e.Phase {
		now = fmt.Sprintf("%s (%s)", e.Phase, e.Title)
	}
	return fmt.Sprintf("game %s has moved past phase %s: the current phase is %s; nothing was resolved (look at the game again before resolving %s)",
		e.Game, e.Asked, now, e.Phase)
}

// resolveNow is what resolve-now does to a step: the phase is checked,
// then resolved at once.
func (m *Moderator) resolveNow(s *step, phase string) error {
	if err := active(s.l); err != nil {
		return err
	}
	st := s.l.game.Status(s.l.state)
	if st.Finished {
		return fmt.Errorf("game %s is over", s.l.row.Name)
	}
	if phase != "" && phase != st.Phase {
		return &StalePhaseError{Game: s.l.row.Name, Asked: phase, Phase: st.Phase, Title: st.Title}
	}
	if s.l.row.Status == Paused {
		s.l.row.PausedAt = m.now() // the new phase's clock stops from here
	}
	resolve(s, m.now())
	return nil
}

// Preview is what resolving a game's current phase now would post and
// send. It holds private messages: it is for the GM only (the CLI, the
// desk's GM pages), never for a public page.
type Preview struct {
	Game         string
	Phase, Title string    // the phase it would resolve
	At           time.Time // as of when
	// Messages are the outbox items the resolution would queue, in the
	// order they would go; Sent is each one's text exactly as it would be
	// sent (the marker line under it).
	Messages []store.OutboxItem
	// markup is the board's marker markup (its profile's marker_markup).
	markup string
}

// Sent is a message's text as the board would get it.
func (p *Preview) Sent(i int) string {
	return forum.WithMarker(p.markup, p.Messages[i].Body, p.Messages[i].Marker)
}

// errPreview rolls a preview's transaction back.
var errPreview = errors.New("preview: rolled back")

// Preview computes the step resolve-now would make (for phase, when not
// "": refused as ResolvePhase refuses), in a transaction that is rolled
// back: nothing is sent or saved, and a running moderator is not held up
// for longer than one step.
func (m *Moderator) Preview(ctx context.Context, name, phase string) (*Preview, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("preview %s: %w", name, err)
	}
	var p *Preview
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		s, err := m.begin(tx, l)
		if err != nil {
			return err
		}
		st := s.l.game.Status(s.l.state)
		p = &Preview{Game: name, Phase: st.Phase, Title: st.Title, At: m.now(), markup: s.l.site.Profile.MarkerMarkup}
		if err := m.resolveNow(s, phase); err != nil {
			return err
		}
		p.Messages = append([]store.OutboxItem(nil), s.ch.Outbox...)
		return errPreview
	})
	if errors.Is(err, errPreview) {
		return p, nil
	}
	return nil, fmt.Errorf("preview %s: %w", name, err)
}

// replacementTime gives a replacement time to catch up (the game file's
// deadlines.replacement_extension, capped when it is loaded): when less
// than that is left of the current phase, its deadline moves to that long
// from now (from the pause, in a paused game: resume adds the pause as
// usual). It never brings a deadline closer, and replacements in one
// phase do not add up: each leaves its player at least that long. It
// returns what the thread is told ("": nothing changed).
func (m *Moderator) replacementTime(s *step, who string) string {
	ext := s.l.cfg.Deadlines.ReplacementTime()
	st := s.l.game.Status(s.l.state)
	if ext <= 0 || st.Finished || st.Deadline.IsZero() {
		return ""
	}
	from := m.now()
	if s.l.row.Status == Paused && !s.l.row.PausedAt.IsZero() {
		from = s.l.row.PausedAt
	}
	if !st.Deadline.Before(from.Add(ext)) {
		return ""
	}
	nd := m.setDeadline(s, from.Add(ext))
	return fmt.Sprintf(" So that %s has at least %s to catch up, the deadline of %s moves %s later, to %s.",
		rules.Esc(who), rules.Span(ext), rules.Esc(st.Title), rules.Span(nd.Sub(st.Deadline)), rules.WhenUTC(nd, s.l.zone()))
}
