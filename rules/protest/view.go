package protest

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// View is what one viewer may see. Sites is filled only once the game is over.
type View struct {
	Turn     int               `json:"turn"`
	Deadline time.Time         `json:"deadline"`
	Finished bool              `json:"finished"`
	Map      hexmap.Map        `json:"map"`
	Terrain  map[string]string `json:"terrain,omitempty"`
	Revealed []Reveal          `json:"revealed"`
	Hidden   int               `json:"hidden"` // sites not yet revealed
	Total    int               `json:"total"`  // sites in all
	Players  []PublicPlayer    `json:"players"`
	History  []TurnLog         `json:"history"` // without silent protests (nobody is told of them)
	Winners  []string          `json:"winners,omitempty"`
	Sites    []string          `json:"sites,omitempty"`
	Me       *Private          `json:"me,omitempty"`
}

// PublicPlayer is a player as the turn updates show them.
type PublicPlayer struct {
	ID   string `json:"id"`
	Org  string `json:"org,omitempty"`
	PP   int    `json:"pp"`
	Out  bool   `json:"out,omitempty"`
	Hits int    `json:"hits"`
}

// Private is the viewing player's own orders and results.
type Private struct {
	ID       string       `json:"id"`
	Scans    []ScanOrder  `json:"scans,omitempty"`   // pending this turn
	Protest  string       `json:"protest,omitempty"` // pending this turn
	Results  []ScanResult `json:"results,omitempty"`
	Protests []ProtestLog `json:"protests,omitempty"` // own past protests, silent ones too
}

// View shows the public game, plus the viewer's own orders and results.
func (Game) View(s rules.State, viewer string) any {
	st := s.(*State)
	v := View{
		Turn: st.Turn, Deadline: st.Deadline, Finished: st.Finished, Map: st.Map,
		Terrain: st.Terrain, Revealed: append([]Reveal{}, st.Revealed...),
		Hidden: len(st.hidden()), Total: len(st.Sites), Winners: st.Winners,
	}
	for _, id := range st.Seats.IDs() {
		p := st.Players[id]
		v.Players = append(v.Players, PublicPlayer{ID: id, Org: p.Org, PP: p.PP, Out: p.Out, Hits: p.Hits})
	}
	for _, l := range st.History {
		pub := TurnLog{Turn: l.Turn, NewOut: l.NewOut, PP: l.PP}
		for _, p := range l.Protests {
			if p.Outcome != Silent {
				pub.Protests = append(pub.Protests, p)
			}
		}
		v.History = append(v.History, pub)
	}
	if st.Finished {
		v.Sites = append([]string{}, st.Sites...)
	}
	if p, ok := st.Players[viewer]; ok {
		me := &Private{ID: viewer, Scans: p.Scans, Protest: p.Protest, Results: p.Results}
		for _, l := range st.History {
			for _, pl := range l.Protests {
				if pl.Player == viewer {
					me.Protests = append(me.Protests, pl)
				}
			}
		}
		v.Me = me
	}
	return v
}

var botOrgs = []string{"Friends of the Earth", "Citizens Watch", "Open Files Collective",
	"Clear Water League", "Daylight Society", "Whistle Club", "Green Lantern Trust", "Quiet Hills Group"}

// Bot sends random legal orders by PM, sometimes protesting where its own
// scans point, and now and then a bad order (off the map, radius 7, or an
// order posted in the thread) to exercise the rejections.
func (g Game) Bot(s rules.State, player string, r *rules.Rand) []Move {
	v, ok := g.View(s, player).(View)
	if !ok || v.Finished || v.Me == nil {
		return nil
	}
	var mine PublicPlayer
	for _, p := range v.Players {
		if p.ID == player {
			mine = p
		}
	}
	if mine.Out || len(v.Me.Scans) > 0 || v.Me.Protest != "" {
		return nil // out, or already ordered this turn
	}
	var moves []Move
	if mine.Org == "" && r.IntN(3) == 0 {
		moves = append(moves, Move{Text: "We are [b]NAME: " + botOrgs[r.IntN(len(botOrgs))] + "[/b]!"})
	}
	all := v.Map.All()
	randHex := func() string { return all[r.IntN(len(all))].Name() }
	var lines []string
	for _, i := range r.Perm(len(Labels))[:r.IntN(len(Labels)+1)] {
		lines = append(lines, fmt.Sprintf("%c %d %s", Labels[i], 1+r.IntN(MaxRadius), randHex()))
	}
	if x := smartProtest(v, r); x != "" && r.IntN(4) != 0 {
		lines = append(lines, "Protest "+x)
	} else if r.IntN(3) == 0 {
		lines = append(lines, "Protest "+randHex())
	}
	if r.IntN(10) == 0 {
		switch r.IntN(3) {
		case 0:
			off := hexmap.Hex{Col: v.Map.Columns + r.IntN(3), Row: r.IntN(v.Map.Rows + 3)}
			lines = append(lines, "Protest "+off.Name())
		case 1:
			lines = append(lines, "A 7 "+randHex())
		default:
			moves = append(moves, Move{Text: "My order: [b]Protest " + randHex() + "[/b]"})
		}
	}
	if len(lines) > 0 {
		moves = append(moves, Move{Text: strings.Join(lines, "\n"), Private: true})
	}
	return moves
}

// Move is rules.Move (short name for this file).
type Move = rules.Move

// smartProtest picks the unrevealed hex the viewer's own scans make most
// likely to hold a hidden site ("" when they say nothing useful). A scan
// counted every site, so its hidden count now is its count minus the sites
// revealed inside it since.
func smartProtest(v View, r *rules.Rand) string {
	if len(v.Me.Results) == 0 {
		return ""
	}
	revealed := map[string]bool{}
	for _, x := range v.Revealed {
		revealed[x.Hex] = true
	}
	type area struct {
		in     map[hexmap.Hex]bool
		hidden int
	}
	var areas []area
	for _, res := range v.Me.Results {
		c, err := v.Map.Parse(res.Hex)
		if err != nil {
			continue
		}
		a := area{in: map[hexmap.Hex]bool{}, hidden: res.Count}
		for _, h := range v.Map.Within(c, res.Radius) {
			a.in[h] = true
			if revealed[h.Name()] {
				a.hidden--
			}
		}
		areas = append(areas, a)
	}
	best, bestScore := "", 0.0
	for _, h := range v.Map.All() {
		if revealed[h.Name()] {
			continue
		}
		score := 0.0
		for _, a := range areas {
			if !a.in[h] {
				continue
			}
			if a.hidden <= 0 {
				score = -1
				break
			}
			score += float64(a.hidden) / float64(len(a.in))
		}
		if score > bestScore || (score == bestScore && score > 0 && r.IntN(2) == 0) {
			best, bestScore = h.Name(), score
		}
	}
	return best
}
