package moderator

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// step is one moderation step on one game: what it was loaded from, the
// state as the referee and the game move it, and everything it will write,
// as plain values. Nothing touches the store between begin and commit.
type step struct {
	l              *loaded
	players        []store.Player
	playersChanged bool
	opened         time.Time        // when the current phase began
	closed         string           // the phase closed at opened ("" before any close)
	notes          []note           // problems to log once the step is saved
	queued         int              // outbox items so far: numbers the markers
	resolved       []string         // phases this step resolved (for the log)
	closings       []between.Closed // the same, with their titles (closeOff)
	pictured       int              // the last turn whose map picture a post carries (see withPicture)
	roster         string           // the roster as loaded (rosterKey)
	ch             store.Changes

	// outage is an outage not acted on yet (nil: none); outageDone says
	// this step acted on it, so its commit clears it.
	outage     *store.Health
	outageDone bool

	// tx is the step's transaction, for what a step reads only when it
	// needs it (the GM's flavor, when a phase resolves); failed is an
	// error met there, which fails the step at its commit.
	tx     *store.Tx
	failed error

	// work is the GM's work between deadlines, the moderator's (between.go).
	work *between.Work

	// waiting caches openingOnItsWay for the step (nil: not asked yet).
	waiting *bool
}

// clockStopped says whether the game's opening post is still on its way
// (openingOnItsWay): no phase of it closes then, neither at a deadline of
// the clock of its creation nor because everyone acted. Asked once a step:
// a step does not send.
func (s *step) clockStopped() (bool, error) {
	if s.waiting == nil {
		w, err := openingOnItsWay(s.tx, s)
		if err != nil {
			return false, err
		}
		s.waiting = &w
	}
	return *s.waiting, nil
}

// fail makes the step fail at its commit (for code that cannot return an
// error where it meets one).
func (s *step) fail(err error) {
	if s.failed == nil {
		s.failed = err
	}
}

// begin loads and locks a game for a step, in one call. v is the game as
// viewed before the transaction: the step keeps its board (v.site), so
// nothing about the board is looked up inside the transaction.
func (m *Moderator) begin(tx *store.Tx, v *loaded) (*step, error) {
	id := v.row.ID
	in, err := tx.LoadStep(id)
	if err != nil {
		return nil, err
	}
	l, decoded, err := v.again(in.Game)
	if err != nil {
		return nil, err
	}
	if decoded {
		m.decodes.Add(1)
	}
	if !bytes.Equal(in.Game.Forum, v.row.Forum) {
		return nil, fmt.Errorf("game %s: its forum settings changed since it was loaded; the next step takes them", l.row.Name)
	}
	l.site = v.site
	opened := in.LastResolve
	if opened.IsZero() {
		opened = l.cfg.Start
	}
	closed := ""
	if !in.LastResolve.IsZero() {
		closed = in.LastPhase
		if closed == "" {
			closed = "the previous phase"
		}
	}
	s := &step{l: l, players: in.Players, opened: opened, closed: closed, queued: in.OutboxCount, pictured: l.turnsDrawn(l.state), roster: rosterKey(l.state), tx: tx, work: &m.work}
	if h, err := tx.Health(id); err != nil {
		return nil, err
	} else if h.Outage() {
		s.outage = &h
	}
	return s, nil
}

// health is the game's forum health as this step leaves it: as it changed
// it, else as stored.
func (s *step) health(tx *store.Tx) (store.Health, error) {
	if s.ch.Health != nil {
		return *s.ch.Health, nil
	}
	return tx.Health(s.l.row.ID)
}

// runStep runs one step on game l in its own transaction: begin, fn
// computes the change (it may read more through tx, never write), commit.
func (m *Moderator) runStep(ctx context.Context, l *loaded, fn func(tx *store.Tx, s *step) error) (*step, error) {
	var s *step
	err := m.DB.Tx(ctx, func(tx *store.Tx) error {
		var err error
		if s, err = m.begin(tx, l); err != nil {
			return err
		}
		if err := fn(tx, s); err != nil {
			return err
		}
		return m.commit(tx, s)
	})
	if err == nil && s.ch.Game != nil && s.l.state != nil && !s.l.cfg.SigningUp() {
		// What the next step of the tick would decode (l.again). A
		// change of settings counts a revision of its own, which the
		// next step then finds it does not have: it decodes.
		l.saved = &savedGame{revision: s.ch.Game.Revision, forum: s.ch.Game.Forum, state: s.l.state}
	}
	return s, err
}

// note is a problem a step met, logged after it is saved.
type note struct {
	msg  string
	args []any
}

func (s *step) warn(msg string, args ...any) { s.notes = append(s.notes, note{msg, args}) }

// commit saves the step in one call. A crash point follows a resolution: a
// crash there, inside the transaction, must undo all of the step.
func (m *Moderator) commit(tx *store.Tx, s *step) error {
	if s.failed != nil {
		return s.failed
	}
	if err := s.finish(); err != nil {
		return err
	}
	if err := m.closeOff(s); err != nil {
		return err
	}
	saveSettings(s)
	if s.outageDone {
		// With the extension it made, in the same transaction: once.
		h, err := s.health(tx)
		if err != nil {
			return err
		}
		h.OutageFrom, h.OutageTo = time.Time{}, time.Time{}
		s.ch.Health = &h
	}
	if err := tx.Save(&s.ch); err != nil {
		return fmt.Errorf("saving: %w", err)
	}
	if len(s.resolved) > 0 {
		if err := m.crash("in-resolve"); err != nil {
			return err
		}
	}
	return nil
}

