package resistance_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/resistance

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
)

// A stage is a game set up for players and played through steps (see
// gametest.Stage); every step must be accepted.
type fuzzStage struct {
	players []string
	steps   []string
}

// The stages the fuzzed text is sent into: the opening, a proposed team,
// votes cast, and at 7 players the leader holding dealt cards, then those
// cards given and a team up.
var fuzzStages = []fuzzStage{
	{players: []string{"Ann", "Ben", "Cat", "Dan", "Eli"}},
	{players: []string{"Ann", "Ben", "Cat", "Dan", "Eli"}, steps: []string{"Ann> TEAM: Ann, Ben"}},
	{players: []string{"Ann", "Ben", "Cat", "Dan", "Eli"}, steps: []string{"Ann> TEAM: Ann, Ben", "Ann> APPROVE", "Ben# REJECT", "Ben# SUPPORT", "Cat> APPROVE"}},
	{players: []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus"}},
	{players: []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus"}, steps: []string{
		"Ann> GIVE Close Eye TO Cat", "Ann> GIVE Overheard TO Dan", "Ann> TEAM: Ann, Cat"}},
}

// Two role sets per player count; a PM's public effect must not depend on
// which one is in play.
var fuzzSpies = map[int][2][]string{
	5: {{"Ben", "Eli"}, {"Ann", "Cat"}},
	7: {{"Ben", "Eli", "Gus"}, {"Ann", "Cat", "Dan"}},
}

func fuzzConfig(players, spies []string) rules.Config {
	roles := map[string]any{}
	order := []any{}
	for _, p := range players {
		roles[p] = "resistance"
		order = append(order, p)
	}
	for _, s := range spies {
		roles[s] = "spy"
	}
	return rules.Config{
		Players: players, Seed: 3, Start: gametest.Start,
		Options: rules.Options{"chain_spies": "off"},
		Setup: map[string]any{"roles": roles, "leader_order": order,
			"deck": []any{resistance.CloseEye, resistance.Overheard}},
	}
}

// Phrases only a role reveal uses (role PMs, reveals by card): in the thread
// they may appear only in the final roll call, or as the player's own words
// echoed back.
var rolePhrases = []string{"a SPY", "a member of the RESISTANCE", "The other spies", "The spy you know"}

func checkNoRoles(t testing.TB, evs []rules.Event, s rules.State, text, what string) {
	t.Helper()
	if s.(*resistance.State).Finished {
		return
	}
	for _, e := range gametest.Public(evs) {
		for _, ph := range rolePhrases {
			if strings.Contains(e.Text, ph) && !strings.Contains(strings.ToLower(text), strings.ToLower(ph)) {
				t.Fatalf("%s: public event reveals a role (%q): %q", what, ph, e.Text)
			}
		}
	}
}

// FuzzParseApply sends arbitrary text as a thread segment and as a PM line
// into several game stages: no panic; Parse and Apply never change the
// state they are given (so a rejection leaves it as it was); every state
// round-trips through Decode; a role is never revealed in the thread before
// the end; and what a PM makes public is the same whoever the spies are.
func FuzzParseApply(f *testing.F) {
	g := resistance.Game{}
	stages, twin := gametest.TwinStages(f, g, len(fuzzStages), func(i, side int) (rules.Config, []string) {
		st := fuzzStages[i]
		return fuzzConfig(st.players, fuzzSpies[len(st.players)][side]), st.steps
	})
	// Seeds: testdata/fuzz/FuzzParseApply (text, stage, player, late).
	gametest.Fuzz(f, gametest.Target{
		Game:   g,
		Stages: stages,
		Twin:   twin,
		Secret: "the roles",
		// The sender's own role differs between the twins, and so may
		// what they are told in private.
		PublicOnly: true,
		Check:      checkNoRoles,
	})
}
