package resistance

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/rules"
)

var startTime = time.Date(2026, 1, 5, 18, 0, 0, 0, time.UTC)

// run is a game driven straight through the engine (Parse, Apply, Resolve;
// no referee, so no receipts and no grouping), for tests that look at the
// state and the events of each step. Whole scenario files are played through
// replay instead (scenario_test.go).
type run struct {
	State    *State
	Public   []string
	Private  map[string][]string
	Rejected []string
}

func (r *run) add(evs []rules.Event) {
	for _, e := range evs {
		if e.To == rules.Everyone {
			r.Public = append(r.Public, e.Text)
		} else {
			r.Private[e.To] = append(r.Private[e.To], e.Text)
		}
	}
}

// message applies one post (its bold runs outside quotes, spoilers, code
// and struck text, as the real parser reads them) or one PM (its lines),
// then resolves if the phase is due.
func (r *run) message(g Game, who string, private bool, text string, now time.Time) {
	src := rules.Source{Player: who, Channel: rules.Public, Time: now}
	segs := replay.PostSegments(text)
	if private {
		src.Channel = rules.Private
		segs = replay.PMLines(text)
	}
	for _, seg := range segs {
		if strings.TrimSpace(seg) == "" {
			continue
		}
		p := g.Parse(r.State, seg, src)
		switch {
		case p.Cmd != nil:
			c := *p.Cmd
			c.Src = src
			ns, evs, err := g.Apply(r.State, c)
			r.add(evs)
			if err != nil {
				r.Rejected = append(r.Rejected, err.Error())
				continue
			}
			r.State = ns.(*State)
		case p.Reject != "":
			r.Rejected = append(r.Rejected, p.Reject)
		}
	}
	if g.Due(r.State, now) {
		ns, evs := g.Resolve(r.State, now)
		r.State = ns.(*State)
		r.add(evs)
	}
}

// Fixtures: 5 players (spies Ben, Eli), 7 players (spies Ben, Eli, Gus),
// 10 players (spies Ben, Eli, Gus, Jon); leader order = sign-up order.
var (
	five  = []string{"Ann", "Ben", "Cat", "Dan", "Eli"}
	seven = []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus"}
	ten   = []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jon"}
)

func fixture(players []string, deck []string, opts rules.Options) rules.Config {
	spies := map[string]bool{"Ben": true, "Eli": true, "Gus": len(players) >= 7, "Jon": len(players) == 10}
	roles := map[string]any{}
	order := []any{}
	for _, p := range players {
		roles[p] = map[bool]string{true: "spy", false: "resistance"}[spies[p]]
		order = append(order, p)
	}
	setup := map[string]any{"roles": roles, "leader_order": order}
	if deck != nil {
		d := []any{}
		for _, c := range deck {
			d = append(d, c)
		}
		setup["deck"] = d
	}
	return rules.Config{Players: players, Options: opts, Setup: setup, Seed: 1, Start: startTime}
}

// play sets a game up and runs steps: "Ann> post text", "Ann# pm line\nline",
// "!deadline" (resolve at the time limit), "!votes Ann,Ben:APPROVE ..." is
// not needed: use all() to build vote posts.
func play(t *testing.T, cfg rules.Config, steps ...string) *run {
	t.Helper()
	g := Game{}
	st, evs, err := g.Setup(cfg)
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	r := &run{State: st.(*State), Private: map[string][]string{}}
	r.add(evs)
	r.steps(t, steps...)
	return r
}

func (r *run) steps(t *testing.T, steps ...string) {
	t.Helper()
	g := Game{}
	for i, s := range steps {
		now := startTime.Add(time.Duration(len(r.Public)+i+1) * time.Second)
		if s == "!deadline" {
			ns, evs := g.Resolve(r.State, g.Status(r.State).Deadline)
			r.State = ns.(*State)
			r.add(evs)
			continue
		}
		if j := strings.Index(s, "> "); j > 0 && !strings.Contains(s[:j], " ") {
			r.message(g, s[:j], false, s[j+2:], now)
			continue
		}
		if j := strings.Index(s, "# "); j > 0 && !strings.Contains(s[:j], " ") {
			r.message(g, s[:j], true, s[j+2:], now)
			continue
		}
		t.Fatalf("bad step %q", s)
	}
}

// all returns thread vote posts from each player: vote(s) given as
// "Ann:A Ben:R" is clumsy; instead every player votes v unless listed in
// except with the other vote.
func all(players []string, v string, except ...string) []string {
	other := map[string]string{"APPROVE": "REJECT", "REJECT": "APPROVE"}[v]
	ex := map[string]bool{}
	for _, e := range except {
		ex[e] = true
	}
	var out []string
	for _, p := range players {
		w := v
		if ex[p] {
			w = other
		}
		out = append(out, p+"> [b]"+w+"[/b]")
	}
	return out
}

func cat(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch x := p.(type) {
		case string:
			out = append(out, x)
		case []string:
			out = append(out, x...)
		}
	}
	return out
}

func (r *run) pub() string { return strings.Join(r.Public, "\n") }

func (r *run) pm(who string) string { return strings.Join(r.Private[who], "\n") }

func (r *run) rej() string { return strings.Join(r.Rejected, "\n") }

func mustContain(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if !strings.Contains(text, s) {
			t.Errorf("%s lacks %q:\n%s", what, s, text)
		}
	}
}

func mustNotContain(t *testing.T, what, text string, subs ...string) {
	t.Helper()
	for _, s := range subs {
		if strings.Contains(text, s) {
			t.Errorf("%s contains %q:\n%s", what, s, text)
		}
	}
}
