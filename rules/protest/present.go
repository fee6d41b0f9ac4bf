package protest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/forumgm/forumgm/rules"
)

var _ rules.Presenter = Game{}

// Present implements rules.Presenter: the map after the last turn, the
// standings, the revealed sites and every reported protest; for the GM
// also the hidden sites, this turn's orders, every scan with what it
// counted and the silent protests.
//
// Everyone's view is built from View(s, Everyone) and the public map
// picture (which draws only revealed sites and reported protests).
func (g Game) Present(st rules.State, v rules.Viewing) []rules.Section {
	s := st.(*State)
	p := protestView{s: s, v: g.View(s, rules.Everyone).(View)}
	out := []rules.Section{p.mapSection(v.GM), p.standings(), p.sites(), p.protests()}
	if v.GM {
		out = append(out, p.gmSites(), p.gmOrders(), p.gmScans())
	}
	return out
}

type protestView struct {
	s *State
	v View
}

func (p protestView) name(id string) string { return p.s.Seats.Display(id) }

func (p protestView) names(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = p.name(id)
	}
	return out
}

func cells(hs ...string) []rules.Cell {
	out := make([]rules.Cell, len(hs))
	for i, h := range hs {
		out[i] = rules.Text(h)
	}
	return out
}

func (p protestView) mapSection(gm bool) rules.Section {
	turn := len(p.s.History)
	sec := rules.Section{Title: "Map"}
	if turn == 0 {
		sec.Intro = "As the game began."
	} else {
		sec.Intro = fmt.Sprintf("After turn %d: revealed sites are stars, this turn's protests rings (green: a hit, red: a miss).", turn)
	}
	if gm {
		sec.Title, sec.GM = "Map with the hidden sites (GM only)", true
		sec.Intro += " Dashed stars are the sites still hidden; orange rings silent protests."
	}
	if pub, gmPic, err := Pictures(p.s, turn); err == nil {
		pic := rules.Picture{Format: "svg", Data: pub, Alt: p.mapAlt(false)}
		if gm {
			pic = rules.Picture{GM: true, Format: "svg", Data: gmPic, Alt: p.mapAlt(true)}
		}
		sec.Pictures = []rules.Picture{pic}
	}
	revealed := rules.Text(fmt.Sprintf("%d of %d (%d still hidden)", len(p.v.Revealed), p.v.Total, p.v.Hidden))
	sec.Facts = []rules.Fact{{Label: "Sites revealed", Value: revealed}}
	return sec
}

func (p protestView) mapAlt(gm bool) string {
	var hexes []string
	for _, r := range p.v.Revealed {
		hexes = append(hexes, r.Hex)
	}
	alt := fmt.Sprintf("Hex map of %d columns and %d rows", p.v.Map.Columns, p.v.Map.Rows)
	if len(hexes) > 0 {
		alt += "; revealed sites at " + strings.Join(hexes, ", ")
	} else {
		alt += "; no site revealed yet"
	}
	if gm {
		alt += "; hidden sites at " + strings.Join(p.s.hidden(), ", ")
	}
	return alt + "."
}

func (p protestView) standings() rules.Section {
	t := rules.Table{Caption: "Standings", Head: cells("Player", "Organisation", "Prestige points", "Sites found"), RowHeads: true}
	players := append([]PublicPlayer(nil), p.v.Players...)
	sort.SliceStable(players, func(i, j int) bool {
		if players[i].Out != players[j].Out {
			return !players[i].Out
		}
		return players[i].PP > players[j].PP
	})
	winner := map[string]bool{}
	for _, w := range p.v.Winners {
		winner[w] = true
	}
	for _, pl := range players {
		org := rules.Marked("none named", rules.Muted)
		if pl.Org != "" {
			org = rules.Cell{Names: []string{pl.Org}} // the player's words: kept apart like a name
		}
		row := rules.Row{Cells: []rules.Cell{rules.Who(p.name(pl.ID)), org, rules.Marked(fmt.Sprint(pl.PP), rules.Strong), rules.Text(fmt.Sprint(pl.Hits))}}
		switch {
		case pl.Out:
			row.Mark = rules.Muted
			row.Cells[2] = rules.Marked(fmt.Sprintf("%d (out)", pl.PP), rules.Muted)
		case winner[pl.ID]:
			row.Mark = rules.Good
		}
		t.Rows = append(t.Rows, row)
	}
	return rules.Section{Title: "Standings", Tables: []rules.Table{t}}
}

func (p protestView) sites() rules.Section {
	sec := rules.Section{Title: "Revealed sites"}
	if len(p.v.Revealed) == 0 {
		sec.Intro = fmt.Sprintf("None yet: %d sites are hidden on the map.", p.v.Hidden)
		return sec
	}
	t := rules.Table{Caption: "Revealed sites", Head: cells("Site", "Turn", "Found by"), RowHeads: true}
	for _, r := range p.v.Revealed {
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Text(r.Hex), rules.Text(fmt.Sprint(r.Turn)), rules.Who(p.names(r.By)...)}})
	}
	sec.Tables = []rules.Table{t}
	if p.v.Finished && len(p.v.Sites) > 0 {
		sec.Facts = []rules.Fact{{Label: "Every site", Value: rules.Text(strings.Join(p.v.Sites, ", "))}}
	}
	return sec
}

