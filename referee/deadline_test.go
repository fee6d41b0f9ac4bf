package referee

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// statusOnly is a game whose Status is fixed: all Deadline asks of a game.
type statusOnly struct {
	rules.Game
	st rules.Status
}

func (g statusOnly) Status(rules.State) rules.Status { return g.st }

func TestDeadlineLine(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	dl := at.Add(24 * time.Hour)
	ny := time.FixedZone("UTC-5", -5*3600)
	open := rules.Status{Phase: "round-2", Title: "Round 2", Deadline: dl}
	post := Outgoing{Text: "Round 2 is open."}
	pm := Outgoing{To: "Ann", Text: "You are first."}
	state := &tallyState{}
	for _, c := range []struct {
		name   string
		st     rules.Status
		before string
		out    []Outgoing
		loc    *time.Location
		want   []string // the texts of Out afterwards
	}{
		{"a phase opens", open, "round-1", []Outgoing{post, pm}, nil,
			[]string{"Round 2 is open.\n\n[b]Deadline:[/b] Wed 2 Dec 2026, 18:00 UTC (in 24 hours)", "You are first."}},
		{"in the board's zone", open, "setup", []Outgoing{post}, ny,
			[]string{"Round 2 is open.\n\n[b]Deadline:[/b] Wed 2 Dec 2026, 13:00 UTC-5 / 18:00 UTC (in 24 hours)"}},
		{"same phase: unchanged", open, "round-2", []Outgoing{post}, nil, []string{"Round 2 is open."}},
		{"game over: unchanged", rules.Status{Phase: "end", Finished: true}, "round-2", []Outgoing{post}, nil, []string{"Round 2 is open."}},
		{"no deadline: unchanged", rules.Status{Phase: "round-2"}, "round-1", []Outgoing{post}, nil, []string{"Round 2 is open."}},
		{"held back: counted from when it goes out", open, "round-1", []Outgoing{{Text: "Report.", NotBefore: at.Add(4 * time.Hour)}}, nil,
			[]string{"Report.\n\n[b]Deadline:[/b] Wed 2 Dec 2026, 18:00 UTC (in 20 hours)"}},
		{"no thread post: one is made", open, "round-1", []Outgoing{pm}, nil,
			[]string{"[b]Round 2[/b] is open.\n\n[b]Deadline:[/b] Wed 2 Dec 2026, 18:00 UTC (in 24 hours)", "You are first."}},
	} {
		in := append([]Outgoing(nil), c.out...)
		got := Deadline(statusOnly{st: c.st}, Step{State: state, Out: in}, c.before, at, c.loc)
		var texts []string
		for _, o := range got.Out {
			texts = append(texts, o.Text)
		}
		if strings.Join(texts, "|") != strings.Join(c.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q", c.name, texts, c.want)
		}
		if in[0].Text != c.out[0].Text {
			t.Errorf("%s: the caller's messages were changed in place", c.name)
		}
	}
}
