package gamelog

import (
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// Activity (docs/between-deadlines.md): each player's posts in the thread
// and accepted commands, phase by phase, and when the game last heard from
// him, for `forumgm status` and the desk (the GM's eyes only: it counts a
// player's PMs too, never says what they held).

// PlayerActivity is one player's activity in one phase.
type PlayerActivity struct {
	Player  string `json:"player"`  // as the forum names him now
	Posts   int    `json:"posts"`   // posts in the thread made while the phase was open
	Actions int    `json:"actions"` // commands of his accepted in the phase (thread and PM)
	// LastHeard is when his latest post or PM in the game was made (zero:
	// never), as of now, whatever the phase.
	LastHeard time.Time `json:"last_heard,omitzero"`
}

// PhaseActivity is every player's activity in one phase.
type PhaseActivity struct {
	Phase   string           `json:"phase"`
	Title   string           `json:"title"`
	Players []PlayerActivity `json:"players"`
}

// Activity is game g's activity, phase by phase, the current phase last
// (when the game is not over). A post belongs to the phase open when it
// was made; posts before the game began (sign-ups) to none.
func Activity(tx *store.Tx, g Game) ([]PhaseActivity, error) {
	id := g.Row.ID
	res, err := tx.Resolutions(id)
	if err != nil {
		return nil, err
	}
	times, err := tx.MessageTimes(id)
	if err != nil {
		return nil, err
	}
	cmds, err := tx.Commands(id, store.CommandFilter{Status: store.CommandAccepted})
	if err != nil {
		return nil, err
	}
	roster := g.State.Roster()
	st := g.Rules.Status(g.State)
	phases := make([]PhaseActivity, 0, len(res)+1)
	index := map[string]int{}
	add := func(phase, title string) {
		index[phase] = len(phases)
		pa := PhaseActivity{Phase: phase, Title: title}
		for _, slot := range roster.IDs() {
			pa.Players = append(pa.Players, PlayerActivity{Player: roster.Display(slot)})
		}
		phases = append(phases, pa)
	}
	for _, r := range res {
		add(r.Phase, r.Title)
	}
	if !st.Finished {
		add(st.Phase, st.Title)
	}
	slots := map[string]int{}
	for i, slot := range roster.IDs() {
		slots[slot] = i
	}
	last := make([]time.Time, len(roster.IDs()))
	for _, m := range times {
		slot, ok := roster.Author(m.Author)
		if !ok || m.Time.Before(g.Start) {
			continue
		}
		i := slots[slot]
		if m.Time.After(last[i]) {
			last[i] = m.Time
		}
		if m.Kind != forum.KindPost {
			continue
		}
		ph := len(res) // the phase open at m.Time: the first not closed by then
		for j, r := range res {
			if m.Time.Before(r.At) {
				ph = j
				break
			}
		}
		if ph < len(phases) {
			phases[ph].Players[i].Posts++
		}
	}
	for _, c := range cmds {
		j, ok := index[c.Phase]
		i, isPlayer := slots[c.Player]
		if ok && isPlayer && c.Kind != between.CountKind {
			phases[j].Players[i].Actions++
		}
	}
	for j := range phases {
		for i := range phases[j].Players {
			phases[j].Players[i].LastHeard = last[i]
		}
	}
	return phases, nil
}

// Current is the activity of the game's current phase (nil once it is
// over), for its report.
func Current(tx *store.Tx, g Game) ([]PlayerActivity, error) {
	if g.Rules.Status(g.State).Finished {
		return nil, nil
	}
	all, err := Activity(tx, g)
	if err != nil || len(all) == 0 {
		return nil, err
	}
	return all[len(all)-1].Players, nil
}
