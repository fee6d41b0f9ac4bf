package protest_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/protest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest"
)

// Two site layouts on the same 8×6 map: what a PM gets back must not
// depend on which one is in play.
var fuzzSites = [2][]any{{"C3", "F5", "B6"}, {"G2", "A1", "H6"}}

// A stage is a script played from the setup (see gametest.Stage); every
// message is accepted.
var fuzzStages = [][]string{
	nil,
	{"Ann# NAME: Tea Party", "Ann# PROTEST C3", "Ben# A 2 E4", "Ben# B 5 A1", "Cat# PROTEST D3", "Dan# PROTEST H1"},
	{"Ann# NAME: Tea Party", "Ann# PROTEST C3", "Ben# A 2 E4", "Cat# PROTEST D3", "Dan# PROTEST H1", "!deadline"},
	{"Ann# PROTEST C3", "Ben# A 2 E4", "!deadline", "Ben> ORG: [b]x[/b]", "Cat# PROTEST F5", "Cat# C 1 F4"},
}

func fuzzConfig(sites []any) rules.Config {
	return rules.Config{
		Players: []string{"Ann", "Ben", "Cat", "Dan"}, Seed: 2, Start: gametest.Start,
		Setup: map[string]any{"map": map[string]any{"columns": 8, "rows": 6, "layout": "odd-q"}, "sites": sites},
	}
}

var hexToken = regexp.MustCompile(`\b[A-Z]{1,2}[0-9]{1,2}\b`)

// checkHidden: before the end, no public event names a site that is still
// hidden after the step. Organisation names are the only player text the
// thread shows; they are blanked first (a player may call theirs "C3").
func checkHidden(t testing.TB, evs []rules.Event, st rules.State, _, what string) {
	t.Helper()
	s := st.(*protest.State)
	if s.Finished {
		return
	}
	hidden := map[string]bool{}
	for _, h := range s.Sites {
		hidden[h] = true
	}
	for _, r := range s.Revealed {
		delete(hidden, r.Hex)
	}
	for _, e := range gametest.Public(evs) {
		text := e.Text
		for _, p := range s.Players {
			if p.Org != "" {
				text = strings.ReplaceAll(text, rules.Esc(p.Org), " ")
			}
		}
		for _, tok := range hexToken.FindAllString(text, -1) {
			if hidden[tok] {
				t.Fatalf("%s: public event names hidden site %s: %q", what, tok, e.Text)
			}
		}
	}
}

// FuzzParseApply sends arbitrary text as a thread segment and as a PM line
// into several game stages: no panic; Parse and Apply never change the
// state they are given (so a rejection leaves it as it was); every state
// (also after Resolve at the deadline) round-trips through Decode; no public
// event names a hidden site; and what a PM gets back is the same wherever
// the sites are.
func FuzzParseApply(f *testing.F) {
	g := protest.Game{}
	stages, twin := gametest.TwinStages(f, g, len(fuzzStages), func(i, side int) (rules.Config, []string) {
		return fuzzConfig(fuzzSites[side]), fuzzStages[i]
	})
	// Seeds: testdata/fuzz/FuzzParseApply (text, stage, player, late).
	gametest.Fuzz(f, gametest.Target{
		Game:   g,
		Stages: stages,
		Twin:   twin,
		Secret: "where the sites are",
		Check:  checkHidden,
	})
}
