package moderator

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// process applies every unread message in forum order, resolving a phase
// first whenever a message comes after its deadline, and at the end resolves
// whatever is due as of readAt (the read was complete up to then).
func (m *Moderator) process(ctx context.Context, l *loaded, f Forum, readAt time.Time) error {
	msgs, err := m.unread(ctx, l.row.ID)
	if err != nil {
		return fmt.Errorf("apply %s: %w", l.row.Name, err)
	}
	for _, msg := range msgs {
		if msg.Time.After(readAt) {
			// Made after the read began (a PM fetched after the thread):
			// the thread is not known complete up to it yet. Next tick.
			break
		}
		if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return m.apply(tx, l.row.ID, f, msg) }); err != nil {
			return fmt.Errorf("apply %s: %s %s: %w", l.row.Name, msg.Kind, msg.ForumID, err)
		}
		if err := m.crash("after-message"); err != nil {
			return err
		}
	}
	var s *step
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		var err error
		if s, err = m.begin(tx, l.row.ID); err != nil {
			return err
		}
		if err := settle(s, readAt); err != nil {
			return err
		}
		return m.commit(tx, s)
	})
	if err != nil {
		return fmt.Errorf("resolve %s: %w", l.row.Name, err)
	}
	m.logResolved(s)
	return nil
}

// unread is a game's messages not yet applied, in forum order by the best
// time known for each: a PM stamped only to the minute goes after the posts
// of that minute made before it was seen.
func (m *Moderator) unread(ctx context.Context, id int64) ([]store.Message, error) {
	var msgs []store.Message
	if err := m.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		msgs, err = tx.MessagesByStatus(id, store.MessageNew)
		return err
	}); err != nil {
		return nil, err
	}
	for i := range msgs {
		msgs[i].Time = effectiveTime(msgs[i])
	}
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].Time.Before(msgs[j].Time) })
	return msgs, nil
}

// effectiveTime is when a message was made, as well as the forum tells it.
// Some boards show PM times only to the minute (phpBB's PM page has no
// machine-readable time): such a PM was made somewhere in that minute, and
// no later than the bot first saw it.
func effectiveTime(msg store.Message) time.Time {
	t := msg.Time
	if msg.Kind != "pm" || t.Second() != 0 || t.Nanosecond() != 0 {
		return t
	}
	latest := t.Add(time.Minute - time.Second)
	if !msg.FirstSeen.IsZero() && msg.FirstSeen.Before(latest) {
		latest = msg.FirstSeen
	}
	if latest.Before(t) {
		return t
	}
	return latest
}

// apply reads one message's commands and applies them: load, compute,
// save once.
func (m *Moderator) apply(tx *store.Tx, id int64, f Forum, msg store.Message) error {
	s, err := m.begin(tx, id) // locks the game: one applier at a time
	if err != nil {
		return err
	}
	if cur, err := tx.Message(msg.ID); err != nil || cur.Status != store.MessageNew {
		return err // already applied (by another process) or gone
	}
	applied, err := applyMessage(s, f, msg)
	if err != nil {
		return err
	}
	if err := m.commit(tx, s); err != nil {
		return err
	}
	if applied {
		// A crash after the commands are written, before the transaction
		// ends, must undo them with everything else of the step.
		if err := m.crash("in-apply"); err != nil {
			return err
		}
	}
	m.logResolved(s)
	return nil
}

// applyMessage computes what one message does to the game. It reports
// whether the message's commands were applied (not ignored, not late).
func applyMessage(s *step, f Forum, msg store.Message) (bool, error) {
	l := s.l
	if l.row.Status == Running {
		if err := settle(s, msg.Time); err != nil {
			return false, err
		}
	}
	slot, isPlayer := l.state.Roster().Author(msg.AuthorName)
	if !isPlayer || !l.active() || strings.EqualFold(msg.AuthorName, l.forum.Bot) {
		s.setMessage(msg.ID, store.MessageIgnored)
		return false, nil
	}
	if msg.AuthorID != "" {
		s.learnID(slot, msg.AuthorID)
	}
	if before(msg.Time, l.cfg.Start) {
		// Made before the game began (sign-up chatter in the thread, an old
		// PM): kept in the audit log, never read as a command.
		s.setMessage(msg.ID, store.MessageIgnored)
		return false, nil
	}
	ch := channelOf(msg.Kind)
	segs := f.Lines(msg.BodyHTML)
	if ch == rules.Public {
		segs = f.Segments(msg.BodyHTML)
	}
	src := rules.Source{Player: slot, Channel: ch, Time: msg.Time, Ref: msg.ForumID}
	phase := l.phase()
	if before(msg.Time, s.opened) {
		// Read only after its phase closed (a forum clock behind ours): it
		// cannot count for a phase already resolved; the player is told.
		r := referee.Late(l.game, l.state, src, segs, "arrived after its phase had closed")
		s.outcomes(msg, slot, phase, r)
		s.emit(phase, r, msg.Time)
		s.setMessage(msg.ID, store.MessageProcessed)
		return false, nil
	}
	r := referee.Message(l.game, l.state, src, segs)
	l.state = r.State
	s.outcomes(msg, slot, phase, r)
	s.emit(phase, r, msg.Time)
	// "Everyone has acted" closes a phase at once.
	if l.row.Status == Running {
		if err := settle(s, msg.Time); err != nil {
			return false, err
		}
	}
	s.setMessage(msg.ID, store.MessageProcessed)
	return true, nil
}

// outcomes records what became of each segment of a message; an accepted
// command also goes into the journal, from which the state is rebuilt.
func (s *step) outcomes(msg store.Message, slot, phase string, r referee.Step) {
	for _, o := range r.Outcomes {
		row := store.CommandRow{GameID: s.l.row.ID, MessageID: msg.ID, Seq: o.Seq, Phase: phase, Player: slot,
			Channel: string(channelOf(msg.Kind)), Text: o.Text, Status: commandStatus(o.Status), Reason: o.Reason, Time: msg.Time}
		if o.Cmd != nil {
			row.Kind, row.Args = o.Cmd.Kind, o.Cmd.Args
		}
		s.ch.Commands = append(s.ch.Commands, row)
		if o.Status == referee.Accepted {
			s.ch.Journal = append(s.ch.Journal, store.JournalWrite{
				Entry:      store.JournalEntry{GameID: s.l.row.ID, Kind: "command", Time: msg.Time, Payload: mustJSON(o.Cmd)},
				ForCommand: len(s.ch.Commands),
			})
		}
	}
}

// commandStatus is how a referee's verdict is kept in the audit log.
func commandStatus(v referee.Verdict) store.CommandStatus {
	switch v {
	case referee.Accepted:
		return store.CommandAccepted
	case referee.Rejected:
		return store.CommandRejected
	default:
		return store.CommandIgnored
	}
}
