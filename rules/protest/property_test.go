package protest

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest/hexmap"
)

var hexTokenRE = regexp.MustCompile(`\b[A-Z]{1,3}[0-9]{1,3}\b`)

// TestRandomGames plays random games (random maps in every layout, bot
// orders plus random junk) and checks after every step that
//   - PP change only as the rules allow (hit: +12/k, silent: 0, miss: −distance, floor at 0 → out),
//   - revealed sites never become hidden,
//   - no public event and no public picture names a site still hidden,
//   - the game ends exactly when every site is found or nobody is left.
func TestRandomGames(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(rt *rapid.T) {
		layout := rapid.SampledFrom([]string{"odd-q", "even-q", "odd-r", "even-r"}).Draw(rt, "layout")
		cols := rapid.IntRange(2, 30).Draw(rt, "cols")
		rows := rapid.IntRange(2, 12).Draw(rt, "rows")
		nPlayers := rapid.IntRange(4, 8).Draw(rt, "players")
		nSites := rapid.IntRange(1, min(8, cols*rows)).Draw(rt, "sites")
		seed := rapid.Int64().Draw(rt, "seed")
		s0, evs, err := g.Setup(rules.Config{
			Players: players(nPlayers), Seed: seed, Start: start,
			Options: rules.Options{"sites": nSites, "columns": cols, "rows": rows, "layout": layout, "turn_hours": 0.01},
		})
		if err != nil {
			rt.Fatal(err)
		}
		var s rules.State = s0
		st := s0.(*State)
		checkPublic := func(st *State, evs []rules.Event) {
			hidden := map[string]bool{}
			for _, x := range st.hidden() {
				hidden[x] = true
			}
			if st.Finished {
				return // the final post reveals everything
			}
			for _, e := range evs {
				if e.To != rules.Everyone {
					continue
				}
				for _, tok := range hexTokenRE.FindAllString(e.Text, -1) {
					if hidden[tok] {
						rt.Fatalf("public %s event names hidden site %s:\n%s", e.Kind, tok, e.Text)
					}
				}
			}
		}
		checkPublic(st, evs)
		r := rules.NewRand(seed, "test/bots")
		for turn := 1; turn <= 12 && !g.Status(s).Finished; turn++ {
			for _, id := range players(nPlayers) {
				for _, mv := range g.Bot(s, id, r) {
					ch := rules.Public
					if mv.Private {
						ch = rules.Private
					}
					segs := moveSegments(mv)
					if rapid.Bool().Draw(rt, "junk") {
						segs = append(segs, rapid.SampledFrom([]string{"Protest A0", "B 9 A1", "G 1 A1", "Protest " + hexmap.ColumnName(cols) + "1", "nonsense", "cancel protest", "NAME: [quote]x"}).Draw(rt, "junkline"))
					}
					for _, seg := range segs {
						p := g.Parse(s, seg, rules.Source{Player: id, Channel: ch})
						if p.Cmd == nil {
							continue
						}
						n, evs, err := g.Apply(s, *p.Cmd)
						if err == nil {
							s = n
						}
						checkPublic(s.(*State), evs)
					}
				}
			}
			before := s.(*State)
			// The expected change, worked out from the state before the turn.
			hidden := before.hidden()
			at := map[string]int{}
			for _, p := range before.Players {
				if !p.Out && p.Protest != "" {
					at[p.Protest]++
				}
			}
			wantPP := map[string]int{}
			wantRevealed := len(before.Revealed)
			newSites := map[string]bool{}
			for _, id := range before.Seats.IDs() {
				p := before.Players[id]
				pp := p.PP
				if !p.Out && p.Protest != "" {
					d := -1
					for _, x := range hidden {
						dd := before.Map.Distance(before.hex(p.Protest), before.hex(x))
						if d < 0 || dd < d {
							d = dd
						}
					}
					switch {
					case d == 0:
						pp += HitPoints / at[p.Protest]
						if !newSites[p.Protest] {
							newSites[p.Protest] = true
							wantRevealed++
						}
					case d > 1:
						pp -= d
					}
				}
				wantPP[id] = max(pp, 0)
			}
			n, evs := g.Resolve(s, before.Deadline)
			after := n.(*State)
			for id, want := range wantPP {
				if got := after.Players[id].PP; got != want {
					rt.Fatalf("turn %d: %s has %d PP, want %d", turn, id, got, want)
				}
				if after.Players[id].Out != (before.Players[id].Out || want == 0) {
					rt.Fatalf("turn %d: %s out=%v with %d PP", turn, id, after.Players[id].Out, want)
				}
			}
			if len(after.Revealed) != wantRevealed {
				rt.Fatalf("turn %d: %d revealed, want %d", turn, len(after.Revealed), wantRevealed)
			}
			for i, r := range before.Revealed {
				if after.Revealed[i].Hex != r.Hex {
					rt.Fatalf("revealed site %s hidden again", r.Hex)
				}
			}
			checkPublic(after, evs)
			pub, _, err := Pictures(after, len(after.History))
			if err != nil {
				rt.Fatal(err)
			}
			for _, x := range after.hidden() {
				if strings.Contains(string(pub), `class="site hidden" data-hex="`+x+`"`) || strings.Contains(string(pub), `"site revealed" data-hex="`+x+`"`) {
					rt.Fatalf("public picture marks hidden site %s", x)
				}
			}
			active := 0
			for _, p := range after.Players {
				if !p.Out {
					active++
				}
			}
			wantEnd := len(after.hidden()) == 0 || active == 0
			if after.Finished != wantEnd {
				rt.Fatalf("turn %d: finished=%v, hidden %d, active %d", turn, after.Finished, len(after.hidden()), active)
			}
			s = n
		}
		if !g.Status(s).Finished {
			n, evs := g.End(s, start)
			if !g.Status(n).Finished || len(g.Status(n).Winners) == 0 {
				rt.Fatal("End did not finish the game with a winner")
			}
			final := publicText(evs)
			for _, x := range n.(*State).Sites {
				if !strings.Contains(final, x) {
					rt.Fatalf("final post does not reveal %s", x)
				}
			}
		}
	})
}
