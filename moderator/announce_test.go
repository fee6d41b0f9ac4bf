package moderator

import (
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestGMControlsAreAnnounced: every GM control that changes the game is
// said in the thread exactly once, and the phase posts and the GM's notices
// state the deadline in the board's time zone.
func TestGMControlsAreAnnounced(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newNations(t, db)
		ctx := r.ctx
		// The opening post states round 1's deadline (start + 10 minutes).
		if got := r.botPosts(); len(got) != 1 || !strings.Contains(got[0], "Deadline:</strong> Sun 1 Mar 2026, 12:10 UTC (in 10 minutes)") {
			t.Fatalf("opening post without its deadline:\n%s", strings.Join(got, "\n---\n"))
		}
		r.ff.PM(ctx, "Bob", "INVADE Carol")
		r.tick()
		var bobCmd int64
		for _, c := range r.commands("Bob") {
			if c.Status == store.CommandAccepted {
				bobCmd = c.ID
			}
		}
		steps := []struct {
			name string
			do   func() error
			want string
		}{
			{"pause", func() error { return r.m.Pause(ctx, "n1") }, "The GM has paused the game."},
			{"resume", func() error { r.clk.Advance(5 * time.Minute); return r.m.Resume(ctx, "n1") },
				"The GM has resumed the game.</strong><br><br><strong class=\"text-strong\">Deadline:</strong> Sun 1 Mar 2026, 12:15 UTC (in 10 minutes)"},
			{"extend", func() error { _, err := r.m.Extend(ctx, "n1", 90*time.Minute); return err },
				"The GM has extended the deadline</strong> of Round 1 of 2.<br><br><strong class=\"text-strong\">Deadline:</strong> Sun 1 Mar 2026, 13:45 UTC (in 1 hour 40 minutes)"},
			{"void", func() error { return r.m.Void(ctx, "n1", bobCmd, "a secret reason") }, "an order Bob sent by PM: it no longer counts."},
			{"replace", func() error { _, _, err := r.m.Replace(ctx, "n1", "Bob", "Dave", ""); return err }, "Dave replaces Bob</strong> in the game"},
			{"end", func() error { return r.m.End(ctx, "n1") }, "the GM ended the game"},
		}
		for _, s := range steps {
			before := len(r.botPosts())
			if err := s.do(); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			r.tick()
			r.tick() // a second poll sends nothing again
			got := r.botPosts()
			if len(got) != before+1 {
				t.Fatalf("%s: %d new thread posts, want 1", s.name, len(got)-before)
			}
			if !strings.Contains(got[len(got)-1], s.want) {
				t.Errorf("%s: the thread says\n%s\nwant it to contain %q", s.name, got[len(got)-1], s.want)
			}
			if strings.Contains(got[len(got)-1], "secret reason") {
				t.Errorf("%s: the GM's reason is for the audit log only", s.name)
			}
		}
	})
}

// TestDeadlinesInTheBoardsZone: a board whose bot account reads times in
// another zone gets its deadlines in that zone, and in UTC.
func TestDeadlinesInTheBoardsZone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newNationsIn(t, db, "UTC-5")
		if got := r.botPosts(); len(got) != 1 || !strings.Contains(got[0], "Deadline:</strong> Sun 1 Mar 2026, 07:10 UTC-5 / 12:10 UTC (in 10 minutes)") {
			t.Fatalf("opening post:\n%s", strings.Join(got, "\n---\n"))
		}
	})
}

// botPosts are the bodies of the bot's thread posts, in order.
func (r *nationsRig) botPosts() []string { return r.ff.BotPosts() }
