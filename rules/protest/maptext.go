package protest

import (
	"fmt"
	"strings"

	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

// Text map: what every board shows, a hex grid of characters in a [code]
// block. It is drawn from the public picture (picture(turn, false)), which
// holds only what players may see: revealed sites, that turn's reported
// protests and the terrain; the hidden sites are not in it at all.
//
// Each hex is a character and a space. Pointy-topped layouts (odd-r,
// even-r) print a row per line, the shoved rows one space to the right;
// flat-topped ones (odd-q, even-q) print each row on two lines, the shoved
// columns on the second. Column names run down the header, one letter per
// line, so AA and AB stay in their columns.
const (
	markPlain   = '.'
	markWater   = '~'
	markSite    = '#' // a revealed site
	markHit     = '+' // a successful protest this turn (a site revealed now)
	markMiss    = 'x' // a failed protest this turn
	mapTextCell = 2
)

var waterTerrain = map[string]bool{"sea": true, "water": true, "lake": true}

// mapLegend explains the marks under the grid.
const mapLegend = "# revealed site, + successful protest this turn, x failed protest this turn, ~ water, . other hexes."

// mapText is the text map after turn (0: the start), as BBCode.
func (s *State) mapText(turn int) (string, error) {
	p, err := s.picture(turn, false)
	if err != nil {
		return "", err
	}
	title := "The map at the start"
	if turn > 0 {
		title = fmt.Sprintf("The map after turn %d", turn)
	}
	return fmt.Sprintf("[b]%s[/b] (%s)\n[code]\n%s[/code]", title, mapLegend, p.grid()), nil
}

// mark is the character of one hex.
func (p picture) mark(h hexmap.Hex) byte {
	name := h.Name()
	switch {
	case p.protests[name] == Hit:
		return markHit
	case p.protests[name] == Miss:
		return markMiss
	case p.revealed[name]:
		return markSite
	case waterTerrain[p.terrain[name]]:
		return markWater
	}
	return markPlain
}

// shoved says whether h is drawn half a hex along (right for rows, down for
// columns), as hexmap.Map.Center draws it.
func shoved(m hexmap.Map, h hexmap.Hex) bool {
	switch m.Layout {
	case hexmap.OddR:
		return h.Row&1 == 1
	case hexmap.EvenR:
		return h.Row&1 == 0
	case hexmap.EvenQ:
		return h.Col&1 == 0
	}
	return h.Col&1 == 1 // odd-q
}

func (p picture) grid() string {
	m := p.m
	label := len(fmt.Sprint(m.Rows))
	var b strings.Builder
	// The header: column names written downwards, one letter per line.
	deep := len(hexmap.ColumnName(m.Columns - 1))
	for line := 0; line < deep; line++ {
		b.WriteString(strings.Repeat(" ", label+1))
		var head []string
		for c := 0; c < m.Columns; c++ {
			n := hexmap.ColumnName(c)
			n = strings.Repeat(" ", deep-len(n)) + n
			head = append(head, n[line:line+1])
		}
		b.WriteString(strings.TrimRight(strings.Join(head, " "), " ") + "\n")
	}
	row := func(r int, lineOf func(hexmap.Hex) bool, shift bool, withLabel bool) {
		if withLabel {
			fmt.Fprintf(&b, "%*d ", label, r+1)
		} else {
			b.WriteString(strings.Repeat(" ", label+1))
		}
		if shift {
			b.WriteByte(' ')
		}
		line := make([]byte, 0, m.Columns*mapTextCell)
		for c := 0; c < m.Columns; c++ {
			h := hexmap.Hex{Col: c, Row: r}
			ch := byte(' ')
			if lineOf(h) {
				ch = p.mark(h)
			}
			line = append(line, ch, ' ')
		}
		b.WriteString(strings.TrimRight(string(line), " "))
		b.WriteString("\n")
	}
	for r := 0; r < m.Rows; r++ {
		if m.Layout.Flat() {
			row(r, func(h hexmap.Hex) bool { return !shoved(m, h) }, false, true)
			row(r, func(h hexmap.Hex) bool { return shoved(m, h) }, false, false)
		} else {
			row(r, func(hexmap.Hex) bool { return true }, shoved(m, hexmap.Hex{Row: r}), true)
		}
	}
	return b.String()
}
