package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// GM controls. Each is one step on the locked game row, so it never races
// a running daemon; the daemon sends whatever they queue.

// control runs a GM command as a step: load the game, let fn compute the
// change (fn may read more through tx, never write), save it once.
func (m *Moderator) control(ctx context.Context, what, name string, fn func(tx *store.Tx, s *step) error) error {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, name, err)
	}
	s, err := m.runStep(ctx, l, fn)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, name, err)
	}
	m.logResolved(s)
	return nil
}

func active(l *loaded) error {
	if l.row.Status == Signups {
		return fmt.Errorf("game %s is taking sign-ups and has no players yet ('forumgm signups %s' shows them; 'close' starts the game)", l.row.Name, l.row.Name)
	}
	if !l.active() {
		return fmt.Errorf("game %s is %s", l.row.Name, l.row.Status)
	}
	return nil
}

// announce queues a thread post telling the players what the GM did: every
// control that changes the game is said in the thread, once (the outbox and
// its marker see to that), in the same step as the change.
func (m *Moderator) announce(s *step, text string) {
	s.emit(store.SendResults, s.l.phase(), referee.Step{Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, m.now())
}

// deadlineLine is the current phase's deadline as phase posts state it.
func (m *Moderator) deadlineLine(s *step) string {
	dl := s.l.game.Status(s.l.state).Deadline
	if dl.IsZero() {
		return ""
	}
	return "\n\n" + rules.Deadline(dl, s.l.zone(), m.now())
}

// setDeadline moves the current deadline to t, rounded up to the board's
// unit (a whole minute where stamps are to the minute), and returns it.
func (m *Moderator) setDeadline(s *step, t time.Time) time.Time {
	t = forum.DeadlineOn(t, s.l.deadlineUnit())
	s.l.state = s.l.game.SetDeadline(s.l.state, t)
	s.journal(m.now(), journal.Deadline{Deadline: t})
	return t
}

// Extend moves the current phase's deadline by d (negative brings it closer).
func (m *Moderator) Extend(ctx context.Context, name string, d time.Duration) (time.Time, error) {
	var nd time.Time
	err := m.control(ctx, "extend", name, func(_ *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		dl := s.l.game.Status(s.l.state).Deadline
		if dl.IsZero() {
			dl = m.now()
		}
		nd = dl.Add(d)
		if nd.Before(m.now()) {
			return fmt.Errorf("that puts the deadline in the past (%s); use resolve-now to close the phase now", rules.When(nd, s.l.zone()))
		}
		nd = m.setDeadline(s, nd)
		verb := "extended"
		if d < 0 {
			verb = "brought forward"
		}
		m.announce(s, fmt.Sprintf("[b]The GM has %s the deadline[/b] of %s.%s", verb, rules.Esc(s.l.game.Status(s.l.state).Title), m.deadlineLine(s)))
		return nil
	})
	return nd, err
}

// ResolveNow closes the current phase at once, whatever it is by then
// (ResolvePhase names the phase). It returns when the update goes out if
// the game holds it back (Nations posts a round's report when the next
// round opens), zero if at once.
func (m *Moderator) ResolveNow(ctx context.Context, name string) (time.Time, error) {
	return m.ResolvePhase(ctx, name, "")
}

// ResolvePhase is ResolveNow for the phase the GM saw: refused with a
// *StalePhaseError, resolving nothing, once the game has left phase (""
// resolves whatever phase is current).
func (m *Moderator) ResolvePhase(ctx context.Context, name, phase string) (time.Time, error) {
	var held time.Time
	err := m.control(ctx, "resolve-now", name, func(tx *store.Tx, s *step) error {
		if err := m.resolveNow(s, phase); err != nil {
			return err
		}
		un, err := tx.Unsent(s.l.row.ID)
		if err != nil {
			return err
		}
		for _, it := range append(un, s.ch.Outbox...) {
			if it.Kind == forum.KindPost && it.NotBefore.After(held) {
				held = it.NotBefore
			}
		}
		return nil
	})
	return held, err
}

// Pause stops the clock: commands are still read and applied, but no
// deadline passes until Resume, which moves the deadline by the pause.
func (m *Moderator) Pause(ctx context.Context, name string) error {
	return m.control(ctx, "pause", name, func(_ *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		if s.l.row.Status != Running {
			return fmt.Errorf("game %s is %s, not running", name, s.l.row.Status)
		}
		s.l.row.Status, s.l.row.PausedAt = Paused, m.now()
		m.announce(s, "[b]The GM has paused the game.[/b] The deadline is on hold until the game resumes; orders sent meanwhile still count.")
		return nil
	})
}

// Resume restarts a paused game.
func (m *Moderator) Resume(ctx context.Context, name string) error {
	return m.control(ctx, "resume", name, func(_ *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		if s.l.row.Status != Paused {
			return fmt.Errorf("game %s is %s, not paused", name, s.l.row.Status)
		}
		paused := m.now().Sub(s.l.row.PausedAt)
		s.l.row.Status, s.l.row.PausedAt = Running, time.Time{}
		if dl := s.l.game.Status(s.l.state).Deadline; !dl.IsZero() && paused > 0 {
			m.setDeadline(s, dl.Add(paused))
		}
		m.announce(s, "[b]The GM has resumed the game.[/b]"+m.deadlineLine(s))
		return nil
	})
}

// Replace gives a player's slot to a new forum account; the old name still
// matches in commands. The account must exist on the board (looked up there
// first: its name as the board writes it, and its user id, which forumID,
// when given, must agree with) and must not share a name with another
// player (rules.Roster.Replace). The thread is told, and the new account gets
// by PM everything the game told the slot privately (role, hand, results),
// so it plays on knowing what its predecessor knew.
//
// It returns the slot's sign-up name and the account that left it.
func (m *Moderator) Replace(ctx context.Context, name, old, newName, forumID string) (slot, left string, err error) {
	acct, err := m.member(ctx, name, old, newName, forumID)
	if err != nil {
		return "", "", fmt.Errorf("replace %s: %w", name, err)
	}
	newName, forumID = acct.Name, acct.ID
	err = m.control(ctx, "replace", name, func(tx *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		var err error
		slot, err = s.l.state.Roster().Match(old)
		if err != nil {
			return err
		}
		left = s.l.state.Roster().Display(slot)
		for _, p := range s.players {
			// Two slots on one account: one player's role PM would reach the other.
			if forumID != "" && p.Slot != slot && p.ForumUserID == forumID {
				return fmt.Errorf("forum user id %s is already %s's", forumID, p.ForumName)
			}
		}
		st := rules.Clone(s.l.game, s.l.state)
		if err := st.Roster().Replace(old, newName); err != nil {
			return err
		}
		s.l.state = st
		s.journal(m.now(), journal.Replace{Old: old, New: newName})
		for i := range s.players {
			if p := &s.players[i]; p.Slot == slot {
				p.Aliases = append(p.Aliases, p.ForumName)
				p.ForumName, p.ForumUserID = newName, forumID
				s.playersChanged = true
			}
		}
		s.ch.Retarget = &store.Retarget{GameID: s.l.row.ID, Slot: slot, Name: newName, ForumID: forumID}
		m.announce(s, fmt.Sprintf("[b]%s replaces %s[/b] in the game, from now on.", rules.Esc(newName), rules.Esc(left))+m.replacementTime(s, newName))
		evs, err := tx.Events(s.l.row.ID)
		if err != nil {
			return err
		}
		if brief := handover(evs, slot, left, m.now()); brief != "" {
			s.emit(store.SendAnswers, s.l.phase(), referee.Step{Out: []referee.Outgoing{{To: slot, Subject: s.l.game.Name() + ": your place in the game", Text: brief}}}, m.now())
		}
		return nil
	})
	return slot, left, err
}

// member looks the new account up on the board of game name, once what can
// be told without the board (the old player, the name clash) is fine.
func (m *Moderator) member(ctx context.Context, name, old, newName, forumID string) (forum.Author, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return forum.Author{}, err
	}
	if err := active(l); err != nil {
		return forum.Author{}, err
	}
	if err := rules.Clone(l.game, l.state).Roster().Replace(old, newName); err != nil {
		return forum.Author{}, err
	}
	f, err := m.conn(ctx, l)
	if err != nil {
		return forum.Author{}, fmt.Errorf("connecting to the forum to look %s up: %w", newName, err)
	}
	a, found, err := f.Member(ctx, newName)
	if err != nil {
		return a, err
	}
	if !found {
		return a, fmt.Errorf("the board has no account named %q (check the spelling on its member list)", newName)
	}
	switch {
	case forumID == "":
	case a.ID == "":
		a.ID = forumID
	case a.ID != forumID:
		return a, fmt.Errorf("the board's account %q has user id %s, not %s", a.Name, a.ID, forumID)
	}
	return a, nil
}

