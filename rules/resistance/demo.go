package resistance

import "github.com/forumgm/forumgm/rules"

var _ rules.Demo = Game{}

// DemoTable implements rules.Demo: seven players, a phase every 25 seconds
// at speed 1.
func (Game) DemoTable(speed float64) rules.DemoTable {
	return rules.DemoTable{
		Title:   "The Resistance: Spies vs. Spies (demo)",
		Players: []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Zoë"},
		Options: rules.Options{"phase_hours": 25 / speed / 3600},
	}
}
