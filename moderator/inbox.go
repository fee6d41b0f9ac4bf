package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scraper"
	"github.com/forumgm/forumgm/store"
)

// When the PM inbox cannot be read but the thread can (a profile's
// urls.inbox gone wrong, the board's private messages turned off), the
// game goes on as far as a PM's place in forum order allows
// (docs/outages.md, RULINGS.md 23):
//
//   - The thread's pages are recorded and the read counts as a good read
//     of the board: no outage, nothing said to the players. The inbox's
//     failure is its own health (store.Health.InboxError: the page and
//     why), for status, the desk and the log.
//   - The PMs are known only up to the last read that got the inbox (the
//     game's LastRead, left where it was): a PM not read yet may have been
//     made any time after it. So thread commands apply in order, except
//     one that would close the phase, by coming after its deadline or by
//     completing it ("everyone has acted"), when it is not surely older
//     than that read: it waits, with everything after it, for the inbox.
//     Every phase of the three games takes orders by PM, so none closes by
//     its time limit on such a read either.
//   - The next read that gets the inbox records its PMs, and they apply in
//     their place before what waited.

// inboxTrouble says whether a failed inbox read is the inbox's (the thread
// having just read): not the database's, a crash's or a stop's.
func inboxTrouble(ctx context.Context, err error) bool {
	return ctx.Err() == nil && !errors.Is(err, ErrCrash) && !errors.As(err, new(storeError))
}

// withoutInbox is the last step of a read whose thread read and whose inbox
// did not (ierr): the read is a good one of the thread, the inbox's health
// says what failed, and the PMs are known up to the game's last whole read
// only (l.pmsTo). It returns the time the thread is read to.
func (m *Moderator) withoutInbox(ctx context.Context, l *loaded, readAt time.Time, ierr error) (time.Time, error) {
	m.setHealthy(l.row.ID, false)
	var h store.Health
	_, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error {
		if err := m.readOK(tx, s, readAt); err != nil {
			return err
		}
		h = *s.ch.Health
		if !h.InboxFailing() {
			h.InboxFailingSince, h.InboxFailures = readAt, 0
		}
		h.InboxFailures++
		h.InboxError = inboxMessage(l, ierr)
		s.ch.Health = &h
		return nil
	})
	if err != nil {
		return readAt, storeError{fmt.Errorf("read %s: recording: %w", l.row.Name, err)}
	}
	log := m.log().Info
	if h.InboxFailures == 1 {
		log = m.log().Warn
	}
	log("the PM inbox cannot be read: the thread is read and its commands apply; what a PM not read yet could come before waits for it",
		"game", l.row.Name, "error", h.InboxError, "failed_reads", h.InboxFailures)
	l.inboxDown, l.pmsTo = true, l.row.LastRead
	return readAt, nil
}

// inboxOK clears the inbox's failure in a read that got the inbox (after
// readOK set the step's health).
func (m *Moderator) inboxOK(s *step) {
	if s.ch.Health == nil || !s.ch.Health.InboxFailing() {
		return
	}
	h := *s.ch.Health
	m.log().Info("the PM inbox can be read again", "game", s.l.row.Name, "failed_reads", h.InboxFailures, "since", when(h.InboxFailingSince))
	h.InboxError, h.InboxFailingSince, h.InboxFailures = "", time.Time{}, 0
	s.ch.Health = &h
}

// inboxMessage is a failed inbox read as a GM reads it: which page, what it
// met, and where to look.
func inboxMessage(l *loaded, err error) string {
	page := l.site.Profile.URLs.Inbox
	if u, rerr := forum.Resolve(l.forum.URL, page); rerr == nil {
		page = u
	}
	hint := "check urls.inbox in the profile, and that the bot may use private messages there"
	switch {
	case errors.Is(err, scraper.ErrNotInbox):
		hint = "the page is no PM inbox: are private messages turned on for the board and the bot? Else set urls.inbox (and selectors.inbox_folder)"
	case errors.Is(err, scraper.ErrNotFound):
		hint = "the board has no such page: check urls.inbox in the profile (a board without private messages answers 404 too)"
	}
	if in := errors.Unwrap(err); in != nil && strings.HasPrefix(err.Error(), "read "+l.row.Name+": the inbox: ") {
		err = in // readInbox's prefix: said below
	}
	what := gmMessage(err, 200)
	if !strings.Contains(what, page) {
		what = page + ": " + what
	}
	return fmt.Sprintf("the PM inbox fails: %s (%s)", what, hint)
}

// waitsForInbox says whether msg, next in forum order, must wait for the
// inbox (not read since pmsTo): it would close the phase (surely made after
// its deadline, or completing it) and a PM not read yet may precede it.
func waitsForInbox(s *step, msg store.Message, pmsTo time.Time) bool {
	l := s.l
	if l.row.Status != Running || msg.Stamp.Before(pmsTo) == forum.Yes {
		return false
	}
	st := l.game.Status(l.state)
	if st.Finished {
		return false
	}
	if !st.Deadline.IsZero() && msg.Stamp.Before(st.Deadline) == forum.No {
		return true // it closes the phase by its time limit first
	}
	slot, ok := l.state.Roster().Author(msg.AuthorName)
	if !ok || !l.active() || strings.EqualFold(msg.AuthorName, l.forum.Bot) || !msg.Stamp.Known() ||
		forum.IsUnreadable(msg.BodyHTML) || beforeGame(l, msg) != "" || s.closed != "" && msg.Stamp.Before(s.opened) == forum.Yes {
		return false // applied, it changes nothing (applyMessage)
	}
	ch := channelOf(msg.Kind)
	segs := l.site.Reader.Lines(msg.BodyHTML)
	if ch == rules.Public {
		segs = l.site.Reader.Segments(msg.BodyHTML)
	}
	// What it would do, on the side: the referee is pure.
	r := referee.Message(l.game, l.state, rules.Source{Player: slot, Channel: ch, Time: msg.Stamp.Earliest, Ref: msg.ForumID}, segs)
	was := l.state
	l.state = r.State
	defer func() { l.state = was }()
	return dueEarly(s, l.game.Status(r.State), msg.Stamp.Earliest)
}

// settleTime is how far a read lets phases close: readAt, or, while the
// inbox is not read, the last read that got it.
func (l *loaded) settleTime(readAt time.Time) time.Time {
	if l.inboxDown && l.pmsTo.Before(readAt) {
		return l.pmsTo
	}
	return readAt
}

// InboxWaits is what waits while the PM inbox cannot be read, for the GM.
const InboxWaits = "thread commands still apply; a phase that takes orders by PM waits past its deadline, and a post that would close it waits, until the inbox is read (a PM not read yet may be an order made before them)"

// inboxText is the PM inbox's part of the status line ("" while it reads).
func inboxText(h store.Health, at func(time.Time) string) string {
	if !h.InboxFailing() {
		return ""
	}
	return fmt.Sprintf("; PM INBOX NOT READABLE since %s (%d failed %s): %s; %s", at(h.InboxFailingSince), h.InboxFailures,
		map[bool]string{true: "read", false: "reads"}[h.InboxFailures == 1], h.InboxError, InboxWaits)
}
