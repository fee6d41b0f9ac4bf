package protest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

// The scenarios of testdata/scenarios/protest are played and checked against
// their .expect.json by the replay package's TestScenarios.

var g = Game{}

var start = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// moveSegments is what the bot reads from a simulated player's move, through
// the real parser: a post's bold runs outside quotes, or a PM's lines.
func moveSegments(mv rules.Move) []string {
	if mv.Private {
		return replay.PMLines(mv.Text)
	}
	return replay.PostSegments(mv.Text)
}

func players(n int) []string {
	all := []string{"Alice", "Bob", "Carol", "Dave", "Eve", "Frank", "Grace", "Heidi"}
	return all[:n]
}

// newGame sets up a game on a fixed map with fixed sites.
func newGame(t *testing.T, n int, cols, rows int, layout string, sites ...string) *State {
	t.Helper()
	s, _, err := g.Setup(rules.Config{
		Players: players(n), Seed: 1, Start: start,
		Options: rules.Options{"min_players": 1},
		Setup: map[string]any{
			"map":   map[string]any{"columns": cols, "rows": rows, "layout": layout},
			"sites": toAny(sites),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s.(*State)
}

func toAny(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// pm sends PM lines that must all be accepted.
func pm(t *testing.T, s *State, who string, lines ...string) *State {
	t.Helper()
	var cur rules.State = s
	for _, l := range lines {
		p := g.Parse(cur, l, rules.Source{Player: who, Channel: rules.Private})
		if p.Cmd == nil {
			t.Fatalf("%s: %q not parsed: %q", who, l, p.Reject)
		}
		n, _, err := g.Apply(cur, *p.Cmd)
		if err != nil {
			t.Fatalf("%s: %q rejected: %v", who, l, err)
		}
		cur = n
	}
	return cur.(*State)
}

// pmErr sends one PM line that must be refused; it returns the reason.
func pmErr(t *testing.T, s *State, who, line string) string {
	t.Helper()
	p := g.Parse(s, line, rules.Source{Player: who, Channel: rules.Private})
	if p.Reject != "" {
		return p.Reject
	}
	if p.Cmd == nil {
		t.Fatalf("%q ignored in a PM", line)
	}
	n, _, err := g.Apply(s, *p.Cmd)
	if err == nil {
		t.Fatalf("%s: %q accepted", who, line)
	}
	if !reflect.DeepEqual(n, rules.State(s)) {
		t.Fatalf("rejected order changed the state")
	}
	return err.Error()
}

func resolve(s *State) (*State, []rules.Event) {
	n, evs := g.Resolve(s, s.Deadline)
	return n.(*State), evs
}

func publicText(evs []rules.Event) string {
	var b strings.Builder
	for _, e := range evs {
		if e.To == rules.Everyone {
			b.WriteString(e.Text + "\n")
		}
	}
	return b.String()
}

func TestParse(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 28, 16, "odd-r", "AB13", "H15")
	tests := []struct {
		text   string
		public bool
		kind   string
		args   []string
		reject string // substring; "" with kind "" means ignored
	}{
		{"A 1 A5", false, KindScan, []string{"A", "1", "A5"}, ""},
		{"e 4 k10", false, KindScan, []string{"E", "4", "K10"}, ""},
		{"Scan B 5 ab16", false, KindScan, []string{"B", "5", "AB16"}, ""},
		{"C 2 A16.", false, KindScan, []string{"C", "2", "A16"}, ""},
		{"Protest L11", false, KindProtest, []string{"L11"}, ""},
		{"PROTEST: ab1", false, KindProtest, []string{"AB1"}, ""},
		{"cancel protest", false, KindCancel, []string{"PROTEST"}, ""},
		{"Cancel b", false, KindCancel, []string{"B"}, ""},
		{"NAME: Friends of the Earth", false, KindName, []string{"Friends of the Earth"}, ""},
		{"Name: Friends of the Earth", true, KindName, []string{"Friends of the Earth"}, ""},
		{"F 2 A5", false, "", nil, "labels are A to E"},
		{"A 7 A5", false, "", nil, "radius 7"},
		{"A 0 A5", false, "", nil, "radius 0"},
		{"A x A5", false, "", nil, "not a number"},
		{"A 2 AC1", false, "", nil, "AC1 is not on the map"},
		{"A 2 A17", false, "", nil, "A17 is not on the map"},
		{"Protest ZZ99", false, "", nil, "ZZ99 is not on the map"},
		{"Protest", false, "", nil, "PROTEST needs one hex"},
		{"Protest here please", false, "", nil, "PROTEST needs one hex"},
		{"CANCEL G", false, "", nil, "labels are A to E"},
		{"hello there", false, "", nil, "not an order"},
		{"NAME:", false, "", nil, "NAME needs"},
		{"NAME: " + strings.Repeat("x", 61), false, "", nil, "at most 60"},
		// In the thread: orders are refused (they go by PM), emphasis is ignored.
		{"Protest L11", true, "", nil, "by PM"},
		{"A 2 K10", true, "", nil, "by PM"},
		{"cancel protest", true, "", nil, "by PM"},
		{"Protest the GM's ruling", true, "", nil, ""},
		{"I agree", true, "", nil, ""},
		{"A big mistake", true, "", nil, ""},
	}
	for _, tc := range tests {
		ch := rules.Private
		if tc.public {
			ch = rules.Public
		}
		p := g.Parse(s, tc.text, rules.Source{Player: "Alice", Channel: ch})
		switch {
		case tc.kind != "":
			if p.Cmd == nil || p.Cmd.Kind != tc.kind || !reflect.DeepEqual(p.Cmd.Args, tc.args) {
				t.Errorf("Parse(%q, public=%v) = %+v, want %s %v", tc.text, tc.public, p, tc.kind, tc.args)
			}
		case tc.reject != "":
			if p.Cmd != nil || !strings.Contains(p.Reject, tc.reject) {
				t.Errorf("Parse(%q, public=%v) = %+v, want reject containing %q", tc.text, tc.public, p, tc.reject)
			}
		default:
			if !p.Ignored || p.Cmd != nil || p.Reject != "" {
				t.Errorf("Parse(%q, public=%v) = %+v, want ignored", tc.text, tc.public, p)
			}
		}
	}
}

func TestOrdersReplaceAndCancel(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 10, 10, "odd-q", "E5")
	s = pm(t, s, "Alice", "A 1 B2", "B 2 C3", "A 3 D4", "Protest E6", "Protest E7")
	p := s.Players["Alice"]
	want := []ScanOrder{{"A", 3, "D4"}, {"B", 2, "C3"}}
	if !reflect.DeepEqual(p.Scans, want) || p.Protest != "E7" {
		t.Fatalf("orders = %+v %q", p.Scans, p.Protest)
	}
	s = pm(t, s, "Alice", "C 1 A1", "D 1 A1", "E 1 A1", "cancel B", "cancel protest")
	if len(s.Players["Alice"].Scans) != 4 || s.Players["Alice"].Protest != "" {
		t.Fatalf("after cancel: %+v", s.Players["Alice"])
	}
	if r := pmErr(t, s, "Alice", "cancel B"); !strings.Contains(r, "no scan B") {
		t.Errorf("cancel twice: %q", r)
	}
	// An order applied from the thread (e.g. rebuilt from a log) is refused too.
	_, _, err := g.Apply(s, rules.Command{Kind: KindProtest, Args: []string{"A1"}, Src: rules.Source{Player: "Bob", Channel: rules.Public}})
	if err == nil || !strings.Contains(err.Error(), "by PM") {
		t.Errorf("public protest: %v", err)
	}
	// Organisation names: unique, escaped in texts.
	s = pm(t, s, "Bob", "NAME: [b]Loud[/b] People")
	if r := pmErr(t, s, "Carol", "NAME: [B]loud[/B] people"); !strings.Contains(r, "Bob already") {
		t.Errorf("duplicate org: %q", r)
	}
	if w := s.who("Bob"); w != "Bob ("+rules.Esc("[b]Loud[/b] People")+")" {
		t.Errorf("who = %q", w)
	}
	if r := pmErr(t, s, "Zed", "A 1 A1"); !strings.Contains(r, "not playing") {
		t.Errorf("stranger: %q", r)
	}
}

// Scans at every radius. Map odd-q 11x11; going straight down a column is
// one step per row, so F7..F11 are 1..5 from F6. F5 (1 from F6) is a site
// already revealed: it still counts.
func TestScanEveryRadius(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 11, 11, "odd-q", "F5", "F7", "F8", "F9", "F10", "F11", "A1")
	s.Revealed = []Reveal{{Hex: "F5", Turn: 0, By: []string{"Bob"}}}
	tests := []struct {
		label, order string
		count        int
	}{
		{"A", "A 1 F6", 2}, // F5, F7
		{"B", "B 2 F6", 3}, // + F8
		{"C", "C 3 F6", 4}, // + F9
		{"D", "D 4 F6", 5}, // + F10
		{"E", "E 5 F6", 6}, // + F11; A1 (row 0) to F6 (row 5.5): 5 columns absorb 2.5 rows, 3 left: 8 away
	}
	var lines []string
	for _, tc := range tests {
		lines = append(lines, tc.order)
	}
	s = pm(t, s, "Alice", lines...)
	s = pm(t, s, "Bob", "A 1 F7", "B 1 A2", "C 1 B1", "D 1 C2", "E 1 K1")
	n, evs := resolve(s)
	for i, tc := range tests {
		r := n.Players["Alice"].Results[i]
		if r.Label != tc.label || r.Count != tc.count || r.Turn != 1 {
			t.Errorf("%s: got %+v, want count %d", tc.order, r, tc.count)
		}
	}
	// A 1 F7: F7 itself, F8 (and F6, not a site) → 2. B 1 A2: A1 → 1.
	// C 1 B1: odd-q B1 touches A1 → 1. D 1 C2: C2 (even col) touches B1, B2, not A1 → 0. E 1 K1: 0.
	want := []int{2, 1, 1, 0, 0}
	for i, c := range want {
		if got := n.Players["Bob"].Results[i].Count; got != c {
			t.Errorf("Bob scan %d: %d, want %d", i, got, c)
		}
	}
	var alicePM string
	for _, e := range evs {
		if e.To == "Alice" {
			alicePM += e.Text
		}
		if e.To == rules.Everyone && strings.Contains(e.Text, "F6") {
			t.Errorf("scan centre in a public post: %s", e.Text)
		}
	}
	for _, want := range []string{"A 2", "B 3", "C 4", "D 5", "E 6"} {
		if !strings.Contains(alicePM, want) {
			t.Errorf("Alice's scan PM lacks %q: %s", want, alicePM)
		}
	}
	st := g.Status(n)
	sc := st.Extra["scans"].(map[string][]ScanReport)
	if len(sc["Alice"]) != 5 || sc["Alice"][4] != (ScanReport{1, "E", 6}) || len(sc["Carol"]) != 0 {
		t.Errorf("status scans = %v", sc)
	}
}

// Each protest outcome, against the sites as the turn began. Map odd-q
// 12x12 (odd columns drawn half a hex lower), sites C3 and F7. Distances by
// hand: count column steps, each of which can also move half a row, then the
// rows left over. C3 sits at row 2, F7 at row 6.5 (odd column).
func TestProtestOutcomes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		revealC bool   // C3 revealed before the turn
		protest string // Alice's protest
		outcome string
		delta   int
	}{
		{"hit", false, "C3", Hit, +12},
		{"adjacent below is silent", false, "C4", Silent, 0},
		{"adjacent left is silent", false, "B3", Silent, 0}, // B3 at row 2.5, one column left
		{"adjacent to the other site", false, "F8", Silent, 0},
		{"two away loses 2", false, "C5", Miss, -2},   // straight down the column
		{"three away loses 3", false, "F3", Miss, -3}, // 3 columns, rows 2 vs 2: C3-D3-E3-F3
		// A12 (row 11) to F7 (6.5): 5 columns absorb 2.5 rows, 2 left → 7; to C3: 2+8 = 10.
		{"far corner", false, "A12", Miss, -7},
		// C3 revealed: its own hex is not a site; F7 is 3 columns (1.5 rows) + 3 rows → 6.
		{"revealed site is not a site", true, "C3", Miss, -6},
		// C4 (row 3) to F7: 3 columns absorb 1.5 of 3.5 rows, 2 left → 5.
		{"next to a revealed site is a miss", true, "C4", Miss, -5},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := newGame(t, 4, 12, 12, "odd-q", "C3", "F7")
			if tc.revealC {
				s.Revealed = []Reveal{{Hex: "C3", Turn: 0, By: []string{"Bob"}}}
			}
			s = pm(t, s, "Alice", "Protest "+tc.protest)
			n, evs := resolve(s)
			got := n.History[0].Protests[0]
			if got.Outcome != tc.outcome || got.Delta != tc.delta || n.Players["Alice"].PP != 10+tc.delta {
				t.Fatalf("protest %s: %+v, PP %d; want %s %+d", tc.protest, got, n.Players["Alice"].PP, tc.outcome, tc.delta)
			}
			pub := publicText(evs)
			switch tc.outcome {
			case Silent:
				if strings.Contains(pub, tc.protest) {
					t.Errorf("silent protest reported: %s", pub)
				}
				for _, e := range evs {
					if e.To == "Alice" {
						t.Errorf("silent protest told to the protester: %s", e.Text)
					}
				}
			case Miss:
				if !strings.Contains(pub, fmt.Sprintf("Alice at %s: %d PP", tc.protest, tc.delta)) {
					t.Errorf("miss not reported with its loss: %s", pub)
				}
			case Hit:
				if !strings.Contains(pub, "Alice at C3: +12 PP") || n.Revealed[len(n.Revealed)-1].Hex != "C3" {
					t.Errorf("hit not reported/revealed: %s", pub)
				}
			}
		})
	}
}

