package protest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// nearest is the distance from hex name x to the nearest of the given sites
// (-1 when there are none).
func (s *State) nearest(x string, sites []string) int {
	best := -1
	h := s.hex(x)
	for _, site := range sites {
		if d := s.Map.Distance(h, s.hex(site)); best < 0 || d < best {
			best = d
		}
	}
	return best
}

// Resolve closes the turn: every order against the sites as the turn began.
func (g Game) Resolve(s rules.State, now time.Time) (rules.State, []rules.Event) {
	st := s.(*State)
	if st.Finished {
		return s, nil
	}
	n := g.clone(st)
	hidden := st.hidden() // as the turn began
	ids := n.Seats.IDs()
	var evs []rules.Event

	// Scans count every site, revealed or not.
	for _, id := range ids {
		p := n.Players[id]
		if p.Out || len(p.Scans) == 0 {
			continue
		}
		var lines []string
		for _, o := range p.Scans {
			c := 0
			for _, site := range n.Sites {
				if n.Map.Distance(n.hex(o.Hex), n.hex(site)) <= o.Radius {
					c++
				}
			}
			p.Results = append(p.Results, ScanResult{Turn: n.Turn, Label: o.Label, Radius: o.Radius, Hex: o.Hex, Count: c})
			lines = append(lines, fmt.Sprintf("%s %d (sites within %d of %s)", o.Label, c, o.Radius, o.Hex))
		}
		evs = append(evs, rules.PrivateEvent(id, "scans",
			fmt.Sprintf("[b]Turn %d scan results[/b]\n%s", n.Turn, strings.Join(lines, "\n"))))
	}

	// Protests, grouped by hex so a shared hit is split.
	at := map[string][]string{}
	for _, id := range ids {
		if p := n.Players[id]; !p.Out && p.Protest != "" {
			at[p.Protest] = append(at[p.Protest], id)
		}
	}
	log := TurnLog{Turn: n.Turn, Protests: []ProtestLog{}, PP: map[string]int{}}
	var newlyRevealed []Reveal
	for _, id := range ids {
		p := n.Players[id]
		if p.Out || p.Protest == "" {
			continue
		}
		x := p.Protest
		pl := ProtestLog{Player: id, Hex: x}
		switch d := n.nearest(x, hidden); {
		case d == 0:
			pl.Outcome, pl.Delta = Hit, HitPoints/len(at[x])
			p.Hits++
			if at[x][0] == id {
				newlyRevealed = append(newlyRevealed, Reveal{Hex: x, Turn: n.Turn, By: at[x]})
			}
		case d == 1:
			pl.Outcome = Silent
		default:
			pl.Outcome, pl.Delta = Miss, -d
		}
		p.PP += pl.Delta
		log.Protests = append(log.Protests, pl)
	}
	n.Revealed = append(n.Revealed, newlyRevealed...)
	for _, id := range ids {
		p := n.Players[id]
		if !p.Out && p.PP <= 0 {
			p.PP, p.Out, p.OutTurn = 0, true, n.Turn
			log.NewOut = append(log.NewOut, id)
		}
		p.Scans, p.Protest = nil, ""
		log.PP[id] = p.PP
	}
	n.History = append(n.History, log)

	active := 0
	for _, id := range ids {
		if !n.Players[id].Out {
			active++
		}
	}
	switch {
	case len(n.hidden()) == 0:
		n.finish("every site has been revealed")
	case active == 0:
		n.finish("no active player is left")
	default:
		n.Deadline = now.Add(hoursDur(n.TurnHours))
	}
	evs = append(evs, rules.PublicEvent("turn", n.reportText(log)))
	if n.Finished {
		evs = append(evs, rules.PublicEvent("final", n.finalText()))
	} else {
		n.Turn++
	}
	return n, evs
}

func (s *State) finish(reason string) {
	s.Finished, s.EndReason = true, reason
	s.Deadline = time.Time{}
	s.Winners = s.winners()
	for _, p := range s.Players {
		p.Scans, p.Protest = nil, ""
	}
}

// End closes the game at the GM's word. Orders of the open turn are dropped.
func (g Game) End(s rules.State, now time.Time) (rules.State, []rules.Event) {
	st := s.(*State)
	if st.Finished {
		return s, nil
	}
	n := g.clone(st)
	n.finish("the GM ended the game")
	return n, []rules.Event{rules.PublicEvent("final", n.finalText())}
}

func signed(d int) string {
	if d > 0 {
		return fmt.Sprintf("+%d", d)
	}
	return fmt.Sprint(d)
}

