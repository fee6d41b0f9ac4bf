package resistance_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/resistance

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
)

var fuzzStart = time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)

// fuzzStep is a fixed message of a stage script: "Ann> bold run" (thread) or
// "Ann# line" (PM); every step must be accepted.
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
		Players: players, Seed: 3, Start: fuzzStart,
		Options: rules.Options{"chain_spies": "off"},
		Setup: map[string]any{"roles": roles, "leader_order": order,
			"deck": []any{resistance.CloseEye, resistance.Overheard}},
	}
}

// buildStage plays a stage's script and returns the state as JSON.
func buildStage(tb testing.TB, st fuzzStage, spies []string) []byte {
	tb.Helper()
	g := resistance.Game{}
	s, _, err := g.Setup(fuzzConfig(st.players, spies))
	if err != nil {
		tb.Fatal(err)
	}
	for i, step := range st.steps {
		ch, sep := rules.Public, "> "
		if strings.Contains(step, "# ") {
			ch, sep = rules.Private, "# "
		}
		who, text, _ := strings.Cut(step, sep)
		src := rules.Source{Player: who, Channel: ch, Time: fuzzStart.Add(time.Duration(i+1) * time.Second)}
		p := g.Parse(s, text, src)
		if p.Cmd == nil {
			tb.Fatalf("stage step %q not parsed: %q", step, p.Reject)
		}
		c := *p.Cmd
		c.Src = src
		if s, _, err = g.Apply(s, c); err != nil {
			tb.Fatalf("stage step %q rejected: %v", step, err)
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func mustJSON(t *testing.T, s rules.State) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("state does not marshal: %v", err)
	}
	return b
}

// roundTrip checks that a state survives Decode unchanged.
func roundTrip(t *testing.T, g rules.Game, s rules.State) {
	t.Helper()
	b := mustJSON(t, s)
	d, err := g.Decode(b)
	if err != nil {
		t.Fatalf("state does not decode: %v\n%s", err, b)
	}
	// Compared as JSON values: encoding/json writes invalid UTF-8 in a
	// player's text as \ufffd, which reads back as the same value.
	var v1, v2 any
	b2 := mustJSON(t, d)
	if json.Unmarshal(b, &v1) != nil || json.Unmarshal(b2, &v2) != nil || !reflect.DeepEqual(v1, v2) {
		t.Fatalf("state changes in a JSON round trip:\n%s\n%s", b, b2)
	}
}

// Phrases only a role reveal uses (role PMs, reveals by card): in the thread
// they may appear only in the final roll call, or as the player's own words
// echoed back.
var rolePhrases = []string{"a SPY", "a member of the RESISTANCE", "The other spies", "The spy you know"}

func checkNoRoles(t *testing.T, evs []rules.Event, s rules.State, text, what string) {
	t.Helper()
	if s.(*resistance.State).Finished {
		return
	}
	for _, e := range evs {
		if e.To != rules.Everyone {
			continue
		}
		for _, ph := range rolePhrases {
			if strings.Contains(e.Text, ph) && !strings.Contains(strings.ToLower(text), strings.ToLower(ph)) {
				t.Fatalf("%s: public event reveals a role (%q): %q", what, ph, e.Text)
			}
		}
	}
}

func publicOf(evs []rules.Event) []rules.Event {
	var out []rules.Event
	for _, e := range evs {
		if e.To == rules.Everyone {
			out = append(out, e)
		}
	}
	return out
}

// FuzzParseApply sends arbitrary text as a thread segment and as a PM line
// into several game stages: no panic; Parse and Apply never change the
// state they are given (so a rejection leaves it as it was); every state
// round-trips through Decode; a role is never revealed in the thread before
// the end; and what a PM makes public is the same whoever the spies are.
func FuzzParseApply(f *testing.F) {
	g := resistance.Game{}
	type variant struct{ a, b []byte }
	stages := make([]variant, len(fuzzStages))
	for i, st := range fuzzStages {
		sp := fuzzSpies[len(st.players)]
		stages[i] = variant{buildStage(f, st, sp[0]), buildStage(f, st, sp[1])}
	}
	// Seeds: testdata/fuzz/FuzzParseApply (text, stage, player, late).
	f.Fuzz(func(t *testing.T, text string, stage, who uint8, late bool) {
		v := stages[int(stage)%len(stages)]
		decode := func(b []byte) rules.State {
			s, err := g.Decode(b)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		base := decode(v.a)
		ids := base.Roster().IDs()
		player := ids[int(who)%len(ids)]
		when := g.Status(base).Deadline.Add(-time.Minute)
		if late {
			when = when.Add(2 * time.Minute)
		}
		for _, ch := range []rules.Channel{rules.Public, rules.Private} {
			src := rules.Source{Player: player, Channel: ch, Time: when, Ref: "p1"}
			evsA := step(t, g, v.a, text, src)
			if ch == rules.Private {
				evsB := step(t, g, v.b, text, src)
				if pa, pb := publicOf(evsA), publicOf(evsB); !reflect.DeepEqual(pa, pb) {
					t.Fatalf("a PM's public events depend on the roles:\n%q\n%q", pa, pb)
				}
			}
		}
	})
}

// step runs one segment through Parse, Apply and Resolve from the state in
// data, checks the properties, and returns Apply's events.
func step(t *testing.T, g rules.Game, data []byte, text string, src rules.Source) []rules.Event {
	t.Helper()
	s, err := g.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	before := mustJSON(t, s)
	unchanged := func(what string) {
		t.Helper()
		if b := mustJSON(t, s); !bytes.Equal(before, b) {
			t.Fatalf("%s changed the state it was given:\n%s\n%s", what, before, b)
		}
	}
	p := g.Parse(s, text, src)
	unchanged("Parse")
	if p.Cmd == nil {
		return nil
	}
	c := *p.Cmd
	c.Src = src
	if c.Text == "" {
		c.Text = text
	}
	ns, evs, err := g.Apply(s, c)
	unchanged("Apply")
	if err != nil {
		if err.Error() == "" {
			t.Fatal("a rejection without a reason")
		}
		if ns != nil && !bytes.Equal(mustJSON(t, ns), before) {
			t.Fatalf("rejected (%v) but the state returned differs", err)
		}
		checkNoRoles(t, evs, s, text, "rejected Apply")
		return evs
	}
	roundTrip(t, g, ns)
	checkNoRoles(t, evs, ns, text, "Apply")
	after := mustJSON(t, ns)
	g.Status(ns)
	g.View(ns, rules.Everyone)
	g.View(ns, src.Player)
	rs, revs := g.Resolve(ns, g.Status(ns).Deadline)
	if b := mustJSON(t, ns); !bytes.Equal(after, b) {
		t.Fatalf("Resolve changed the state it was given")
	}
	roundTrip(t, g, rs)
	checkNoRoles(t, revs, rs, text, "Resolve")
	g.Status(rs)
	return evs
}
