package smftest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestMaintenanceMode: SMF's admin puts the board in maintenance mode (HTTP
// 503 and the maintenance page, with a login form for administrators) for
// 85 s past the bot's first failed read, across round 1's deadline of a
// Nations game. The bot reads that as
// the board being away at the first answer (forum health names it), tries
// no login, fails no message; once the board is back the round's deadline
// moves on by the closure, a pick made after it counts, and every message
// is on the board once.
func TestMaintenanceMode(t *testing.T) {
	if testing.Short() {
		t.Skip("keeps a real board in maintenance mode for over a minute")
	}
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob"}, Subject: "Nations"})
	setUpBot(t, b) // a global moderator: SMF's maintenance mode still shuts it out
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: time.Now().UTC(),
		Options: map[string]any{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
	tl := startGame(t, b, "smf-closed", "nations", gc)
	state := func() *nations.State { return tl.state(nations.Game{}).(*nations.State) }
	health := func() store.Health {
		var h store.Health
		tl.db.View(ctx, func(tx *store.Tx) error { var err error; h, err = tx.Health(tl.g.ID); return err })
		return h
	}
	wait, drained := tl.waitFor, tl.drained
	wait("the opening post", time.Minute, func() bool { return countPosts(t, b, "") > 1 && drained() })
	deadline := state().Deadline
	if _, err := b.PostErr(b.Player("Alice"), "[b]CIV: Fire[/b]"); err != nil {
		t.Fatal(err)
	}
	wait("Alice's pick applied", 30*time.Second, func() bool { return state().CivOf("Alice") == nations.Fire })

	b.CloseBoard(t)
	closedAt := time.Now()
	wait("forum health naming the maintenance", 20*time.Second, func() bool {
		return strings.Contains(health().LastError, "closed for maintenance")
	})
	// Closed 85 s past the first failed read (which named it): the bot
	// reads a failing board at the minute of its first failed read, and
	// that read failing makes the closure an outage.
	time.Sleep(85 * time.Second)
	if h := health(); !h.Failing() || strings.Contains(h.LastError, "refused") {
		t.Errorf("forum health after %v in maintenance: %+v", time.Since(closedAt).Round(time.Second), h)
	}
	b.ReopenBoard(t)
	reopenedAt := time.Now()
	if _, err := b.PostErr(b.Player("Bob"), "Back again. [b]CIV: Earth[/b]"); err != nil {
		t.Fatal(err)
	}
	// The bot backs off while the board fails (doubling, up to minutes),
	// so its first read of the reopened board, which moves the deadline,
	// and the moved deadline itself come some time later.
	var moved time.Time
	wait("the deadline moved", 4*time.Minute, func() bool { moved = state().Deadline; return moved.After(deadline) })
	wait("round 1 resolved and reported", time.Until(moved)+2*time.Minute, func() bool { return state().Round == 2 && drained() })
	if state().CivOf("Bob") != nations.Earth {
		t.Errorf("Bob's pick posted after the maintenance: civ %q, want Earth", state().CivOf("Bob"))
	}
	var resolved time.Time
	tl.db.View(ctx, func(tx *store.Tx) error {
		j, err := tx.Journal(tl.g.ID)
		for _, e := range j {
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
	tl.stop()
	notices := 0
	for _, r := range b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}messages WHERE id_topic = %d", b.ThreadID)) {
		if strings.Contains(fmt.Sprint(r["body"]), "could not be read") {
			notices++
		}
	}
	if notices != 1 {
		t.Errorf("%d notices of the outage in the thread, want 1", notices)
	}
	tl.checkExactlyOnce()
}
