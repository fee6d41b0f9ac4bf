package store

import (
	"fmt"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
)

// A moderation step is loaded in one call (LoadStep), computed as plain
// values outside the store, and saved in one call (Save), all inside one
// transaction: a crash leaves all of a step or none of it. The writes Save
// makes are unexported, so no step can write beside it: what a step
// changes is in its Changes.

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
	g, err := tx.lockGame(gameID)
	if err != nil {
		return nil, err
	}
	in := &StepInput{Game: g}
	if in.Players, err = tx.Players(gameID); err != nil {
		return nil, fmt.Errorf("players of game #%d: %w", gameID, err)
	}
	if in.LastResolve, in.LastPhase, err = tx.lastResolution(gameID); err != nil {
		return nil, fmt.Errorf("last resolution of game #%d: %w", gameID, err)
	}
	if in.OutboxCount, err = tx.outboxCount(gameID); err != nil {
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
	// OutboxUpdates are queued items whose state changes (an item replaced
	// by its parts); Outbox items are queued in order after them (see
	// enqueue).
	OutboxUpdates []OutboxItem
	Outbox        []OutboxItem
	// Lapse, when set, makes pending outbox items lapse (never sent).
	Lapse           *LapseChange
	MessageStatuses []MessageStatusChange
	// Players, when set, replaces the game's players.
	Players []Player
	// Retarget sends a slot's unsent PMs to a new account (retargetOutbox).
	Retarget *Retarget
	// Game, when set, is saved: its status, state, phase, deadline,
	// cursors, pause and last read (see saveGame).
	Game *Game
	// Roster says the saved state's roster (Game's: who plays, by what names)
	// differs from the stored one's: GamesVersion counts it (the state is
	// opaque to the store).
	Roster bool
	// Settings, when set, replaces the game's settings (its Config and
	// Forum JSON).
	Settings *SettingsChange
	// MessageLimit, when set, records the longest message the board takes
	// as learned from its refusal of a longer one (only ever lowered).
	MessageLimit *MessageLimitChange
	// Progress, when set, records how far the thread is read (the page a
	// read has recorded, in the transaction that records it).
	Progress *ProgressChange
	// Health, when set, is the game's forum health, all of it.
	Health *Health
	// Flavors are the GM's flavors written (or, with no text, withdrawn).
	Flavors []Flavor
}

// SettingsChange replaces a game's Config and Forum JSON.
type SettingsChange struct {
	GameID        int64
	Config, Forum []byte
}

// LapseChange makes queued items lapse, each only while still pending.
type LapseChange struct {
	IDs []int64
	Why string // for the GM's outbox listing
}

// MessageLimitChange is a board's message limit learned for a game.
type MessageLimitChange struct {
	GameID int64
	Max    int
}

// ProgressChange is how far a game's thread is read.
type ProgressChange struct {
	GameID   int64
	Progress ThreadProgress
}

// Deletion is a post no longer on the forum, noticed at Seen.
type Deletion struct {
	GameID  int64
	Kind    forum.MessageKind
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
	Entry      journal.Entry
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
		len(c.Events) == 0 && len(c.OutboxUpdates) == 0 && len(c.Outbox) == 0 && c.Lapse == nil && len(c.MessageStatuses) == 0 && c.Players == nil &&
		c.Retarget == nil && c.Game == nil && c.Settings == nil && c.MessageLimit == nil && c.Progress == nil && c.Health == nil && len(c.Flavors) == 0
}

// Save writes a step's changes; under a fence (WithFence) only while the
// lease is current, and the lease row stays locked until the commit.
func (tx *Tx) Save(c *Changes) error {
	if err := tx.checkFence(); err != nil {
		return err
	}
	for _, d := range c.Deleted {
		if err := tx.markDeleted(d.GameID, d.Kind, d.ForumID, d.Seen); err != nil {
			return err
		}
	}
	for _, s := range c.CommandStatuses {
		if err := tx.setCommandStatus(s.ID, s.Status, s.Reason); err != nil {
			return err
		}
		if s.Status == CommandSuperseded || s.Status == CommandVoided {
			if err := tx.voidJournalForCommand(s.ID); err != nil {
				return err
			}
		}
	}
	for i := range c.Commands {
		if err := tx.addCommand(&c.Commands[i]); err != nil {
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
		if err := tx.appendJournal(&w.Entry); err != nil {
			return err
		}
	}
	for _, e := range c.Events {
		if _, err := tx.exec(`INSERT INTO events (game_id, phase, recipient, kind, text, not_before, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			e.GameID, e.Phase, e.To, e.Kind, e.Text, sqlTime(e.NotBefore), microsOrNow(e.At)); err != nil {
			return wrap(err)
		}
	}
	for i := range c.OutboxUpdates {
		if err := tx.UpdateOutbox(&c.OutboxUpdates[i]); err != nil {
			return err
		}
	}
	if len(c.Outbox) > 0 {
		if err := tx.enqueue(c.Outbox); err != nil {
			return err
		}
	}
	if l := c.Lapse; l != nil {
		if err := tx.lapse(l.IDs, l.Why); err != nil {
			return err
		}
	}
	for _, s := range c.MessageStatuses {
		if err := tx.setMessageStatus(s.ID, s.Status); err != nil {
			return err
		}
	}
	if c.Players != nil {
		if len(c.Players) == 0 {
			return fmt.Errorf("an empty player list would clear the game's players")
		}
		if err := tx.setPlayers(c.Players[0].GameID, c.Players); err != nil {
			return err
		}
	}
	if r := c.Retarget; r != nil {
		if err := tx.retargetOutbox(r.GameID, r.Slot, r.Name, r.ForumID); err != nil {
			return err
		}
	}
	if c.Game != nil {
		if err := tx.saveGame(c.Game); err != nil {
			return err
		}
	}
	if c.Roster && c.Game != nil {
		if err := tx.gamesChanged(c.Game.ID); err != nil {
			return err
		}
	}
	if s := c.Settings; s != nil {
		if err := tx.setGameSettings(s.GameID, s.Config, s.Forum); err != nil {
			return err
		}
	}
	if l := c.MessageLimit; l != nil {
		if err := tx.setMessageLimit(l.GameID, l.Max); err != nil {
			return err
		}
	}
	if p := c.Progress; p != nil {
		if err := tx.setThreadProgress(p.GameID, p.Progress); err != nil {
			return err
		}
	}
	for _, f := range c.Flavors {
		if err := tx.setFlavor(f); err != nil {
			return err
		}
	}
	if c.Health != nil {
		return tx.SaveHealth(*c.Health)
	}
	return nil
}
