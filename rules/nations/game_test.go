package nations

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

var t0 = time.Date(2026, 3, 1, 20, 0, 0, 0, time.UTC)

func newGame(t *testing.T, players []string, opts rules.Options) *State {
	t.Helper()
	st, evs, err := Game{}.Setup(rules.Config{Players: players, Options: opts, Seed: 1, Start: t0})
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	if len(evs) != 1 || evs[0].To != rules.Everyone || !strings.Contains(evs[0].Text, "CIV: Fire") {
		t.Fatalf("opening events %+v", evs)
	}
	return st.(*State)
}

// send parses and applies one segment; it returns the new state, the events
// and the rejection reason ("" when accepted).
func send(t *testing.T, s *State, who string, ch rules.Channel, text string, at time.Time) (*State, []rules.Event, string) {
	t.Helper()
	p := Game{}.Parse(s, text, rules.Source{Player: who, Channel: ch, Time: at})
	if p.Reject != "" {
		return s, nil, p.Reject
	}
	if p.Cmd == nil {
		return s, nil, "(ignored)"
	}
	ns, evs, err := Game{}.Apply(s, *p.Cmd)
	if err != nil {
		if ns.(*State) != s {
			t.Errorf("rejected command changed the state")
		}
		return s, evs, err.Error()
	}
	return ns.(*State), evs, ""
}

func mustSend(t *testing.T, s *State, who string, ch rules.Channel, text string) *State {
	t.Helper()
	ns, _, rej := send(t, s, who, ch, text, time.Time{})
	if rej != "" {
		t.Fatalf("%s %q rejected: %s", who, text, rej)
	}
	return ns
}

func resolve(s *State) (*State, []rules.Event) {
	ns, evs := Game{}.Resolve(s, s.Deadline)
	return ns.(*State), evs
}

func TestParse(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Alicia", "Bob", "Big_Carl"}, nil)
	type row struct {
		text   string
		ch     rules.Channel
		kind   string
		args   []string
		reject string
		ignore bool
	}
	pm, pub := rules.Private, rules.Public
	rows := []row{
		{text: "INVADE Bob", ch: pm, kind: KindInvade, args: []string{"Bob"}},
		{text: "invade: bob", ch: pm, kind: KindInvade, args: []string{"Bob"}},
		{text: "Invade:Bob!", ch: pm, kind: KindInvade, args: []string{"Bob"}},
		{text: "INVADE big carl", ch: pm, kind: KindInvade, args: []string{"Big_Carl"}},
		{text: "INVADE Alic", ch: pm, reject: "could mean more than one player"},
		{text: "INVADE Zed", ch: pm, reject: `"Zed" matches no player`},
		{text: "INVADE", ch: pm, reject: "INVADE whom?"},
		{text: "INVADE Bob and Alice", ch: pm, reject: "only one player"},
		{text: "DEFEND Bob", ch: pm, kind: KindDefend, args: []string{"Bob"}},
		{text: "DEFEND GUESS Bob", ch: pm, kind: KindDefend, args: []string{"Bob"}},
		{text: "defend: guess: bob", ch: pm, kind: KindDefend, args: []string{"Bob"}},
		{text: "DEFEND", ch: pm, kind: KindDefend},
		{text: "defend.", ch: pm, kind: KindDefend},
		{text: "DEFEND GUESS", ch: pm, reject: "DEFEND GUESS whom?"},
		{text: "DEFEND Nobody", ch: pm, reject: "matches no player"},
		{text: "DEFEND Bob, Alice", ch: pm, reject: "only one invader"},
		{text: "PROSPER", ch: pm, kind: KindProsper},
		{text: "prosper!", ch: pm, kind: KindProsper},
		{text: "Prosper:", ch: pm, kind: KindProsper},
		{text: "PROSPER Bob", ch: pm, reject: "PROSPER takes nothing"},
		{text: "hello", ch: pm, reject: "not an order"},
		{text: "I think I will invade Bob", ch: pm, reject: "not an order"},
		{text: "", ch: pm, ignore: true},
		{text: "   ", ch: pm, ignore: true},
		{text: "INVADE Bob", ch: pub, reject: "orders must be sent by PM"},
		{text: "prosper", ch: pub, reject: "orders must be sent by PM"},
		{text: "DEFEND GUESS Bob", ch: pub, reject: "orders must be sent by PM"},
		{text: "this is outrageous", ch: pub, ignore: true},
		{text: "CIV: Fire", ch: pub, kind: KindCiv, args: []string{Fire}},
		{text: "CIV: Fire Nation", ch: pub, kind: KindCiv, args: []string{Fire}},
		{text: "civ water nation", ch: pub, kind: KindCiv, args: []string{Water}},
		{text: "CIV: Ea", ch: pub, kind: KindCiv, args: []string{Earth}},
		{text: "CIV: A", ch: pub, kind: KindCiv, args: []string{Air}},
		{text: "CIVILIZATION: the Air Nation", ch: pub, kind: KindCiv, args: []string{Air}},
		{text: "CIV: Plasma", ch: pub, reject: "is not a civilisation"},
		{text: "CIV:", ch: pub, reject: "which civilisation?"},
		{text: "CIV: Nation", ch: pub, reject: "is not a civilisation"},
		{text: "CIV: Fire", ch: pm, reject: "pick your civilisation publicly"},
	}
	for _, r := range rows {
		t.Run(string(r.ch)+" "+r.text, func(t *testing.T) {
			p := Game{}.Parse(s, r.text, rules.Source{Player: "Alice", Channel: r.ch})
			switch {
			case r.reject != "":
				if !strings.Contains(p.Reject, r.reject) || p.Cmd != nil {
					t.Errorf("got %+v, want reject containing %q", p, r.reject)
				}
			case r.ignore:
				if !p.Ignored || p.Cmd != nil || p.Reject != "" {
					t.Errorf("got %+v, want ignored", p)
				}
			default:
				if p.Cmd == nil {
					t.Fatalf("got %+v, want %s %v", p, r.kind, r.args)
				}
				if p.Cmd.Kind != r.kind || !reflect.DeepEqual(p.Cmd.Args, r.args) || p.Cmd.Text != r.text {
					t.Errorf("got %+v, want %s %v", *p.Cmd, r.kind, r.args)
				}
			}
		})
	}
}

