package nations

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

// modelDelta is player x's change this round, worked out from x's own point
// of view with the source's numbers written out (independently of
// ResolveOrders, which walks the invasions).
func modelDelta(x string, alive []string, civ map[string]string, ord map[string]Order) int {
	is := func(id, c string) bool { return civ[id] == c }
	fire := func(id string) int {
		if is(id, "Fire") {
			return 2
		}
		return 0
	}
	d, invaded := 0, false
	// x as a target.
	for _, a := range alive {
		if o := ord[a]; o.Kind != "invade" || o.Target != x {
			continue
		}
		invaded = true
		mine := ord[x]
		switch {
		case mine.Kind == "invade":
			d -= 10 + fire(a)
		case mine.Kind == "defend" && mine.Target == a:
			d += 12
			if is(x, "Earth") {
				d += 2
			}
		case mine.Kind == "defend":
			d -= 6 + fire(a)
		case mine.Kind == "prosper":
			d -= 25 + fire(a)
		default:
			d -= 10 + fire(a)
		}
	}
	// x as an invader.
	if mine := ord[x]; mine.Kind == "invade" {
		t := mine.Target
		theirs := ord[t]
		switch {
		case theirs.Kind == "invade":
			d += 10 + fire(x)
		case theirs.Kind == "defend" && theirs.Target == x:
			d -= 12
			if is(t, "Earth") {
				d -= 2
			}
		case theirs.Kind == "defend":
			d += 6 + fire(x)
		case theirs.Kind == "prosper":
			d += 25 + fire(x)
		default:
			d += 10 + fire(x)
		}
	}
	if ord[x].Kind == "prosper" && !invaded {
		d += 22
		if is(x, "Water") {
			d += 4
		}
	}
	return d
}

// TestPropertyRounds plays random games of random legal orders (sent as PM
// text through Parse and Apply) and checks every round: no VP below 0, and
// each player's new VP is max(0, old + the table's outcomes summed).
func TestPropertyRounds(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		g := Game{}
		n := rapid.IntRange(2, 7).Draw(t, "players")
		var players []string
		for i := 0; i < n; i++ {
			players = append(players, fmt.Sprintf("Player%d", i+1))
		}
		rounds := rapid.IntRange(1, 6).Draw(t, "rounds")
		st, _, err := g.Setup(rules.Config{Players: players, Options: rules.Options{"rounds": rounds}, Start: t0})
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		civ := map[string]string{}
		for _, p := range players {
			c := rapid.SampledFrom([]string{"", "Fire", "Water", "Earth", "Air"}).Draw(t, "civ "+p)
			if c == "" {
				continue // never picked: Air
			}
			p0 := g.Parse(s, "CIV: "+c, rules.Source{Player: p, Channel: rules.Public})
			ns, _, err := g.Apply(s, *p0.Cmd)
			if err != nil {
				t.Fatal(err)
			}
			s = ns.(*State)
			civ[p] = c
		}
		// Random starting VP (a test-only shortcut) so floors happen often.
		s = s.clone()
		for _, p := range players {
			s.VP[p] = rapid.IntRange(1, 130).Draw(t, "vp "+p)
		}
		for !s.Finished {
			alive := s.AliveIDs()
			ord := map[string]Order{}
			for _, p := range alive {
				var others []string
				for _, q := range alive {
					if q != p {
						others = append(others, q)
					}
				}
				// One or two orders; the latest counts.
				for k := rapid.IntRange(0, 2).Draw(t, "orders"); k > 0; k-- {
					var text string
					var o Order
					switch rapid.IntRange(0, 3).Draw(t, "kind") {
					case 0:
						tg := rapid.SampledFrom(others).Draw(t, "target")
						text, o = "INVADE "+strings.ToLower(tg), Order{Kind: "invade", Target: tg}
					case 1:
						tg := rapid.SampledFrom(others).Draw(t, "guess")
						text, o = "DEFEND GUESS "+tg, Order{Kind: "defend", Target: tg}
					case 2:
						text, o = "DEFEND", Order{Kind: "defend"}
					default:
						text, o = "prosper", Order{Kind: "prosper"}
					}
					pr := g.Parse(s, text, rules.Source{Player: p, Channel: rules.Private})
					if pr.Cmd == nil {
						t.Fatalf("%s %q: %+v", p, text, pr)
					}
					ns, _, err := g.Apply(s, *pr.Cmd)
					if err != nil {
						t.Fatalf("%s %q rejected: %v", p, text, err)
					}
					s = ns.(*State)
					ord[p] = o
				}
			}
			before := s
			ns, _ := g.Resolve(s, s.Deadline)
			s = ns.(*State)
			for _, p := range players {
				if s.VP[p] < 0 {
					t.Fatalf("round %d: %s has %d VP", before.Round, p, s.VP[p])
				}
				if !before.Alive(p) {
					if s.VP[p] != 0 || s.Alive(p) {
						t.Fatalf("out player %s came back: %d", p, s.VP[p])
					}
					continue
				}
				want := max(0, before.VP[p]+modelDelta(p, alive, civ, ord))
				if s.VP[p] != want {
					t.Fatalf("round %d: %s %d -> %d, want %d (orders %v civs %v)", before.Round, p, before.VP[p], s.VP[p], want, ord, civ)
				}
				if (want == 0) == s.Alive(p) {
					t.Fatalf("round %d: %s at %d VP, alive %v", before.Round, p, want, s.Alive(p))
				}
			}
		}
	})
}

