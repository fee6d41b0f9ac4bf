package moderator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestGameThroughFaults plays a short Nations game on forumsim while the
// board fails at random (seeded): 5xx, 429s, resets, truncated and cut
// pages, lost confirmations, expired sessions and tokens, flood refusals,
// and an hour down mid-game on the simulated clock. The game ends and
// every message the bot queued is on the board exactly once.
func TestGameThroughFaults(t *testing.T) {
	for _, seed := range []int64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) { gameThroughFaults(t, seed) })
	}
}

func gameThroughFaults(t *testing.T, seed int64) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, NoPostReview: true}, "GMBot", "gm-pass", false, []string{"Alice", "Bob"}, "The game starts here.")
	sim, topic, bot, alice, bob := th.Sim, th.Topic, th.Bot, th.Players["Alice"], th.Players["Bob"]
	must := simtest.Must(t)

	// Faults on what the bot reads and sends (the login form is left to
	// the session tests): about a third of those requests fail.
	rules := []forumsim.FaultRule{
		// For sure, whatever the draws: the first post's and the first
		// PM's confirmations are lost, and the next reads come cut.
		{Kind: forumsim.FaultLost, Method: "POST", Path: "posting.php", Count: 1},
		{Kind: forumsim.FaultTruncate, Method: "GET", Path: "viewtopic.php", Count: 2},
		{Kind: forumsim.FaultLostReset, Method: "POST", Path: "mode=compose", Count: 1},
		{Kind: forumsim.FaultTruncate, Method: "GET", Path: "folder=sentbox", Count: 2},
	}
	for _, path := range []string{"viewtopic.php", "posting.php", "i=pm"} {
		for _, k := range []forumsim.FaultKind{forumsim.Fault5xx, forumsim.Fault429, forumsim.Fault429Date,
			forumsim.FaultReset, forumsim.FaultTruncate, forumsim.FaultCut, forumsim.FaultSession, forumsim.FaultToken} {
			rules = append(rules, forumsim.FaultRule{Kind: k, Path: path, Rate: 0.04, RetryAfter: 20 * time.Second})
		}
		rules = append(rules,
			forumsim.FaultRule{Kind: forumsim.FaultLost, Method: "POST", Path: path, Rate: 0.2},
			forumsim.FaultRule{Kind: forumsim.FaultLostReset, Method: "POST", Path: path, Rate: 0.2},
			forumsim.FaultRule{Kind: forumsim.FaultFlood, Method: "POST", Path: path, Rate: 0.1})
	}
	if err := sim.SetFaults(seed, rules...); err != nil {
		t.Fatal(err)
	}

	m := simModerator(db, clk, 50)
	g := simtest.Start(t, m, "faults", "nations", noReminders(th.Nations(start, 2, 30, 5)), th.Forum(t, "FORUMGM_FAULTS_TEST_PW"), th.Roster())
	report := func() GameReport { return reportOf(t, m, "faults") }
	outbox := func() []store.OutboxItem { return simtest.Outbox(t, db, g.ID) }
	tickErrs := 0
	tick := func() {
		if err := m.Tick(ctx, g.ID); err != nil {
			tickErrs++ // the board failing: the next tick tries again
		}
	}

	tick()
	must(sim.Post(topic, alice, "We rise! [b]CIV: Fire[/b]"))
	must(sim.Post(topic, bob, "[b]CIV: Earth[/b]"))
	must(sim.SendPM(alice, []int{bot}, "orders", "INVADE Bob"))
	downDone := false
	for i := 0; i < 2000; i++ {
		r := report()
		if r.Status != Running && r.Pending == 0 {
			break
		}
		clk.Advance(time.Minute)
		if !downDone && clk.Now().After(start.Add(50*time.Minute)) {
			sim.DownFor(time.Hour)
			downDone = true
		}
		if i == 10 {
			must(sim.SendPM(bob, []int{bot}, "orders", "DEFEND Alice"))
		}
		tick()
	}
	r := report()
	st := sim.Faults()
	t.Logf("seed %d: %d faults in %d requests %v; %d ticks failed; game %s; %d messages", seed, st.Total, st.Requests, st.ByKind, tickErrs, r.Status, len(outbox()))
	if !r.Rules.Finished || r.Pending != 0 || r.Failed != 0 {
		t.Fatalf("game %s finished %v, outbox %d pending %d failed", r.Status, r.Rules.Finished, r.Pending, r.Failed)
	}
	if st.ByKind[forumsim.FaultLost] == 0 || st.ByKind[forumsim.FaultLostReset] == 0 || st.ByKind[forumsim.FaultTruncate] < 4 || st.ByKind[forumsim.FaultDown] == 0 {
		t.Errorf("faults %v: want lost confirmations, cut pages and downtime tried", st.ByKind)
	}
	// Every message exactly once.
	botPosts := th.BotPosts()
	sent := sim.Sent(bot)
	for _, it := range outbox() {
		if n := th.OnBoard(it); n != 1 {
			t.Errorf("%s (%s) on the board %d times", it.Marker, it.Kind, n)
		}
	}
	// Every command read (a PM or post cut mid-body once lost one), so
	// the same messages as on a faultless board: the opening, two
	// receipts, two round posts; and one notice per outage that moved a
	// deadline (the hour down, and a long enough run of random faults).
	notices := 0
	for _, it := range outbox() {
		if strings.Contains(it.Body, "could not be read[/b] from") {
			notices++
		}
	}
	if n := len(outbox()); n != 5+notices || n != len(botPosts)-1+len(sent) {
		t.Errorf("%d messages queued, want 5 and %d outage notices; %d bot posts after the opening fixture, %d PMs", n, notices, len(botPosts)-1, len(sent))
	}
	var cs []store.CommandRow
	if err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		cs, err = tx.Commands(g.ID, store.CommandFilter{Status: store.CommandAccepted})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if len(cs) != 4 {
		t.Errorf("%d commands accepted, want the 4 sent", len(cs))
	}
}
