package moderator

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// Create sets a game up: draws its secrets, saves it, and queues the
// opening post and the role PMs. A game to be filled by sign-ups (no
// players, gc.Signups) is created taking them, and the call for players
// queued instead (signups.go).
func (m *Moderator) Create(ctx context.Context, name, kind string, gc gameconfig.GameConfig, fc gameconfig.ForumConfig, players []store.Player) (*store.Game, error) {
	if gc.SigningUp() {
		return m.createSignups(ctx, name, kind, gc, fc)
	}
	eng, err := rules.Lookup(kind)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	if gc.Instance == "" {
		gc.Instance = instanceToken()
	}
	setup, err := referee.Setup(eng, gc.Rules())
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	state, err := json.Marshal(setup.State)
	if err != nil {
		return nil, fmt.Errorf("create %s: encoding the state: %w", name, err)
	}
	row := &store.Game{Name: name, Kind: kind, Status: Running, Config: mustJSON(gc), Forum: mustJSON(fc), State: state}
	site := resolveSite(fc, m.bodyReader) // its first deadline goes on the board's unit
	err = m.DB.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.CreateGame(row); err != nil {
			return err
		}
		ps := make([]store.Player, len(players))
		for i, p := range players {
			p.GameID = row.ID
			ps[i] = p
		}
		s := &step{l: &loaded{row: row, game: eng, cfg: gc, forum: fc, state: setup.State, site: site},
			players: ps, playersChanged: len(ps) > 0, opened: gc.Start, pictured: -1, work: &m.work}
		// The first deadline as the schedule sets it, on the board's unit
		// (a whole minute where stamps are to the minute), before the
		// opening post states it.
		openDeadline(s, gc.Start, m.now())
		setup.State = s.l.state
		s.emit(store.SendChores, "setup", setup, m.now()) // after running games' answers: its clock starts once it is up
		return m.commit(tx, s)
	})
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", name, err)
	}
	m.hold(row.ID, row.Forum, site)
	return row, nil
}
