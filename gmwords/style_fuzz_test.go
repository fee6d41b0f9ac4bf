package gmwords

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/rules"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// secretPair is two states of one game that every reader of the thread
// sees alike but that hold different secrets.
type secretPair struct {
	kind string
	eng  rules.Game
	a, b rules.State
}

// secretPairs: Resistance and Protest set up from two seeds (other spies,
// other sites, the same public table); Nations with a different secret
// order from one player.
func secretPairs(t testing.TB) []secretPair {
	var out []secretPair
	setup := func(kind string, cfg rules.Config) (rules.Game, rules.State) {
		eng, err := rules.Lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		st, _, err := eng.Setup(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return eng, st
	}
	res := rules.Config{Players: []string{"Ann", "Ben", "Cat", "Dan", "Eve"}, Start: start, Setup: map[string]any{"leader_order": []any{"Ann", "Ben", "Cat", "Dan", "Eve"}}}
	pro := rules.Config{Players: []string{"Pia", "Quin", "Rob", "Sue"}, Start: start, Options: rules.Options{"sites": 3},
		Setup: map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}}}
	for _, c := range []struct {
		kind string
		cfg  rules.Config
	}{{"resistance", res}, {"protest", pro}} {
		a, b := c.cfg, c.cfg
		a.Seed, b.Seed = 1, 2
		eng, sa := setup(c.kind, a)
		_, sb := setup(c.kind, b)
		out = append(out, secretPair{c.kind, eng, sa, sb})
	}
	nat := rules.Config{Players: []string{"Pia", "Quin", "Rob"}, Start: start, Seed: 5}
	eng, s0 := setup("nations", nat)
	order := func(text string) rules.State {
		p := eng.Parse(s0, text, rules.Source{Player: "Pia", Channel: rules.Private, Time: start})
		if p.Cmd == nil {
			t.Fatalf("nations order %q: %+v", text, p)
		}
		st, _, err := eng.Apply(s0, *p.Cmd)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	out = append(out, secretPair{"nations", eng, order("INVADE Quin"), order("DEFEND Rob")})
	for _, p := range out {
		ja, _ := json.Marshal(p.a)
		jb, _ := json.Marshal(p.b)
		pa, _ := json.Marshal(p.eng.View(p.a, rules.Everyone))
		pb, _ := json.Marshal(p.eng.View(p.b, rules.Everyone))
		if string(ja) == string(jb) {
			t.Fatalf("%s: the two states hold the same secrets: the test could not fail", p.kind)
		}
		if string(pa) != string(pb) {
			t.Fatalf("%s: the two states differ in public: %s / %s", p.kind, pa, pb)
		}
	}
	return out
}

// FuzzStyleKeepsSecrets is the property that no style can put a secret in
// a thread post: for any header and footer the game file's check accepts,
// a post in the style is the same for two states that differ only in
// their secrets (who the spies are, where the sites are, a pending order),
// so nothing secret can reach it. A style the check refuses never reaches
// a post. The seeds name what a GM might try.
func FuzzStyleKeepsSecrets(f *testing.F) {
	for _, s := range [][2]string{
		{"[b]{game}[/b] — {title}", "Players: {players}"},
		{"{role}", "{spies}"},
		{"{hand}{sites}", "{orders}"},
		{"{{.State}}", "{{index .Roles \"Ann\"}}"},
		{"{phase} {Phase} {state.spies}", "{players.0.role}"},
		{"{game}{", "}{title}}"},
	} {
		f.Add(s[0], s[1])
	}
	pairs := secretPairs(f)
	f.Fuzz(func(t *testing.T, header, footer string) {
		st := &gameconfig.Style{Header: header, Footer: footer, Color: "navy"}
		if err := st.Check("mybb"); err != nil {
			if !strings.Contains(err.Error(), "not public") && !strings.Contains(err.Error(), "marker") && !strings.Contains(err.Error(), "bytes") {
				t.Fatalf("refused for another reason: %v", err)
			}
			return
		}
		for _, p := range pairs {
			a := st.Apply("The update.", StyleView("g1", p.eng, p.a))
			b := st.Apply("The update.", StyleView("g1", p.eng, p.b))
			if a != b {
				t.Fatalf("%s: the style shows something the two states differ in, which is secret:\n%s\n%s", p.kind, a, b)
			}
		}
	})
}