// logResolved logs the resolutions of a committed step
// and the problems it met (an unreadable time is an error for the GM).
func (m *Moderator) logResolved(s *step) {
	for _, n := range s.notes {
		m.log().Error(n.msg, append([]any{"game", s.l.row.Name}, n.args...)...)
	}
	for _, ph := range s.resolved {
		m.log().Info("phase resolved", "game", s.l.row.Name, "phase", ph)
	}
}

// finish puts the state into the game row, with its phase and deadline.
func (s *step) finish() error {
	b, err := json.Marshal(s.l.state)
	if err != nil {
		return fmt.Errorf("encoding the state: %w", err)
	}
	st := s.l.game.Status(s.l.state)
	row := s.l.row
	row.State, row.Phase, row.Deadline = b, st.Phase, st.Deadline
	if st.Finished && s.l.active() {
		row.Status = Finished
	}
	s.ch.Game = row
	s.ch.Roster = rosterKey(s.l.state) != s.roster
	if s.playersChanged {
		s.ch.Players = s.players
	}
	return nil
}

// emit records a referee step's events and queues its messages, of class
// class (the order an account's sends go out in across its games).
func (s *step) emit(class store.SendClass, phase string, r referee.Step, at time.Time) {
	g := s.l.row
	r = s.withPicture(r)
	r = s.withDeadline(phase, r, at)
	for _, e := range r.Events {
		s.ch.Events = append(s.ch.Events, store.EventRow{GameID: g.ID, Phase: phase, To: e.To, Kind: e.Kind, Text: e.Text, NotBefore: e.NotBefore, At: at})
	}
	roster := s.l.state.Roster()
	limit := s.l.site.MaxMessageBytes // the profile's (a GM's file may set it)
	if learned := g.MessageLimit; learned > 0 && (limit <= 0 || learned < limit) {
		// The board refused a message as too long: its own limit.
		limit = learned
	}
	style := s.l.cfg.Style
	for _, o := range r.Out {
		// The house style goes around every thread post, each part of a
		// long one whole, so the parts are cut to leave room for it.
		styled := o.Public() && !style.Empty()
		lim := limit
		if pm := s.l.site.MaxPMBytes; !o.Public() && pm > 0 && (lim <= 0 || pm < lim) {
			lim = pm // PMs take less than posts on this board
		}
		var view gameconfig.StyleView
		if styled {
			view = s.styleView()
			if limit > 0 {
				lim = max(limit-style.Overhead(view), limit/2)
			}
		}
		// Longer than the board takes (a receipt for a 3,000-line PM): in
		// parts, each its own outbox item and marker, so each is sent
		// exactly once and the board never refuses one for its length.
		parts := forum.SplitMessage(o.Text, lim)
		for i, text := range parts {
			if styled {
				text = style.Apply(text, view)
			}
			subject := o.Subject
			if len(parts) > 1 {
				subject = fmt.Sprintf("%s (%d/%d)", o.Subject, i+1, len(parts))
			}
			s.queue(class, o, subject, text, roster, phase)
		}
	}
}

// queue adds one outbox item for (one part of) a message.
func (s *step) queue(class store.SendClass, o referee.Outgoing, subject, text string, roster *rules.Roster, phase string) {
	g := s.l.row
	s.queued++
	it := store.OutboxItem{
		// The game's name in the subject routes a player's reply to it.
		GameID: g.ID, Subject: "[" + g.Name + "] " + subject, Body: text, Class: class, NotBefore: o.NotBefore, State: store.OutboxPending,
		Marker: fmt.Sprintf("%s/%s/%d", s.l.markerName(), phase, s.queued),
	}
	if o.Public() {
		it.Kind = forum.KindPost
	} else {
		it.Kind = forum.KindPM
		it.Recipient = o.To
		it.RecipientName = roster.Display(o.To)
		for _, p := range s.players {
			if p.Slot == o.To {
				it.RecipientName, it.RecipientID = p.ForumName, p.ForumUserID
			}
		}
	}
	s.ch.Outbox = append(s.ch.Outbox, it)
}

// journal appends the journal entry of p, taking effect at at.
func (s *step) journal(at time.Time, p journal.Payload) {
	s.ch.Journal = append(s.ch.Journal, store.JournalWrite{Entry: journal.New(s.l.row.ID, at, p)})
}

// setMessage sets a message's status.
func (s *step) setMessage(id int64, st store.MessageStatus) {
	s.ch.MessageStatuses = append(s.ch.MessageStatuses, store.MessageStatusChange{ID: id, Status: st})
}

// learnID records a player's forum id the first time it is seen (to PM them).
func (s *step) learnID(slot, forumID string) {
	for i := range s.players {
		if s.players[i].Slot == slot && s.players[i].ForumUserID == "" {
			s.players[i].ForumUserID = forumID
			s.playersChanged = true
		}
	}
}
