// Package gametest is the harness the games' FuzzParseApply targets share:
// stages built by playing a script from the setup, arbitrary text fed into
// them as a thread segment and as a PM line through Parse, Apply and
// Resolve, with the checks every game must pass (no panic, the state given
// is never changed, a rejection has a reason and leaves the state as it
// was, every state round-trips through Decode, and what a PM gets back does
// not depend on a secret). A game adds its own properties as a Check.
package gametest

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// Start is when the fuzz stages' games begin.
var Start = time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC)

// Stage sets g up from cfg, plays script on it and returns the state as
// JSON. A step is "Ann> bold run" (a thread segment), "Ann# line" (a PM
// line) or "!deadline" (Resolve at the deadline); step i is sent i+1
// seconds after cfg.Start, and every message must be accepted.
func Stage(tb testing.TB, g rules.Game, cfg rules.Config, script []string) []byte {
	tb.Helper()
	s, _, err := g.Setup(cfg)
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
		s = Send(tb, g, s, who, ch, text, cfg.Start.Add(time.Duration(i+1)*time.Second))
	}
	return MustJSON(tb, s)
}

// TwinStages builds n stages twice, once on each side of a secret (side 0
// and 1: the game set up from config, then script played): the first for
// Target.Stages, the second behind the Twin it returns.
func TwinStages(tb testing.TB, g rules.Game, n int, stage func(i, side int) (config rules.Config, script []string)) (stages [][]byte, twin func(testing.TB, int, rules.State, string) rules.State) {
	tb.Helper()
	var twins [][]byte
	for i := range n {
		cfg, script := stage(i, 0)
		stages = append(stages, Stage(tb, g, cfg, script))
		cfg, script = stage(i, 1)
		twins = append(twins, Stage(tb, g, cfg, script))
	}
	return stages, func(t testing.TB, i int, _ rules.State, _ string) rules.State { return Decode(t, g, twins[i]) }
}

// Send parses and applies one message from who, failing tb unless it is
// accepted, and returns the new state.
func Send(tb testing.TB, g rules.Game, s rules.State, who string, ch rules.Channel, text string, at time.Time) rules.State {
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

// MustJSON is s as JSON, failing tb when it does not marshal.
func MustJSON(tb testing.TB, s rules.State) []byte {
	tb.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		tb.Fatalf("state does not marshal: %v", err)
	}
	return b
}

