package resistance

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

func TestRolesByPlayerCount(t *testing.T) {
	t.Parallel()
	tests := []struct{ n, res, spies int }{
		{5, 3, 2}, {6, 4, 2}, {7, 4, 3}, {8, 5, 3}, {9, 6, 3}, {10, 6, 4},
	}
	for _, tc := range tests {
		for seed := int64(0); seed < 8; seed++ {
			t.Run(fmt.Sprintf("n%d-seed%d", tc.n, seed), func(t *testing.T) {
				st, evs, err := Game{}.Setup(rules.Config{Players: botNames[:tc.n], Seed: seed, Start: startTime})
				if err != nil {
					t.Fatal(err)
				}
				s := st.(*State)
				if got := len(s.side(Spy)); got != tc.spies {
					t.Errorf("spies = %d, want %d", got, tc.spies)
				}
				if got := len(s.side(Resistance)); got != tc.res {
					t.Errorf("resistance = %d, want %d", got, tc.res)
				}
				if !sameSet(s.Order, s.Seats.IDs()) {
					t.Errorf("leader order %v is not a permutation", s.Order)
				}
				if s.Leader != s.Order[0] {
					t.Errorf("first leader %s, want %s", s.Leader, s.Order[0])
				}
				rolePMs := map[string]int{}
				for _, e := range evs {
					if e.Kind == "role" {
						rolePMs[e.To]++
					}
				}
				for _, id := range s.Seats.IDs() {
					if rolePMs[id] != 1 {
						t.Errorf("%s got %d role PMs", id, rolePMs[id])
					}
				}
				// 5–6: a Double Vote each; 7+: the 10-card deck, 2 dealt.
				if tc.n < 7 {
					if len(s.DoubleVotes) != tc.n || len(s.Deck) != 0 {
						t.Errorf("double votes %v deck %v", s.DoubleVotes, s.Deck)
					}
				} else {
					if len(s.DoubleVotes) != 0 || len(s.Deck)+len(s.Dealt) != 10 || len(s.Dealt) != 2 || s.Dealer != s.Leader {
						t.Errorf("deck %v dealt %v to %s", s.Deck, s.Dealt, s.Dealer)
					}
				}
			})
		}
	}
}

func TestSeedDecidesSecrets(t *testing.T) {
	t.Parallel()
	a, _, _ := Game{}.Setup(rules.Config{Players: ten, Seed: 42, Start: startTime})
	b, _, _ := Game{}.Setup(rules.Config{Players: ten, Seed: 42, Start: startTime})
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("the same seed must give the same game")
	}
	differ := false
	for seed := int64(1); seed < 10; seed++ {
		c, _, _ := Game{}.Setup(rules.Config{Players: ten, Seed: seed, Start: startTime})
		jc, _ := json.Marshal(c)
		differ = differ || string(jc) != string(ja)
	}
	if !differ {
		t.Error("different seeds never changed the game")
	}
}

// Spies' knowledge: everyone at once, or the one-way ring with chain spies.
func TestSpyKnowledge(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		players []string
		chain   any // option chain_spies (nil: default auto)
		ring    bool
	}{
		{"10 auto is a chain", ten, nil, true},
		{"10 off", ten, "off", false},
		{"7 auto is not", seven, nil, false},
		{"7 on", seven, "on", true},
		{"5 on", five, true, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := rules.Options{}
			if tc.chain != nil {
				opts["chain_spies"] = tc.chain
			}
			for seed := int64(0); seed < 5; seed++ {
				cfg := rules.Config{Players: tc.players, Options: opts, Seed: seed, Start: startTime}
				st, evs, err := Game{}.Setup(cfg)
				if err != nil {
					t.Fatal(err)
				}
				s := st.(*State)
				spies := s.side(Spy)
				pms := map[string]string{}
				for _, e := range evs {
					if e.Kind == "role" {
						pms[e.To] = e.Text
					}
				}
				if tc.ring != (len(s.Chain) > 0) {
					t.Fatalf("chain = %v", s.Chain)
				}
				if tc.ring && !sameSet(s.Chain, spies) {
					t.Fatalf("chain %v is not the spies %v", s.Chain, spies)
				}
				for _, id := range s.Seats.IDs() {
					pm := pms[id]
					for _, o := range s.Seats.IDs() {
						if o == id {
							continue
						}
						told := strings.Contains(pm, o)
						want := s.Roles[id] == Spy && s.Roles[o] == Spy
						if tc.ring {
							want = s.Roles[id] == Spy && s.chainNext(id) == o
						}
						if told != want {
							t.Errorf("seed %d: %s's role PM names %s = %v, want %v:\n%s", seed, id, o, told, want, pm)
						}
					}
				}
				if tc.ring {
					// One ring: following "next" from any spy visits all.
					seen := map[string]bool{}
					x := spies[0]
					for range spies {
						seen[x] = true
						x = s.chainNext(x)
					}
					if len(seen) != len(spies) || x != spies[0] {
						t.Errorf("not one ring: %v", s.Chain)
					}
				}
			}
		})
	}
}