// reportText is the public turn update. It names only revealed sites (hits)
// and failed protest hexes, which are never sites.
func (s *State) reportText(l TurnLog) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Protest: results of turn %d[/b]\n", l.Turn)
	var hits, misses []string
	for _, p := range l.Protests {
		switch p.Outcome {
		case Hit:
			hits = append(hits, fmt.Sprintf("%s at %s: %s PP", s.who(p.Player), p.Hex, signed(p.Delta)))
		case Miss:
			misses = append(misses, fmt.Sprintf("%s at %s: %s PP", s.who(p.Player), p.Hex, signed(p.Delta)))
		}
	}
	list := func(title string, xs []string) {
		if len(xs) == 0 {
			fmt.Fprintf(&b, "%s: none.\n", title)
			return
		}
		fmt.Fprintf(&b, "%s:\n", title)
		for _, x := range xs {
			fmt.Fprintf(&b, "- %s\n", x)
		}
	}
	list("Successful protests", hits)
	list("Failed protests", misses)
	for _, id := range l.NewOut {
		fmt.Fprintf(&b, "%s has lost all public credibility and is out of the game.\n", s.who(id))
	}
	var out []string
	for _, id := range s.Seats.IDs() {
		if s.Players[id].Out {
			out = append(out, s.Seats.Name(id))
		}
	}
	if len(out) > 0 {
		fmt.Fprintf(&b, "Out of the game: %s.\n", strings.Join(out, ", "))
	}
	b.WriteString("Prestige Points:\n")
	for _, id := range s.standings() {
		p := s.Players[id]
		tag := ""
		if p.Out {
			tag = " (out)"
		}
		fmt.Fprintf(&b, "- %s: %d%s\n", s.who(id), p.PP, tag)
	}
	fmt.Fprintf(&b, "Sites still hidden: %d of %d.\n", len(s.hidden()), len(s.Sites))
	if m, err := s.mapText(l.Turn); err == nil {
		b.WriteString(m + "\n")
	}
	if !s.Finished {
		fmt.Fprintf(&b, "Turn %d is open: orders by PM before the deadline below.", l.Turn+1)
	}
	return strings.TrimRight(b.String(), "\n")
}

// finalText reveals every site and each player's history.
func (s *State) finalText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[b]Protest is over: %s.[/b]\n", s.EndReason)
	if len(s.Winners) == 1 {
		fmt.Fprintf(&b, "Winner: %s.\n", s.who(s.Winners[0]))
	} else {
		var ws []string
		for _, w := range s.Winners {
			ws = append(ws, s.who(w))
		}
		fmt.Fprintf(&b, "Shared win: %s.\n", strings.Join(ws, ", "))
	}
	b.WriteString("Final standings:\n")
	for i, id := range s.standings() {
		p := s.Players[id]
		fmt.Fprintf(&b, "%d. %s: %d PP, %s%s\n", i+1, s.who(id), p.PP, rules.Plural(p.Hits, "successful protest"), map[bool]string{true: ", out", false: ""}[p.Out])
	}
	b.WriteString("The sites:\n")
	sites := append([]string(nil), s.Sites...)
	sort.Strings(sites)
	for _, x := range sites {
		found := "never found"
		for _, r := range s.Revealed {
			if r.Hex == x {
				found = fmt.Sprintf("revealed in turn %d by %s", r.Turn, s.Seats.Names(r.By))
			}
		}
		fmt.Fprintf(&b, "- %s: %s\n", x, found)
	}
	b.WriteString("Each player's history:\n")
	for _, id := range s.Seats.IDs() {
		fmt.Fprintf(&b, "[b]%s[/b]\n", s.who(id))
		for _, l := range s.History {
			var parts []string
			for _, p := range l.Protests {
				if p.Player != id {
					continue
				}
				switch p.Outcome {
				case Hit:
					parts = append(parts, fmt.Sprintf("protest %s: success %s PP", p.Hex, signed(p.Delta)))
				case Miss:
					parts = append(parts, fmt.Sprintf("protest %s: failure %s PP", p.Hex, signed(p.Delta)))
				default:
					parts = append(parts, fmt.Sprintf("protest %s: next to a site, no effect", p.Hex))
				}
			}
			var scans []string
			for _, r := range s.Players[id].Results {
				if r.Turn == l.Turn {
					scans = append(scans, fmt.Sprintf("%s %d %s → %d", r.Label, r.Radius, r.Hex, r.Count))
				}
			}
			if len(scans) > 0 {
				parts = append(parts, "scans "+strings.Join(scans, ", "))
			}
			if len(parts) == 0 {
				parts = append(parts, "no orders")
			}
			if pp, ok := l.PP[id]; ok {
				parts = append(parts, fmt.Sprintf("%d PP", pp))
			}
			fmt.Fprintf(&b, "- turn %d: %s\n", l.Turn, strings.Join(parts, "; "))
		}
	}
	return strings.TrimRight(b.String(), "\n")
}