// handover is the PM a replacement gets: every private message the game sent
// the slot so far, in order (nothing: the slot was told nothing privately).
// Messages still held back (NotBefore after now) are left out: they go to
// the new account anyway when their time comes.
func handover(evs []store.EventRow, slot, left string, now time.Time) string {
	var texts []string
	for _, e := range evs {
		if e.To == slot && e.Text != "" && !e.NotBefore.After(now) {
			texts = append(texts, e.Text)
		}
	}
	if len(texts) == 0 {
		return ""
	}
	return fmt.Sprintf("You take over %s's place in the game. What the game has told %s privately so far, oldest first:\n\n%s",
		rules.Esc(left), rules.Esc(left), strings.Join(texts, "\n\n"))
}

// Void cancels an accepted command of the current phase and recomputes the
// state without it.
func (m *Moderator) Void(ctx context.Context, name string, commandID int64, reason string) error {
	return m.control(ctx, "void", name, func(tx *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		c, err := tx.Command(commandID)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("game %s has no command %d (the ids are in 'forumgm audit %s')", name, commandID, name)
		}
		if err != nil {
			return err
		}
		if c.GameID != s.l.row.ID {
			return fmt.Errorf("command %d is not from game %s", commandID, name)
		}
		if c.Status != store.CommandAccepted {
			return fmt.Errorf("command %d is %s, not accepted", commandID, c.Status)
		}
		if ph := s.l.phase(); c.Phase != ph {
			return fmt.Errorf("command %d belongs to phase %s, which has closed (now %s)", commandID, c.Phase, ph)
		}
		if reason == "" {
			reason = "voided by the GM"
		}
		s.ch.CommandStatuses = append(s.ch.CommandStatuses, store.CommandStatusChange{ID: c.ID, Status: store.CommandVoided, Reason: reason})
		if err := rebuild(tx, s, map[int64]bool{c.ID: true}); err != nil {
			return err
		}
		m.announce(s, voidText(s.l.state.Roster().Name(c.Player), c))
		return nil
	})
}

