package gametest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/nations"
)

// recorder is a testing.TB whose Fatal ends only the goroutine it runs in,
// so a test can see the harness fail.
type recorder struct {
	testing.TB
	failure string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatal(args ...any) {
	r.failure = fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failure = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// failure runs fn with a recorder and returns what it failed with ("": it
// did not).
func failure(t *testing.T, fn func(tb testing.TB)) string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(r)
	}()
	<-done
	return r.failure
}

var cfg = rules.Config{Players: []string{"Ann", "Ben", "Cat"}, Options: rules.Options{"rounds": 2}, Seed: 1, Start: Start}

func opening(t *testing.T) rules.State {
	return Decode(t, nations.Game{}, Stage(t, nations.Game{}, cfg, []string{"Ann> CIV: Fire"}))
}

func pm(who string) rules.Source {
	return rules.Source{Player: who, Channel: rules.Private, Time: Start.Add(time.Minute), Ref: "p1"}
}

// changesOnParse is a game whose Parse writes to the state it is given.
type changesOnParse struct{ nations.Game }

func (g changesOnParse) Parse(s rules.State, text string, src rules.Source) rules.Parsed {
	s.(*nations.State).Deadline = s.(*nations.State).Deadline.Add(time.Hour)
	return g.Game.Parse(s, text, src)
}

// silentRejects is a game whose Apply rejects everything without a reason.
type silentRejects struct{ nations.Game }

func (silentRejects) Apply(s rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	return s, nil, fmt.Errorf("")
}

func TestStepCatches(t *testing.T) {
	t.Parallel()
	s := opening(t)
	tests := []struct {
		name string
		g    rules.Game
		want string
	}{
		{"Parse changes the state", changesOnParse{}, "Parse changed the state"},
		{"rejection without a reason", silentRejects{}, "a rejection without a reason"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := failure(t, func(tb testing.TB) { Step(tb, tc.g, s, "INVADE Ben", pm("Ann"), nil) })
			if !strings.Contains(got, tc.want) {
				t.Errorf("failure %q, want %q", got, tc.want)
			}
		})
	}
	if got := failure(t, func(tb testing.TB) { Step(tb, nations.Game{}, opening(t), "INVADE Ben", pm("Ann"), nil) }); got != "" {
		t.Errorf("a sound game fails: %s", got)
	}
}

func TestStepAnswers(t *testing.T) {
	t.Parallel()
	g := nations.Game{}
	s := opening(t)
	var whats []string
	check := func(_ testing.TB, _ []rules.Event, _ rules.State, text, what string) {
		whats = append(whats, what+":"+text)
	}
	if _, err := Step(t, g, s, "INVADE Ben", pm("Ann"), check); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(whats, " "); got != "Apply:INVADE Ben Resolve:INVADE Ben" {
		t.Errorf("checks run on %s", got)
	}
	if _, err := Step(t, g, s, "gibberish", pm("Ann"), nil); err == nil || err.Error() == "" {
		t.Errorf("a PM of gibberish: %v, want a rejection with its reason", err)
	}
	pub := rules.Source{Player: "Ann", Channel: rules.Public, Time: Start.Add(time.Minute)}
	if evs, err := Step(t, g, s, "what a lovely day", pub, nil); evs != nil || err != nil {
		t.Errorf("bold emphasis in the thread: %v %v, want nothing", evs, err)
	}
}

func TestStageFailsOnARejectedStep(t *testing.T) {
	t.Parallel()
	got := failure(t, func(tb testing.TB) { Stage(tb, nations.Game{}, cfg, []string{"Ann# INVADE Nobody"}) })
	if !strings.Contains(got, "INVADE Nobody") {
		t.Errorf("failure %q", got)
	}
}

func TestPublic(t *testing.T) {
	t.Parallel()
	evs := []rules.Event{{To: "Ann", Text: "a"}, {Text: "b"}, {To: "Ben", Text: "c"}, {Text: "d"}}
	got := Public(evs)
	if len(got) != 2 || got[0].Text != "b" || got[1].Text != "d" {
		t.Errorf("Public = %v", got)
	}
}

// TestTwins: a PM whose answer differs with the secret is caught, in full
// or (PublicOnly) in its public events only.
func TestTwins(t *testing.T) {
	t.Parallel()
	g := nations.Game{}
	stage := Stage(t, g, cfg, []string{"Ann> CIV: Fire"})
	same := func(tb testing.TB, _ int, base rules.State, _ string) rules.State { return base }
	// Ben has already invaded Ann in the twin, so Ann's INVADE Ben is
	// answered the same but a second order from Ben is not.
	other := func(tb testing.TB, _ int, base rules.State, _ string) rules.State {
		return Send(tb, g, base, "Ben", rules.Private, "INVADE Ann", Start.Add(time.Second))
	}
	// who: 0 is Ann, 1 is Ben.
	tests := []struct {
		name   string
		twin   func(testing.TB, int, rules.State, string) rules.State
		public bool
		text   string
		who    uint8
		want   string
	}{
		{"same state", same, false, "INVADE Ben", 1, ""},
		{"order of another player", other, false, "INVADE Cat", 0, ""},
		{"own earlier order changes the answer", other, false, "INVADE Cat", 1, "depends on the secret"},
		{"public only: a private answer may differ", other, true, "INVADE Cat", 1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tg := Target{Game: g, Stages: [][]byte{stage}, Twin: tc.twin, Secret: "the secret", PublicOnly: tc.public}
			got := failure(t, func(tb testing.TB) { fuzzOne(tb, tg, tc.text, 0, tc.who, false) })
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("failure %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTwinStages(t *testing.T) {
	t.Parallel()
	g := nations.Game{}
	scripts := [2][]string{{"Ann> CIV: Fire", "Ben> CIV: Water"}, {"Ann> CIV: Fire", "Ben# INVADE Ann"}}
	stages, twin := TwinStages(t, g, 2, func(i, side int) (rules.Config, []string) {
		return cfg, scripts[side][:i+1]
	})
	for i := range 2 {
		if want := Stage(t, g, cfg, scripts[0][:i+1]); string(stages[i]) != string(want) {
			t.Errorf("stage %d is not side 0's", i)
		}
		got := MustJSON(t, twin(t, i, nil, ""))
		if want := Stage(t, g, cfg, scripts[1][:i+1]); string(got) != string(want) {
			t.Errorf("twin %d is not side 1's", i)
		}
	}
}
