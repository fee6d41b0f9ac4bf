package realgames

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// TestTiming is issue 9's "done when" game, on both real boards: a
// three-player Nations game (two rounds of a minute, no break) scripted so
// that commands fall where the boards' coarse stamps used to lose or move
// them:
//   - civilisation picks posted in the game's first minute, right after
//     the opening post (MyBB stamps them with the minute the game started
//     in, maybe before its start);
//   - consecutive posts: Alice then Bob in the same minute, then Carol
//     twice in a row (MyBB merges her second post into her first);
//   - an order PM well before round 1's deadline, read by the running bot;
//   - the bot stopped 20 s before round 1's deadline and restarted 20 s
//     after it, with order PMs sent 10 s and 8 s before the deadline
//     (phpBB and MyBB stamp PMs to the minute, so the restarted bot can
//     only tell them from the deadline's minute) and one 5 s after it;
//   - an order PM after the restart.
//
// Every command must be in the audit log once, accepted, in the phase it
// was made in (none "before the game began", none late), and the rounds
// must resolve with exactly those orders.
func TestTiming(t *testing.T) {
	t.Parallel() // top-level too: a parallel test waits for every sequential one
	if testing.Short() {
		t.Skip("plays two rounds in real time (a few minutes)")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			playTiming(t, engine)
		})
	}
}

// wantCmd is a command the script makes and where it must land.
type wantCmd struct {
	player, text, phase string
}