// TestBotGames plays whole games with bots only: every bot move is either
// accepted or rejected with a reason, bots send a civ and orders, and games
// finish with sane scores.
func TestBotGames(t *testing.T) {
	t.Parallel()
	g := Game{}
	rejections, orders, civs := 0, 0, 0
	for seed := int64(1); seed <= 40; seed++ {
		players := []string{"Alice", "Bob", "Carol", "Dave", "Eve"}[:2+seed%4]
		st, _, err := g.Setup(rules.Config{Players: players, Seed: seed, Start: t0, Options: rules.Options{"rounds": 4}})
		if err != nil {
			t.Fatal(err)
		}
		r := rules.NewRand(seed, "bots")
		for step := 0; !g.Status(st).Finished; step++ {
			if step > 20 {
				t.Fatalf("seed %d: game does not end", seed)
			}
			for _, p := range players {
				for _, m := range g.Bot(st, p, r) {
					ch, segs := rules.Private, strings.Split(m.Text, "\n")
					if !m.Private {
						ch, segs = rules.Public, replay.PostSegments(m.Text)
						if len(segs) == 0 {
							t.Fatalf("public bot move without bold: %q", m.Text)
						}
					}
					for _, seg := range segs {
						pr := g.Parse(st, seg, rules.Source{Player: p, Channel: ch})
						if pr.Reject != "" {
							rejections++
							continue
						}
						if pr.Cmd == nil {
							t.Fatalf("bot move ignored: %q", seg)
						}
						ns, _, err := g.Apply(st, *pr.Cmd)
						if err != nil {
							rejections++
							continue
						}
						st = ns
						if pr.Cmd.Kind == KindCiv {
							civs++
						} else {
							orders++
						}
					}
				}
			}
			st, _ = g.Resolve(st, g.Status(st).Deadline)
		}
		stt := g.Status(st)
		for p, v := range stt.Scores {
			if v < 0 {
				t.Errorf("seed %d: %s has %d", seed, p, v)
			}
		}
		if len(stt.Winners) == 0 {
			t.Errorf("seed %d: no winner", seed)
		}
		if moves := g.Bot(st, players[0], r); len(moves) != 0 {
			t.Errorf("bot moves after the end: %v", moves)
		}
	}
	if rejections == 0 || orders < 100 || civs < 40 {
		t.Errorf("bots: %d rejections, %d orders, %d civs", rejections, orders, civs)
	}
}

func TestBotIsQuietWhenDone(t *testing.T) {
	t.Parallel()
	g := Game{}
	s := newGame(t, []string{"Alice", "Bob"}, nil)
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Earth")
	s = mustSend(t, s, "Alice", rules.Private, "PROSPER")
	if m := g.Bot(s, "Alice", rules.NewRand(1, "b")); len(m) != 0 {
		t.Errorf("bot with civ and order moved: %v", m)
	}
	m := g.Bot(s, "Bob", rules.NewRand(1, "b"))
	if len(m) == 0 || m[0].Private || !strings.Contains(m[0].Text, "[b]CIV: ") {
		t.Errorf("bot did not post a civ first: %v", m)
	}
	s, _ = resolve(s)
	for i := int64(0); i < 20; i++ {
		for _, mv := range g.Bot(s, "Bob", rules.NewRand(i, "b")) {
			if strings.Contains(mv.Text, "CIV") {
				t.Errorf("bot posts a civ after the lock: %q", mv.Text)
			}
		}
	}
}
