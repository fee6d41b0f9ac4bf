package nations

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

var _ rules.Presenter = Game{}

// Present implements rules.Presenter: the scoreboard, the victory points
// over the rounds as a chart, the civilisations and each round's orders
// and what came of them, once its report is out; for the GM also the
// orders received for this round and the next.
//
// Everyone's view is built from View(s, Everyone), and a round whose
// report is held for the next round (a break) stays out of it until
// v.Now reaches its publication: the scoreboard then shows the points as
// that round began, as the thread does.
func (g Game) Present(st rules.State, v rules.Viewing) []rules.Section {
	s := st.(*State)
	pv := g.View(s, rules.Everyone).(View)
	p := nationsView{s: s, v: pv}
	for _, r := range pv.Results {
		if v.GM || !r.Published.After(v.Now) {
			p.shown = append(p.shown, r)
		} else {
			p.held = true
		}
	}
	out := []rules.Section{p.scoreboard(), p.chartSection(), p.rounds()}
	if v.GM {
		out = append(out, p.gmOrders())
	}
	return out
}

type nationsView struct {
	s     *State
	v     View
	shown []Result // the rounds the viewer may see, oldest first
	held  bool     // a round's report is not out yet
}

func (p nationsView) name(id string) string { return p.s.Seats.Display(id) }

// standing is one nation on the scoreboard, as far as the viewer has seen.
type standing struct {
	id, civ string
	vp      int
	out     int // the round it fell in (0: still in)
}

// standings are the nations by the shown rounds: the points after the
// last one shown (or as the game began), best first.
func (p nationsView) standings() []standing {
	var out []standing
	for _, pl := range p.v.Players {
		st := standing{id: pl.ID, civ: pl.Civ, vp: StartVP}
		if n := len(p.shown); n > 0 {
			last := p.shown[n-1]
			st.vp = last.After[pl.ID]
			if c := last.Civ[pl.ID]; c != "" {
				st.civ = c
			}
		}
		for _, r := range p.shown {
			for _, e := range r.Eliminated {
				if e == pl.ID {
					st.out = r.Round
				}
			}
		}
		if !p.held {
			st.vp = pl.VP
		}
		out = append(out, st)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].out == 0) != (out[j].out == 0) {
			return out[i].out == 0
		}
		return out[i].vp > out[j].vp
	})
	return out
}

