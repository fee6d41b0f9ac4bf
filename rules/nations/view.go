package nations

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// PlayerView is the public face of one nation.
type PlayerView struct {
	ID        string `json:"id"`
	Name      string `json:"name"` // display name (not escaped)
	Civ       string `json:"civ"`
	CivPicked bool   `json:"civ_picked"` // posted a CIV (else Air by default)
	VP        int    `json:"vp"`
	Out       bool   `json:"out"`
}

// View is what one viewer may see: public facts, plus the viewer's own
// standing order. Results carry the time their report is published; View
// has no clock, so a caller showing it to players during a break should hide
// results whose Published is still in the future.
type View struct {
	Round    int          `json:"round"`
	Rounds   int          `json:"rounds"`
	Opens    time.Time    `json:"opens"`
	Deadline time.Time    `json:"deadline"`
	Finished bool         `json:"finished"`
	CivLock  bool         `json:"civ_locked"`
	Players  []PlayerView `json:"players"`
	Results  []Result     `json:"results"`
	You      string       `json:"you,omitempty"`
	Order    *Order       `json:"order,omitempty"`      // your order for Round
	NextOrd  *Order       `json:"next_order,omitempty"` // your order already made for Round+1
}

// View implements rules.Game.
func (Game) View(st rules.State, viewer string) any {
	s := st.(*State)
	v := View{
		Round: s.Round, Rounds: s.Settings.Rounds, Opens: s.Opens, Deadline: s.Deadline,
		Finished: s.Finished, CivLock: s.Round > 1 || s.Finished,
		Results: append([]Result(nil), s.History...),
	}
	for _, id := range s.Seats.IDs() {
		_, picked := s.Civ[id]
		_, out := s.OutRound[id]
		v.Players = append(v.Players, PlayerView{ID: id, Name: s.Seats.Display(id),
			Civ: s.CivOf(id), CivPicked: picked, VP: s.VP[id], Out: out})
	}
	if s.Seats.Has(viewer) {
		v.You = viewer
		if o, ok := s.Orders[viewer]; ok {
			v.Order = &o
		}
		if o, ok := s.Next[viewer]; ok {
			v.NextOrd = &o
		}
	}
	return v
}

// Bot implements rules.Bot: a simulated player posts a CIV at the start,
// then sends one random legal order a round by PM; about one time in ten it
// sends a bad one instead (an unknown name, a self-invasion, or the order
// posted in the thread), to exercise rejections.
func (g Game) Bot(st rules.State, player string, r *rules.Rand) []rules.Move {
	v := g.View(st, player).(View)
	if v.Finished || v.You == "" {
		return nil
	}
	var me PlayerView
	var others []PlayerView
	for _, p := range v.Players {
		if p.ID == player {
			me = p
		} else if !p.Out {
			others = append(others, p)
		}
	}
	if me.Out {
		return nil
	}
	var moves []rules.Move
	if !v.CivLock && !me.CivPicked {
		civ := Civs[r.IntN(len(Civs))]
		moves = append(moves, rules.Move{Text: fmt.Sprintf("For the glory of my people! [b]CIV: %s Nation[/b]", civ)})
	}
	if v.Order != nil || len(others) == 0 {
		return moves
	}
	if r.IntN(10) == 0 {
		switch r.IntN(3) {
		case 0:
			moves = append(moves, rules.Move{Private: true, Text: "INVADE Nobody_" + fmt.Sprint(r.IntN(1000))})
		case 1:
			moves = append(moves, rules.Move{Private: true, Text: "INVADE " + me.Name})
		default:
			moves = append(moves, rules.Move{Text: fmt.Sprintf("You are all doomed. [b]INVADE %s[/b]", others[r.IntN(len(others))].Name)})
		}
		return moves
	}
	other := others[r.IntN(len(others))].Name
	var order string
	switch r.IntN(4) {
	case 0:
		order = "INVADE " + other
	case 1:
		order = "DEFEND " + other
	case 2:
		order = "DEFEND"
	default:
		order = "PROSPER"
	}
	if r.IntN(2) == 0 {
		order = strings.ToLower(order)
	}
	return append(moves, rules.Move{Private: true, Text: order})
}