func TestApplyRejections(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob", "Carol"}, nil)
	out := s.clone()
	out.OutRound["Carol"] = 1
	out.VP["Carol"] = 0
	fin := s.clone()
	fin.Finished = true
	cmd := func(who string, ch rules.Channel, kind string, args ...string) rules.Command {
		return rules.Command{Kind: kind, Args: args, Src: rules.Source{Player: who, Channel: ch}}
	}
	pm, pub := rules.Private, rules.Public
	rows := []struct {
		name   string
		s      *State
		c      rules.Command
		reject string
	}{
		{"self-invasion", s, cmd("Alice", pm, KindInvade, "Alice"), "you cannot invade yourself"},
		{"guess yourself", s, cmd("Alice", pm, KindDefend, "Alice"), "cannot guess yourself"},
		{"invade unknown id", s, cmd("Alice", pm, KindInvade, "Zed"), "Zed is not a player"},
		{"guess unknown id", s, cmd("Alice", pm, KindDefend, "Zed"), "Zed is not a player"},
		{"invade with no target", s, cmd("Alice", pm, KindInvade), "exactly one"},
		{"prosper with args", s, cmd("Alice", pm, KindProsper, "Bob"), "PROSPER takes nothing"},
		{"order in the thread", s, cmd("Alice", pub, KindInvade, "Bob"), "orders must be sent by PM"},
		{"civ by PM", s, cmd("Alice", pm, KindCiv, "Fire"), "publicly"},
		{"bad civ", s, cmd("Alice", pub, KindCiv, "Plasma"), "not a civilisation"},
		{"unknown kind", s, cmd("Alice", pm, "vote", "Bob"), "unknown command"},
		{"not a player", s, cmd("Mallory", pm, KindProsper), "not a player in this game"},
		{"invade a player who is out", out, cmd("Alice", pm, KindInvade, "Carol"), "Carol is out of the game and cannot be invaded"},
		{"guess a player who is out", out, cmd("Alice", pm, KindDefend, "Carol"), "Carol is out of the game and cannot invade you"},
		{"order by a player who is out", out, cmd("Carol", pm, KindProsper), "you are out of the game (eliminated in round 1)"},
		{"civ by a player who is out", out, cmd("Carol", pub, KindCiv, "Fire"), "you are out of the game"},
		{"game over", fin, cmd("Alice", pm, KindProsper), "the game is over"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			before, _ := json.Marshal(r.s)
			ns, evs, err := Game{}.Apply(r.s, r.c)
			if err == nil || !strings.Contains(err.Error(), r.reject) {
				t.Fatalf("err = %v, want %q", err, r.reject)
			}
			after, _ := json.Marshal(ns)
			if string(before) != string(after) {
				t.Errorf("state changed on rejection")
			}
			if len(evs) != 0 {
				t.Errorf("events on rejection: %+v", evs)
			}
		})
	}
}