// Everything resolves against the sites as the turn began: a protest next
// to a site found this turn is still silent, and a miss measures to it.
func TestSimultaneous(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 12, 12, "odd-q", "C3", "J10")
	s = pm(t, s, "Alice", "Protest C3")
	s = pm(t, s, "Bob", "Protest C4")   // adjacent to C3, found by Alice this turn
	s = pm(t, s, "Carol", "Protest C6") // 3 below C3 (the nearest as the turn began); J10 is 8 away
	n, _ := resolve(s)
	if n.Players["Alice"].PP != 22 || n.Players["Bob"].PP != 10 || n.Players["Carol"].PP != 7 {
		t.Errorf("PP = %d %d %d", n.Players["Alice"].PP, n.Players["Bob"].PP, n.Players["Carol"].PP)
	}
}

func TestSplitPoints(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ players, each int }{{1, 12}, {2, 6}, {3, 4}, {4, 3}, {5, 2}, {7, 1}, {8, 1}} {
		s := newGame(t, 8, 10, 10, "even-r", "D4", "H8")
		for _, p := range players(tc.players) {
			s = pm(t, s, p, "protest d4")
		}
		n, evs := resolve(s)
		for i, p := range players(8) {
			want := 10
			if i < tc.players {
				want = 10 + tc.each
			}
			if n.Players[p].PP != want {
				t.Errorf("%d protesters: %s has %d PP, want %d", tc.players, p, n.Players[p].PP, want)
			}
		}
		if len(n.Revealed) != 1 || !reflect.DeepEqual(n.Revealed[0].By, players(tc.players)) {
			t.Errorf("revealed = %+v", n.Revealed)
		}
		if !strings.Contains(publicText(evs), fmt.Sprintf("at D4: +%d PP", tc.each)) {
			t.Errorf("report lacks the split: %s", publicText(evs))
		}
	}
}

