package nations

import "github.com/forumgm/forumgm/rules"

var _ rules.Describer = Game{}

// Describe implements rules.Describer: the players and options Setup
// checks, with the same bounds (describe_test.go holds them together).
func (Game) Describe() rules.Description {
	defaults := make([]string, len(awardKeys))
	for i, k := range awardKeys {
		defaults[i] = awardDefaults[k]
	}
	return rules.Description{
		Title:      "Nations",
		Summary:    "Each round every nation invades, defends or prospers by PM; all orders resolve at once, and the most victory points win.",
		MinPlayers: 2, // and no most: every nation is one PM a round
		Options: []rules.OptionSpec{
			{Name: "rounds", Label: "Rounds", Kind: rules.WholeOption, Default: "5", Min: 1, Max: maxRounds},
			{Name: "round_minutes", Label: "Minutes for each round", Help: "How long nations have to send their orders.",
				Kind: rules.MinutesOption, Default: "8"},
			{Name: "break_minutes", Label: "Minutes of break between rounds", Help: "0: the next round opens at once.",
				Kind: rules.MinutesOption, Default: "4", ZeroOK: true},
			{Name: "awards", Label: "Awards at the end", Help: "The title of each award; leave one empty to drop it.",
				Kind: rules.TitlesOption, Keys: append([]string(nil), awardKeys...), KeyDefaults: defaults},
		},
	}
}
