package games

import (
	"slices"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// TestPhaseKinds: every game names its kinds of phase (for the GM's
// deadline schedule), the current phase's kind is one of them and the
// main kinds are among them; The Resistance's first proposal of a mission
// is a "mission", the one after a rejection a "proposal"; a finished game
// has none.
func TestPhaseKinds(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 3, 2, 21, 0, 0, 0, time.UTC)
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
	want := map[string][]string{"resistance": {"mission", "proposal"}, "nations": {"round", "round"}, "protest": {"turn", "turn"}}
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		all, main := rules.KindsOf(g)
		if len(main) == 0 {
			t.Errorf("%s: no main kind of phase", name)
		}
		for _, k := range main {
			if !slices.Contains(all, k) {
				t.Errorf("%s: main kind %q is not among %v", name, k, all)
			}
		}
		s, _, err := g.Setup(rules.Config{Players: players, Seed: 1, Start: start})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var seen []string
		for range 2 {
			k := rules.KindOf(g, s)
			if !slices.Contains(all, k) {
				t.Errorf("%s: phase %s has kind %q, not one of %v", name, g.Status(s).Phase, k, all)
			}
			seen = append(seen, k)
			s, _ = g.Resolve(s, g.Status(s).Deadline)
		}
		if w, ok := want[name]; ok && !slices.Equal(seen, w) {
			t.Errorf("%s: the first two phases are of kinds %v, want %v", name, seen, w)
		}
		if s, _ = g.End(s, start.Add(time.Hour)); rules.KindOf(g, s) != "" {
			t.Errorf("%s: a finished game's phase has kind %q", name, rules.KindOf(g, s))
		}
	}
}
