package protest

import (
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

var _ rules.Describer = Game{}

// Describe implements rules.Describer: the players and options Setup
// checks, with the same bounds (describe_test.go holds them together).
func (Game) Describe() rules.Description {
	layouts := make([]string, len(hexmap.Layouts))
	for i, l := range hexmap.Layouts {
		layouts[i] = string(l)
	}
	return rules.Description{
		Title:      "Protest",
		Summary:    "A hex map hides secret sites; players scan areas by PM to count the sites in them and protest where they think one is.",
		MinPlayers: 1, MaxPlayers: maxPlayers,
		Options: []rules.OptionSpec{
			{Name: "turn_hours", Label: "Hours for each turn", Help: "How long players have to send their scans and protest.",
				Kind: rules.HoursOption, Default: "48"},
			{Name: "sites", Label: "Hidden sites", Help: "How many sites are hidden on the map; they must fit on it.",
				Kind: rules.WholeOption, Default: "15", Min: 1, Max: hexmap.MaxSide * hexmap.MaxSide},
			{Name: "min_players", Label: "Fewest players", Kind: rules.WholeOption, Default: "4", Min: 1, Max: maxPlayers},
			{Name: "max_players", Label: "Most players", Kind: rules.WholeOption, Default: "8", Min: 1, Max: maxPlayers},
			{Name: "columns", Label: "Map columns", Kind: rules.WholeOption, Default: "26", Min: 1, Max: hexmap.MaxSide},
			{Name: "rows", Label: "Map rows", Kind: rules.WholeOption, Default: "20", Min: 1, Max: hexmap.MaxSide},
			{Name: "layout", Label: "Hex layout", Help: "odd-q and even-q: flat-topped hexes in columns; odd-r and even-r: pointy-topped hexes in rows.",
				Kind: rules.ChoiceOption, Default: string(hexmap.OddQ), Choices: layouts},
		},
	}
}
