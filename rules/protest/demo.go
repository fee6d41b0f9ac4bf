package protest

import "github.com/forumgm/forumgm/rules"

// The capabilities Protest offers beyond rules.Game.
var (
	_ rules.Demo   = Game{}
	_ rules.Drawer = Game{}
)

// DemoTable implements rules.Demo: five players on a small map, a turn
// every 8 seconds at speed 1.
func (Game) DemoTable(speed float64) rules.DemoTable {
	return rules.DemoTable{
		Title:   "Protest (demo)",
		Players: []string{"Pia", "Quin", "Rob", "Sue", "Tom"},
		Options: rules.Options{"turn_hours": 8 / speed / 3600, "sites": 4},
		Setup:   map[string]any{"map": map[string]any{"columns": 6, "rows": 5, "layout": "odd-q"}},
	}
}
