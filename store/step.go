package store

import (
	"fmt"
	"time"
)

// A moderation step is loaded in one call (LoadStep), computed as plain
// values outside the store, and saved in one call (Save), all inside one
// transaction: a crash leaves all of a step or none of it.

// StepInput is what a step on one game starts from.
type StepInput struct {
	Game        *Game     // locked for the transaction (see LockGame)
	Players     []Player  // the roster's forum identities
	LastResolve time.Time // when the phase was last resolved; zero if never
	LastPhase   string    // the phase it closed (its title when recorded)
	OutboxCount int       // items the game has ever queued (numbers the markers)
}

// LoadStep locks a game and reads what a step on it needs.
func (tx *Tx) LoadStep(gameID int64) (*StepInput, error) {
	g, err := tx.LockGame(gameID)
	if err != nil {
		return nil, err
	}
	in := &StepInput{Game: g}
	if in.Players, err = tx.Players(gameID); err != nil {
		return nil, fmt.Errorf("players of game #%d: %w", gameID, err)
	}
	if in.LastResolve, err = tx.LastResolve(gameID); err != nil {
		return nil, fmt.Errorf("last resolution of game #%d: %w", gameID, err)
	}
	if in.LastPhase, err = tx.LastResolvedPhase(gameID); err != nil {
		return nil, fmt.Errorf("last resolution of game #%d: %w", gameID, err)
	}
	if in.OutboxCount, err = tx.OutboxCount(gameID); err != nil {
		return nil, fmt.Errorf("outbox of game #%d: %w", gameID, err)
	}
	return in, nil
}

// Changes is everything one step writes, as plain values. Save writes them
// in the order of the fields.
type Changes struct {
	// Deleted are posts found gone from the forum.
	Deleted []Deletion
	// CommandStatuses change earlier commands (superseded, voided); their
	// journal entries are voided with them.
	CommandStatuses []CommandStatusChange
	// Commands are new commands, in order; Save sets their IDs.
	Commands []CommandRow
	// Journal entries are appended in order; Save sets their Seq.
	Journal []JournalWrite
	Events  []EventRow
	// Outbox items are queued in order (see Enqueue).
	Outbox          []OutboxItem
	MessageStatuses []MessageStatusChange
	// Players, when set, replaces the game's players.
	Players []Player
	// Retarget sends a slot's unsent PMs to a new account (RetargetOutbox).
	Retarget *Retarget
	// Game, when set, is saved (see SaveGame).
	Game *Game
}

// Deletion is a post no longer on the forum, noticed at Seen.
type Deletion struct {
	GameID  int64
	Kind    string
	ForumID string
	Seen    time.Time
}

// CommandStatusChange sets an earlier command's status and reason.
type CommandStatusChange struct {
	ID     int64
	Status CommandStatus
	Reason string
}

// JournalWrite is a journal entry to append. ForCommand, when above 0, ties
// it to Changes.Commands[ForCommand-1], whose id is known only once saved.
type JournalWrite struct {
	Entry      JournalEntry
	ForCommand int
}

// MessageStatusChange sets a message's status.
type MessageStatusChange struct {
	ID     int64
	Status MessageStatus
}

// Retarget names the new account of a slot's unsent PMs.
type Retarget struct {
	GameID        int64
	Slot          string
	Name, ForumID string
}

// Empty says whether there is nothing to save.
func (c *Changes) Empty() bool {
	return len(c.Deleted) == 0 && len(c.CommandStatuses) == 0 && len(c.Commands) == 0 && len(c.Journal) == 0 &&
		len(c.Events) == 0 && len(c.Outbox) == 0 && len(c.MessageStatuses) == 0 && c.Players == nil &&
		c.Retarget == nil && c.Game == nil
}

// Save writes a step's changes; under a fence (WithFence) only while the
// lease is current, and the lease row stays locked until the commit.
func (tx *Tx) Save(c *Changes) error {
	if err := tx.checkFence(); err != nil {
		return err
	}
	for _, d := range c.Deleted {
		if err := tx.MarkDeleted(d.GameID, d.Kind, d.ForumID, d.Seen); err != nil {
			return err
		}
	}
	for _, s := range c.CommandStatuses {
		if err := tx.SetCommandStatus(s.ID, s.Status, s.Reason); err != nil {
			return err
		}
		if s.Status == CommandSuperseded || s.Status == CommandVoided {
			if err := tx.VoidJournalForCommand(s.ID); err != nil {
				return err
			}
		}
	}
	for i := range c.Commands {
		if err := tx.AddCommand(&c.Commands[i]); err != nil {
			return err
		}
	}
	for i := range c.Journal {
		w := &c.Journal[i]
		if w.ForCommand > 0 {
			if w.ForCommand > len(c.Commands) {
				return fmt.Errorf("journal entry %d is for command %d of %d", i, w.ForCommand, len(c.Commands))
			}
			w.Entry.CommandID = c.Commands[w.ForCommand-1].ID
		}
		if err := tx.AppendJournal(&w.Entry); err != nil {
			return err
		}
	}
	for _, e := range c.Events {
		if _, err := tx.exec(`INSERT INTO events (game_id, phase, recipient, kind, text, not_before, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			e.GameID, e.Phase, e.To, e.Kind, e.Text, sqlTime(e.NotBefore), microsOrNow(e.At)); err != nil {
			return wrap(err)
		}
	}
	if len(c.Outbox) > 0 {
		if err := tx.Enqueue(c.Outbox); err != nil {
			return err
		}
	}
	for _, s := range c.MessageStatuses {
		if err := tx.SetMessageStatus(s.ID, s.Status); err != nil {
			return err
		}
	}
	if c.Players != nil {
		if len(c.Players) == 0 {
			return fmt.Errorf("an empty player list would clear the game's players")
		}
		if err := tx.SetPlayers(c.Players[0].GameID, c.Players); err != nil {
			return err
		}
	}
	if r := c.Retarget; r != nil {
		if err := tx.RetargetOutbox(r.GameID, r.Slot, r.Name, r.ForumID); err != nil {
			return err
		}
	}
	if c.Game != nil {
		return tx.SaveGame(c.Game)
	}
	return nil
}