func TestCivChoiceAndLock(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob"}, nil)
	if s.CivOf("Alice") != Air {
		t.Fatalf("default civ %s", s.CivOf("Alice"))
	}
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Water")
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Fire Nation") // may change before round 1 resolves
	if s.CivOf("Alice") != Fire {
		t.Fatalf("civ %s, want Fire", s.CivOf("Alice"))
	}
	// A pick timestamped at the deadline (read before Resolve) is too late.
	_, _, rej := send(t, s, "Bob", rules.Public, "CIV: Earth", s.Deadline)
	if !strings.Contains(rej, "locked") {
		t.Errorf("late pick: %q", rej)
	}
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Bob")
	s, _ = resolve(s)
	if s.VP["Alice"] != 112 { // Fire counted in round 1
		t.Errorf("Alice %d, want 112", s.VP["Alice"])
	}
	for _, who := range []string{"Alice", "Bob"} {
		_, _, rej := send(t, s, who, rules.Public, "CIV: Earth", time.Time{})
		if !strings.Contains(rej, "locked once round 1 is resolved") {
			t.Errorf("%s after lock: %q", who, rej)
		}
	}
	if s.CivOf("Bob") != Air || s.CivOf("Alice") != Fire {
		t.Errorf("civs changed after lock")
	}
	st := Game{}.Status(s)
	if civs := st.Extra["civs"].(map[string]string); civs["Alice"] != Fire || civs["Bob"] != Air {
		t.Errorf("status civs %v", civs)
	}
}

func TestTiming(t *testing.T) {
	t.Parallel()
	g := Game{}
	s := newGame(t, []string{"Alice", "Bob"}, rules.Options{"rounds": 2, "round_minutes": 10, "break_minutes": 3})
	if !s.Deadline.Equal(t0.Add(10 * time.Minute)) {
		t.Fatalf("round 1 deadline %v", s.Deadline)
	}
	if g.Due(s, s.Deadline.Add(-time.Second)) || !g.Due(s, s.Deadline) {
		t.Errorf("Due around the deadline is wrong")
	}
	// Everyone having ordered does not close the round early.
	s = mustSend(t, s, "Alice", rules.Private, "PROSPER")
	s = mustSend(t, s, "Bob", rules.Private, "PROSPER")
	if g.Due(s, t0.Add(time.Minute)) {
		t.Errorf("due early")
	}
	now := s.Deadline.Add(20 * time.Second) // the GM resolves a little late
	ns, evs := g.Resolve(s, now)
	s2 := ns.(*State)
	if s2.Round != 2 || !s2.Opens.Equal(now.Add(3*time.Minute)) || !s2.Deadline.Equal(now.Add(13*time.Minute)) {
		t.Errorf("round 2: %d opens %v deadline %v", s2.Round, s2.Opens, s2.Deadline)
	}
	if len(evs) != 1 || evs[0].Kind != "round-report" || evs[0].To != rules.Everyone || !evs[0].NotBefore.Equal(s2.Opens) {
		t.Fatalf("events %+v", evs)
	}
	if !strings.Contains(evs[0].Text, "Round 2 of 2[/b] is open") || !strings.Contains(evs[0].Text, "before the deadline below") {
		t.Errorf("report does not open round 2:\n%s", evs[0].Text)
	}
	if st := g.Status(s2); st.Phase != "round-2" || !st.Deadline.Equal(s2.Deadline) || st.Finished {
		t.Errorf("status %+v", st)
	}
	// The last round's report and the final scoreboard come at once.
	ns, evs = g.Resolve(s2, s2.Deadline)
	s3 := ns.(*State)
	if !s3.Finished || len(evs) != 2 || evs[0].Kind != "round-report" || evs[1].Kind != "final" {
		t.Fatalf("last round: finished %v events %+v", s3.Finished, evs)
	}
	for _, e := range evs {
		if !e.NotBefore.IsZero() {
			t.Errorf("last round event held back: %+v", e)
		}
	}
	if g.Due(s3, s3.Deadline.Add(time.Hour)) {
		t.Errorf("finished game is due")
	}
	if again, evs := g.Resolve(s3, t0); again != ns || evs != nil {
		t.Errorf("resolving a finished game did something")
	}
	if st := g.Status(s3); st.Phase != "finished" || !st.Finished || !st.Deadline.IsZero() {
		t.Errorf("final status %+v", st)
	}

	// Fractional minutes for fast demos.
	f := newGame(t, []string{"A1", "B1"}, rules.Options{"round_minutes": 0.5, "break_minutes": "0.25"})
	if !f.Deadline.Equal(t0.Add(30 * time.Second)) {
		t.Errorf("fractional deadline %v", f.Deadline)
	}
	f, _ = resolve(f)
	if !f.Opens.Equal(t0.Add(45*time.Second)) || !f.Deadline.Equal(t0.Add(75*time.Second)) {
		t.Errorf("fractional round 2 %v %v", f.Opens, f.Deadline)
	}

	// SetDeadline moves the limit.
	moved := g.SetDeadline(s, t0.Add(time.Hour)).(*State)
	if !moved.Deadline.Equal(t0.Add(time.Hour)) || !s.Deadline.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("SetDeadline: %v (original %v)", moved.Deadline, s.Deadline)
	}
}

