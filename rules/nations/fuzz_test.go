package nations_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/nations

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
)

// A stage is a game set up from opts and played through steps (see
// gametest.Stage); every message is accepted.
type fuzzStage struct {
	players []string
	opts    rules.Options
	steps   []string
}

var four = []string{"Ann", "Ben", "Cat", "Dan"}

var fuzzStages = []fuzzStage{
	{players: four, opts: rules.Options{"rounds": 3}},
	{players: four, opts: rules.Options{"rounds": 3}, steps: []string{"Ann> CIV: Fire", "Ben> civ water", "Ann# DEFEND"}},
	{players: four, opts: rules.Options{"rounds": 3}, steps: []string{"Ann> CIV: Fire", "Cat> CIV: Earth",
		"Ann# INVADE Ben", "Ben# DEFEND GUESS Ann", "Cat# PROSPER", "Dan# INVADE Cat", "!deadline"}},
	{players: []string{"Ann", "Ben"}, opts: rules.Options{"rounds": 1}, steps: []string{"Ann# INVADE Ben"}},
}

// withOthersOrders is s after every other player still in the game sent an
// INVADE by PM: the secret the sender must learn nothing about.
func withOthersOrders(t testing.TB, g rules.Game, s rules.State, sender string) rules.State {
	t.Helper()
	ns := s.(*nations.State)
	var alive []string
	for _, id := range ns.Seats.IDs() {
		if ns.Alive(id) {
			alive = append(alive, id)
		}
	}
	at := ns.Deadline.Add(-2 * time.Minute)
	for i, id := range alive {
		if id == sender {
			continue
		}
		s = gametest.Send(t, g, s, id, rules.Private, "INVADE "+alive[(i+1)%len(alive)], at)
	}
	return s
}

// FuzzParseApply sends arbitrary text as a thread segment and as a PM line
// into several game stages: no panic; Parse and Apply never change the
// state they are given (so a rejection leaves it as it was); every state
// (also after Resolve at the deadline) round-trips through Decode; and
// what a PM gets back, publicly or privately, is the same whatever the other
// players have ordered (no other player's order leaks before the report).
func FuzzParseApply(f *testing.F) {
	g := nations.Game{}
	stages := make([][]byte, len(fuzzStages))
	for i, st := range fuzzStages {
		cfg := rules.Config{Players: st.players, Options: st.opts, Seed: 5, Start: gametest.Start}
		stages[i] = gametest.Stage(f, g, cfg, st.steps)
	}
	// Seeds: testdata/fuzz/FuzzParseApply (text, stage, player, late).
	gametest.Fuzz(f, gametest.Target{
		Game:   g,
		Stages: stages,
		Twin: func(t testing.TB, _ int, base rules.State, sender string) rules.State {
			return withOthersOrders(t, g, base, sender)
		},
		Secret: "the other players' orders",
	})
}
