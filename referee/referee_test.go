package referee

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// tally is a tiny game for testing the referee: players VOTE a name in the
// thread or by PM, "SECRET" is a PM-only order, a deadline ends it.
type tally struct{}

type tallyState struct {
	R     *rules.Roster     `json:"r"`
	Votes map[string]string `json:"votes"`
	Done  bool              `json:"done"`
}

func (t *tallyState) Roster() *rules.Roster { return t.R }

func (tally) Name() string { return "tally" }
func (tally) Setup(cfg rules.Config) (rules.State, []rules.Event, error) {
	r, err := rules.NewRoster(cfg.Players, cfg.Aliases)
	if err != nil {
		return nil, nil, err
	}
	return &tallyState{R: r, Votes: map[string]string{}}, []rules.Event{
		rules.PublicEvent("open", "Vote!"),
		rules.PrivateEvent(cfg.Players[0], "role", "You are first."),
	}, nil
}
func (tally) Parse(s rules.State, text string, src rules.Source) rules.Parsed {
	w := rules.Words(strings.ToUpper(text))
	switch {
	case len(w) >= 2 && w[0] == "VOTE":
		return rules.Parsed{Cmd: &rules.Command{Kind: "vote", Args: []string{rules.Rest(text, 1)}}}
	case len(w) == 1 && w[0] == "SECRET":
		if src.Channel == rules.Public {
			return rules.Parsed{Reject: "send that by PM"}
		}
		return rules.Parsed{Cmd: &rules.Command{Kind: "secret"}}
	case src.Channel == rules.Private:
		return rules.Parsed{Reject: "not an order"}
	}
	return rules.Parsed{Ignored: true}
}
func (g tally) Apply(s rules.State, c rules.Command) (rules.State, []rules.Event, error) {
	st := rules.Clone(g, s.(*tallyState))
	switch c.Kind {
	case "vote":
		id, err := st.R.Match(c.Args[0])
		if err != nil {
			if strings.Contains(c.Args[0], "loud") {
				return s, []rules.Event{rules.PublicEvent("notice", "Bad vote.")}, err
			}
			return s, nil, err
		}
		st.Votes[c.Src.Player] = id
		return st, nil, nil
	case "secret":
		return st, []rules.Event{rules.PrivateEvent(c.Src.Player, "secret", "The secret is 42."), rules.PrivateEvent("Bob", "tip", "Someone asked.")}, nil
	}
	return s, nil, errors.New("unknown")
}
func (tally) Due(s rules.State, now time.Time) bool { return false }
func (g tally) Resolve(s rules.State, now time.Time) (rules.State, []rules.Event) {
	st := rules.Clone(g, s.(*tallyState))
	st.Done = true
	return st, []rules.Event{rules.PublicEvent("result", "Done."), {Kind: "later", Text: "Later.", NotBefore: now.Add(time.Minute)}}
}
func (g tally) End(s rules.State, now time.Time) (rules.State, []rules.Event) {
	return g.Resolve(s, now)
}
func (tally) SetDeadline(s rules.State, t time.Time) rules.State { return s }
func (tally) Status(s rules.State) rules.Status {
	return rules.Status{Phase: "p", Finished: s.(*tallyState).Done}
}
func (tally) View(s rules.State, v string) any { return nil }
func (tally) Decode(b []byte) (rules.State, error) {
	var s tallyState
	err := json.Unmarshal(b, &s)
	return &s, err
}
func (tally) Bot(rules.State, string, *rules.Rand) []rules.Move { return nil }

func setup(t *testing.T) (rules.Game, rules.State) {
	g := tally{}
	st, err := Setup(g, rules.Config{Players: []string{"Alice", "Bob", "Carol"}})
	if err != nil {
		t.Fatal(err)
	}
	return g, st.State
}

func TestMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		ch       rules.Channel
		segs     []string
		statuses []Verdict
		votes    map[string]string
		out      map[string][]string // recipient -> substrings of its one message
	}{
		{"public vote, no reply", rules.Public, []string{"VOTE bob"}, []Verdict{Accepted}, map[string]string{"Alice": "Bob"}, map[string][]string{}},
		{"last vote in a post stands", rules.Public, []string{"VOTE bob", "nice day", "VOTE carol"}, []Verdict{Accepted, Ignored, Accepted}, map[string]string{"Alice": "Carol"}, map[string][]string{}},
		{"public rejection is PMed", rules.Public, []string{"VOTE zed", "SECRET"}, []Verdict{Rejected, Rejected}, map[string]string{},
			map[string][]string{"Alice": {"“VOTE zed” — \"zed\" matches no player", "“SECRET” — send that by PM"}}},
		{"game's own public notice replaces the PM", rules.Public, []string{"VOTE loudzed"}, []Verdict{Rejected}, map[string]string{},
			map[string][]string{"": {"Bad vote."}}},
		{"PM gets one receipt with its events", rules.Private, []string{"VOTE carol", "hello", "SECRET"}, []Verdict{Accepted, Rejected, Accepted}, map[string]string{"Alice": "Carol"},
			map[string][]string{"Alice": {"✔ “VOTE carol” — accepted", "✘ “hello” — not an order", "The secret is 42."}, "Bob": {"Someone asked."}}},
		{"player text is escaped in receipts", rules.Private, []string{"[url=x]hi"}, []Verdict{Rejected}, map[string]string{},
			map[string][]string{"Alice": {"[\u200burl=x]hi"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, s := setup(t)
			st := Message(g, s, rules.Source{Player: "Alice", Channel: tc.ch}, tc.segs)
			if len(st.Outcomes) != len(tc.statuses) {
				t.Fatalf("outcomes %+v", st.Outcomes)
			}
			for i, want := range tc.statuses {
				if st.Outcomes[i].Status != want {
					t.Errorf("segment %d: %s (%s), want %s", i, st.Outcomes[i].Status, st.Outcomes[i].Reason, want)
				}
			}
			votes := st.State.(*tallyState).Votes
			if len(votes) != len(tc.votes) {
				t.Errorf("votes %v, want %v", votes, tc.votes)
			}
			for k, v := range tc.votes {
				if votes[k] != v {
					t.Errorf("votes %v, want %v", votes, tc.votes)
				}
			}
			if len(st.Out) != len(tc.out) {
				t.Fatalf("out %+v, want %d messages", st.Out, len(tc.out))
			}
			for _, o := range st.Out {
				for _, sub := range tc.out[o.To] {
					if !strings.Contains(o.Text, sub) {
						t.Errorf("message to %q = %q, want it to contain %q", o.To, o.Text, sub)
					}
				}
			}
		})
	}
}

func TestRejectedLeavesStateAndFinishedRejectsAll(t *testing.T) {
	t.Parallel()
	g, s := setup(t)
	st := Message(g, s, rules.Source{Player: "Alice", Channel: rules.Public}, []string{"VOTE zed"})
	if st.State != s {
		t.Error("a rejected command must leave the state as it was")
	}
	r := Resolve(g, s, time.Unix(0, 0))
	if len(r.Out) != 2 || r.Out[1].NotBefore.IsZero() || !r.Out[0].Public() {
		t.Fatalf("resolve out %+v: want a post now and a post held back", r.Out)
	}
	after := Message(g, r.State, rules.Source{Player: "Bob", Channel: rules.Private}, []string{"VOTE alice"})
	if after.Outcomes[0].Status != Rejected || after.Outcomes[0].Reason != "the game is over" {
		t.Errorf("after the end: %+v", after.Outcomes)
	}
}

func TestLate(t *testing.T) {
	t.Parallel()
	g, s := setup(t)
	for _, ch := range []rules.Channel{rules.Private, rules.Public} {
		st := Late(g, s, rules.Source{Player: "Alice", Channel: ch}, []string{"VOTE bob", " "}, "arrived after its phase had closed")
		if len(st.Outcomes) != 1 || st.Outcomes[0].Status != Rejected || st.State != s {
			t.Errorf("%s: outcomes %+v", ch, st.Outcomes)
		}
		if len(st.Out) != 1 || st.Out[0].To != "Alice" || !strings.Contains(st.Out[0].Text, "“VOTE bob” — arrived after its phase had closed") {
			t.Errorf("%s: out %+v", ch, st.Out)
		}
	}
	if st := Late(g, s, rules.Source{Player: "Alice", Channel: rules.Public}, nil, "late"); len(st.Out) != 0 {
		t.Error("a late post with no commands needs no answer")
	}
}