func TestBreakOrders(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob", "Carol"}, rules.Options{"rounds": 3})
	s = mustSend(t, s, "Alice", rules.Private, "PROSPER")
	// Made after the deadline but read before Resolve: counts for round 2.
	late := s.Deadline.Add(time.Second)
	s, evs, rej := send(t, s, "Bob", rules.Private, "INVADE Alice", late)
	if rej != "" || len(evs) != 1 || evs[0].To != "Bob" || !strings.Contains(evs[0].Text, "round 2") {
		t.Fatalf("late order: %q %+v", rej, evs)
	}
	if st := (Game{}).Status(s); !reflect.DeepEqual(st.Acted, []string{"Alice"}) {
		t.Errorf("acted in round 1: %v", st.Acted)
	}
	s, _ = resolve(s)
	if s.VP["Alice"] != 122 || s.VP["Bob"] != 100 {
		t.Fatalf("round 1 used the late order: %v", s.VP)
	}
	if o := s.Orders["Bob"]; o != inv("Alice") {
		t.Fatalf("late order not carried to round 2: %+v", s.Orders)
	}
	// Sent in the break (after Resolve, before round 2 opens): round 2.
	s, evs, _ = send(t, s, "Carol", rules.Private, "DEFEND Bob", s.Opens.Add(-time.Minute))
	if len(evs) != 1 || evs[0].Text != "Your order for round 2: defend, guessing Bob." {
		t.Errorf("break receipt %+v", evs)
	}
	s = mustSend(t, s, "Alice", rules.Private, "PROSPER")
	s, _ = resolve(s)
	// Round 2: Bob invades prospering Alice: +25; Carol defends uninvaded.
	want := map[string]int{"Alice": 97, "Bob": 125, "Carol": 100}
	if !reflect.DeepEqual(s.VP, want) {
		t.Errorf("VP %v, want %v", s.VP, want)
	}
}

