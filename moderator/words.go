package moderator

import (
	"context"
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// The GM's own words (docs/gm-words.md): flavor that opens a phase's
// update, announcements in the thread and notes by PM, and the game's
// house style around every thread post. Each goes out through the outbox
// like everything else the bot sends: in a step, with its marker, exactly
// once, in order with the bot's other messages.

// maxGMTextBytes bounds one text of the GM's: longer than any board takes
// in one message, it is sent in parts anyway; the bound is against a file
// given by mistake.
const maxGMTextBytes = 200_000

// CheckGMText says what is wrong with a text of the GM's before it is
// queued. It is the GM's BBCode, passed through as written, but a marker
// in it would make the outbox take it for another message (exactly-once
// looks for markers on the board), so it is refused.
func CheckGMText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return fmt.Errorf("the text is empty")
	case len(text) > maxGMTextBytes:
		return fmt.Errorf("the text is %d bytes, more than %d", len(text), maxGMTextBytes)
	case strings.Contains(strings.ToLower(text), strings.ToLower(forum.MarkerPrefix)):
		return fmt.Errorf("the text holds %q, the start of the bot's marker line: the bot would take it for one of its own messages when it checks what it sent (remove it)", forum.MarkerPrefix)
	}
	for _, l := range strings.Split(text, "\n") {
		if forum.IsMarkerLine(l) {
			return fmt.Errorf("the text holds a marker line (%q): remove it", strings.TrimSpace(l))
		}
	}
	return nil
}

// gmText is a GM's text as it goes into a message: line ends as Unix
// writes them, no trailing blank lines (the marker line follows).
func gmText(text string) string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	return strings.TrimRight(text, "\n\t ")
}

// StaleFlavorError is flavor for a phase the game has left.
type StaleFlavorError struct {
	Game         string
	Asked        string
	Phase, Title string
}

func (e *StaleFlavorError) Error() string {
	now := e.Phase
	if e.Title != "" && e.Title != e.Phase {
		now = fmt.Sprintf("%s (%s)", e.Phase, e.Title)
	}
	return fmt.Sprintf("game %s has moved past phase %s: the current phase is %s; the flavor was not saved (its update has gone out; write the flavor for %s instead)",
		e.Game, e.Asked, now, e.Phase)
}

// SetFlavor writes the GM's flavor for phase's update: to "" opens the
// thread's update, a player's name opens that player's private results.
// It replaces any flavor written before for the same phase and reader,
// and an empty text withdraws it. Only the phase the game is in can be
// given flavor: one that has resolved is refused (*StaleFlavorError).
// It returns the player's name as the game knows it ("" for the thread).
func (m *Moderator) SetFlavor(ctx context.Context, name, phase, to, text string) (string, error) {
	text = gmText(text)
	if text != "" {
		if err := CheckGMText(text); err != nil {
			return "", fmt.Errorf("flavor %s: %w", name, err)
		}
	}
	if phase == "" {
		return "", fmt.Errorf("flavor %s: name the phase (--phase, as 'forumgm status %s' shows it)", name, name)
	}
	var who string
	err := m.control(ctx, "flavor", name, func(_ *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		st := s.l.game.Status(s.l.state)
		if st.Finished {
			return fmt.Errorf("game %s is over", s.l.row.Name)
		}
		if phase != st.Phase {
			return &StaleFlavorError{Game: s.l.row.Name, Asked: phase, Phase: st.Phase, Title: st.Title}
		}
		slot := ""
		if to != "" {
			var err error
			if slot, err = s.l.state.Roster().Match(to); err != nil {
				return err
			}
			who = s.l.state.Roster().Display(slot)
		}
		s.ch.Flavors = append(s.ch.Flavors, store.Flavor{GameID: s.l.row.ID, Phase: phase, To: slot, Text: text, At: m.now()})
		return nil
	})
	return who, err
}

// withFlavor opens the resolution r of phase with the GM's flavor for it:
// the thread's before the update, each player's before that player's
// private results (or alone, by PM, when the resolution tells the player
// nothing privately). Read here, in the resolving step's transaction, so
// the flavor that goes out is the one saved when the phase closed.
func (s *step) withFlavor(phase, title string, r referee.Step) referee.Step {
	if s.tx == nil {
		return r
	}
	fs, err := s.tx.Flavors(s.l.row.ID, phase)
	if err != nil {
		s.fail(fmt.Errorf("flavor of phase %s: %w", phase, err))
		return r
	}
	if len(fs) == 0 {
		return r
	}
	out := append([]referee.Outgoing(nil), r.Out...)
	for _, f := range fs {
		to := f.To
		if to == "" {
			to = rules.Everyone
		}
		done := false
		for i := range out {
			if out[i].To == to {
				out[i].Text = f.Text + "\n\n" + out[i].Text
				done = true
				break
			}
		}
		if !done {
			// Alone: the thread's before everything, a player's after.
			o := referee.Outgoing{To: to, Text: f.Text}
			if to == rules.Everyone {
				out = append([]referee.Outgoing{o}, out...)
			} else {
				o.Subject = fmt.Sprintf("%s — %s", s.l.game.Name(), title)
				out = append(out, o)
			}
		}
		r.Events = append(r.Events, rules.Event{To: to, Kind: gamelog.EventGMFlavor, Text: f.Text})
	}
	r.Out = out
	return r
}

// Say queues the GM's own text: a post in the thread (to ""), or a PM to
// a player. It goes out through the outbox like the bot's own messages,
// after what is already queued, and is recorded as the GM's.
func (m *Moderator) Say(ctx context.Context, name, to, subject, text string) (string, error) {
	text = gmText(text)
	if err := CheckGMText(text); err != nil {
		return "", fmt.Errorf("say %s: %w", name, err)
	}
	var who string
	err := m.control(ctx, "say", name, func(_ *store.Tx, s *step) error {
		o := referee.Outgoing{To: rules.Everyone, Text: text}
		if to != "" {
			if err := active(s.l); err != nil {
				return err
			}
			slot, err := s.l.state.Roster().Match(to)
			if err != nil {
				return err
			}
			who = s.l.state.Roster().Display(slot)
			if subject == "" {
				subject = s.l.game.Name() + ": a note from the GM"
			}
			o = referee.Outgoing{To: slot, Subject: subject, Text: text}
		}
		phase := s.l.phase()
		if s.l.row.Status == Signups {
			phase = signup.Phase
		}
		// Across the account's games, an announcement goes with the
		// controls' (results), a note with the GM's notices to one player.
		class := store.SendResults
		if to != "" {
			class = store.SendAnswers
		}
		s.emit(class, phase, referee.Step{Events: []rules.Event{{To: o.To, Kind: gamelog.EventGMSay, Text: text}}, Out: []referee.Outgoing{o}}, m.now())
		return nil
	})
	return who, err
}

// styleView is what the game's house style may show: the thread's view.
func (s *step) styleView() gameconfig.StyleView {
	return styleViewOf(s.l.row.Name, s.l.game, s.l.state)
}

// styleViewOf is built from the game's public status and roster only: the
// phase, its title and the players' names, all in every thread post
// anyway. Nothing private is handed to a style, so no style can show it.
func styleViewOf(name string, g rules.Game, state rules.State) gameconfig.StyleView {
	st := g.Status(state)
	v := gameconfig.StyleView{Game: name, Phase: st.Phase, Title: st.Title}
	r := state.Roster()
	for _, id := range r.IDs() {
		v.Players = append(v.Players, r.Display(id))
	}
	return v
}
