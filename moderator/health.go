package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Forum health and the outage policy (README "When the board cannot be
// read", moderator/RULINGS.md).
//
// Every read that fails is recorded (store.Health: since when, how many,
// the error as a GM reads it, the next try); the read that succeeds again
// clears that and, when the failures were an outage, records the outage in
// the same transaction as the read. The first step that would resolve a
// phase whose deadline came at or after the outage began moves that
// deadline on instead, by as long as the outage overlapped the phase, and
// posts why: the state change, the post and clearing the outage are one
// transaction, so each outage extends one deadline once, across crashes.

// minOutage is the least time reads must have failed to count as an
// outage (and more than one poll, and two reads or more): a single failed
// read, retried at the next poll, is a blip players never notice.
const minOutage = time.Minute

// readFailed records a failed read (or connection) begun at at.
func (m *Moderator) readFailed(ctx context.Context, l *loaded, at time.Time, err error) {
	m.setHealthy(l.row.ID, false)
	if ctx.Err() != nil || errors.Is(err, ErrCrash) || errors.As(err, new(storeError)) {
		return // stopping, a test's simulated crash, the database: not the board's fault
	}
	herr := m.DB.Tx(ctx, func(tx *store.Tx) error {
		h, err2 := tx.Health(l.row.ID)
		if err2 != nil {
			return err2
		}
		if !h.Failing() {
			h.FailingSince, h.Failures = at, 0
		}
		h.Failures++
		h.LastFailure, h.LastError = at, healthMessage(err)
		// The worker's first wait after a failure is a poll; it records
		// the exact time once it has chosen it (noteNextRead).
		h.NextRetry = at.Add(l.forum.Poll())
		return tx.SaveHealth(h)
	})
	if herr != nil && ctx.Err() == nil {
		m.log().Warn("forum health not recorded", "game", l.row.Name, "err", herr)
	}
}

// noteNextRead records when the worker will read a failing game again.
func (m *Moderator) noteNextRead(ctx context.Context, id int64, t time.Time) {
	m.DB.Tx(ctx, func(tx *store.Tx) error {
		h, err := tx.Health(id)
		if err != nil || !h.Failing() {
			return err
		}
		h.NextRetry = t
		return tx.SaveHealth(h)
	})
}

// storeError is a read that reached the board but could not be recorded:
// the database's trouble, not the board's.
type storeError struct{ error }

func (e storeError) Unwrap() error { return e.error }

// readOK records in the read's own step that the read begun at readAt
// succeeded, and the outage it ended if there was one (and the game
// extends deadlines for outages).
func (m *Moderator) readOK(tx *store.Tx, s *step, readAt time.Time) error {
	h, err := s.health(tx)
	if err != nil {
		return err
	}
	if h.Failing() {
		if from, to, ok := outageOf(h, readAt, s.l.forum.Poll()); ok {
			m.log().Warn("the board can be read again after an outage", "game", s.l.row.Name, "from", when(from), "to", when(to))
			if s.l.forum.ExtendsForOutages() {
				if h.Outage() && h.OutageFrom.Before(from) {
					from = h.OutageFrom // one not acted on yet: the two are one
				}
				h.OutageFrom, h.OutageTo = from, to
			}
		} else {
			m.log().Info("the board can be read again", "game", s.l.row.Name, "failed_reads", h.Failures)
		}
	}
	h.LastGoodRead = readAt
	h.LastError, h.FailingSince, h.Failures, h.LastFailure, h.NextRetry = "", time.Time{}, 0, time.Time{}, time.Time{}
	s.ch.Health = &h
	return nil
}

// outageOf is the outage a run of failed reads ended by a good read at
// readAt amounts to: from the first failed read to the good one. When the
// good read came well after the retry the bot had planned, the bot itself
// was stopped in between: what the board did then is not known, so the
// outage ends at the last failed read. ok is false for a blip: it takes
// failed reads at least a minute apart to count. The wait from the last
// failed read to the good one is the backoff's (up to a minute), and the
// board came back somewhere in it: a 35 s closure read at +31 s and next
// at +63 s is a blip, not a 63 s outage.
func outageOf(h store.Health, readAt time.Time, poll time.Duration) (from, to time.Time, ok bool) {
	from, to = h.FailingSince, readAt
	slack := outageLeast(poll)
	if !h.NextRetry.IsZero() && readAt.After(h.NextRetry.Add(slack)) {
		to = h.LastFailure
	}
	return from, to, h.Failures >= 2 && h.LastFailure.Sub(from) >= slack
}

// outageLeast is how long reads must fail to make an outage: a minute, and
// more than a poll.
func outageLeast(poll time.Duration) time.Duration { return max(poll, minOutage) }

// minuteRead is when a failing game reads its board again so that a read
// decides outageOf (RULINGS "Outages of the board", 1): at the minute of
// its first failed read, wherever the backoff's doubling falls; zero once
// a failed read has begun at or after it (one begun before does not
// decide it, however long it took: a CI run's read begun 6 s before the
// minute ended just after it, and the next came 36 s later, after the
// board had reopened), or while reads do not fail.
func minuteRead(h store.Health, poll time.Duration) time.Time {
	at := h.FailingSince.Add(outageLeast(poll))
	if !h.Failing() || !h.LastFailure.Before(at) {
		return time.Time{}
	}
	return at
}

// extendForOutage is asked before a phase is resolved by its deadline dl:
// when an outage waits to be acted on and the deadline came at or after it
// began, the deadline moves on by as long as the outage overlapped the
// phase, the thread is told, and it says true (do not resolve). With final
// (the end of a step: nothing is due), it extends the open phase if the
// outage overlapped it, and otherwise lets the outage go.
func extendForOutage(s *step, dl time.Time, final bool) bool {
	o := s.outage
	if o == nil || s.outageDone {
		return false
	}
	st := s.l.game.Status(s.l.state)
	overlap := o.OutageTo.Sub(laterOf(o.OutageFrom, s.opened))
	if st.Finished || s.l.row.Status != Running || st.Deadline.IsZero() || overlap <= 0 {
		// Nothing the outage kept players from: a paused game's clock is
		// stopped anyway; a phase opened after it was seen in full.
		s.outageDone = final
		return false
	}
	if !final && dl.Before(o.OutageFrom) {
		return false // due before the outage began: the next phase gets it
	}
	nd := forum.DeadlineOn(st.Deadline.Add(overlap), s.l.deadlineUnit())
	s.l.state = s.l.game.SetDeadline(s.l.state, nd)
	s.journal(o.OutageTo, journal.Deadline{Deadline: nd})
	s.outageDone = true
	zone := s.l.zone()
	text := fmt.Sprintf("[b]The board could not be read[/b] from %s to %s; the deadline of %s moves to %s (%s later), so nobody loses a turn to the outage.",
		rules.When(o.OutageFrom, zone), rules.When(o.OutageTo, zone), rules.Esc(st.Title), rules.WhenUTC(nd, zone),
		strings.TrimPrefix(rules.Until(nd.Sub(st.Deadline)), "in "))
	s.emit(store.SendResults, s.l.phase(), referee.Step{Out: []referee.Outgoing{{To: rules.Everyone, Text: text}}}, o.OutageTo)
	return true
}

// healthMessage is a failed read's error as a GM reads it (gmMessage), at
// most 300 characters.
func healthMessage(err error) string { return gmMessage(err, 300) }
