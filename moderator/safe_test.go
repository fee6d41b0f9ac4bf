package moderator

import (
	"errors"
	"fmt"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/journal"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// counts is how many journal entries and outbox items a game has: what a
// refused or previewed control must leave as it was.
func counts(t testing.TB, db *store.DB, id int64) string {
	t.Helper()
	var j []journal.Entry
	var box []store.OutboxItem
	var g *store.Game
	db.View(t.Context(), func(tx *store.Tx) error {
		var err error
		if j, err = tx.Journal(id); err != nil {
			return err
		}
		if box, err = tx.Outbox(id); err != nil {
			return err
		}
		g, err = tx.GameByID(id)
		return err
	})
	return fmt.Sprintf("journal %d, outbox %d, phase %s, deadline %v, state %d bytes", len(j), len(box), g.Phase, g.Deadline, len(g.State))
}

// TestResolvePhaseRefusesAStaleClick: resolve-now for the phase the GM saw
// resolves it; the same click again, once the game has moved on, is
// refused naming the current phase, and changes nothing.
func TestResolvePhaseRefusesAStaleClick(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newDeadlineRig(t, db, start, 3, nil, "")
		r.tick()
		if _, err := r.m.ResolvePhase(r.ctx, "n1", "round-1"); err != nil {
			t.Fatal(err)
		}
		if ph := r.status().Phase; ph != "round-2" {
			t.Fatalf("after resolve-now --phase round-1: %s", ph)
		}
		before := counts(t, db, r.id)
		_, err := r.m.ResolvePhase(r.ctx, "n1", "round-1")
		var stale *StalePhaseError
		if !errors.As(err, &stale) || stale.Phase != "round-2" ||
			!strings.Contains(err.Error(), "game n1 has moved past phase round-1: the current phase is round-2 (Round 2 of 3); nothing was resolved") {
			t.Fatalf("a stale resolve-now: %v", err)
		}
		if after := counts(t, db, r.id); after != before {
			t.Errorf("a refused resolve-now changed the game: %s, was %s", after, before)
		}
		if _, err := r.m.Preview(r.ctx, "n1", "round-1"); !errors.As(err, &stale) {
			t.Errorf("a preview of a phase the game has left: %v", err)
		}
		// A preview of the current phase, rolled back on either database.
		p, err := r.m.Preview(r.ctx, "n1", "round-2")
		if err != nil || p.Phase != "round-2" || len(p.Messages) == 0 {
			t.Fatalf("a preview of round 2: %+v, %v", p, err)
		}
		if after := counts(t, db, r.id); after != before {
			t.Errorf("a preview changed the game: %s, was %s", after, before)
		}
	})
}

// TestPreviewEqualsTheResolutionOnForumsim: a Protest turn with scans sent
// by PM, on forumsim through the real connection. The preview of
// resolve-now saves and sends nothing (twice in a row, the same); the
// resolution that follows queues exactly the previewed posts and PMs, and
// the board gets exactly their previewed text. Then a stale resolve-now
// for the turn just resolved is refused.
func TestPreviewEqualsTheResolutionOnForumsim(t *testing.T) {
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	players := []string{"Pia", "Quin", "Rob", "Sue"}
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "gm-pass", true, players, "The game starts here.")
	m := simModerator(db, clk, 0)
	fc := th.Forum(t, "FORUMGM_PREVIEW_TEST_PW")
	fc.TimeZone = "Europe/London"
	gc := gameconfig.GameConfig{Players: players, Seed: 5, Start: start,
		Options: map[string]any{"turn_hours": 24, "sites": 3},
		Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}}
	g := simtest.Start(t, m, "pv", "protest", gc, fc, th.Roster())
	g.Tick()
	th.Sim.SendPM(th.Players["Pia"], []int{th.Bot}, "orders", "A 1 B2\nPROTEST C2")
	th.Sim.SendPM(th.Players["Quin"], []int{th.Bot}, "orders", "A 2 D3")
	clk.Advance(time.Minute)
	g.Tick()
	clk.Advance(time.Minute)
	g.Tick() // the receipts go out
	before := counts(t, db, g.ID)
	sentBefore := len(simtest.Outbox(t, db, g.ID))

	p, err := m.Preview(t.Context(), "pv", "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	again, err := m.Preview(t.Context(), "pv", "turn-1")
	if err != nil {
		t.Fatal(err)
	}
	if after := counts(t, db, g.ID); after != before {
		t.Fatalf("a preview changed the game: %s, was %s", after, before)
	}
	if fmt.Sprint(again.Messages) != fmt.Sprint(p.Messages) {
		t.Errorf("two previews in a row differ")
	}
	kinds := map[forum.MessageKind]int{}
	for _, it := range p.Messages {
		kinds[it.Kind]++
	}
	if kinds[forum.KindPost] != 1 || kinds[forum.KindPM] != 2 {
		t.Fatalf("the preview: %v, want the turn's post and Pia's and Quin's scan results", kinds)
	}
	if _, err := m.ResolvePhase(t.Context(), "pv", p.Phase); err != nil {
		t.Fatal(err)
	}
	box := simtest.Outbox(t, db, g.ID)[sentBefore:]
	if len(box) != len(p.Messages) {
		t.Fatalf("the resolution queued %d messages, the preview showed %d", len(box), len(p.Messages))
	}
	for i, it := range box {
		pv := p.Messages[i]
		if it.Kind != pv.Kind || it.RecipientName != pv.RecipientName || it.Subject != pv.Subject || it.Body != pv.Body ||
			it.Marker != pv.Marker || !it.NotBefore.Equal(pv.NotBefore) {
			t.Errorf("message %d: the resolution queued\n%+v\nthe preview showed\n%+v", i, it, pv)
		}
	}
	for range 3 {
		g.Tick()
	}
	var onBoard []string
	for _, post := range th.BotPosts() {
		onBoard = append(onBoard, post.Source)
	}
	for _, pm := range th.Sim.Sent(th.Bot) {
		onBoard = append(onBoard, pm.Source)
	}
	for i := range p.Messages {
		found := false
		for _, src := range onBoard {
			found = found || src == p.Sent(i)
		}
		if !found {
			t.Errorf("the board has no message exactly as previewed:\n%s", p.Sent(i))
		}
	}
	if !strings.Contains(p.Sent(0), "[b]Deadline:[/b] Mon 2 Mar 2026, 12:0") || !strings.Contains(p.Sent(0), " GMT / 12:0") {
		t.Errorf("the previewed turn post states no deadline in UTC:\n%s", p.Sent(0))
	}
	var stale *StalePhaseError
	if _, err := m.ResolvePhase(t.Context(), "pv", p.Phase); !errors.As(err, &stale) {
		t.Errorf("resolve-now --phase %s after it resolved: %v", p.Phase, err)
	}
}