func TestElimination(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 12, 12, "odd-q", "A1", "B1")
	s.Players["Alice"].PP = 3
	s.Players["Bob"].PP = 4
	s = pm(t, s, "Alice", "Protest A5") // 4 from A1 → −4: 3 → −1, shown as 0
	s = pm(t, s, "Bob", "Protest A5")   // 4 → 0: out as well
	s = pm(t, s, "Carol", "Protest A5") // 10 → 6
	n, evs := resolve(s)
	st := g.Status(n)
	if !reflect.DeepEqual(st.Out, []string{"Alice", "Bob"}) || st.Scores["Alice"] != 0 || st.Scores["Bob"] != 0 || st.Scores["Carol"] != 6 {
		t.Fatalf("out %v scores %v", st.Out, st.Scores)
	}
	pub := publicText(evs)
	if !strings.Contains(pub, "Alice has lost all public credibility") || !strings.Contains(pub, "Alice: 0 (out)") {
		t.Errorf("elimination not announced: %s", pub)
	}
	if r := pmErr(t, n, "Alice", "Protest B2"); !strings.Contains(r, "out of the game") {
		t.Errorf("out player's order: %q", r)
	}
	if st.Finished {
		t.Error("finished with two active players")
	}
	if !reflect.DeepEqual(st.Waiting, []string{"Carol", "Dave"}) {
		t.Errorf("waiting = %v", st.Waiting)
	}
}

