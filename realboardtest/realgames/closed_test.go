package realgames

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestBoardClosedForMaintenance: the board's admin closes it for
// maintenance (phpBB "Disable board", MyBB "Board closed": pages answer
// HTTP 200 with the closed message) for over a minute while a round runs,
// and round 1's deadline passes meanwhile. The bot reads that as the board
// being away: forum health names the closure, no message fails, no login
// is refused. Once the board reopens, the round's deadline moves on by the
// closure (the thread is told), a pick posted after the reopening counts,
// and every message goes out exactly once.
func TestBoardClosedForMaintenance(t *testing.T) {
	t.Parallel() // top-level too: a sequential test holds every parallel one back
	if testing.Short() {
		t.Skip("closes real boards for over a minute")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob"}, Subject: "Nations"})
			// The players' and the bot's flood limits lowered (the bot is
			// not made staff: staff see a closed board).
			for k, v := range map[string]map[string]string{
				realboardtest.PhpBB: {"flood_interval": "2"},
				realboardtest.MyBB:  {"postfloodsecs": "2", "pmfloodsecs": "2"},
			}[engine] {
				b.Setting(t, k, v)
			}
			flood := 3.0
			gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: time.Now().UTC(),
				Options: map[string]any{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
			tb := setup(t, b, "nations", gc, &flood)
			alice := player(t, b, b.Player("Alice"), 3*time.Second)
			bob := player(t, b, b.Player("Bob"), 3*time.Second)
			deadline := tb.opened()

			reply(t, b, alice, "[b]CIV: Fire[/b]")
			waitFor(t, "Alice's pick applied", 30*time.Second, func() bool { return civOf(tb, "Alice") == nations.Fire })

			b.CloseBoard(t)
			closedAt := time.Now()
			health := func() store.Health {
				var h store.Health
				tb.db.View(ctx, func(tx *store.Tx) error { var err error; h, err = tx.Health(tb.g.ID); return err })
				return h
			}
			// The board stays closed until then and 85 s more: the bot
			// reads a failing board at the minute of its first failed read
			// (which names the closure), and that read failing makes the
			// closure an outage. Alone the bot names it within 2 s; in two
			// clean-clone CI runs of 6 December MyBB's was not named within
			// 60 s, with nothing in the bot's log (not reproduced under
			// load here): if it is not named in 150 s, the failure shows
			// where the bot's goroutines wait (waitFor).
			waitFor(t, "forum health naming the closure", 150*time.Second, func() bool {
				return strings.Contains(health().LastError, "closed for maintenance")
			})
			t.Logf("forum health while closed, %v after the closing: %+v", time.Since(closedAt).Round(time.Second), health())
			time.Sleep(85 * time.Second)
			if h := health(); !h.Failing() || strings.Contains(h.LastError, "refused") {
				t.Errorf("forum health after %v closed: %+v", time.Since(closedAt).Round(time.Second), h)
			}
			b.ReopenBoard(t)
			reopenedAt := time.Now()
			if !time.Now().Before(deadline) {
				t.Logf("round 1's deadline %s passed while the board was closed", deadline.Format("15:04:05"))
			}

			reply(t, b, bob, "Back again. [b]CIV: Earth[/b]")
			// The bot backs off while the board fails (doubling, up to
			// minutes), so its first read of the reopened board, which
			// moves the deadline, and the moved deadline itself (on a whole
			// minute) come some time later: wait for each in turn.
			var moved time.Time
			waitFor(t, "the deadline moved", 4*time.Minute, func() bool {
				moved = tb.state().(*nations.State).Deadline
				return moved.After(deadline)
			})
			waitFor(t, "round 1 resolved and reported", time.Until(moved)+2*time.Minute, func() bool {
				return tb.state().(*nations.State).Round == 2 && tb.drained()
			})
			if civOf(tb, "Bob") != nations.Earth {
				t.Errorf("Bob's pick posted after the board reopened: civ %q, want Earth", civOf(tb, "Bob"))
			}
			// Round 1 closed only after the board was back, later than its
			// own deadline by more than the minute the board was closed.
			var resolved time.Time
			tb.db.View(ctx, func(tx *store.Tx) error {
				j, err := tx.Journal(tb.g.ID)
				for _, e := range j {
					t.Logf("journal: %s at %s: %s", e.Kind, e.Time.Format("15:04:05.000"), e.Payload)
					p, _ := e.Decode()
					if r, ok := p.(journal.Resolve); ok && r.Phase == "round-1" {
						resolved = e.Time
					}
				}
				return err
			})
			if resolved.Before(reopenedAt) || !resolved.After(deadline.Add(time.Minute)) {
				t.Errorf("round 1 resolved at %s; want after the reopening (%s) and over a minute after its deadline %s",
					resolved.Format("15:04:05"), reopenedAt.Format("15:04:05"), deadline.Format("15:04:05"))
			}
			notices := 0
			for _, r := range threadRows(t, b) {
				if strings.Contains(r.Body, "could not be read") {
					notices++
				}
			}
			if notices != 1 {
				t.Errorf("%d notices of the outage in the thread, want 1", notices)
			}
			tb.stop()
			tb.checkExactlyOnce()
		})
	}
}
