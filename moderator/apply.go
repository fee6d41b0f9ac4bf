package moderator

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// process applies every unread message in forum order, resolving a phase
// first whenever a message comes after its deadline, and at the end resolves
// whatever is due as of readAt (the read was complete up to then).
func (m *Moderator) process(ctx context.Context, l *loaded, readAt time.Time) error {
	if l.behind && l.readTo.Before(readAt) {
		// A backfill under way: the thread is known only up to its last
		// recorded post, so nothing later is applied or resolved yet.
		readAt = l.readTo
	}
	settleAt := l.settleTime(readAt) // the PMs may be known to an earlier time
	var msgs []store.Message
	if l.unreadKnown && !l.news {
		// The read recorded nothing new: the unread are the view's.
		msgs = orderMessages(l.unread)
	} else {
		var err error
		if msgs, err = m.unread(ctx, l.row.ID); err != nil {
			return fmt.Errorf("apply %s: %w", l.row.Name, err)
		}
	}
	if len(msgs) > 0 && l.inbox != nil {
		// The read is recorded before anything it read is applied.
		s, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error { return m.recordPending(tx, s, l) })
		if err != nil {
			return storeError{fmt.Errorf("read %s: recording: %w", l.row.Name, err)}
		}
		m.noteHealth(l.row.ID, s)
	}
	for len(msgs) > 0 {
		n := 0
		for n < len(msgs) && n < applyBatch && msgs[n].Stamp.After(readAt) != forum.Yes {
			n++
		}
		if n == 0 {
			// Stamped after the read began (a board clock ahead of ours):
			// what was made before it is not known complete yet. Next tick.
			break
		}
		batch := msgs[:n]
		held := false
		if err := m.DB.Tx(ctx, func(tx *store.Tx) (err error) { held, err = m.apply(tx, l, batch); return err }); err != nil {
			return fmt.Errorf("apply %s: %s %s…: %w", l.row.Name, batch[0].Kind, batch[0].ForumID, err)
		}
		if err := m.crash("after-message"); err != nil {
			return err
		}
		if held {
			break // the rest waits for the PM inbox (inbox.go)
		}
		if n < len(msgs) && n < applyBatch {
			break // the next one is stamped after the read began
		}
		msgs = msgs[n:]
	}
	pending := l.inbox != nil
	var end tickEnd
	s, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error {
		if err := m.recordPending(tx, s, l); err != nil {
			return err
		}
		waiting, err := s.clockStopped()
		if err != nil {
			return err
		}
		if !waiting {
			if err := settle(s, settleAt); err != nil {
				return err
			}
		}
		if err := m.between(s, readAt); err != nil {
			return err
		}
		h, err := s.health(tx)
		if err != nil {
			return err
		}
		next, err := tx.NextOutbox(l.row.ID, never)
		if err != nil {
			return err
		}
		// Sent items still to be confirmed (confirmLater) are the
		// sender's work too.
		confirm, err := tx.HasToConfirm(l.row.ID)
		end = tickEnd{failing: h.Failing(), unsent: next != nil || len(s.ch.Outbox) > 0 || confirm, opening: awaitingOpening(s.l)}
		return err
	})
	if err != nil {
		return fmt.Errorf("resolve %s: %w", l.row.Name, err)
	}
	end.status, end.deadline = s.l.row.Status, s.l.row.Deadline
	l.end = &end
	if pending {
		m.noteHealth(l.row.ID, s)
	}
	m.logResolved(s)
	m.notePolled(l.row.ID, m.now(), s.l.row.Deadline, l.news)
	return nil
}

// never is a time after any outbox item's NotBefore.
var never = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// unread is a game's messages not yet applied, in the order they are
// applied in (orderMessages).
func (m *Moderator) unread(ctx context.Context, id int64) ([]store.Message, error) {
	var msgs []store.Message
	if err := m.DB.View(ctx, func(tx *store.Tx) error {
		var err error
		msgs, err = tx.MessagesByStatus(id, store.MessageNew)
		return err
	}); err != nil {
		return nil, err
	}
	return orderMessages(msgs), nil
}