func (p nationsView) scoreboard() rules.Section {
	sec := rules.Section{Title: "Scoreboard"}
	if p.v.Finished {
		sec.Intro = fmt.Sprintf("Final, after %d of %d rounds.", len(p.shown), p.v.Rounds)
	} else {
		sec.Intro = fmt.Sprintf("After %d of %d rounds.", len(p.shown), p.v.Rounds)
	}
	t := rules.Table{Caption: "Scoreboard", Head: cells("Place", "Nation", "Civilisation", "Victory points"), RowHeads: true}
	place := 0
	prev := -1
	for i, st := range p.standings() {
		if st.vp != prev || st.out != 0 {
			place = i + 1
		}
		prev = st.vp
		row := rules.Row{Cells: []rules.Cell{rules.Text(fmt.Sprint(place)), rules.Who(p.name(st.id)), rules.Text(st.civ), rules.Marked(fmt.Sprint(st.vp), rules.Strong)}}
		if st.out != 0 {
			row.Mark = rules.Muted
			row.Cells[0] = rules.Marked("out", rules.Muted)
			row.Cells[3] = rules.Marked(fmt.Sprintf("0 (out in round %d)", st.out), rules.Muted)
		} else if p.v.Finished && place == 1 {
			row.Mark = rules.Good
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []rules.Table{t}
	if !p.v.CivLock {
		sec.Notes = []string{"Civilisations may still be chosen in the thread (CIV: Fire, Water, Earth or Air Nation) until round 1 resolves; a nation that chooses none is Air."}
	}
	return sec
}

func cells(hs ...string) []rules.Cell {
	out := make([]rules.Cell, len(hs))
	for i, h := range hs {
		out[i] = rules.Text(h)
	}
	return out
}

// series are the points of each nation after each shown round, round 0
// being the start.
func (p nationsView) series() (ids []string, vp map[string][]int) {
	vp = map[string][]int{}
	for _, pl := range p.v.Players {
		ids = append(ids, pl.ID)
		pts := []int{StartVP}
		for _, r := range p.shown {
			pts = append(pts, r.After[pl.ID]) // 0 once out
		}
		vp[pl.ID] = pts
	}
	return ids, vp
}

func (p nationsView) chartSection() rules.Section {
	ids, vp := p.series()
	sec := rules.Section{Title: "Victory points by round"}
	if len(p.shown) == 0 {
		sec.Intro = "The chart starts once the first round's report is out."
	}
	var names []string
	for _, id := range ids {
		names = append(names, p.name(id))
	}
	sec.Pictures = []rules.Picture{{Format: "svg", Data: ChartSVG(names, seriesOf(ids, vp), p.v.Rounds), Alt: chartAlt(names, seriesOf(ids, vp))}}
	head := []rules.Cell{rules.Text("Round")}
	for _, id := range ids {
		head = append(head, rules.Who(p.name(id)))
	}
	t := rules.Table{Caption: "Victory points after each round", Head: head, RowHeads: true}
	for r := 0; r <= len(p.shown); r++ {
		label := "start"
		if r > 0 {
			label = fmt.Sprint(p.shown[r-1].Round)
		}
		row := rules.Row{Cells: []rules.Cell{rules.Text(label)}}
		for _, id := range ids {
			row.Cells = append(row.Cells, rules.Text(fmt.Sprint(vp[id][r])))
		}
		t.Rows = append(t.Rows, row)
	}
	sec.Tables = []rules.Table{t}
	return sec
}

func seriesOf(ids []string, vp map[string][]int) [][]int {
	out := make([][]int, len(ids))
	for i, id := range ids {
		out[i] = vp[id]
	}
	return out
}

func chartAlt(names []string, series [][]int) string {
	var parts []string
	for i, n := range names {
		pts := make([]string, len(series[i]))
		for j, v := range series[i] {
			pts[j] = fmt.Sprint(v)
		}
		parts = append(parts, rules.PlainName(n)+": "+strings.Join(pts, ", "))
	}
	return "Victory points from the start, round by round. " + strings.Join(parts, "; ") + "."
}

func orderText(p nationsView, o Order) rules.Cell {
	switch o.Kind {
	case KindInvade:
		return rules.Cell{Text: "invaded ", Names: []string{p.name(o.Target)}, Mark: rules.Bad}
	case KindDefend:
		if o.Target == "" {
			return rules.Text("defended, with no guess")
		}
		return rules.Cell{Text: "defended, guessing ", Names: []string{p.name(o.Target)}}
	case KindProsper:
		return rules.Marked("prospered", rules.Good)
	}
	return rules.Marked("did nothing", rules.Muted)
}

// rounds is each shown round: every nation's order and its points.
func (p nationsView) rounds() rules.Section {
	sec := rules.Section{Title: "Rounds", Intro: "Each round's orders, revealed with its report, newest first."}
	if len(p.shown) == 0 {
		sec.Intro = "No round has been revealed yet."
	}
	for i := len(p.shown) - 1; i >= 0; i-- {
		r := p.shown[i]
		t := rules.Table{Caption: fmt.Sprintf("Round %d", r.Round), Head: cells("Nation", "Order", "Victory points", "Change"), RowHeads: true}
		for _, pl := range p.v.Players {
			o, ok := r.Orders[pl.ID]
			if !ok {
				continue // out before this round
			}
			after, before := r.After[pl.ID], r.Before[pl.ID]
			change := rules.Marked(fmt.Sprintf("%+d", after-before), rules.Muted)
			switch {
			case after > before:
				change.Mark = rules.Good
			case after < before:
				change.Mark = rules.Bad
			}
			civ := r.Civ[pl.ID]
			nation := rules.Cell{Names: []string{p.name(pl.ID)}, Text: ""}
			row := rules.Row{Cells: []rules.Cell{nation, orderText(p, o), rules.Text(fmt.Sprintf("%d (%s)", after, civ)), change}}
			for _, e := range r.Eliminated {
				if e == pl.ID {
					row.Mark = rules.Bad
					row.Cells[2] = rules.Marked("0: eliminated", rules.Bad)
				}
			}
			t.Rows = append(t.Rows, row)
		}
		sec.Tables = append(sec.Tables, t)
	}
	if p.held {
		sec.Notes = []string{"The last round's report is posted when the next round opens."}
	}
	return sec
}

// gmOrders: the orders received for this round and the next (GM only).
func (p nationsView) gmOrders() rules.Section {
	sec := rules.Section{Title: "Orders received (GM only)", GM: true}
	if p.s.Finished {
		sec.Intro = "The game is over."
		return sec
	}
	t := rules.Table{Caption: fmt.Sprintf("Orders for round %d", p.s.Round), Head: cells("Nation", "Order for this round", "Sent early for the next"), RowHeads: true}
	for _, id := range p.s.AliveIDs() {
		this := rules.Marked("none yet", rules.Muted)
		if o, ok := p.s.Orders[id]; ok {
			this = gmOrder(p, o)
		}
		next := rules.Cell{}
		if o, ok := p.s.Next[id]; ok {
			next = gmOrder(p, o)
		}
		t.Rows = append(t.Rows, rules.Row{Cells: []rules.Cell{rules.Who(p.name(id)), this, next}})
	}
	sec.Tables = []rules.Table{t}
	return sec
}

func gmOrder(p nationsView, o Order) rules.Cell {
	switch o.Kind {
	case KindInvade:
		return rules.Cell{Text: "invade ", Names: []string{p.name(o.Target)}}
	case KindDefend:
		if o.Target == "" {
			return rules.Text("defend, no guess")
		}
		return rules.Cell{Text: "defend, guessing ", Names: []string{p.name(o.Target)}}
	case KindProsper:
		return rules.Text("prosper")
	}
	return rules.Marked("nothing", rules.Muted)
}

// PublicChart is the victory-point chart as players may see it at now
// (rounds whose report is held are left out), as SVG and as PNG: the
// picture a round post can show (with the nations in roster order, in
// ChartColors).
func PublicChart(st rules.State, now time.Time) (svg, pngData []byte, err error) {
	s, ok := st.(*State)
	if !ok {
		return nil, nil, fmt.Errorf("nations: not a nations state")
	}
	p := nationsView{s: s, v: Game{}.View(s, rules.Everyone).(View)}
	for _, r := range p.v.Results {
		if !r.Published.After(now) {
			p.shown = append(p.shown, r)
		}
	}
	ids, vp := p.series()
	var names []string
	for _, id := range ids {
		names = append(names, p.name(id))
	}
	pngData, err = ChartPNG(names, seriesOf(ids, vp), p.v.Rounds)
	return ChartSVG(names, seriesOf(ids, vp), p.v.Rounds), pngData, err
}