func TestNoActivePlayerEnds(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 12, 12, "odd-q", "A1")
	for _, p := range players(4) {
		s.Players[p].PP = 2
		s = pm(t, s, p, "Protest A5")
	}
	s.Players["Dave"].Hits = 1 // a tie on PP (all 0) goes to successful protests
	n, evs := resolve(s)
	st := g.Status(n)
	if !st.Finished || len(st.Out) != 4 || !reflect.DeepEqual(st.Winners, []string{"Dave"}) {
		t.Fatalf("status %+v", st)
	}
	if !strings.Contains(publicText(evs), "no active player is left") || !strings.Contains(publicText(evs), "A1: never found") {
		t.Errorf("final post: %s", publicText(evs))
	}
}

func TestWinnersTieBreaks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pp      map[string]int
		hits    map[string]int
		winners []string
	}{
		{"most PP", map[string]int{"Alice": 20, "Bob": 18}, nil, []string{"Alice"}},
		{"tie on PP, most hits", map[string]int{"Alice": 20, "Bob": 20}, map[string]int{"Alice": 1, "Bob": 2}, []string{"Bob"}},
		{"tie on both: shared", map[string]int{"Alice": 20, "Bob": 20, "Carol": 20}, map[string]int{"Alice": 2, "Bob": 2, "Carol": 1}, []string{"Alice", "Bob"}},
		{"more hits but fewer PP loses", map[string]int{"Alice": 21, "Bob": 20}, map[string]int{"Alice": 0, "Bob": 3}, []string{"Alice"}},
	}
	for _, tc := range tests {
		s := newGame(t, 4, 8, 8, "odd-q", "A1")
		for _, p := range players(4) {
			s.Players[p].PP, s.Players[p].Hits = tc.pp[p], tc.hits[p]
		}
		n, evs := g.End(s, start)
		st := g.Status(n)
		if !st.Finished || !reflect.DeepEqual(st.Winners, tc.winners) {
			t.Errorf("%s: winners %v, want %v", tc.name, st.Winners, tc.winners)
		}
		if pub := publicText(evs); !strings.Contains(pub, "the GM ended the game") || !strings.Contains(pub, "A1: never found") {
			t.Errorf("%s: final post %s", tc.name, pub)
		}
	}
}