// TestReplacementExtension: with `replacement_extension: 24h` a replacement
// in a phase with less than a day left moves the deadline to a day from
// now and the thread says so; a second one in the same phase leaves its
// player a day too, without adding a day to the first's; with more than a
// day left nothing moves; without the setting nothing moves.
func TestReplacementExtension(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newDeadlineRig(t, db, start, 2, &gameconfig.Deadlines{ReplacementExtension: "24h"}, "America/New_York")
		r.tick()
		r.at(30 * time.Minute) // half an hour left
		if _, _, err := r.m.Replace(r.ctx, "n1", "Bob", "Dave", ""); err != nil {
			t.Fatal(err)
		}
		want := start.Add(30*time.Minute + 24*time.Hour)
		if dl := r.status().Deadline; !dl.Equal(want) {
			t.Errorf("after the replacement: deadline %v, want %v", dl, want)
		}
		r.tick()
		got := r.threadPosts("replaces Bob")
		say := "So that Dave has at least 24 hours to catch up, the deadline of Round 1 of 2 moves 23 hours 30 minutes later, to Mon 2 Mar 2026, 07:30 EST / 12:30 UTC."
		if len(got) != 1 || !strings.Contains(got[0], say) {
			t.Errorf("the thread was told %q, want %q", got, say)
		}
		// A second one, two hours on: its player gets a day too, which
		// moves the deadline an hour and a half, not another day.
		r.at(2 * time.Hour)
		if _, _, err := r.m.Replace(r.ctx, "n1", "Carol", "Erin", ""); err != nil {
			t.Fatal(err)
		}
		if dl := r.status().Deadline; !dl.Equal(start.Add(26 * time.Hour)) {
			t.Errorf("after a second replacement: deadline %v, want a day after it (%v)", dl, start.Add(26*time.Hour))
		}
		r.tick()
		if got := r.threadPosts("replaces Carol"); len(got) != 1 || !strings.Contains(got[0], "moves 1 hour 30 minutes later") {
			t.Errorf("the second replacement's post: %q", got)
		}
		// With more than a day left, nothing moves and nothing is said.
		if _, err := r.m.Extend(r.ctx, "n1", 48*time.Hour); err != nil {
			t.Fatal(err)
		}
		dl := r.status().Deadline
		if _, _, err := r.m.Replace(r.ctx, "n1", "Alice", "Fred", ""); err != nil {
			t.Fatal(err)
		}
		if got := r.status().Deadline; !got.Equal(dl) {
			t.Errorf("a replacement with two days left moved the deadline from %v to %v", dl, got)
		}
		r.tick()
		if got := r.threadPosts("replaces Alice"); len(got) != 1 || strings.Contains(got[0], "catch up") {
			t.Errorf("the third replacement's post: %q", got)
		}
		checkRebuild(t, db, r.id)
	})
	t.Run("off", func(t *testing.T) {
		r := newDeadlineRig(t, storetest.SQLite(t), start, 2, nil, "")
		r.tick()
		r.at(30 * time.Minute)
		if _, _, err := r.m.Replace(r.ctx, "n1", "Bob", "Dave", ""); err != nil {
			t.Fatal(err)
		}
		if dl := r.status().Deadline; !dl.Equal(start.Add(time.Hour)) {
			t.Errorf("without replacement_extension the deadline moved to %v", dl)
		}
	})
}