// End closes the game at the GM's word: final standings and reveals go out.
func (m *Moderator) End(ctx context.Context, name string) error {
	return m.control(ctx, "end", name, func(_ *store.Tx, s *step) error {
		if s.l.row.Status == Signups {
			m.cancelSignups(s) // a game that never started: cancelled
			return nil
		}
		if err := active(s.l); err != nil {
			return err
		}
		phase, title := s.l.phase(), s.l.game.Status(s.l.state).Title
		now := m.now()
		r := referee.End(s.l.game, s.l.state, now)
		s.l.state = r.State
		s.l.row.Status = Ended
		s.journal(now, journal.End{})
		s.closings = append(s.closings, between.Closed{Phase: phase, Title: title})
		s.emit(store.SendResults, phase, r, now)
		return nil
	})
}

// voidText announces a voided command. The GM's reason is for the audit log
// only, and an order sent by PM is not quoted: it may be secret.
func voidText(player string, c *store.CommandRow) string {
	if c.Channel == string(rules.Public) {
		return fmt.Sprintf("[b]The GM has voided[/b] %s's command “%s”: it no longer counts.", player, rules.Esc(c.Text))
	}
	return fmt.Sprintf("[b]The GM has voided[/b] an order %s sent by PM: it no longer counts.", player)
}
