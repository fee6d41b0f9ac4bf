package moderator

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// loaded is a game row with its decoded parts.
type loaded struct {
	row   *store.Game
	game  rules.Game
	cfg   gameconfig.GameConfig
	forum gameconfig.ForumConfig
	state rules.State
	unit  *time.Duration // deadlineUnit, once looked up
	loc   *time.Location // the board's time zone (see zone)
	// behind is set by a read that stopped before the thread's end (a long
	// backfill spread over polls); readTo is then as far as the thread is
	// known complete: the time of the last post it recorded.
	behind bool
	readTo time.Time
}

func decodeGame(g *store.Game) (*loaded, error) {
	eng, err := rules.Lookup(g.Kind)
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", g.Name, err)
	}
	l := &loaded{row: g, game: eng}
	if err := json.Unmarshal(g.Config, &l.cfg); err != nil {
		return nil, fmt.Errorf("game %s: config: %w", g.Name, err)
	}
	if err := json.Unmarshal(g.Forum, &l.forum); err != nil {
		return nil, fmt.Errorf("game %s: forum settings: %w", g.Name, err)
	}
	if l.state, err = eng.Decode(g.State); err != nil {
		return nil, fmt.Errorf("game %s: state: %w", g.Name, err)
	}
	return l, nil
}

// markerName is the game's part of every marker: its name and a token drawn
// when it was created, so a game re-created under the same name in the same
// thread never mistakes its predecessor's posts for its own.
func (l *loaded) markerName() string {
	if l.cfg.Instance == "" {
		return l.row.Name
	}
	return l.row.Name + "." + l.cfg.Instance
}

// phase is the current phase's name.
func (l *loaded) phase() string { return l.game.Status(l.state).Phase }

// active says whether the game still takes commands.
func (l *loaded) active() bool { return l.row.Status == Running || l.row.Status == Paused }

func (m *Moderator) view(ctx context.Context, id int64) (*loaded, error) {
	var l *loaded
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		g, err := tx.GameByID(id)
		if err != nil {
			return err
		}
		l, err = decodeGame(g)
		return err
	})
	return l, err
}

func channelOf(kind string) rules.Channel {
	if kind == "pm" {
		return rules.Private
	}
	return rules.Public
}
