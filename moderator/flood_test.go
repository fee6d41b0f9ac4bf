package moderator

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestFloodWaitDoesNotStallTheGame plays a Nations game on forumsim (phpBB's
// flood control, here 20 minutes, the bot not exempt and its status
// unknown) through the real connection: while the outbox waits for the
// board, every tick still reads and applies the players' commands and the
// round's deadline resolves on time; every message goes out exactly once,
// in order, each in one attempt (a flood refusal is not an attempt).
func TestFloodWaitDoesNotStallTheGame(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: 20 * time.Minute, NoPostReview: true}, "GMBot", "gm-pass", false, []string{"Alice", "Bob"}, "The game starts here.")
	sim, topic, bot, alice, bob := th.Sim, th.Topic, th.Bot, th.Players["Alice"], th.Players["Bob"]
	must := simtest.Must(t)
	m := simModerator(db, clk, 3)
	sg := simtest.Start(t, m, "flood", "nations", noReminders(th.Nations(start, 2, 30, 5)), th.Forum(t, "FORUMGM_FLOOD_TEST_PW"), th.Roster())
	g, tick := sg.Game, sg.Tick
	report := func() GameReport { return reportOf(t, m, "flood") }
	outbox := func() []store.OutboxItem { return simtest.Outbox(t, db, g.ID) }
	accepted := func(player string) int {
		t.Helper()
		var cs []store.CommandRow
		if err := db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(g.ID, store.CommandFilter{Player: player, Status: store.CommandAccepted})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return len(cs)
	}
	pending := func() int {
		n := 0
		for _, it := range outbox() {
			if it.State == store.OutboxPending || it.State == store.OutboxSending {
				n++
			}
		}
		return n
	}

	tick() // the opening post: the status is unknown, so it is tried at once
	if f := report().Flood; f.State != forum.FloodUnknown {
		t.Errorf("after the first post: flood %v, want unknown", f)
	}
	must(sim.Post(topic, alice, "We rise! [b]CIV: Fire[/b]"))
	must(sim.Post(topic, bob, "[b]CIV: Earth[/b]"))
	must(sim.SendPM(alice, []int{bot}, "orders", "INVADE Bob"))
	before := clk.Now()
	tick() // read and applied; the first receipt is refused by the board
	if d := clk.Now().Sub(before); d > time.Minute {
		t.Errorf("the tick took %v of the clock: it waited for flood control", d)
	}
	if accepted("Alice") != 2 || accepted("Bob") != 1 {
		t.Errorf("accepted commands: Alice %d, Bob %d; want 2 and 1", accepted("Alice"), accepted("Bob"))
	}
	if f := report().Flood; f.State != forum.FloodLimited || f.Interval != 15*time.Second || f.Learned.IsZero() {
		t.Errorf("after the first refusal: flood %+v, want 15 s (phpBB names no wait: the profile's), learned", f)
	}
	if until := m.FloodUntil(g.ID); !until.After(clk.Now()) {
		t.Errorf("no flood wait recorded: %v", until)
	}
	for _, it := range outbox() {
		if it.State == store.OutboxSending {
			t.Errorf("%s left sending after a flood refusal", it.Marker)
		}
	}

	// Through round 1's deadline, a tick every 20 s: Bob's order at minute
	// 5 is applied at once, the round resolves at minute 30, and messages
	// are still waiting for the board all the while.
	deadline := start.Add(30 * time.Minute)
	sentBob, resolvedWithPending := false, false
	for clk.Now().Before(deadline.Add(time.Minute)) {
		clk.Advance(20 * time.Second)
		if !sentBob && clk.Now().After(start.Add(5*time.Minute)) {
			must(sim.SendPM(bob, []int{bot}, "orders", "DEFEND Alice"))
			sentBob = true
			waiting := pending()
			tick()
			if accepted("Bob") != 2 || waiting == 0 {
				t.Errorf("Bob's order applied: %v, with %d messages waiting", accepted("Bob") == 2, waiting)
			}
			continue
		}
		phase, waiting := report().Rules.Phase, pending()
		tick()
		if r := report(); r.Rules.Phase != phase && clk.Now().After(deadline) {
			resolvedWithPending = waiting > 0
			if d := clk.Now().Sub(deadline); d > 25*time.Second {
				t.Errorf("round 1 resolved %v after its deadline", d)
			}
		}
	}
	if !resolvedWithPending {
		t.Error("round 1 did not resolve while messages waited for flood control")
	}

	// Then until the game is over and everything is sent.
	for i := 0; i < 400 && (pending() > 0 || report().Status == Running); i++ {
		clk.Advance(time.Minute)
		tick()
	}
	r := report()
	if !r.Rules.Finished || r.Pending != 0 || r.Failed != 0 {
		t.Fatalf("game %s finished %v, outbox %d pending %d failed", r.Status, r.Rules.Finished, r.Pending, r.Failed)
	}
	// Exactly once, in order, one attempt each.
	botPosts := th.BotPosts()
	sent := sim.Sent(bot)
	last := map[string]int{}
	for _, it := range outbox() {
		if it.Attempts != 1 {
			t.Errorf("%s: %d attempts, want 1", it.Marker, it.Attempts)
		}
		if n := th.OnBoard(it); n != 1 {
			t.Errorf("%s (%s) on the board %d times", it.Marker, it.Kind, n)
		}
		lane := string(it.Kind) + ":" + it.Recipient
		id, _ := strconv.Atoi(it.ForumID)
		if id <= last[lane] {
			t.Errorf("%s went out as %d, after %d in its lane", it.Marker, id, last[lane])
		}
		last[lane] = id
	}
	for i := 1; i < len(botPosts); i++ {
		if botPosts[i].Time.Sub(botPosts[i-1].Time) < 20*time.Minute && i > 1 {
			t.Errorf("bot posts %v apart under a 20-minute flood limit", botPosts[i].Time.Sub(botPosts[i-1].Time))
		}
	}
	if len(outbox()) < 5 || len(sent) < 2 {
		t.Errorf("only %d messages, %d PMs: the test needs a queue", len(outbox()), len(sent))
	}
}
