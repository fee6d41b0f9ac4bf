package moderator

import (
	"context"
	"fmt"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gmwords"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/store"
)

// The GM's own words (docs/gm-words.md) as controls: flavor that opens a
// phase's update, announcements in the thread and notes by PM. Each goes
// out through the outbox like everything else the bot sends: in a step,
// with its marker, exactly once, in order with the bot's other messages.
// What the words are (checked, flavor merged into an update, the style's
// view) is package gmwords'.

// SetFlavor writes the GM's flavor for phase's update: to "" opens the
// thread's update, a player's name opens that player's private results.
// It replaces any flavor written before for the same phase and reader,
// and an empty text withdraws it. Only the phase the game is in can be
// given flavor: one that has resolved is refused (*gmwords.StaleFlavorError).
// It returns the player's name as the game knows it ("" for the thread).
func (m *Moderator) SetFlavor(ctx context.Context, name, phase, to, text string) (string, error) {
	text = gmwords.Text(text)
	if text != "" {
		if err := gmwords.Check(text); err != nil {
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
			return &gmwords.StaleFlavorError{Game: s.l.row.Name, Asked: phase, Phase: st.Phase, Title: st.Title}
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

// withFlavor opens the resolution r of phase with the GM's flavor for it
// (gmwords.Flavored). Read here, in the resolving step's transaction, so
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
	return gmwords.Flavored(r, fs, s.l.game.Name(), title)
}

// Say queues the GM's own text: a post in the thread (to ""), or a PM to
// a player. It goes out through the outbox like the bot's own messages,
// after what is already queued, and is recorded as the GM's.
func (m *Moderator) Say(ctx context.Context, name, to, subject, text string) (string, error) {
	text = gmwords.Text(text)
	if err := gmwords.Check(text); err != nil {
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
		s.emit(class, phase, referee.Step{Events: []rules.Event{{To: o.To, Kind: gmwords.EventSay, Text: text}}, Out: []referee.Outgoing{o}}, m.now())
		return nil
	})
	return who, err
}

// styleView is what the game's house style may show: the thread's view
// (gmwords.StyleView).
func (s *step) styleView() gameconfig.StyleView {
	return gmwords.StyleView(s.l.row.Name, s.l.game, s.l.state)
}
