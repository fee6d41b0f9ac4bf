package protest

import "github.com/forumgm/forumgm/rules"

// The capabilities Protest offers beyond rules.Game.
var (
	_ rules.Demo   = Game{}
	_ rules.Drawer = Game{}
)

// DemoTable implements rules.Demo: five players on a 5×4 map with three
// sites, a turn every 6 seconds at speed 1. Measured with the demo's default
// seed: four sites on 6×5 at 8 s a turn took 11 turns, 1 m 37 s; this table
// takes 7 turns, 54 s (other seeds vary: 11 turns, 1 m 16 s with seed 2).
func (Game) DemoTable(speed float64) rules.DemoTable {
	return rules.DemoTable{
		Title:   "Protest (demo)",
		Players: []string{"Pia", "Quin", "Rob", "Sue", "Tom"},
		Options: rules.Options{"turn_hours": 6 / speed / 3600, "sites": 3},
		Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}},
	}
}