func TestLateOrderDroppedWhenTargetFalls(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob", "Carol"}, rules.Options{"rounds": 3})
	s = s.clone()
	s.VP["Carol"] = 5
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Carol")
	s, _, rej := send(t, s, "Bob", rules.Private, "INVADE Carol", s.Deadline)
	if rej != "" {
		t.Fatal(rej)
	}
	s, _, rej = send(t, s, "Carol", rules.Private, "PROSPER", s.Deadline)
	if rej != "" {
		t.Fatal(rej)
	}
	s, evs := resolve(s)
	if !reflect.DeepEqual(s.OutIDs(), []string{"Carol"}) {
		t.Fatalf("out %v", s.OutIDs())
	}
	if _, ok := s.Orders["Bob"]; ok {
		t.Errorf("order against a fallen player kept")
	}
	if _, ok := s.Orders["Carol"]; ok {
		t.Errorf("order of a fallen player kept")
	}
	var dropped, fell bool
	for _, e := range evs {
		if e.To == "Bob" && e.Kind == "order-dropped" && strings.Contains(e.Text, "Carol is out") && e.NotBefore.Equal(s.Opens) {
			dropped = true
		}
		if e.To == "Carol" && e.Kind == "eliminated" && e.NotBefore.Equal(s.Opens) {
			fell = true
		}
	}
	if !dropped || !fell {
		t.Errorf("events %+v", evs)
	}
	// After the last round's deadline, a late order has nowhere to go.
	l := newGame(t, []string{"Alice", "Bob"}, rules.Options{"rounds": 1})
	_, _, rej = send(t, l, "Alice", rules.Private, "PROSPER", l.Deadline)
	if !strings.Contains(rej, "last round") {
		t.Errorf("late order in the last round: %q", rej)
	}
}

func TestEliminationThenRejections(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob", "Carol"}, rules.Options{"rounds": 3})
	s = s.clone()
	s.VP["Bob"] = 20
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Bob")
	s = mustSend(t, s, "Carol", rules.Private, "INVADE Bob")
	s = mustSend(t, s, "Bob", rules.Private, "PROSPER")
	s, evs := resolve(s)
	if s.VP["Bob"] != 0 || s.VP["Alice"] != 125 || s.VP["Carol"] != 125 {
		t.Fatalf("VP %v", s.VP)
	}
	if st := (Game{}).Status(s); !reflect.DeepEqual(st.Out, []string{"Bob"}) || st.Finished {
		t.Fatalf("status %+v", st)
	}
	var public string
	for _, e := range evs {
		if e.To == rules.Everyone {
			public += e.Text
		}
	}
	for _, want := range []string{"[b]Eliminated this round[/b]: Bob (0 VP).", "Bob could not pay all 50 VP; the rest appeared out of thin air."} {
		if !strings.Contains(public, want) {
			t.Errorf("report lacks %q:\n%s", want, public)
		}
	}
	for _, c := range []struct{ who, text, reject string }{
		{"Bob", "PROSPER", "you are out of the game"},
		{"Bob", "INVADE Alice", "you are out of the game"},
		{"Alice", "INVADE Bob", "Bob is out of the game and cannot be invaded"},
		{"Alice", "DEFEND Bob", "cannot invade you"},
	} {
		if _, _, rej := send(t, s, c.who, rules.Private, c.text, time.Time{}); !strings.Contains(rej, c.reject) {
			t.Errorf("%s %q: %q, want %q", c.who, c.text, rej, c.reject)
		}
	}
	if st := (Game{}).Status(s); !reflect.DeepEqual(st.Waiting, []string{"Alice", "Carol"}) {
		t.Errorf("waiting %v", st.Waiting)
	}
	// Round 2: Alice invades Carol (idle); Bob stays out and at 0.
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Carol")
	s, _ = resolve(s)
	if s.VP["Bob"] != 0 || s.VP["Alice"] != 135 || s.VP["Carol"] != 115 || s.OutRound["Bob"] != 1 {
		t.Errorf("round 2 VP %v out %v", s.VP, s.OutRound)
	}
}

func TestGameEndsWhenOneNationIsLeft(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"Alice", "Bob"}, nil)
	s = s.clone()
	s.VP["Bob"] = 3
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Bob")
	s, evs := resolve(s)
	st := (Game{}).Status(s)
	if !st.Finished || !reflect.DeepEqual(st.Winners, []string{"Alice"}) || !reflect.DeepEqual(st.Out, []string{"Bob"}) {
		t.Fatalf("status %+v", st)
	}
	if last := evs[len(evs)-1]; last.Kind != "final" || !strings.Contains(last.Text, "fewer than two nations remain after round 1") {
		t.Errorf("final %+v", last)
	}
}

