package protest_test

// Run: go test -run '^$' -fuzz FuzzParseApply -fuzztime 30s ./rules/protest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/protest"
)

var fuzzStart = time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)

// Two site layouts on the same 8×6 map: what a PM gets back must not
// depend on which one is in play.
var fuzzSites = [2][]any{{"C3", "F5", "B6"}, {"G2", "A1", "H6"}}

// A stage is a script played from the setup: "Ann> bold run" (thread),
// "Ann# line" (PM), "!deadline"; every message is accepted.
var fuzzStages = [][]string{
	nil,
	{"Ann# NAME: Tea Party", "Ann# PROTEST C3", "Ben# A 2 E4", "Ben# B 5 A1", "Cat# PROTEST D3", "Dan# PROTEST H1"},
	{"Ann# NAME: Tea Party", "Ann# PROTEST C3", "Ben# A 2 E4", "Cat# PROTEST D3", "Dan# PROTEST H1", "!deadline"},
	{"Ann# PROTEST C3", "Ben# A 2 E4", "!deadline", "Ben> ORG: [b]x[/b]", "Cat# PROTEST F5", "Cat# C 1 F4"},
}

func buildStage(tb testing.TB, script []string, sites []any) []byte {
	tb.Helper()
	g := protest.Game{}
	s, _, err := g.Setup(rules.Config{
		Players: []string{"Ann", "Ben", "Cat", "Dan"}, Seed: 2, Start: fuzzStart,
		Setup: map[string]any{"map": map[string]any{"columns": 8, "rows": 6, "layout": "odd-q"}, "sites": sites},
	})
	if err != nil {
		tb.Fatal(err)
	}
	for i, step := range script {
		if step == "!deadline" {
			s, _ = g.Resolve(s, g.Status(s).Deadline)
			continue
		}
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

var hexToken = regexp.MustCompile(`\b[A-Z]{1,2}[0-9]{1,2}\b`)

// checkHidden: before the end, no public event names a site that is still
// hidden after the step. Organisation names are the only player text the
// thread shows; they are blanked first (a player may call theirs "C3").
func checkHidden(t *testing.T, evs []rules.Event, st rules.State, what string) {
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
	for _, e := range evs {
		if e.To != rules.Everyone {
			continue
		}
		text := e.Text
		for _, p := range s.P {
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
	type variant struct{ a, b []byte }
	stages := make([]variant, len(fuzzStages))
	for i, sc := range fuzzStages {
		stages[i] = variant{buildStage(f, sc, fuzzSites[0]), buildStage(f, sc, fuzzSites[1])}
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
			evsA, errA := step(t, g, base, text, src)
			if ch != rules.Private {
				continue
			}
			evsB, errB := step(t, g, decode(v.b), text, src)
			if !reflect.DeepEqual(evsA, evsB) || (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
				t.Fatalf("a PM's answer depends on where the sites are:\n%q %v\n%q %v", evsA, errA, evsB, errB)
			}
		}
	})
}

// step runs one segment through Parse, Apply and, when accepted, Resolve at
// the deadline, checking the properties; it returns Apply's events and
// error (a Parse rejection as an error too).
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
		checkHidden(t, evs, s, "rejected Apply")
		return evs, err
	}
	roundTrip(t, g, ns)
	checkHidden(t, evs, ns, "Apply")
	after := mustJSON(t, ns)
	g.View(ns, rules.Everyone)
	g.View(ns, src.Player)
	rs, revs := g.Resolve(ns, g.Status(ns).Deadline)
	if b := mustJSON(t, ns); !bytes.Equal(after, b) {
		t.Fatalf("Resolve changed the state it was given")
	}
	roundTrip(t, g, rs)
	checkHidden(t, revs, rs, "Resolve")
	g.Status(rs)
	return evs, nil
}

type rejection string

func (r rejection) Error() string { return string(r) }
