package moderator

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/store"
)

// step is one moderation step on one game: what it was loaded from, the
// state as the referee and the game move it, and everything it will write,
// as plain values. Nothing touches the store between begin and commit.
type step struct {
	l              *loaded
	players        []store.Player
	playersChanged bool
	opened         time.Time // when the current phase began
	queued         int       // outbox items so far: numbers the markers
	resolved       []string  // phases this step resolved (for the log)
	ch             store.Changes
}

// begin loads and locks a game for a step, in one call.
func (m *Moderator) begin(tx *store.Tx, id int64) (*step, error) {
	in, err := tx.LoadStep(id)
	if err != nil {
		return nil, err
	}
	l, err := decodeGame(in.Game)
	if err != nil {
		return nil, err
	}
	opened := in.LastResolve
	if opened.IsZero() {
		opened = l.cfg.Start
	}
	return &step{l: l, players: in.Players, opened: opened, queued: in.OutboxCount}, nil
}

// commit saves the step in one call. A crash point follows a resolution: a
// crash there, inside the transaction, must undo all of the step.
func (m *Moderator) commit(tx *store.Tx, s *step) error {
	if err := s.finish(); err != nil {
		return err
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

// logResolved logs the resolutions of a committed step.
func (m *Moderator) logResolved(s *step) {
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
	if s.playersChanged {
		s.ch.Players = s.players
	}
	return nil
}

// emit records a referee step's events and queues its messages.
func (s *step) emit(phase string, r referee.Step, at time.Time) {
	g := s.l.row
	r = s.withDeadline(phase, r, at)
	for _, e := range r.Events {
		s.ch.Events = append(s.ch.Events, store.EventRow{GameID: g.ID, Phase: phase, To: e.To, Kind: e.Kind, Text: e.Text, NotBefore: e.NotBefore, At: at})
	}
	roster := s.l.state.Roster()
	for _, o := range r.Out {
		s.queued++
		it := store.OutboxItem{
			// The game's name in the subject routes a player's reply to it.
			GameID: g.ID, Subject: "[" + g.Name + "] " + o.Subject, Body: o.Text, NotBefore: o.NotBefore, State: store.OutboxPending,
			Marker: fmt.Sprintf("%s/%s/%d", s.l.markerName(), phase, s.queued),
		}
		if o.Public() {
			it.Kind = "post"
		} else {
			it.Kind = "pm"
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
}

// journal appends a journal entry of kind with payload (nil: none).
func (s *step) journal(kind string, at time.Time, payload any) {
	e := store.JournalEntry{GameID: s.l.row.ID, Kind: kind, Time: at}
	if payload != nil {
		e.Payload = mustJSON(payload)
	}
	s.ch.Journal = append(s.ch.Journal, store.JournalWrite{Entry: e})
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