func TestAllRevealedEnds(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 8, 8, "odd-r", "B2", "G7")
	s = pm(t, s, "Alice", "A 1 B2", "Protest B2")
	s = pm(t, s, "Bob", "Protest G7")
	s = pm(t, s, "Carol", "Protest G7")
	s = pm(t, s, "Dave", "Protest B3") // adjacent to B2: silent
	n, evs := resolve(s)
	st := g.Status(n)
	if !st.Finished || !reflect.DeepEqual(st.Winners, []string{"Alice"}) || st.Phase != "turn-1" {
		t.Fatalf("status %+v", st)
	}
	if !reflect.DeepEqual(st.Scores, map[string]int{"Alice": 22, "Bob": 16, "Carol": 16, "Dave": 10}) {
		t.Errorf("scores %v", st.Scores)
	}
	if !reflect.DeepEqual(st.Extra["revealed"], []string{"B2", "G7"}) {
		t.Errorf("revealed %v", st.Extra["revealed"])
	}
	pub := publicText(evs)
	for _, want := range []string{"every site has been revealed", "Winner: Alice", "G7: revealed in turn 1 by Bob, Carol",
		"protest B3: next to a site, no effect", "scans A 1 B2 → 1"} {
		if !strings.Contains(pub, want) {
			t.Errorf("final post lacks %q:\n%s", want, pub)
		}
	}
	if g.Due(n, n.Deadline.Add(time.Hour)) {
		t.Error("due after the end")
	}
	if n2, evs := g.Resolve(n, start); len(evs) != 0 || n2 != rules.State(n) {
		t.Error("resolve after the end did something")
	}
	if _, _, err := g.Apply(n, rules.Command{Kind: KindProtest, Args: []string{"A1"}, Src: rules.Source{Player: "Alice", Channel: rules.Private}}); err == nil {
		t.Error("order accepted after the end")
	}
}