func outcomeCell(l ProtestLog) rules.Cell {
	switch l.Outcome {
	case Hit:
		return rules.Marked(fmt.Sprintf("a site found (%+d prestige)", l.Delta), rules.Good)
	case Miss:
		return rules.Marked(fmt.Sprintf("no site near (%+d prestige)", l.Delta), rules.Bad)
	}
	return rules.Marked("near a site: nothing happens, nobody is told", rules.Muted)
}

func (p protestView) protests() rules.Section {
	sec := rules.Section{Title: "Protests", Intro: "Every protest reported in the thread, newest first."}
	t := rules.Table{Caption: "Protests", Head: cells("Turn", "Player", "Where", "Outcome")}
	for i := len(p.v.History) - 1; i >= 0; i-- {
		l := p.v.History[i]
		for _, pr := range l.Protests {
			t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(l.Turn)), rules.Who(p.name(pr.Player)), rules.Text(pr.Hex), outcomeCell(pr)}})
		}
		if len(l.NewOut) > 0 {
			t.Rows = append(t.Rows, rules.Row{Mark: rules.Muted, Cells: []rules.Cell{rules.Text(fmt.Sprint(l.Turn)), rules.Who(p.names(l.NewOut)...), rules.Text(""), rules.Marked("out of the game", rules.Bad)}})
		}
	}
	if len(t.Rows) == 0 {
		sec.Intro = "No protest has been reported yet."
		return sec
	}
	sec.Tables = []rules.Table{t}
	return sec
}

// ---- the GM's view

func (p protestView) gmSites() rules.Section {
	hidden := p.s.hidden()
	sec := rules.Section{Title: "Hidden sites (GM only)", GM: true}
	if len(hidden) == 0 {
		sec.Intro = "Every site has been revealed."
		return sec
	}
	sec.Facts = []rules.Fact{{Label: fmt.Sprintf("%d hidden", len(hidden)), Value: rules.Marked(strings.Join(hidden, ", "), rules.Secret)}}
	return sec
}

func scanText(sc []ScanOrder) string {
	var parts []string
	for _, o := range sc {
		parts = append(parts, fmt.Sprintf("%s: radius %d around %s", o.Label, o.Radius, o.Hex))
	}
	return strings.Join(parts, "; ")
}

func (p protestView) gmOrders() rules.Section {
	sec := rules.Section{Title: "Orders this turn (GM only)", GM: true}
	if p.s.Finished {
		sec.Intro = "The game is over."
		return sec
	}
	t := rules.Table{Caption: fmt.Sprintf("Orders for turn %d", p.s.Turn), Head: cells("Player", "Scans", "Protest"), RowHeads: true}
	for _, id := range p.s.Seats.IDs() {
		pl := p.s.Players[id]
		if pl == nil || pl.Out {
			continue
		}
		scans := rules.Marked("none", rules.Muted)
		if len(pl.Scans) > 0 {
			scans = rules.Text(scanText(pl.Scans))
		}
		prot := rules.Marked("none", rules.Muted)
		if pl.Protest != "" {
			prot = rules.Text(pl.Protest)
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), scans, prot}})
	}
	sec.Tables = []rules.Table{t}
	return sec
}

func (p protestView) gmScans() rules.Section {
	sec := rules.Section{Title: "Scans and silent protests (GM only)", GM: true,
		Intro: "Every scan with the sites it counted, as each player was told by PM, newest first."}
	t := rules.Table{Caption: "Scans", Head: cells("Turn", "Player", "Scan", "Radius", "Centre", "Sites counted")}
	type scan struct {
		id string
		ScanResult
	}
	var all []scan
	for _, id := range p.s.Seats.IDs() {
		if pl := p.s.Players[id]; pl != nil {
			for _, r := range pl.Results {
				all = append(all, scan{id, r})
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Turn > all[j].Turn })
	for _, sc := range all {
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(sc.Turn)), rules.Who(p.name(sc.id)), rules.Text(sc.Label),
			rules.Text(fmt.Sprint(sc.Radius)), rules.Text(sc.Hex), rules.Marked(fmt.Sprint(sc.Count), rules.Strong)}})
	}
	if len(t.Rows) > 0 {
		sec.Tables = append(sec.Tables, t)
	} else {
		sec.Intro = "No scan has been resolved yet."
	}
	silent := rules.Table{Caption: "Silent protests", Head: cells("Turn", "Player", "Where")}
	for i := len(p.s.History) - 1; i >= 0; i-- {
		l := p.s.History[i]
		for _, pr := range l.Protests {
			if pr.Outcome == Silent {
				silent.Rows = append(silent.Rows, rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(l.Turn)), rules.Who(p.name(pr.Player)), rules.Text(pr.Hex)}})
			}
		}
	}
	if len(silent.Rows) > 0 {
		sec.Tables = append(sec.Tables, silent)
	}
	return sec
}
