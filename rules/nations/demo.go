package nations

import "github.com/forumgm/forumgm/rules"

var _ rules.Demo = Game{}

// DemoTable implements rules.Demo: four players, three rounds of 12
// seconds with 3-second breaks at speed 1.
func (Game) DemoTable(speed float64) rules.DemoTable {
	return rules.DemoTable{
		Title:   "Nations (demo)",
		Players: []string{"Alice", "Bob", "Carol", "Dave"},
		Options: rules.Options{"rounds": 3, "round_minutes": 12 / speed / 60, "break_minutes": 3 / speed / 60},
	}
}