// Decode is g's state from data, failing tb when it does not decode.
func Decode(tb testing.TB, g rules.Game, data []byte) rules.State {
	tb.Helper()
	s, err := g.Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// RoundTrip fails tb unless s survives JSON and g.Decode unchanged.
func RoundTrip(tb testing.TB, g rules.Game, s rules.State) {
	tb.Helper()
	b := MustJSON(tb, s)
	d, err := g.Decode(b)
	if err != nil {
		tb.Fatalf("state does not decode: %v\n%s", err, b)
	}
	// Compared as JSON values: encoding/json writes invalid UTF-8 in a
	// player's text as \ufffd, which reads back as the same value.
	var v1, v2 any
	b2 := MustJSON(tb, d)
	if json.Unmarshal(b, &v1) != nil || json.Unmarshal(b2, &v2) != nil || !reflect.DeepEqual(v1, v2) {
		tb.Fatalf("state changes in a JSON round trip:\n%s\n%s", b, b2)
	}
}

// Public is the events of evs that go to everyone.
func Public(evs []rules.Event) []rules.Event {
	var out []rules.Event
	for _, e := range evs {
		if e.To == rules.Everyone {
			out = append(out, e)
		}
	}
	return out
}

// A Check is a game's own property over the events of one step and the
// state they leave (for a rejected Apply, the state it was given). text is
// the fuzzed text (a game may let a player's own words through) and what
// names the step ("Apply", "rejected Apply", "Resolve") for the failure.
type Check func(t testing.TB, evs []rules.Event, s rules.State, text, what string)

// Step sends text from src through Parse, Apply and, when accepted, Resolve
// at the deadline, checking the shared properties and check (nil: none) on
// the way. It returns Apply's events and error; a Parse rejection is
// returned as an error too.
func Step(t testing.TB, g rules.Game, s rules.State, text string, src rules.Source, check Check) ([]rules.Event, error) {
	t.Helper()
	if check == nil {
		check = func(testing.TB, []rules.Event, rules.State, string, string) {}
	}
	before := MustJSON(t, s)
	unchanged := func(what string) {
		t.Helper()
		if b := MustJSON(t, s); !bytes.Equal(before, b) {
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
		if ns != nil && !bytes.Equal(MustJSON(t, ns), before) {
			t.Fatalf("rejected (%v) but the state returned differs", err)
		}
		check(t, evs, s, text, "rejected Apply")
		return evs, err
	}
	RoundTrip(t, g, ns)
	check(t, evs, ns, text, "Apply")
	after := MustJSON(t, ns)
	g.Status(ns)
	g.View(ns, rules.Everyone)
	g.View(ns, src.Player)
	rs, revs := g.Resolve(ns, g.Status(ns).Deadline)
	if b := MustJSON(t, ns); !bytes.Equal(after, b) {
		t.Fatalf("Resolve changed the state it was given")
	}
	RoundTrip(t, g, rs)
	check(t, revs, rs, text, "Resolve")
	g.Status(rs)
	return evs, nil
}

type rejection string

func (r rejection) Error() string { return string(r) }

// Target is one game's FuzzParseApply.
type Target struct {
	Game rules.Game
	// Stages are the states (JSON) the fuzzed text is sent into.
	Stages [][]byte
	// Twin is the state a PM is sent into beside base (Stages[stage],
	// decoded): the same game but for a secret the sender must learn
	// nothing about by what the PM gets back. Nil: no twin.
	Twin func(t testing.TB, stage int, base rules.State, sender string) rules.State
	// Secret names what differs between the twins, for the failure.
	Secret string
	// PublicOnly compares only the twins' public events, for games where
	// the secret may rightly change what the sender is told in private
	// (their own role).
	PublicOnly bool
	// Check is the game's own property, run on every step.
	Check Check
}

// Fuzz runs tg as f's fuzz function over (text, stage, player, late), the
// arguments of the seed corpora in testdata/fuzz/FuzzParseApply: text is
// sent by the player chosen by who into the stage chosen by stage, a
// minute before its deadline or (late) a minute after, first as a thread
// segment, then as a PM line, the PM also into the stage's twin.
func Fuzz(f *testing.F, tg Target) {
	f.Fuzz(func(t *testing.T, text string, stage, who uint8, late bool) {
		fuzzOne(t, tg, text, stage, who, late)
	})
}

// fuzzOne is one run of Fuzz's function.
func fuzzOne(t testing.TB, tg Target, text string, stage, who uint8, late bool) {
	t.Helper()
	g := tg.Game
	i := int(stage) % len(tg.Stages)
	base := Decode(t, g, tg.Stages[i])
	ids := base.Roster().IDs()
	player := ids[int(who)%len(ids)]
	when := g.Status(base).Deadline.Add(-time.Minute)
	if late {
		when = when.Add(2 * time.Minute)
	}
	for _, ch := range []rules.Channel{rules.Public, rules.Private} {
		src := rules.Source{Player: player, Channel: ch, Time: when, Ref: "p1"}
		evsA, errA := Step(t, g, base, text, src, tg.Check)
		if ch != rules.Private || tg.Twin == nil {
			continue
		}
		evsB, errB := Step(t, g, tg.Twin(t, i, base, player), text, src, tg.Check)
		if tg.PublicOnly {
			if pa, pb := Public(evsA), Public(evsB); !reflect.DeepEqual(pa, pb) {
				t.Fatalf("a PM's public events depend on %s:\n%q\n%q", tg.Secret, pa, pb)
			}
			continue
		}
		if !reflect.DeepEqual(evsA, evsB) || (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
			t.Fatalf("a PM's answer depends on %s:\n%q %v\n%q %v", tg.Secret, evsA, errA, evsB, errB)
		}
	}
}
