package nations_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/nations

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
)

var fuzzStart = time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)

// A stage is a game set up from opts and played through steps: "Ann> bold
// run" (thread), "Ann# line" (PM), "!deadline"; every message is accepted.
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

func send(tb testing.TB, g rules.Game, s rules.State, who string, ch rules.Channel, text string, at time.Time) rules.State {
	tb.Helper()
	src := rules.Source{Player: who, Channel: ch, Time: at}
	p := g.Parse(s, text, src)
	if p.Cmd == nil {
		tb.Fatalf("%s: %q not parsed: %q", who, text, p.Reject)
	}
	c := *p.Cmd
	c.Src = src
	ns, _, err := g.Apply(s, c)
	if err != nil {
		tb.Fatalf("%s: %q rejected: %v", who, text, err)
	}
	return ns
}

func buildStage(tb testing.TB, st fuzzStage) rules.State {
	tb.Helper()
	g := nations.Game{}
	s, _, err := g.Setup(rules.Config{Players: st.players, Options: st.opts, Seed: 5, Start: fuzzStart})
	if err != nil {
		tb.Fatal(err)
	}
	for i, step := range st.steps {
		at := fuzzStart.Add(time.Duration(i+1) * time.Second)
		if step == "!deadline" {
			s, _ = g.Resolve(s, g.Status(s).Deadline)
			continue
		}
		ch, sep := rules.Public, "> "
		if strings.Contains(step, "# ") {
			ch, sep = rules.Private, "# "
		}
		who, text, _ := strings.Cut(step, sep)
		s = send(tb, g, s, who, ch, text, at)
	}
	return s
}

func mustJSON(t *testing.T, s rules.State) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("state does not marshal: %v", err)
	}
	return b
}

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

// withOthersOrders is s after every other player still in the game sent an
// INVADE by PM: the secret the sender must learn nothing about.
func withOthersOrders(t *testing.T, g rules.Game, s rules.State, sender string) rules.State {
	t.Helper()
	ns := s.(*nations.State)
	var alive []string
	for _, id := range ns.R.IDs() {
		if ns.Alive(id) {
			alive = append(alive, id)
		}
	}
	at := ns.Deadline.Add(-2 * time.Minute)
	for i, id := range alive {
		if id == sender {
			continue
		}
		s = send(t, g, s, id, rules.Private, "INVADE "+alive[(i+1)%len(alive)], at)
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
		b, err := json.Marshal(buildStage(f, st))
		if err != nil {
			f.Fatal(err)
		}
		stages[i] = b
	}
	// Seeds: testdata/fuzz/FuzzParseApply (text, stage, player, late).
	f.Fuzz(func(t *testing.T, text string, stage, who uint8, late bool) {
		data := stages[int(stage)%len(stages)]
		base, err := g.Decode(data)
		if err != nil {
			t.Fatal(err)
		}
		ids := base.Roster().IDs()
		player := ids[int(who)%len(ids)]
		when := g.Status(base).Deadline.Add(-time.Minute)
		if late {
			when = when.Add(2 * time.Minute)
		}
		for _, ch := range []rules.Channel{rules.Public, rules.Private} {
			src := rules.Source{Player: player, Channel: ch, Time: when, Ref: "p1"}
			evsA, errA := step(t, g, base, text, src)
			if ch != rules.Private {
				continue
			}
			other := withOthersOrders(t, g, base, player)
			evsB, errB := step(t, g, other, text, src)
			if !reflect.DeepEqual(evsA, evsB) || (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
				t.Fatalf("a PM's answer depends on the other players' orders:\n%q %v\n%q %v", evsA, errA, evsB, errB)
			}
		}
	})
}

// step runs one segment through Parse, Apply and, when accepted, Resolve at
// the deadline, checking the properties; it returns Apply's events and error
// (a Parse rejection is returned as an error too).
func step(t *testing.T, g rules.Game, s rules.State, text string, src rules.Source) ([]rules.Event, error) {
	t.Helper()
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
		if p.Reject != "" {
			return nil, rejection(p.Reject)
		}
		return nil, nil
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
		return evs, err
	}
	roundTrip(t, g, ns)
	after := mustJSON(t, ns)
	g.View(ns, rules.Everyone)
	g.View(ns, src.Player)
	rs, _ := g.Resolve(ns, g.Status(ns).Deadline)
	if b := mustJSON(t, ns); !bytes.Equal(after, b) {
		t.Fatalf("Resolve changed the state it was given")
	}
	roundTrip(t, g, rs)
	g.Status(rs)
	return evs, nil
}

type rejection string

func (r rejection) Error() string { return string(r) }
