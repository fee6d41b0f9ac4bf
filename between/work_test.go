package between

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestIsCountRequest: what a bold segment must say to ask for a count.
func TestIsCountRequest(t *testing.T) {
	for _, c := range []struct {
		seg  string
		want bool
	}{
		{"VOTECOUNT", true},
		{"votecount?", true},
		{" Vote  Count! ", true},
		{"vote-count", true},
		{"count:", true},
		{"COUNT ME IN", false},
		{"vote count please", false},
		{"vote Ann", false},
		{"", false},
	} {
		if got := IsCountRequest(c.seg); got != c.want {
			t.Errorf("IsCountRequest(%q) = %v, want %v", c.seg, got, c.want)
		}
	}
}

// TestSameState: a state is saved again only when it differs as saved.
func TestSameState(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	a := &gameconfig.BetweenState{Phase: "day-1", Counts: 1, Prodded: map[string]time.Time{"Ann": at}}
	b := &gameconfig.BetweenState{Phase: "day-1", Counts: 1, Prodded: map[string]time.Time{"Ann": at}}
	if !sameState(a, b) {
		t.Error("equal states differ")
	}
	b.Asked = true
	if sameState(a, b) {
		t.Error("a request waiting is no change")
	}
	if sameState(nil, a) || !sameState(nil, nil) {
		t.Error("nil states compare wrong")
	}
}

// TestRequests: a request for a count is taken out of a post's segments
// and recorded as waiting, the phase's state saying one is asked for; the
// rest goes to the game. A game that takes no requests, or is over, leaves
// them to the game.
func TestRequests(t *testing.T) {
	eng, err := rules.Lookup("resistance")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	st, _, err := eng.Setup(rules.Config{Players: []string{"Ann", "Ben", "Cat", "Dan", "Eve"}, Start: start, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	phase := eng.Status(st).Phase
	step := func(cfg gameconfig.GameConfig) *Step {
		return &Step{Row: &store.Game{ID: 7, Name: "g", Status: store.GameRunning}, Rules: eng, State: st, Config: &cfg, Changes: &store.Changes{}}
	}
	msg := store.Message{ID: 3, Time: start.Add(time.Minute)}
	segs := []string{"vote count?", "APPROVE"}

	s := step(gameconfig.GameConfig{})
	got := (&Work{}).Requests(s, msg, "Ann", phase, segs)
	if len(got) != 2 || got[0] != "" || got[1] != "APPROVE" || segs[0] != "vote count?" {
		t.Errorf("segments left = %q (given %q)", got, segs)
	}
	if len(s.Changes.Commands) != 1 {
		t.Fatalf("commands = %+v", s.Changes.Commands)
	}
	c := s.Changes.Commands[0]
	if c.Kind != CountKind || c.Reason != countWaiting || c.Status != store.CommandAccepted || c.Seq != 0 || c.Player != "Ann" || c.Phase != phase || c.MessageID != 3 {
		t.Errorf("request = %+v", c)
	}
	if !s.ConfigChanged || s.Config.Between == nil || !s.Config.Between.Asked || s.Config.Between.Phase != phase {
		t.Errorf("between state = %+v (changed %v)", s.Config.Between, s.ConfigChanged)
	}

	off := false
	s = step(gameconfig.GameConfig{Counts: &gameconfig.Counts{Requests: &off}})
	if got := (&Work{}).Requests(s, msg, "Ann", phase, segs); len(got) != 2 || got[0] != "vote count?" || len(s.Changes.Commands) != 0 || s.ConfigChanged {
		t.Errorf("requests off: %q, %+v", got, s.Changes.Commands)
	}
	s = step(gameconfig.GameConfig{})
	s.Row.Status = store.GameEnded
	if got := (&Work{}).Requests(s, msg, "Ann", phase, segs); got[0] != "vote count?" || len(s.Changes.Commands) != 0 {
		t.Errorf("game ended: %q", got)
	}
}