func TestEnd(t *testing.T) {
	t.Parallel()
	g := Game{}
	s := newGame(t, []string{"Alice", "Bob"}, nil)
	s = mustSend(t, s, "Alice", rules.Private, "PROSPER")
	s, _ = resolve(s)
	s = mustSend(t, s, "Bob", rules.Private, "INVADE Alice") // not resolved by End
	ns, evs := g.End(s, t0.Add(time.Hour))
	e := ns.(*State)
	st := g.Status(e)
	if !st.Finished || !reflect.DeepEqual(st.Winners, []string{"Alice"}) || e.VP["Alice"] != 122 || e.VP["Bob"] != 100 {
		t.Fatalf("status %+v", st)
	}
	if len(evs) != 1 || evs[0].Kind != "final" || !evs[0].NotBefore.IsZero() ||
		!strings.Contains(evs[0].Text, "the GM ended the game after 1 of 5 rounds") ||
		!strings.Contains(evs[0].Text, "Breadbasket: Alice (22 VP generated by prospering)") {
		t.Errorf("events %+v", evs)
	}
	if again, evs := g.End(e, t0); again != ns || evs != nil {
		t.Errorf("ending twice did something")
	}
	if _, _, rej := send(t, e, "Alice", rules.Private, "PROSPER", time.Time{}); rej != "the game is over" {
		t.Errorf("order after end: %q", rej)
	}
}

