package moderator

import (
	"context"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Read-only views for the GM's web desk (package webdesk): what Report and
// Audit give, plus the GM-only state, the phase history and the forum's
// health. Nothing here writes.

// Health is what the store tells of a game's forum: when the bot last read a
// new post or PM, when it last sent one, and what it could not send.
type Health struct {
	Messages  int       `json:"messages"`             // posts and PMs read
	LastRead  time.Time `json:"last_read,omitzero"`   // the newest first sighting of a post or PM
	LastSent  time.Time `json:"last_sent,omitzero"`   // the newest post or PM sent
	Retrying  int       `json:"retrying"`             // tried, not yet known sent
	Failed    int       `json:"failed"`               // given up; 'retry' sends them again
	Taken     int       `json:"taken"`                // the board said it took them; markers not found
	LastError string    `json:"last_error,omitempty"` // the newest send error of an unsent item
}

// DeskGame is one game as the GM's desk shows it. It holds secrets: the
// desk shows it only to a logged-in GM.
type DeskGame struct {
	Report   GameReport
	Engine   rules.Game
	State    rules.State  // the whole state, secrets included
	Status   rules.Status // with the game-specific results (Extra)
	Forum    gameconfig.ForumConfig
	Site     *gameconfig.Site // the board, resolved from Forum
	Config   gameconfig.GameConfig
	Players  []store.Player
	Events   []store.EventRow   // everything the game said, public and private, by phase
	Outbox   []store.OutboxItem // what was sent or will be
	PausedAt time.Time
	Health   Health
}

// Desk reads one game for the GM's desk.
func (m *Moderator) Desk(ctx context.Context, name string) (*DeskGame, error) {
	rs, err := m.Report(ctx, name)
	if err != nil {
		return nil, err
	}
	d := &DeskGame{Report: rs[0]}
	var l *loaded
	err = m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return err
		}
		if l, err = decodeGame(g); err != nil {
			return err
		}
		d.Engine, d.State, d.Forum, d.Config, d.PausedAt = l.game, l.state, l.forum, l.cfg, g.PausedAt
		d.Status = l.game.Status(l.state)
		names(l.state.Roster(), &d.Status)
		if d.Players, err = tx.Players(g.ID); err != nil {
			return err
		}
		if d.Events, err = tx.Events(g.ID); err != nil {
			return err
		}
		if d.Outbox, err = tx.Outbox(g.ID); err != nil {
			return err
		}
		msgs, err := tx.Messages(g.ID)
		if err != nil {
			return err
		}
		d.Health = health(msgs, d.Outbox)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("desk %s: %w", name, err)
	}
	d.Site = m.site(l.row.ID, l.row.Forum, l.forum)
	return d, nil
}

// Healths reads the forum health of every game, by game name.
func (m *Moderator) Healths(ctx context.Context) (map[string]Health, error) {
	out := map[string]Health{}
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		games, err := tx.Games()
		if err != nil {
			return err
		}
		for _, g := range games {
			msgs, err := tx.Messages(g.ID)
			if err != nil {
				return err
			}
			items, err := tx.Outbox(g.ID)
			if err != nil {
				return err
			}
			out[g.Name] = health(msgs, items)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("health: %w", err)
	}
	return out, nil
}

func health(msgs []store.Message, items []store.OutboxItem) Health {
	h := Health{Messages: len(msgs)}
	for _, msg := range msgs {
		if msg.FirstSeen.After(h.LastRead) {
			h.LastRead = msg.FirstSeen
		}
	}
	var errAt time.Time
	for _, it := range items {
		switch it.State {
		case store.OutboxSent:
			if it.SentAt.After(h.LastSent) {
				h.LastSent = it.SentAt
			}
			continue
		case store.OutboxLapsed, store.OutboxSplit:
			continue // never to go, or gone as its parts
		case store.OutboxFailed:
			h.Failed++
		case store.OutboxTaken:
			h.Taken++
		case store.OutboxSending, store.OutboxUnconfirmed, store.OutboxUnknown:
			h.Retrying++
		}
		if it.LastError != "" && !it.CreatedAt.Before(errAt) {
			h.LastError, errAt = it.LastError, it.CreatedAt
		}
	}
	return h
}
