package resistance

import "github.com/forumgm/forumgm/rules"

var _ rules.Describer = Game{}

// Describe implements rules.Describer: the players and options Setup
// checks, with the same bounds (describe_test.go holds them together).
func (Game) Describe() rules.Description {
	return rules.Description{
		Title:      "The Resistance",
		Summary:    "Hidden roles: the resistance sends teams on five missions, the spies among them sabotage; three missions decide it. Plot cards at 7 or more players.",
		MinPlayers: 5, MaxPlayers: 10,
		Options: []rules.OptionSpec{
			{Name: "phase_hours", Label: "Hours for each proposal", Help: "How long a leader has to propose and everyone to vote, before the proposal closes without the missing votes.",
				Kind: rules.HoursOption, Default: "48"},
			{Name: "rejection_limit", Label: "Rejected proposals that give the spies the game", Help: "In one mission; the board game's rule is 5.",
				Kind: rules.WholeOption, Default: "5", Min: 1, Max: maxRejectionLimit},
			{Name: "missing_vote", Label: "A vote not cast by the deadline", Help: "abstain: it does not count either way; reject: it counts as a rejection.",
				Kind: rules.ChoiceOption, Default: "abstain", Choices: []string{"abstain", "reject"}},
			{Name: "missing_proposal", Label: "A leader who posts no team by the deadline", Help: "pass: the turn passes and the rejection count stays; reject: it counts as a rejected proposal.",
				Kind: rules.ChoiceOption, Default: "pass", Choices: []string{"pass", "reject"}},
			{Name: "chain_spies", Label: "Spies know each other in a chain", Help: "on: each spy learns only the next spy; auto: on at 10 players only.",
				Kind: rules.ChoiceOption, Default: "auto", Choices: []string{"auto", "on", "off"}},
		},
	}
}