func TestOptions(t *testing.T) {
	t.Parallel()
	rows := []struct {
		name   string
		opts   rules.Options
		err    string
		rounds int
		awards []Award
	}{
		{name: "defaults", rounds: 5, awards: []Award{{AwardWinner, "Winner"}, {AwardConqueror, "Conqueror"}, {AwardFortress, "Fortress"}, {AwardBreadbasket, "Breadbasket"}}},
		{name: "unknown option", opts: rules.Options{"round": 3}, err: "unknown option round"},
		{name: "rounds 0", opts: rules.Options{"rounds": 0}, err: "rounds: must be 1 to 1000, not 0"},
		{name: "rounds not a number", opts: rules.Options{"rounds": "many"}, err: "not a whole number"},
		{name: "round_minutes 0", opts: rules.Options{"round_minutes": 0}, err: "round_minutes: must be 0.00166667 to 527040 minutes"},
		{name: "negative break", opts: rules.Options{"break_minutes": -1}, err: "break_minutes: must be 0 or 0.00166667"},
		{name: "rename and drop", opts: rules.Options{"rounds": 3, "awards": map[string]any{"winner": "Emperor", "fortress": "", "breadbasket": nil}},
			rounds: 3, awards: []Award{{AwardWinner, "Emperor"}, {AwardConqueror, "Conqueror"}}},
		{name: "drop by false, string map", opts: rules.Options{"awards": map[string]string{"conqueror": "Warlord"}},
			rounds: 5, awards: []Award{{AwardWinner, "Winner"}, {AwardConqueror, "Warlord"}, {AwardFortress, "Fortress"}, {AwardBreadbasket, "Breadbasket"}}},
		{name: "bool false drops", opts: rules.Options{"awards": map[string]any{"winner": false, "conqueror": false, "fortress": false, "breadbasket": false}},
			rounds: 5},
		{name: "unknown award", opts: rules.Options{"awards": map[string]any{"mvp": "MVP"}}, err: `unknown award "mvp"`},
		{name: "award not text", opts: rules.Options{"awards": map[string]any{"winner": 3}}, err: "must be a title"},
		{name: "awards not a map", opts: rules.Options{"awards": "none"}, err: "must be a map"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			st, err := ReadSettings(r.opts)
			if r.err != "" {
				if err == nil || !strings.Contains(err.Error(), r.err) {
					t.Fatalf("err %v, want %q", err, r.err)
				}
				if _, _, err := (Game{}).Setup(rules.Config{Players: []string{"A1", "B1"}, Options: r.opts}); err == nil {
					t.Errorf("Setup accepted bad options")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Rounds != r.rounds || !reflect.DeepEqual(st.Awards, r.awards) {
				t.Errorf("got %+v", st)
			}
		})
	}
	for _, bad := range []rules.Config{
		{Players: []string{"Solo"}},
		{Players: []string{"A1", "B1"}, Setup: map[string]any{"roles": 1}},
		{Players: []string{"Bob", "bob"}},
	} {
		if _, _, err := (Game{}).Setup(bad); err == nil {
			t.Errorf("Setup(%+v) accepted", bad)
		}
	}
}

func TestAwards(t *testing.T) {
	t.Parallel()
	type tally = Tally
	rows := []struct {
		name    string
		vp      []int
		tallies []tally
		want    map[string][]string // award key -> holders
		text    []string
	}{
		{name: "clear winners",
			vp:      []int{150, 120, 90},
			tallies: []tally{{Stolen: 50}, {Guessed: 2, Generated: 22}, {Guessed: 1, Generated: 48}},
			want:    map[string][]string{AwardWinner: {"A1"}, AwardConqueror: {"A1"}, AwardFortress: {"B1"}, AwardBreadbasket: {"C1"}},
			text:    []string{"Winner: A1 (150 VP)", "Conqueror: A1 (50 VP stolen by invading)", "Fortress: B1 (2 invaders guessed)", "Breadbasket: C1 (48 VP generated by prospering)"}},
		{name: "ties share",
			vp:      []int{120, 120, 90},
			tallies: []tally{{Stolen: 20, Guessed: 1}, {Stolen: 20}, {Stolen: 20, Guessed: 1, Generated: 26}},
			want:    map[string][]string{AwardWinner: {"A1", "B1"}, AwardConqueror: {"A1", "B1", "C1"}, AwardFortress: {"A1", "C1"}, AwardBreadbasket: {"C1"}},
			text:    []string{"Winner: A1, B1 (120 VP)", "Conqueror: A1, B1, C1 (20 VP stolen by invading)", "Fortress: A1, C1 (1 invader guessed)"}},
		{name: "best of 0 is not awarded",
			vp:      []int{100, 100, 100},
			tallies: []tally{{}, {}, {}},
			want:    map[string][]string{AwardWinner: {"A1", "B1", "C1"}, AwardConqueror: {}, AwardFortress: {}, AwardBreadbasket: {}},
			text:    []string{"Conqueror: not awarded (nobody stole anything by invading)", "Fortress: not awarded (nobody guessed an invader)", "Breadbasket: not awarded (nobody prospered undisturbed)"}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			s := newGame(t, []string{"A1", "B1", "C1"}, nil).clone()
			for i, id := range s.Seats.IDs() {
				s.VP[id] = r.vp[i]
				s.Tallies[id] = r.tallies[i]
			}
			s.Finished, s.EndedAt = true, 5
			for k, want := range r.want {
				if got := awardHolders(s, k); !reflect.DeepEqual(got, want) {
					t.Errorf("%s: %v, want %v", k, got, want)
				}
			}
			text := finalText(s)
			for _, w := range r.text {
				if !strings.Contains(text, w) {
					t.Errorf("final text lacks %q:\n%s", w, text)
				}
			}
			st := (Game{}).Status(s)
			if !reflect.DeepEqual(st.Winners, r.want[AwardWinner]) {
				t.Errorf("winners %v", st.Winners)
			}
		})
	}
}

func TestAwardTalliesFromPlay(t *testing.T) {
	t.Parallel()
	// Conqueror counts steals by invading only (with the Fire bonus, and
	// thin-air amounts in full); Fortress counts correct guesses; the guess
	// steal is not conquest.
	s := newGame(t, []string{"Alice", "Bob", "Carol", "Dan"}, rules.Options{"rounds": 1,
		"awards": map[string]any{"winner": "Top Nation", "breadbasket": ""}})
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Fire")
	s = mustSend(t, s, "Carol", rules.Public, "CIV: Earth")
	s = s.clone()
	s.VP["Dan"] = 5
	s = mustSend(t, s, "Alice", rules.Private, "INVADE Dan") // 12, Dan can pay 5
	s = mustSend(t, s, "Bob", rules.Private, "INVADE Carol")
	s = mustSend(t, s, "Carol", rules.Private, "DEFEND Bob")
	s, evs := resolve(s)
	want := map[string]Tally{"Alice": {Stolen: 12}, "Carol": {Guessed: 1}}
	if !reflect.DeepEqual(s.Tallies, want) {
		t.Errorf("tallies %+v, want %+v", s.Tallies, want)
	}
	final := evs[len(evs)-1].Text
	for _, w := range []string{"Top Nation: Carol (114 VP)", "Conqueror: Alice (12 VP stolen by invading)", "Fortress: Carol (1 invader guessed)"} {
		if !strings.Contains(final, w) {
			t.Errorf("final lacks %q:\n%s", w, final)
		}
	}
	if strings.Contains(final, "Breadbasket") || strings.Contains(final, "Winner") {
		t.Errorf("dropped/renamed award shown:\n%s", final)
	}
	if aw := (Game{}).Status(s).Extra["awards"].(map[string][]string); !reflect.DeepEqual(aw["Top Nation"], []string{"Carol"}) {
		t.Errorf("status awards %v", aw)
	}
}

