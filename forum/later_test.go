package forum

import (
	"context"
	"testing"
)

// TestLaterRank: Later marks a context with the default rank, keeps the
// rank of one already marked, and LaterRank sets one (never below 0).
func TestLaterRank(t *testing.T) {
	bg := context.Background()
	for _, c := range []struct {
		name  string
		ctx   context.Context
		rank  int
		later bool
	}{
		{"unmarked", bg, 0, false},
		{"Later", Later(bg), LaterDefault, true},
		{"ranked", LaterRank(bg, 2), 2, true},
		{"Later keeps a rank", Later(LaterRank(bg, 2)), 2, true},
		{"re-ranked", LaterRank(Later(bg), 0), 0, true},
		{"negative", LaterRank(bg, -3), 0, true},
	} {
		if rank, later := LaterOf(c.ctx); rank != c.rank || later != c.later || IsLater(c.ctx) != c.later {
			t.Errorf("%s: rank %d, later %v; want %d, %v", c.name, rank, later, c.rank, c.later)
		}
	}
}