func TestTurnsAndDeadlines(t *testing.T) {
	t.Parallel()
	s, evs, err := g.Setup(rules.Config{Players: players(4), Seed: 9, Start: start,
		Options: rules.Options{"turn_hours": 0.5, "sites": 5, "columns": 30, "rows": 12, "layout": "even-q"}})
	if err != nil {
		t.Fatal(err)
	}
	st := s.(*State)
	if st.Deadline != start.Add(30*time.Minute) || st.Map.Layout != "even-q" || st.Map.Columns != 30 {
		t.Fatalf("deadline %v map %+v", st.Deadline, st.Map)
	}
	if !strings.Contains(publicText(evs), "30 columns (A–AD)") {
		t.Errorf("opening: %s", publicText(evs))
	}
	for _, x := range st.Sites {
		if strings.Contains(publicText(evs), x) {
			t.Errorf("opening names site %s", x)
		}
	}
	if g.Due(st, start.Add(29*time.Minute)) || !g.Due(st, start.Add(30*time.Minute)) {
		t.Error("Due wrong around the deadline")
	}
	later := start.Add(2 * time.Hour)
	n, _ := g.Resolve(st, later)
	ns := g.Status(n)
	if ns.Phase != "turn-2" || ns.Deadline != later.Add(30*time.Minute) {
		t.Errorf("after resolve: %+v", ns)
	}
	moved := g.SetDeadline(n, later.Add(5*time.Hour))
	if g.Status(moved).Deadline != later.Add(5*time.Hour) || g.Status(n).Deadline == later.Add(5*time.Hour) {
		t.Error("SetDeadline")
	}
}