func TestSecrecyViewAndRoundTrip(t *testing.T) {
	t.Parallel()
	g := Game{}
	s := newGame(t, []string{"Alice", "Bob"}, nil)
	s = mustSend(t, s, "Alice", rules.Public, "CIV: Water")
	ns, evs, rej := send(t, s, "Alice", rules.Private, "INVADE Bob", time.Time{})
	if rej != "" {
		t.Fatal(rej)
	}
	for _, e := range evs {
		if e.To != "Alice" {
			t.Errorf("order leaked in %+v", e)
		}
	}
	if !reflect.DeepEqual(evs[0].Text, "Your order for round 1: invade Bob.") {
		t.Errorf("receipt %q", evs[0].Text)
	}
	va := g.View(ns, "Alice").(View)
	vb := g.View(ns, "Bob").(View)
	vp := g.View(ns, rules.Everyone).(View)
	if va.Order == nil || *va.Order != inv("Bob") || vb.Order != nil || vp.Order != nil || vp.You != "" {
		t.Errorf("views: alice %+v bob %+v public %+v", va.Order, vb.Order, vp.Order)
	}
	if b, _ := json.Marshal(vb); strings.Contains(string(b), "invade") {
		t.Errorf("Bob's view shows Alice's order: %s", b)
	}
	if !va.Players[0].CivPicked || va.Players[0].Civ != Water || va.Players[1].CivPicked || va.Players[1].Civ != Air {
		t.Errorf("players %+v", va.Players)
	}
	// Apply and Resolve never touch their input; states round-trip.
	before, _ := json.Marshal(s)
	ns2, _ := g.Resolve(ns, ns.Deadline)
	if after, _ := json.Marshal(s); string(before) != string(after) {
		t.Errorf("Apply mutated its input")
	}
	b1, _ := json.Marshal(ns)
	g.Resolve(ns, ns.Deadline)
	if b2, _ := json.Marshal(ns); string(b1) != string(b2) {
		t.Errorf("Resolve mutated its input")
	}
	data, _ := json.Marshal(ns2)
	back, err := g.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := json.Marshal(back); string(again) != string(data) {
		t.Errorf("round trip differs:\n%s\n%s", data, again)
	}
	if _, err := g.Decode([]byte(`{"round":1}`)); err == nil {
		t.Errorf("state without roster decoded")
	}
	if _, err := g.Decode([]byte(`{`)); err == nil {
		t.Errorf("bad JSON decoded")
	}
}

func TestRegistered(t *testing.T) {
	t.Parallel()
	g, err := rules.Lookup("nations")
	if err != nil || g.Name() != "nations" {
		t.Fatalf("lookup: %v", err)
	}
}

func TestNamesAreEscaped(t *testing.T) {
	t.Parallel()
	s := newGame(t, []string{"[url=x]Evil", "Bob"}, rules.Options{"rounds": 1})
	s = mustSend(t, s, "Bob", rules.Private, "INVADE [url=x]Evil")
	_, evs := resolve(s)
	for _, e := range evs {
		if strings.Contains(e.Text, "[url=x]") {
			t.Errorf("raw name in %s:\n%s", e.Kind, e.Text)
		}
		if e.To == rules.Everyone && !strings.Contains(e.Text, "[\u200burl=x]Evil") {
			t.Errorf("escaped name missing in %s", e.Kind)
		}
	}
}
