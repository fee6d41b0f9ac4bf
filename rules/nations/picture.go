package nations

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
)

var _ rules.Charter = Game{}

// ChartColorNames are ChartColors in words, for a post's key to the PNG
// (which carries no names).
var ChartColorNames = []string{"blue", "vermilion", "green", "pink", "orange", "sky blue", "black", "brown", "grey", "olive"}

// afterTurn is everyone's view with only the first turn rounds resolved:
// what the thread had been told once round turn's report was out.
func afterTurn(st rules.State, turn int) (nationsView, error) {
	s, ok := st.(*State)
	if !ok {
		return nationsView{}, fmt.Errorf("nations: not a nations state")
	}
	if turn < 0 || turn > len(s.History) {
		return nationsView{}, fmt.Errorf("nations: no round %d to draw (rounds resolved: %d)", turn, len(s.History))
	}
	p := nationsView{s: s, v: Game{}.View(s, rules.Everyone).(View)}
	p.shown = p.v.Results[:turn]
	return p, nil
}

// Draw implements rules.Drawer: the victory-point chart after round turn
// (0: the start) as SVG and PNG, from everyone's view only. Nothing in it
// is the GM's alone (Nations has no secret but the orders of the round in
// progress, which no chart shows), so there is no GM picture.
func (Game) Draw(st rules.State, turn int) ([]rules.Picture, error) {
	p, err := afterTurn(st, turn)
	if err != nil {
		return nil, err
	}
	names, series := p.chartData()
	alt := chartAlt(names, series)
	png, err := ChartPNG(names, series, p.v.Rounds)
	if err != nil {
		return nil, err
	}
	return []rules.Picture{
		{Format: "svg", Data: ChartSVG(names, series, p.v.Rounds), Alt: alt},
		{Format: "png", Data: png, Alt: alt},
	}, nil
}

// Turns implements rules.Drawer: the rounds resolved so far.
func (Game) Turns(st rules.State) int {
	if s, ok := st.(*State); ok {
		return len(s.History)
	}
	return 0
}

// Caption implements rules.Charter: the chart's title and its key, each
// nation's colour, name and points after the round, in the chart's order.
// The opening post shows no chart: every line would be a dot at the start.
func (Game) Caption(st rules.State, turn int) (title, key string) {
	p, err := afterTurn(st, turn)
	if err != nil || turn == 0 {
		return "", ""
	}
	ids, vp := p.series()
	parts := make([]string, len(ids))
	for i, id := range ids {
		col := i % len(ChartColors)
		pts := vp[id]
		parts[i] = fmt.Sprintf("[color=%s]%s[/color] %s (%d)", ChartColors[col], ChartColorNames[col], p.s.Seats.Name(id), pts[len(pts)-1])
	}
	return fmt.Sprintf("Victory points after round %d of %d", turn, p.v.Rounds), "Lines: " + strings.Join(parts, ", ") + "."
}

// ShownAt implements rules.Charter: round turn's chart is out when its
// report is, at the end of the break after it.
func (Game) ShownAt(st rules.State, turn int) time.Time {
	s, ok := st.(*State)
	if !ok || turn < 1 || turn > len(s.History) {
		return time.Time{}
	}
	return s.History[turn-1].Published
}

// chartData is the chart's names (as shown) and lines, in roster order.
func (p nationsView) chartData() (names []string, series [][]int) {
	ids, vp := p.series()
	for _, id := range ids {
		names = append(names, p.name(id))
	}
	return names, seriesOf(ids, vp)
}