func TestSetup(t *testing.T) {
	t.Parallel()
	base := func() rules.Config {
		return rules.Config{Players: players(4), Seed: 3, Start: start, Options: rules.Options{}, Setup: map[string]any{}}
	}
	s, _, err := g.Setup(base())
	if err != nil {
		t.Fatal(err)
	}
	st := s.(*State)
	if len(st.Sites) != 15 || st.Map.Columns != 26 || st.Map.Rows != 20 || st.Map.Layout != "odd-q" {
		t.Errorf("defaults: %d sites, map %+v", len(st.Sites), st.Map)
	}
	seen := map[string]bool{}
	for _, x := range st.Sites {
		if seen[x] {
			t.Errorf("site %s drawn twice", x)
		}
		seen[x] = true
	}
	again, _, _ := g.Setup(base())
	if !reflect.DeepEqual(again.(*State).Sites, st.Sites) {
		t.Error("same seed, different sites")
	}
	other := base()
	other.Seed = 4
	o, _, _ := g.Setup(other)
	if reflect.DeepEqual(o.(*State).Sites, st.Sites) {
		t.Error("different seed, same sites")
	}
	for _, tc := range []struct {
		name string
		mod  func(*rules.Config)
		err  string
	}{
		{"too few", func(c *rules.Config) { c.Players = players(3) }, "4 to 8 players"},
		{"too many", func(c *rules.Config) { c.Players = append(players(8), "Ivan") }, "4 to 8 players"},
		{"unknown option", func(c *rules.Config) { c.Options["site"] = 3 }, "unknown option"},
		{"bad layout", func(c *rules.Config) { c.Options["layout"] = "square" }, "unknown hex layout"},
		{"site off map", func(c *rules.Config) { c.Setup["sites"] = []any{"A1", "Z21"} }, "Z21 is not on the map"},
		{"site twice", func(c *rules.Config) { c.Setup["sites"] = []any{"A1", "a1"} }, "listed twice"},
		{"too many sites", func(c *rules.Config) { c.Options["sites"] = 521 }, "do not fit"},
		{"bad map", func(c *rules.Config) { c.Setup["map"] = map[string]any{"columns": 0, "rows": 5} }, "map size"},
		{"map key", func(c *rules.Config) { c.Setup["map"] = map[string]any{"cols": 5} }, "unknown key"},
		{"terrain off map", func(c *rules.Config) {
			c.Setup["map"] = map[string]any{"terrain": map[string]any{"sea": []any{"A1", "AA1"}}}
		}, "AA1 is not on the map"},
		{"zero hours", func(c *rules.Config) { c.Options["turn_hours"] = 0 }, "turn_hours"},
	} {
		c := base()
		tc.mod(&c)
		if _, _, err := g.Setup(c); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
	// Fixed sites and map from the setup; the option layout yields to the map's.
	c := base()
	c.Options["layout"] = "odd-r"
	c.Setup["map"] = map[string]any{"columns": 28.0, "rows": "16", "layout": "even-r",
		"terrain": map[string]any{"sea": []any{"A1", "b2"}}}
	c.Setup["sites"] = "ab13, h15 M3"
	s, _, err = g.Setup(c)
	if err != nil {
		t.Fatal(err)
	}
	st = s.(*State)
	if !reflect.DeepEqual(st.Sites, []string{"AB13", "H15", "M3"}) || st.Map.Layout != "even-r" || st.Map.Columns != 28 || st.Terrain["B2"] != "sea" {
		t.Errorf("fixed setup: %+v %+v %v", st.Sites, st.Map, st.Terrain)
	}
}

func TestStateRoundTripAndNoMutation(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 10, 10, "odd-q", "E5", "A1")
	s = pm(t, s, "Alice", "A 2 E5", "Protest E5", "NAME: Watchers")
	before, _ := json.Marshal(s)
	n, _ := resolve(s)
	after, _ := json.Marshal(s)
	if string(before) != string(after) {
		t.Fatal("Resolve mutated its input")
	}
	data, _ := json.Marshal(n)
	back, err := g.Decode(data)
	if err != nil || !reflect.DeepEqual(back, rules.State(n)) {
		t.Fatalf("round trip: %v", err)
	}
	if _, err := g.Decode([]byte(`{}`)); err == nil {
		t.Error("decoded a state without a roster")
	}
	bad := strings.Replace(string(data), `"sites":["E5"`, `"sites":["Z99"`, 1)
	if bad == string(data) {
		t.Fatal("test did not corrupt the sites")
	}
	if _, err := g.Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "Z99") {
		t.Errorf("decoded a state with an off-map site: %v", err)
	}
}