func playTiming(t *testing.T, engine string) {
	matrix.Cell(t, engine, matrix.StoppedAcrossDeadline)
	names := []string{"Alice", "Bob", "Carol"}
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: names, Subject: "Nations, timed"})
	b.ExemptBot(t)
	const playerFlood = 2 * time.Second
	switch engine {
	case realboardtest.PhpBB:
		b.Setting(t, "flood_interval", "2") // posts and PMs
	case realboardtest.MyBB:
		b.Setting(t, "postfloodsecs", "2")
		b.Setting(t, "pmfloodsecs", "2")
	}
	// Not on a whole minute: the opening post goes up some seconds into a
	// minute that began before the game did.
	start := time.Now().Add(5 * time.Second).UTC()
	gc := gameconfig.GameConfig{Players: names, Seed: 11, Start: start,
		// Two-minute rounds: the script's posts and orders before round
		// 1's last 35 s took over a minute on CI's loaded machine.
		Options: map[string]any{"rounds": 2, "round_minutes": 2, "break_minutes": 0}}
	zero := 0.0
	tb := setup(t, b, "nations", gc, &zero)
	conn := map[string]*forumconn.Conn{}
	for _, n := range names {
		conn[n] = player(t, b, b.Player(n), playerFlood+time.Second)
	}
	pms := 0
	pm := func(who, text string) {
		t.Helper()
		pms++
		c := conn[who]
		// Marked, as the players helper does: MyBB's "message sent" page
		// names no PM, so the poster confirms it by its marker.
		c.Poster.Unmarked = false
		defer func() { c.Poster.Unmarked = true }()
		key := fmt.Sprintf("timing.%d", pms)
		ctx := context.Background()
		if _, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
			return c.Poster.SendPM(ctx, forum.Author{Name: b.Bot.Name, ID: b.Bot.IDString()}, key, fmt.Sprintf("orders %d", pms), text)
		}); err != nil {
			t.Fatalf("%s's PM %q: %v", who, text, err)
		}
		t.Logf("%s %s PMed %q", time.Now().UTC().Format("15:04:05.000"), who, text)
	}
	post := func(who, text string) int {
		t.Helper()
		id := reply(t, b, conn[who], text)
		t.Logf("%s %s posted %q (post %d)", time.Now().UTC().Format("15:04:05.000"), who, text, id)
		return id
	}
	sleepUntil := func(at time.Time, what string) {
		t.Helper()
		d := time.Until(at)
		if d < 0 {
			t.Fatalf("the script is %.1fs late for %s", -d.Seconds(), what)
		}
		time.Sleep(d)
	}

	tb.opened() // the game's clock starts there
	t.Logf("%s the opening post is on the board", time.Now().UTC().Format("15:04:05.000"))

	// Picks in the game's first minute, in consecutive posts.
	post("Alice", "Here we go. [b]CIV: Fire[/b]")
	post("Bob", "[b]CIV: Water[/b] for me.")
	first := post("Carol", "Hello all, still making up my mind.")
	second := post("Carol", "Decided: [b]CIV: Earth[/b]")
	if engine == realboardtest.MyBB {
		if second != first {
			t.Errorf("MyBB made Carol's second post %d a post of its own, not merged into %d: the merge case is not exercised", second, first)
		} else if body := postBody(t, b, first); !strings.Contains(body, "Earth") {
			t.Errorf("Carol's merged post does not hold the appended pick: %q", body)
		}
	}

	// Round 1's deadline as the moderator set it once the opening post
	// was confirmed (the clock starts there; deadlines on whole minutes).
	var d1 time.Time
	waitFor(t, "the picks applied", 30*time.Second, func() bool {
		return civOf(tb, "Alice") == nations.Fire && civOf(tb, "Bob") == nations.Water && civOf(tb, "Carol") == nations.Earth
	})
	st := tb.state().(*nations.State)
	if st.Round != 1 {
		t.Fatalf("round %d after the picks, want 1", st.Round)
	}
	d1 = st.Deadline
	t.Logf("game configured to start %s; round 1 deadline %s", start.Format("15:04:05.000"), d1.Format("15:04:05.000"))
	if d1.Sub(d1.Truncate(time.Minute)) != 0 {
		t.Errorf("round 1's deadline %s is not on a whole minute", d1)
	}

	sleepUntil(d1.Add(-35*time.Second), "Bob's early order")
	pm("Bob", "DEFEND")
	waitFor(t, "Bob's order read", 15*time.Second, func() bool { return len(commandsOf(tb, "Bob", "DEFEND")) > 0 })

	sleepUntil(d1.Add(-20*time.Second), "stopping the bot")
	tb.stop()
	t.Logf("%s the bot is stopped", time.Now().UTC().Format("15:04:05.000"))
	sleepUntil(d1.Add(-10*time.Second), "Alice's late-minute order")
	pm("Alice", "INVADE Bob")
	sleepUntil(d1.Add(-8*time.Second), "Carol's late-minute order")
	pm("Carol", "PROSPER")
	sleepUntil(d1.Add(5*time.Second), "Carol's round-2 order")
	pm("Carol", "INVADE Alice")
	sleepUntil(d1.Add(20*time.Second), "restarting the bot")
	tb.run()
	t.Logf("%s the bot is running again", time.Now().UTC().Format("15:04:05.000"))
	sleepUntil(d1.Add(25*time.Second), "Bob's round-2 order")
	pm("Bob", "PROSPER")

	waitFor(t, "the game finished", 3*time.Minute, func() bool {
		s := tb.row().Status
		return (s == moderator.Finished || s == moderator.Ended) && tb.drained()
	})
	tb.stop()

	// The audit rows, for the report.
	all := tb.commands(store.CommandFilter{})
	for _, c := range all {
		t.Logf("audit: %-5s %-8s %-7s %-10s %q %s (made %s) %s", c.Player, c.Phase, c.Channel, c.Status, c.Text, c.Kind, c.Time.UTC().Format("15:04:05"), c.Reason)
	}
	for _, c := range all {
		if c.Status == store.CommandRejected || strings.Contains(c.Reason, "before the game") ||
			strings.Contains(c.Reason, "after") || strings.Contains(c.Reason, "late") {
			t.Errorf("a command refused or set aside for its timing: %s in %s %s %q: %s", c.Player, c.Phase, c.Status, c.Text, c.Reason)
		}
	}
	for _, w := range []wantCmd{
		{"Alice", "CIV: Fire", "round-1"},
		{"Bob", "CIV: Water", "round-1"},
		{"Carol", "CIV: Earth", "round-1"},
		{"Bob", "DEFEND", "round-1"},
		{"Alice", "INVADE Bob", "round-1"},
		{"Carol", "PROSPER", "round-1"},
		{"Carol", "INVADE Alice", "round-2"},
		{"Bob", "PROSPER", "round-2"},
	} {
		cs := commandsOf(tb, w.player, w.text)
		if len(cs) != 1 || cs[0].Phase != w.phase || cs[0].Status != store.CommandAccepted {
			t.Errorf("%s's %q in the audit log: %+v; want it once, accepted, in %s", w.player, w.text, cs, w.phase)
		}
	}

	// The rounds resolved with those orders and civilisations.
	st = tb.state().(*nations.State)
	if len(st.History) != 2 {
		t.Fatalf("%d rounds resolved, want 2", len(st.History))
	}
	want := []map[string]nations.Order{
		{"Alice": {Kind: nations.KindInvade, Target: "Bob"}, "Bob": {Kind: nations.KindDefend}, "Carol": {Kind: nations.KindProsper}},
		{"Alice": {Kind: "none"}, "Bob": {Kind: nations.KindProsper}, "Carol": {Kind: nations.KindInvade, Target: "Alice"}},
	}
	for i, res := range st.History {
		for p, o := range want[i] {
			if i == 1 && st.OutRound[p] == 1 {
				continue // out in round 1: no order in round 2
			}
			got := res.Orders[p]
			if got.Kind != o.Kind || got.Target != o.Target {
				t.Errorf("round %d resolved %s's order as %+v, want %+v", res.Round, p, got, o)
			}
		}
	}
	for p, c := range map[string]string{"Alice": nations.Fire, "Bob": nations.Water, "Carol": nations.Earth} {
		if got := st.History[0].Civ[p]; got != c {
			t.Errorf("round 1 resolved %s as %s, want %s", p, got, c)
		}
	}
	tb.checkExactlyOnce()
}
