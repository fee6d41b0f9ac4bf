package moderator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// GM controls. Each is one transaction on the locked game row, so it never
// races a running daemon; the daemon sends whatever they queue.

func (m *Moderator) control(ctx context.Context, name string, fn func(tx *store.Tx, l *loaded) error) error {
	return m.DB.Tx(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return fmt.Errorf("game %q: %w", name, err)
		}
		l, err := load(tx, g.ID)
		if err != nil {
			return err
		}
		if err := fn(tx, l); err != nil {
			return err
		}
		return l.save(tx)
	})
}

func active(l *loaded) error {
	if l.row.Status != Running && l.row.Status != Paused {
		return fmt.Errorf("game %s is %s", l.row.Name, l.row.Status)
	}
	return nil
}

func (m *Moderator) setDeadline(tx *store.Tx, l *loaded, t time.Time) error {
	l.state = l.game.SetDeadline(l.state, t)
	return tx.AppendJournal(&store.JournalEntry{GameID: l.row.ID, Kind: "deadline", Time: m.now(), Payload: mustJSON(map[string]time.Time{"deadline": t})})
}

// Extend moves the current phase's deadline by d (negative brings it closer).
func (m *Moderator) Extend(ctx context.Context, name string, d time.Duration) (time.Time, error) {
	var nd time.Time
	err := m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if err := active(l); err != nil {
			return err
		}
		dl := l.game.Status(l.state).Deadline
		if dl.IsZero() {
			dl = m.now()
		}
		nd = dl.Add(d)
		if nd.Before(m.now()) {
			return fmt.Errorf("that puts the deadline in the past (%s); use resolve-now to close the phase now", nd.Format(time.RFC1123))
		}
		return m.setDeadline(tx, l, nd)
	})
	return nd, err
}

// ResolveNow closes the current phase at once. It returns when the update
// goes out if the game holds it back (Nations posts a round's report when the
// next round opens), zero if at once.
func (m *Moderator) ResolveNow(ctx context.Context, name string) (time.Time, error) {
	var held time.Time
	err := m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if err := active(l); err != nil {
			return err
		}
		if l.game.Status(l.state).Finished {
			return fmt.Errorf("game %s is over", name)
		}
		if l.row.Status == Paused {
			l.row.PausedAt = m.now() // the new phase's clock stops from here
		}
		if err := m.resolve(tx, l, m.now()); err != nil {
			return err
		}
		un, err := tx.Unsent(l.row.ID)
		for _, it := range un {
			if it.Kind == "post" && it.NotBefore.After(held) {
				held = it.NotBefore
			}
		}
		return err
	})
	return held, err
}

// Pause stops the clock: commands are still read and applied, but no
// deadline passes until Resume, which moves the deadline by the pause.
func (m *Moderator) Pause(ctx context.Context, name string) error {
	return m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if l.row.Status != Running {
			return fmt.Errorf("game %s is %s, not running", name, l.row.Status)
		}
		l.row.Status, l.row.PausedAt = Paused, m.now()
		return nil
	})
}

// Resume restarts a paused game.
func (m *Moderator) Resume(ctx context.Context, name string) error {
	return m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if l.row.Status != Paused {
			return fmt.Errorf("game %s is %s, not paused", name, l.row.Status)
		}
		paused := m.now().Sub(l.row.PausedAt)
		l.row.Status, l.row.PausedAt = Running, time.Time{}
		if dl := l.game.Status(l.state).Deadline; !dl.IsZero() && paused > 0 {
			return m.setDeadline(tx, l, dl.Add(paused))
		}
		return nil
	})
}

// Replace gives a player's slot to a new forum account; the old name still
// matches in commands. forumID may be "" (learnt when they first post).
//
// It returns the slot's sign-up name and the account that left it.
func (m *Moderator) Replace(ctx context.Context, name, old, newName, forumID string) (slot, left string, err error) {
	err = m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if err := active(l); err != nil {
			return err
		}
		var err error
		slot, err = l.state.Roster().Match(old)
		if err != nil {
			return err
		}
		left = l.state.Roster().Display(slot)
		s := rules.Clone(l.game, l.state)
		if err := s.Roster().Replace(old, newName); err != nil {
			return err
		}
		l.state = s
		if err := tx.AppendJournal(&store.JournalEntry{GameID: l.row.ID, Kind: "replace", Time: m.now(), Payload: mustJSON(map[string]string{"Old": old, "New": newName})}); err != nil {
			return err
		}
		ps, err := tx.Players(l.row.ID)
		if err != nil {
			return err
		}
		for i := range ps {
			if ps[i].Slot == slot {
				ps[i].Aliases = append(ps[i].Aliases, ps[i].ForumName)
				ps[i].ForumName, ps[i].ForumUserID = newName, forumID
			}
		}
		if err := tx.SetPlayers(l.row.ID, ps); err != nil {
			return err
		}
		return tx.RetargetOutbox(l.row.ID, slot, newName, forumID)
	})
	return slot, left, err
}

// Void cancels an accepted command of the current phase and recomputes the
// state without it.
func (m *Moderator) Void(ctx context.Context, name string, commandID int64, reason string) error {
	return m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if err := active(l); err != nil {
			return err
		}
		c, err := tx.Command(commandID)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("game %s has no command %d (the ids are in 'forumgm audit %s')", name, commandID, name)
		}
		if err != nil {
			return err
		}
		if c.GameID != l.row.ID {
			return fmt.Errorf("command %d is not from game %s", commandID, name)
		}
		if c.Status != "accepted" {
			return fmt.Errorf("command %d is %s, not accepted", commandID, c.Status)
		}
		if ph := l.game.Status(l.state).Phase; c.Phase != ph {
			return fmt.Errorf("command %d belongs to phase %s, which has closed (now %s)", commandID, c.Phase, ph)
		}
		if reason == "" {
			reason = "voided by the GM"
		}
		if err := tx.SetCommandStatus(c.ID, "voided", reason); err != nil {
			return err
		}
		if err := tx.VoidJournalForCommand(c.ID); err != nil {
			return err
		}
		return m.rebuild(tx, l)
	})
}

// End closes the game at the GM's word: final standings and reveals go out.
func (m *Moderator) End(ctx context.Context, name string) error {
	return m.control(ctx, name, func(tx *store.Tx, l *loaded) error {
		if err := active(l); err != nil {
			return err
		}
		phase := l.game.Status(l.state).Phase
		now := m.now()
		step := referee.End(l.game, l.state, now)
		l.state = step.State
		l.row.Status = Ended
		if err := tx.AppendJournal(&store.JournalEntry{GameID: l.row.ID, Kind: "end", Time: now}); err != nil {
			return err
		}
		return m.emit(tx, l, phase, step, now)
	})
}