func TestSetupOverridesAndErrors(t *testing.T) {
	t.Parallel()
	base := fixture(seven, []string{"Open Up", "strong"}, nil)
	st, evs, err := Game{}.Setup(base)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	if strings.Join(s.side(Spy), ",") != "Ben,Eli,Gus" || strings.Join(s.Order, ",") != strings.Join(seven, ",") {
		t.Errorf("overrides not used: spies %v order %v", s.side(Spy), s.Order)
	}
	if strings.Join(s.Dealt, ",") != "Open Up,Strong Leader" || len(s.Deck) != 8 {
		t.Errorf("dealt %v deck %v", s.Dealt, s.Deck)
	}
	open := ""
	for _, e := range evs {
		if e.To == rules.Everyone {
			open += e.Text + "\n"
		}
	}
	mustContain(t, "opening", open, "Leader order: Ann, Ben, Cat, Dan, Eli, Fay, Gus.", "Leader: Ann.", "Cards dealt to Ann: Open Up and Strong Leader.", "2-3-3-4*-4")

	with := func(f func(c *rules.Config)) rules.Config {
		c := fixture(seven, nil, rules.Options{})
		f(&c)
		return c
	}
	bad := []struct {
		name string
		cfg  rules.Config
		want string
	}{
		{"4 players", rules.Config{Players: five[:4]}, "5 to 10 players"},
		{"11 players", rules.Config{Players: append(append([]string{}, ten...), "Kim")}, "5 to 10 players"},
		{"unknown option", with(func(c *rules.Config) { c.Options["rounds"] = 3 }), "unknown option"},
		{"missing_vote", with(func(c *rules.Config) { c.Options["missing_vote"] = "approve" }), "missing_vote"},
		{"missing_proposal", with(func(c *rules.Config) { c.Options["missing_proposal"] = "abstain" }), "missing_proposal"},
		{"chain_spies", with(func(c *rules.Config) { c.Options["chain_spies"] = "maybe" }), "chain_spies"},
		{"phase_hours", with(func(c *rules.Config) { c.Options["phase_hours"] = 0 }), "phase_hours"},
		{"rejection_limit", with(func(c *rules.Config) { c.Options["rejection_limit"] = 0 }), "rejection_limit"},
		{"spy count", with(func(c *rules.Config) { c.Setup["roles"].(map[string]any)["Ann"] = "spy" }), "need 3 spies"},
		{"bad role", with(func(c *rules.Config) { c.Setup["roles"].(map[string]any)["Ann"] = "merlin" }), "spy or resistance"},
		{"role for nobody", with(func(c *rules.Config) { c.Setup["roles"].(map[string]any)["Zed"] = "spy" }), "matches no player"},
		{"order short", with(func(c *rules.Config) { c.Setup["leader_order"] = []any{"Ann", "Ben"} }), "every player once"},
		{"order repeats", with(func(c *rules.Config) {
			c.Setup["leader_order"] = []any{"Ann", "Ann", "Cat", "Dan", "Eli", "Fay", "Gus"}
		}), "every player once"},
		{"deck not a card", with(func(c *rules.Config) { c.Setup["deck"] = []any{"Lady of the Lake"} }), "not a plot card"},
		{"deck too many", with(func(c *rules.Config) { c.Setup["deck"] = []any{"Open Up", "Open Up"} }), "too many"},
		{"deck double vote", with(func(c *rules.Config) { c.Setup["deck"] = []any{"Double Vote"} }), "not a plot card"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Game{}.Setup(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestTeamSizesAndFailThreshold(t *testing.T) {
	t.Parallel()
	tests := []struct {
		n     int
		sizes [5]int
		two   bool // 4th mission needs 2 sabotages
	}{
		{5, [5]int{2, 3, 2, 3, 3}, false},
		{6, [5]int{2, 3, 4, 3, 4}, false},
		{7, [5]int{2, 3, 3, 4, 4}, true},
		{8, [5]int{3, 4, 4, 5, 5}, true},
		{9, [5]int{3, 4, 4, 5, 5}, true},
		{10, [5]int{3, 4, 4, 5, 5}, true},
	}
	for _, tc := range tests {
		st, _, err := Game{}.Setup(rules.Config{Players: botNames[:tc.n], Seed: 1, Start: startTime})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		for m := 1; m <= 5; m++ {
			s.Mission = m
			if got := s.teamSize(); got != tc.sizes[m-1] {
				t.Errorf("%d players, mission %d: size %d, want %d", tc.n, m, got, tc.sizes[m-1])
			}
			want := 1
			if m == 4 && tc.two {
				want = 2
			}
			if got := s.failsAt(); got != want {
				t.Errorf("%d players, mission %d: fails at %d, want %d", tc.n, m, got, want)
			}
		}
	}
}

func TestStateRoundTripAndNoMutation(t *testing.T) {
	t.Parallel()
	g := Game{}
	st, _, _ := g.Setup(fixture(seven, nil, nil))
	before, _ := json.Marshal(st)
	if _, _, err := g.Apply(st, rules.Command{Kind: KindGive, Args: []string{st.(*State).Dealt[0], "Ben"}, Src: rules.Source{Player: "Ann", Channel: rules.Public}}); err != nil {
		t.Fatal(err)
	}
	_, _ = g.Resolve(st, startTime)
	_ = g.SetDeadline(st, startTime)
	_, _ = g.End(st, startTime)
	after, _ := json.Marshal(st)
	if string(before) != string(after) {
		t.Error("a state was mutated in place")
	}
	d, err := g.Decode(before)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(d)
	if string(again) != string(before) {
		t.Error("state does not round-trip through JSON")
	}
	if d.Roster().Name("Ann") != "Ann" || len(d.Roster().IDs()) != 7 {
		t.Error("roster lost in the round trip")
	}
	if rules.Names() == nil {
		t.Error("registry empty")
	}
	if gg, err := rules.Lookup("resistance"); err != nil || gg.Name() != "resistance" {
		t.Errorf("not registered: %v", err)
	}
}
