package moderator

import (
	"context"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
)

// A game's records read back for people (the audit log, the GM's export,
// the public vote log, activity, the GM's words) are package gamelog's;
// the moderator only finds the game by its name, decoded with its board as
// its steps see it, for the CLI and the desk.

// records is the game as package gamelog reads it.
func (l *loaded) records() gamelog.Game {
	return gamelog.Game{Row: l.row, Rules: l.game, State: l.state, Start: l.cfg.Start, Site: l.site}
}

// Audit lists every post and PM of a game with its commands, in the order
// the moderator applied them (orderMessages), and its outbox
// (gamelog.Audit).
func (m *Moderator) Audit(ctx context.Context, name string, f gamelog.Filter) ([]gamelog.AuditRow, []store.OutboxItem, error) {
	var rows []gamelog.AuditRow
	var out []store.OutboxItem
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return err
		}
		rows, out, err = gamelog.Audit(tx, g.ID, f, orderMessages)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("audit %s: %w", name, err)
	}
	return rows, out, nil
}

// CommandLines lists a game's commands for the GM's export, filtered as
// the audit log is, and the board's time zone to write their times in
// (gamelog.CommandLines).
func (m *Moderator) CommandLines(ctx context.Context, name string, f gamelog.Filter) ([]gamelog.CommandLine, *time.Location, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return nil, nil, fmt.Errorf("audit %s: %w", name, err)
	}
	var out []gamelog.CommandLine
	err = m.DB.View(ctx, func(tx *store.Tx) error {
		out, err = gamelog.CommandLines(tx, l.records(), f)
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("audit %s: %w", name, err)
	}
	return out, l.zone(), nil
}

// VoteLog is the public vote log of a game (gamelog.Votes).
func (m *Moderator) VoteLog(ctx context.Context, name string) (*gamelog.VoteLog, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("vote log %s: %w", name, err)
	}
	var v *gamelog.VoteLog
	err = m.DB.View(ctx, func(tx *store.Tx) error {
		v, err = gamelog.Votes(tx, l.records())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("vote log %s: %w", name, err)
	}
	return v, nil
}

// Activity is a game's activity, phase by phase, the current phase last
// (gamelog.Activity).
func (m *Moderator) Activity(ctx context.Context, name string) ([]gamelog.PhaseActivity, error) {
	var out []gamelog.PhaseActivity
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return err
		}
		l, err := decodeGame(g)
		if err != nil {
			return err
		}
		out, err = gamelog.Activity(tx, l.records())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("activity %s: %w", name, err)
	}
	return out, nil
}

// GMWords are the GM's own texts a game has sent or queued, oldest first
// (gamelog.GMWords): for the GM only.
func (m *Moderator) GMWords(ctx context.Context, name string) ([]gamelog.GMWord, error) {
	var out []gamelog.GMWord
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return err
		}
		out, err = gamelog.GMWords(tx, g.ID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("audit %s: %w", name, err)
	}
	return out, nil
}

// Flavors are the flavors written for a game's phase ("": every phase's)
// (gamelog.Flavors): for the GM's pages only.
func (m *Moderator) Flavors(ctx context.Context, name, phase string) ([]gamelog.FlavorNote, error) {
	l, err := m.viewNamed(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("flavor %s: %w", name, err)
	}
	var out []gamelog.FlavorNote
	err = m.DB.View(ctx, func(tx *store.Tx) error {
		out, err = gamelog.Flavors(tx, l.records(), phase)
		return err
	})
	return out, err
}
