package moderator

import (
	"context"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
)

// simModerator is a moderator that reaches its boards (forumsim, in these
// tests) through the real connection, trying a message maxAttempts times
// (0: the default).
func simModerator(db *store.DB, clk clock.Clock, maxAttempts int) *Moderator {
	return &Moderator{DB: db, Clock: clk, MaxAttempts: maxAttempts, Connect: func(ctx context.Context, site *gameconfig.Site) (Forum, error) {
		c, err := forumconn.Connect(site, clk, "test")
		if err != nil {
			return nil, err // not a nil *Conn in a non-nil Forum
		}
		return c, nil
	}}
}

// reportOf is the report of the one game called name.
func reportOf(t testing.TB, m *Moderator, name string) GameReport {
	t.Helper()
	rs, err := m.Report(context.Background(), name)
	if err != nil || len(rs) != 1 {
		t.Fatalf("report %v %v", rs, err)
	}
	return rs[0]
}