// applyBatch bounds the messages applied in one transaction. Loading and
// saving a game's step costs as much as its state is long, so a step per
// message made a long backfill's apply cost grow with the game; a batch
// shares one load and one save and stays a bounded transaction.
const applyBatch = 50

// apply reads the commands of a run of messages (in forum order) and
// applies them: load, compute, save once. held says it stopped at a message
// that waits for the PM inbox (waitsForInbox), the rest left unread.
func (m *Moderator) apply(tx *store.Tx, l *loaded, msgs []store.Message) (held bool, err error) {
	s, err := m.begin(tx, l) // locks the game: one applier at a time
	if err != nil {
		return false, err
	}
	applied := false
	for _, msg := range msgs {
		cur, err := tx.Message(msg.ID)
		if err != nil {
			return false, err
		}
		if cur.Status != store.MessageNew {
			continue // already applied (by another process)
		}
		if l.inboxDown && waitsForInbox(s, msg, l.pmsTo) {
			held = true
			break
		}
		ok, err := applyMessage(s, msg)
		if err != nil {
			return false, fmt.Errorf("%s %s: %w", msg.Kind, msg.ForumID, err)
		}
		applied = applied || ok
	}
	if err := m.commit(tx, s); err != nil {
		return false, err
	}
	if applied {
		// A crash after the commands are written, before the transaction
		// ends, must undo them with everything else of the step.
		if err := m.crash("in-apply"); err != nil {
			return false, err
		}
	}
	m.logResolved(s)
	return held, nil
}

// applyMessage computes what one message does to the game. It reports
// whether the message's commands were applied (not ignored, not late).
func applyMessage(s *step, msg store.Message) (bool, error) {
	l := s.l
	stamp := msg.Stamp
	stopped, err := s.clockStopped()
	if err != nil {
		return false, err
	}
	if l.row.Status == Running && stamp.Known() && !stopped {
		// Surely made after a deadline: that phase closes first. (Not
		// while the opening post is on its way: a deadline of the
		// creation's clock is none. A CI run's NodeBB Nations game,
		// its post held up by a restart, closed two rounds at the first
		// player's chat, then took every order as late.)
		if err := settleBefore(s, stamp); err != nil {
			return false, err
		}
	}
	slot, isPlayer := l.state.Roster().Author(msg.AuthorName)
	if !isPlayer || !l.active() || strings.EqualFold(msg.AuthorName, l.forum.Bot) {
		if !isPlayer && s.late(msg) {
			return false, nil // an /in after sign-ups closed: refused, with the reason
		}
		s.setMessage(msg.ID, store.MessageIgnored)
		return false, nil
	}
	if msg.AuthorID != "" {
		s.learnID(slot, msg.AuthorID)
	}
	ch := channelOf(msg.Kind)
	segs := commandsOf(l, msg)
	src := rules.Source{Player: slot, Channel: ch, Time: stamp.Earliest, Ref: msg.ForumID}
	phase := l.phase()
	if forum.IsUnreadable(msg.BodyHTML) && beforeGame(l, msg) == "" {
		// Nothing in it can be read: the player is told to send it again.
		refuseUnreadable(s, msg, slot, phase)
		return false, nil
	}
	if !stamp.Known() {
		// Never a silent drop: in the audit log with the reason, the player
		// told, the GM's log has it as an error.
		reason := stamp.UnreadableReason()
		s.warn("a message's time could not be read; its commands were not applied", "kind", msg.Kind, "id", msg.ForumID, "player", slot, "time", stamp.Text, "err", stamp.Err)
		s.refuse(msg, slot, phase, referee.Late(l.game, l.state, src, segs, reason), reason, store.CommandRejected)
		return false, nil
	}
	if why := beforeGame(l, msg); why != "" {
		// Sign-up chatter, an old PM in the bot's inbox: kept in the audit
		// log with the reason, never read as a command, nobody messaged.
		r := referee.Late(l.game, l.state, src, segs, why)
		r.Out = nil
		for i := range r.Outcomes {
			r.Outcomes[i].Status = referee.Ignored
		}
		s.refuse(msg, slot, phase, r, why, store.CommandIgnored)
		return false, nil
	}
	if s.closed != "" && stamp.Before(s.opened) == forum.Yes {
		// Surely made before the current phase opened, yet read only after
		// the phase it was made in closed (a board clock behind ours, a
		// PM that reached the bot late, the GM's resolve-now): it cannot
		// count for a closed phase; the player is told.
		reason := fmt.Sprintf("arrived after %s had closed (%s): it was made before then but reached the bot only after, so it cannot count", s.closed, when(s.opened))
		s.refuse(msg, slot, phase, referee.Late(l.game, l.state, src, segs, reason), reason, store.CommandRejected)
		return false, nil
	}
	if ch == rules.Public {
		segs = s.countRequests(msg, slot, phase, segs)
	}
	r := referee.Message(l.game, l.state, src, segs)
	l.state = r.State
	s.outcomes(msg, slot, phase, r)
	s.emit(store.SendAnswers, phase, r, msg.Time)
	// "Everyone has acted" closes the phase at this message (once the
	// game's clock runs: its results must not pass its opening post).
	if l.row.Status == Running && !stopped {
		if err := settleAfter(s, stamp.Earliest); err != nil {
			return false, err
		}
	}
	s.setMessage(msg.ID, store.MessageProcessed)
	return true, nil
}

