package between

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
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