func TestViewHidesSecrets(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 10, 10, "odd-q", "E5", "A1")
	s = pm(t, s, "Alice", "A 2 E5", "Protest E6") // E6 adjacent to E5: silent
	s = pm(t, s, "Bob", "B 1 J10")
	n, _ := resolve(s)
	pub, _ := json.Marshal(g.View(n, rules.Everyone))
	for _, secret := range []string{`"E5"`, `"A1"`, `"E6"`, "silent", "J10"} {
		if strings.Contains(string(pub), secret) {
			t.Errorf("public view contains %s: %s", secret, pub)
		}
	}
	mine := g.View(n, "Alice").(View)
	if mine.Me == nil || len(mine.Me.Results) != 1 || len(mine.Me.Protests) != 1 || mine.Me.Protests[0].Outcome != Silent {
		t.Errorf("Alice's view: %+v", mine.Me)
	}
	if bob, _ := json.Marshal(g.View(n, "Bob")); strings.Contains(string(bob), `"E6"`) || strings.Contains(string(bob), `"E5"`) {
		t.Errorf("Bob sees Alice's orders: %s", bob)
	}
	end, _ := g.End(n, start)
	if v := g.View(end, rules.Everyone).(View); len(v.Sites) != 2 {
		t.Errorf("sites not shown at the end: %+v", v.Sites)
	}
}

func TestBot(t *testing.T) {
	t.Parallel()
	s := newGame(t, 4, 12, 10, "odd-r", "F5", "K9")
	r := rules.NewRand(1, "bot-test")
	bad, total := 0, 0
	for i := 0; i < 400; i++ {
		for _, mv := range g.Bot(s, "Alice", r) {
			ch := rules.Public
			if mv.Private {
				ch = rules.Private
			}
			for _, seg := range moveSegments(mv) {
				total++
				p := g.Parse(s, seg, rules.Source{Player: "Alice", Channel: ch})
				if p.Cmd == nil {
					bad++
					continue
				}
				if _, _, err := g.Apply(s, *p.Cmd); err != nil {
					bad++
				}
			}
		}
	}
	if frac := float64(bad) / float64(total); bad == 0 || frac > 0.2 {
		t.Errorf("bot sent %d bad of %d segments", bad, total)
	}
	// With scans saying "one site within 1 of F5" and "none within 2 of H5",
	// the bot protests inside the first area and outside the second.
	s.Players["Alice"].Results = []ScanResult{
		{Turn: 1, Label: "A", Radius: 2, Hex: "H5", Count: 0},
		{Turn: 1, Label: "B", Radius: 1, Hex: "F5", Count: 1},
	}
	for i := 0; i < 50; i++ {
		v := g.View(s, "Alice").(View)
		x := smartProtest(v, r)
		h, err := s.Map.Parse(x)
		if err != nil {
			t.Fatalf("smart protest %q: %v", x, err)
		}
		if s.Map.Distance(h, s.hex("F5")) > 1 || s.Map.Distance(h, s.hex("H5")) <= 2 {
			t.Fatalf("smart protest at %s ignores the scans", x)
		}
	}
	// Nothing to do once ordered, or out.
	s = pm(t, s, "Bob", "Protest A1")
	if mv := g.Bot(s, "Bob", r); mv != nil {
		t.Errorf("bot orders twice: %v", mv)
	}
	s.Players["Carol"].Out = true
	if mv := g.Bot(s, "Carol", r); mv != nil {
		t.Errorf("out bot orders: %v", mv)
	}
}