// commandsOf are a message's commands: as recorded with it when the read
// took them from the page, else read from its stored body (rows from
// before they were recorded, text appended to a merged post).
func commandsOf(l *loaded, msg store.Message) []string {
	switch {
	case msg.CommandsRead:
		return msg.Commands
	case channelOf(msg.Kind) == rules.Public:
		return l.site.Reader.Segments(msg.BodyHTML)
	default:
		return l.site.Reader.Lines(msg.BodyHTML)
	}
}

// beforeGame says why a message was made before the game began ("" when it
// was not). A thread post is in the game when it follows the opening post
// (a larger post id), whatever minute its stamp shows; before the opening
// post is known, and for PMs, only a stamp surely before the start keeps a
// message out.
func beforeGame(l *loaded, msg store.Message) string {
	open := l.cfg.OpeningPost
	if msg.Kind == forum.KindPost && open != "" {
		if o, _, ok1 := postKey(open); ok1 {
			if n, _, ok2 := postKey(msg.ForumID); ok2 {
				if n < o {
					return "made before the game began (before the opening post)"
				}
				return ""
			}
		}
	}
	if msg.Stamp.Before(l.cfg.Start) == forum.Yes {
		return fmt.Sprintf("made before the game began (%s)", when(l.cfg.Start))
	}
	return ""
}

// refuse records a message none of whose commands count: every segment
// with the reason (one row for the whole message when it has none, so the
// audit log always says why), and the notice to the player if any.
func (s *step) refuse(msg store.Message, slot, phase string, r referee.Step, reason string, status store.CommandStatus) {
	if len(r.Outcomes) == 0 {
		s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: s.l.row.ID, MessageID: msg.ID, Phase: phase, Player: slot,
			Channel: string(channelOf(msg.Kind)), Text: "(the whole " + msg.Kind.Name() + ")", Status: status, Reason: reason, Time: msg.Time})
	}
	s.outcomes(msg, slot, phase, r)
	s.emit(store.SendAnswers, phase, r, msg.Time)
	s.setMessage(msg.ID, store.MessageProcessed)
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
				Entry:      journal.New(s.l.row.ID, msg.Time, journal.Command{Command: *o.Cmd}),
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
