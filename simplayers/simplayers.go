// Package simplayers plays a game's players from the outside: each looks at
// what it may see (the game's view for that player), asks the game for moves
// (the optional rules.Bot capability), and sends them through whatever channel the caller gives (the demo
// and the end-to-end tests use the forum's own web forms).
package simplayers

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"

	"github.com/forumgm/forumgm/rules"
)

// Sender delivers a simulated player's move.
type Sender interface {
	Post(ctx context.Context, player, bbcode string) error
	PM(ctx context.Context, player, text string) error
}

// Table is the simulated players of one game. Game must implement
// rules.Bot; Act says so when it does not.
type Table struct {
	Game rules.Game
	Seed int64
	// AskCounts, when above 0, has a player ask for a count (a bold
	// VOTECOUNT) one time in AskCounts that he acts, in his post or a post
	// of its own, as forum players do all day. Its dice are its own: the
	// game's moves are the same with it or without.
	AskCounts int
	// Hold, when set, keeps a player from acting while it says so: he acts
	// on the state as it is once let go. Tests use it for a player who is
	// late, as some always are, so reminders find someone to remind.
	Hold func(player string, s rules.State) bool
	last map[string][32]byte
	rngs map[string]*rules.Rand
	asks map[string]*rules.Rand
}

// Move is a move that was sent, for logs.
type Move struct {
	Player string
	rules.Move
}

// Act lets every active player make their moves for state s. A player acts
// again only once what they can see has changed, so one phase's vote is not
// sent over and over while the bot has not read it yet.
func (t *Table) Act(ctx context.Context, s rules.State, send Sender) ([]Move, error) {
	if t.last == nil {
		t.last = map[string][32]byte{}
		t.rngs = map[string]*rules.Rand{}
		t.asks = map[string]*rules.Rand{}
	}
	bot, ok := t.Game.(rules.Bot)
	if !ok {
		return nil, fmt.Errorf("%s has no simulated players (it does not implement rules.Bot)", t.Game.Name())
	}
	if t.Game.Status(s).Finished {
		return nil, nil
	}
	var sent []Move
	for _, p := range s.Roster().IDs() {
		v, err := json.Marshal(t.Game.View(s, p))
		if err != nil {
			return sent, err
		}
		h := sha256.Sum256(v)
		if h == t.last[p] || (t.Hold != nil && t.Hold(p, s)) {
			continue
		}
		t.last[p] = h
		r, ok := t.rngs[p]
		if !ok {
			r = rules.NewRand(t.Seed, "simplayer/"+p)
			t.rngs[p] = r
		}
		for _, mv := range t.withCount(p, bot.Bot(s, p, r)) {
			name := s.Roster().Display(p)
			if mv.Private {
				err = send.PM(ctx, name, mv.Text)
			} else {
				err = send.Post(ctx, name, mv.Text)
			}
			if err != nil {
				return sent, err
			}
			sent = append(sent, Move{Player: name, Move: mv})
		}
	}
	return sent, nil
}

// withCount adds a request for a count to a player's moves, when his own
// dice say so (AskCounts).
func (t *Table) withCount(p string, moves []rules.Move) []rules.Move {
	if t.AskCounts <= 0 {
		return moves
	}
	r, ok := t.asks[p]
	if !ok {
		r = rules.NewRand(t.Seed, "simplayer-count/"+p)
		t.asks[p] = r
	}
	if r.IntN(t.AskCounts) != 0 {
		return moves
	}
	for i, mv := range moves {
		if !mv.Private {
			moves[i].Text += "\n[b]VOTECOUNT[/b]"
			return moves
		}
	}
	return append(moves, rules.Move{Text: "Where do we stand? [b]VOTECOUNT[/b]"})
}
