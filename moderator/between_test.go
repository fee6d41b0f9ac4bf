package moderator

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// noReminders is gc without reminders or prods, for the tests that count
// every message the bot sends for something else (faults, flood control).
func noReminders(gc gameconfig.GameConfig) gameconfig.GameConfig {
	off := gameconfig.Offsets{}
	gc.Reminders = &gameconfig.Reminders{Before: &off, Prod: "off"}
	return gc
}

// newBetweenRig is a Nations game of Alice, Bob and Carol (two rounds of
// an hour, no break) from start on the fake phpBB board, with the game
// file's counts and reminders blocks; its opening post is up.
func newBetweenRig(t *testing.T, db *store.DB, counts *gameconfig.Counts, reminders *gameconfig.Reminders) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), db: db, clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.restart()
	players := []string{"Alice", "Bob", "Carol"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"rounds": 2, "round_minutes": 60, "break_minutes": 0}, Seed: 3, Start: start,
		Counts: counts, Reminders: reminders}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "n1", "nations", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	r.eng, _ = rules.Lookup("nations")
	r.tick()
	return r
}

// pmsTo are the bot's PMs to name holding text.
func (r *rig) pmsTo(name, text string) []string {
	var out []string
	for _, pm := range r.ff.SentTo()[name] {
		if strings.Contains(pm, text) {
			out = append(out, pm)
		}
	}
	return out
}

// box is the game's outbox.
func (r *rig) box() []store.OutboxItem {
	var out []store.OutboxItem
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(r.id); return err })
	return out
}

// countRequests are the requests for a count in the audit log, as
// "player: reason".
func (r *rig) countRequests() []string {
	var out []string
	for _, c := range r.commands() {
		if c.Kind == between.CountKind {
			out = append(out, c.Player+": "+c.Reason)
		}
	}
	return out
}

// TestCountsOnRequest: a bold VOTECOUNT (or COUNT, any case) is answered
// by a count in the thread, numbered within the round; a request inside
// the gap (a tenth of the hour-long round: 6 minutes) is not dropped but
// answered by the next count once the gap has passed, which names everyone
// who asked; nothing is posted twice after a restart; a request waiting
// when the round closes is answered by the close, and the next round's
// counts start again at 1. The GM's count goes out at once, whatever the
// gap. A quoted VOTECOUNT asks for nothing.
func TestCountsOnRequest(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newBetweenRig(t, db, nil, nil)
		r.at(5 * time.Minute)
		r.ff.PM(r.ctx, "Alice", "PROSPER")
		r.post("Alice", "[b]VOTECOUNT[/b]")
		r.tick()
		counts := r.threadPosts("— count ")
		if len(counts) != 1 || !strings.Contains(counts[0], "Round 1 of 2 — count 1") || !strings.Contains(counts[0], "Orders sent (1): Alice") ||
			!strings.Contains(counts[0], "Still to send an order (2): Bob, Carol") || !strings.Contains(counts[0], "(asked for by Alice)") {
			t.Fatalf("the first count: %q", counts)
		}
		r.at(7 * time.Minute)
		r.post("Bob", "what is the [b]count?[/b]")
		r.at(8 * time.Minute)
		r.post("Carol", "[quote=Bob][b]COUNT[/b][/quote][b]vote count[/b]")
		r.tick()
		if n := len(r.threadPosts("— count ")); n != 1 {
			t.Fatalf("%d counts within the gap, want still 1", n)
		}
		if got, want := strings.Join(r.countRequests(), "; "), "Alice: answered by count 1; Bob: waiting for the next count; Carol: waiting for the next count"; got != want {
			t.Errorf("the requests: %s, want %s", got, want)
		}
		r.restart()
		r.at(11*time.Minute + 30*time.Second)
		r.tick()
		r.tick()
		counts = r.threadPosts("— count ")
		if len(counts) != 2 || !strings.Contains(counts[1], "count 2") || !strings.Contains(counts[1], "(asked for by Bob and Carol)") {
			t.Fatalf("after the gap: %q", counts)
		}
		if got := r.countRequests(); got[1] != "Bob: answered by count 2" || got[2] != "Carol: answered by count 2" {
			t.Errorf("the requests after count 2: %q", got)
		}

		r.at(40 * time.Minute)
		if n, err := r.m.Count(r.ctx, "n1"); err != nil || n != 3 {
			t.Fatalf("the GM's count: %d, %v", n, err)
		}
		r.at(41 * time.Minute)
		r.post("Bob", "[b]COUNT[/b]")
		r.tick()
		if got := r.threadPosts("— count "); len(got) != 3 || !strings.Contains(got[2], "(posted by the GM)") {
			t.Fatalf("after the GM's count and a request a minute later: %q", got)
		}
		r.at(61 * time.Minute)
		r.tick()
		if st := r.status(); st.Phase != "round-2" {
			t.Fatalf("at 61 minutes: %s", st.Phase)
		}
		if got := r.countRequests(); got[len(got)-1] != "Bob: answered by the close of Round 1 of 2" {
			t.Errorf("the request waiting at the close: %q", got)
		}
		r.post("Carol", "[b]COUNT[/b]")
		r.tick()
		counts = r.threadPosts("— count ")
		if len(counts) != 4 || !strings.Contains(counts[3], "Round 2 of 2 — count 1") {
			t.Fatalf("round 2's first count: %q", counts)
		}
		checkRebuild(t, db, r.id)
	})
}

// TestCountGapFromTheBoard: the gap between counts on request runs from
// when the last count is known to be on the board, not from when it was
// queued: a count whose send went unconfirmed (the board's answer lost)
// holds the next back until the bot finds it on the board, and the next
// then waits the gap from there, so that two counts a player sees are
// never closer than the gap.
func TestCountGapFromTheBoard(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newBetweenRig(t, db, nil, nil)
		r.at(5 * time.Minute)
		r.post("Alice", "[b]VOTECOUNT[/b]")
		r.ff.Lock()
		r.ff.Lose = 1 // on the board, but the bot cannot tell yet
		r.ff.Unlock()
		r.m.Tick(r.ctx, r.id)
		if n := len(r.threadPosts("— count ")); n != 1 {
			t.Fatalf("%d counts after the first request", n)
		}
		if it := r.box()[1]; it.State == store.OutboxSent {
			t.Fatalf("the lost send is %s", it.State)
		}
		r.at(7 * time.Minute)
		r.post("Bob", "[b]COUNT[/b]")
		r.tick() // the bot finds count 1 in the thread: sent as of now
		if it := r.box()[1]; it.State != store.OutboxSent || !it.SentAt.Equal(start.Add(7*time.Minute)) {
			t.Fatalf("count 1 after the thread's read: %s at %v", it.State, it.SentAt)
		}
		// The gap from the count's queueing (6 minutes) has passed, not
		// the gap from when it was known on the board.
		for _, at := range []time.Duration{11*time.Minute + 30*time.Second, 12*time.Minute + 59*time.Second} {
			r.at(at)
			r.tick()
			if n := len(r.threadPosts("— count ")); n != 1 {
				t.Fatalf("at %v: %d counts, want 1 until 13 minutes", at, n)
			}
		}
		if got := r.countRequests(); len(got) != 2 || got[1] != "Bob: waiting for the next count" {
			t.Fatalf("the requests: %q", got)
		}
		r.at(13 * time.Minute)
		r.tick()
		counts := r.threadPosts("— count ")
		if len(counts) != 2 || !strings.Contains(counts[1], "count 2") || !strings.Contains(counts[1], "(asked for by Bob)") {
			t.Fatalf("once the gap from count 1 on the board has passed: %q", counts)
		}
		checkRebuild(t, db, r.id)
	})
}

// TestScheduledCounts: with counts every 10 minutes, a count goes out
// only when it has changed since the last one (or since the round
// opened); with requests off, a bold COUNT is chatter.
func TestScheduledCounts(t *testing.T) {
	no := false
	r := newBetweenRig(t, storetest.SQLite(t), &gameconfig.Counts{Every: "10m", Requests: &no}, nil)
	for m := 1; m <= 25; m++ {
		r.at(time.Duration(m) * time.Minute)
		if m == 12 {
			r.ff.PM(r.ctx, "Bob", "DEFEND")
			r.post("Carol", "[b]COUNT[/b]")
		}
		r.tick()
	}
	counts := r.threadPosts("— count ")
	if len(counts) != 1 || !strings.Contains(counts[0], "count 1") || !strings.Contains(counts[0], "Orders sent (1): Bob") || !strings.Contains(counts[0], "(posted every 10 minutes while it changes)") {
		t.Fatalf("counts every 10 minutes, one order at 12: %q", counts)
	}
	for _, c := range r.commands() {
		if c.Player == "Carol" && (c.Kind == between.CountKind || c.Status != store.CommandIgnored) {
			t.Errorf("with requests off, Carol's COUNT: %+v", c)
		}
	}
}

// TestReminders: the default reminder times of an hour-long round are 30
// and 5 minutes before its deadline; at each, each player who still owes
// an order gets a PM saying what and by when (and, with thread: true, the
// thread is told who is missing), nobody twice, not after a restart
// either. A reminder queued but not yet sent when its round closes lapses:
// it never goes.
func TestReminders(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newBetweenRig(t, db, nil, &gameconfig.Reminders{Thread: true})
		r.at(10 * time.Minute)
		r.ff.PM(r.ctx, "Alice", "INVADE Bob")
		r.tick()
		r.at(29 * time.Minute)
		r.tick()
		if n := len(r.pmsTo("Bob", "a reminder")); n != 0 {
			t.Fatalf("%d reminders before the first reminder time", n)
		}
		r.at(30 * time.Minute)
		r.tick()
		r.restart()
		r.at(31 * time.Minute)
		r.tick()
		want := "Bob, a reminder 30 minutes before the deadline: Round 1 of 2 closes Sun 1 Mar 2026, 13:00 UTC, and you still have to:<br>- send me your order for round 1 by PM: INVADE name, DEFEND, DEFEND GUESS name, or PROSPER"
		if got := r.pmsTo("Bob", "a reminder"); len(got) != 1 || !strings.Contains(got[0], want) {
			t.Fatalf("Bob's reminders: %q, want one saying %q", got, want)
		}
		if n, m := len(r.pmsTo("Carol", "a reminder")), len(r.pmsTo("Alice", "a reminder")); n != 1 || m != 0 {
			t.Errorf("reminders to Carol %d, to Alice (who has ordered) %d; want 1 and 0", n, m)
		}
		if got := r.threadPosts("Reminder:"); len(got) != 1 || !strings.Contains(got[0], "Round 1 of 2 closes Sun 1 Mar 2026, 13:00 UTC (in 30 minutes). Still waiting for Bob and Carol.") {
			t.Errorf("the thread's reminder: %q", got)
		}
		r.at(40 * time.Minute)
		r.ff.PM(r.ctx, "Bob", "DEFEND")
		r.tick()
		// Five minutes before: only Carol owes an order. The process
		// queues her reminder and dies before sending it.
		r.at(55 * time.Minute)
		l, err := r.m.view(r.ctx, r.id)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.m.process(r.ctx, l, r.clk.Now()); err != nil {
			t.Fatal(err)
		}
		r.restart()
		r.at(61 * time.Minute)
		r.tick()
		if st := r.status(); st.Phase != "round-2" {
			t.Fatalf("at 61 minutes: %s", st.Phase)
		}
		if n := len(r.pmsTo("Carol", "a reminder")); n != 1 {
			t.Errorf("%d reminders reached Carol, want only the first: the second was for a round that had closed", n)
		}
		var lapsed []store.OutboxItem
		for _, it := range simtest.Outbox(t, db, r.id) {
			if it.State == store.OutboxLapsed {
				lapsed = append(lapsed, it)
			}
		}
		if len(lapsed) != 2 || lapsed[0].LastError != "not sent: Round 1 of 2 closed first" {
			t.Errorf("lapsed: %+v, want Carol's reminder and the thread's", lapsed)
		}
		if rep := reportOf(t, r.m, "n1"); rep.Pending != 0 {
			t.Errorf("status counts %d messages waiting, want none (the lapsed ones never go)", rep.Pending)
		}
	})
}

// TestRemindersFollowTheDeadline: reminder times count back from the
// deadline as it is: the GM's extend moves the reminders not yet sent; a
// paused game sends none; one already sent is not sent again; a reminder
// time before the round opened is none. With reminders off, nothing.
func TestRemindersFollowTheDeadline(t *testing.T) {
	r := newBetweenRig(t, storetest.SQLite(t), nil, &gameconfig.Reminders{Before: &gameconfig.Offsets{"30m", "90m"}})
	r.at(20 * time.Minute)
	r.tick()
	if _, err := r.m.Extend(r.ctx, "n1", 30*time.Minute); err != nil {
		t.Fatal(err)
	}
	for m := 21; m <= 45; m++ {
		r.at(time.Duration(m) * time.Minute)
		r.tick()
	}
	if n := len(r.pmsTo("Bob", "a reminder")); n != 0 {
		t.Fatalf("%d reminders before the moved reminder time (90 minutes long, the 90m one came before the round opened)", n)
	}
	if err := r.m.Pause(r.ctx, "n1"); err != nil {
		t.Fatal(err)
	}
	r.at(65 * time.Minute)
	r.tick()
	if n := len(r.pmsTo("Bob", "a reminder")); n != 0 {
		t.Fatalf("%d reminders while paused", n)
	}
	if err := r.m.Resume(r.ctx, "n1"); err != nil { // the deadline moves from 90 to 110 minutes
		t.Fatal(err)
	}
	for m := 66; m <= 79; m++ {
		r.at(time.Duration(m) * time.Minute)
		r.tick()
	}
	if n := len(r.pmsTo("Bob", "a reminder")); n != 0 {
		t.Fatalf("%d reminders before 80 minutes (30 before the resumed deadline)", n)
	}
	r.at(80 * time.Minute)
	r.tick()
	r.at(81 * time.Minute)
	r.tick()
	if got := r.pmsTo("Bob", "a reminder"); len(got) != 1 || !strings.Contains(got[0], "closes Sun 1 Mar 2026, 13:50 UTC") {
		t.Fatalf("reminders after the resume: %q", got)
	}

	off := newBetweenRig(t, storetest.SQLite(t), nil, &gameconfig.Reminders{Before: &gameconfig.Offsets{}})
	for m := 1; m <= 59; m++ {
		off.at(time.Duration(m) * time.Minute)
		off.tick()
	}
	if n := len(off.ff.SentTo()["Bob"]); n != 0 {
		t.Errorf("with reminders off, %d PMs to Bob", n)
	}
}

// TestProds: a player the game has not heard from for the prod time (here
// 20 minutes; no post, no PM) gets one prod PM per silence of that length,
// saying since when and what he owes; a player who posts is not prodded.
func TestProds(t *testing.T) {
	r := newBetweenRig(t, storetest.SQLite(t), nil, &gameconfig.Reminders{Before: &gameconfig.Offsets{}, Prod: "20m"})
	for m := 1; m <= 50; m++ {
		r.at(time.Duration(m) * time.Minute)
		if m%10 == 0 {
			r.post("Alice", fmt.Sprintf("still here (%d)", m))
		}
		if m == 15 {
			r.ff.PM(r.ctx, "Bob", "PROSPER")
		}
		r.tick()
	}
	if n := len(r.pmsTo("Alice", "has not heard from you")); n != 0 {
		t.Errorf("Alice, posting every 10 minutes, was prodded %d times", n)
	}
	bob := r.pmsTo("Bob", "has not heard from you")
	if len(bob) != 1 || !strings.Contains(bob[0], "Bob, the game has not heard from you since Sun 1 Mar 2026, 12:15 UTC (20 minutes)") || strings.Contains(bob[0], "You still have to") {
		t.Errorf("Bob's prods (his PM at 15, nothing owed): %q", bob)
	}
	carol := r.pmsTo("Carol", "has not heard from you")
	if len(carol) != 2 || !strings.Contains(carol[0], "since Sun 1 Mar 2026, 12:00 UTC (20 minutes)") || !strings.Contains(carol[0], "You still have to:<br>- send me your order") || !strings.Contains(carol[1], "since Sun 1 Mar 2026, 12:00 UTC (40 minutes)") {
		t.Errorf("Carol's prods (silent from the start, at 20 and 40 minutes): %q", carol)
	}
}

// TestResistanceCountAndReminders: in the Resistance a count shows the
// thread's votes, each with a link to its post on the board, how many have
// voted by PM and never which way, and who has not voted; the reminders go
// to those who have not voted, and remind the team members of their
// mission orders, in the same words whatever their side.
func TestResistanceCountAndReminders(t *testing.T) {
	r := &rig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.restart()
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eve"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"phase_hours": 1}, Seed: 3, Start: start,
		Setup: map[string]any{"roles": map[string]any{"Ann": "resistance", "Ben": "spy", "Cat": "resistance", "Dan": "resistance", "Eve": "spy"},
			"leader_order": []any{"Ann", "Ben", "Cat", "Dan", "Eve"}}}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "res", "resistance", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id, r.eng = g.ID, mustLookup(t, "resistance")
	r.tick()
	r.at(2 * time.Minute)
	r.post("Ann", "[b]TEAM: Ann, Ben[/b]")
	r.at(3 * time.Minute)
	cat := r.post("Cat", "[b]APPROVE[/b] and the [b]votecount[/b] please")
	r.ff.PM(r.ctx, "Dan", "REJECT")
	r.at(4 * time.Minute)
	r.tick()
	counts := r.threadPosts("— count 1")
	want := []string{"Mission 1, proposal 1 — count 1", "Team proposed by Ann: <strong class=\"text-strong\">Ann, Ben</strong>.",
		"APPROVE in the thread (1): Cat (<a href=\"http://fake/viewtopic.php?p=" + cat + "#p" + cat + "\"",
		"REJECT in the thread (0): nobody", "By PM: 1 player has voted, which way stays secret until the tally",
		"Not voted yet (3): Ann, Ben, Eve.", "Majority: 3 APPROVE of 5 votes if everyone votes", "(asked for by Cat)"}
	for _, w := range want {
		if len(counts) != 1 || !strings.Contains(counts[0], w) {
			t.Fatalf("the count: %q, want it to say %q", counts, w)
		}
	}
	if strings.Contains(counts[0], "Dan") {
		t.Errorf("the count names Dan, who voted only by PM: %s", counts[0])
	}
	r.at(30 * time.Minute)
	r.tick()
	order := "you are on the team: send me your mission order by PM, SUPPORT or SABOTAGE"
	vote := "vote on Ann&#39;s team (Ann, Ben)"
	for _, c := range []struct {
		who      string
		has, not []string
	}{
		{"Ann", []string{order, "vote on your team (Ann, Ben)"}, nil},
		{"Ben", []string{order, vote}, nil},
		{"Eve", []string{vote}, []string{order}},
	} {
		got := r.pmsTo(c.who, "a reminder")
		if len(got) != 1 {
			t.Fatalf("%s's reminders: %q", c.who, got)
		}
		for _, w := range c.has {
			if !strings.Contains(got[0], w) {
				t.Errorf("%s's reminder lacks %q: %s", c.who, w, got[0])
			}
		}
		for _, w := range c.not {
			if strings.Contains(got[0], w) {
				t.Errorf("%s's reminder says %q: %s", c.who, w, got[0])
			}
		}
	}
	for _, who := range []string{"Cat", "Dan"} {
		if got := r.pmsTo(who, "a reminder"); len(got) != 0 {
			t.Errorf("%s has voted, yet got a reminder: %q", who, got)
		}
	}
}

// TestBetweenSurvivesCrashes plays a Nations game of two rounds whose
// players ask for counts all the time, with reminders (also in the thread)
// and prods, while the moderator crashes at random points (and loses the
// answers to some sends): nothing is sent twice (by marker, and by what it
// says: each count number once a round, each player's reminder of a
// reminder time once, each prod once), every request is answered, and
// nothing of a round goes out after it closed.
func TestBetweenSurvivesCrashes(t *testing.T) {
	for _, seed := range []int64{1, 2, 3} {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			r := newBetweenRig(t, storetest.SQLite(t), &gameconfig.Counts{Gap: "4m"}, &gameconfig.Reminders{Thread: true, Prod: "25m"})
			rng := rules.NewRand(seed, "crashes")
			crashes := 0
			mk := func() {
				r.restart()
				r.m.Crash = func(string) error {
					if rng.IntN(6) == 0 {
						crashes++
						return ErrCrash
					}
					return nil
				}
			}
			mk()
			for m := 1; m <= 130 && !r.status().Finished; m++ {
				r.at(time.Duration(m) * time.Minute)
				if m%3 == 0 {
					r.post([]string{"Alice", "Bob"}[m%2], "[b]VOTECOUNT[/b]")
				}
				if m%60 == 50 {
					r.ff.PM(r.ctx, "Alice", "PROSPER")
				}
				if rng.IntN(8) == 0 {
					r.ff.Lock()
					r.ff.Lose = 1
					r.ff.Unlock()
				}
				if err := r.m.Tick(r.ctx, r.id); err != nil {
					mk()
				}
			}
			for i := 0; i < 5; i++ {
				r.m.Crash = nil
				r.tick()
			}
			if !r.status().Finished {
				t.Fatalf("the game did not finish")
			}
			checkNoDuplicates(t, outcome{posts: r.ff.BotPosts(), pms: r.ff.SentTo()})
			seen := map[string]bool{}
			for _, p := range r.ff.BotPosts() {
				if i := strings.Index(p, " — count "); i >= 0 {
					head := p[:i+len(" — count ")+3]
					if seen[head] {
						t.Errorf("posted twice: %s", head)
					}
					seen[head] = true
				}
			}
			for name, pms := range r.ff.SentTo() {
				said := map[string]bool{}
				for _, pm := range pms {
					body := pm
					if i := strings.Index(body, "<br><br><span"); i >= 0 {
						body = body[:i] // the marker's line
					}
					if (strings.Contains(body, "a reminder") || strings.Contains(body, "has not heard")) && said[body] {
						t.Errorf("%s got this twice: %s", name, body)
					}
					said[body] = true
				}
			}
			for _, c := range r.commands() {
				if c.Kind == between.CountKind && !strings.HasPrefix(c.Reason, "answered by ") && c.Status == store.CommandAccepted {
					t.Errorf("a request %s: %+v", c.Reason, c)
				}
			}
			t.Logf("seed %d: %d crashes, %d counts", seed, crashes, len(seen))
			if crashes == 0 || len(seen) < 10 {
				t.Errorf("%d crashes and %d counts: the test proves little", crashes, len(seen))
			}
		})
	}
}

// TestActivity: each player's posts and accepted commands per round, and
// when last heard from, in the report (the current round) and phase by
// phase; a request for a count is no action.
func TestActivity(t *testing.T) {
	r := newBetweenRig(t, storetest.SQLite(t), nil, &gameconfig.Reminders{Before: &gameconfig.Offsets{}, Prod: "off"})
	r.at(5 * time.Minute)
	r.post("Alice", "[b]CIV: Fire[/b] and hello")
	r.post("Alice", "just chatting")
	r.ff.PM(r.ctx, "Alice", "PROSPER")
	r.ff.PM(r.ctx, "Bob", "DEFEND")
	r.tick()
	r.at(61 * time.Minute)
	r.tick()
	r.at(70 * time.Minute)
	r.post("Bob", "[b]VOTECOUNT[/b]")
	r.tick()
	all, err := r.m.Activity(r.ctx, "n1")
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	for _, ph := range all {
		got += ph.Phase + ":"
		for _, p := range ph.Players {
			got += fmt.Sprintf(" %s %d/%d", p.Player, p.Posts, p.Actions)
		}
		got += ";"
	}
	if want := "round-1: Alice 2/2 Bob 0/1 Carol 0/0;round-2: Alice 0/0 Bob 1/0 Carol 0/0;"; got != want {
		t.Errorf("activity %s, want %s", got, want)
	}
	rep := reportOf(t, r.m, "n1")
	if len(rep.Activity) != 3 || rep.Activity[1].Posts != 1 || !rep.Activity[1].LastHeard.Equal(start.Add(70*time.Minute)) ||
		!rep.Activity[0].LastHeard.Equal(start.Add(5*time.Minute)) || !rep.Activity[2].LastHeard.IsZero() {
		t.Errorf("the report's activity %+v", rep.Activity)
	}
}

// newResistanceRig is a Resistance game of Ann, Ben, Cat, Dan and Eve
// (spies Ben and Eve, Ann leading first) with hour-long proposals on the
// fake phpBB board; its opening post is up.
func newResistanceRig(t *testing.T) *rig {
	r := &rig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.restart()
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eve"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"phase_hours": 1}, Seed: 3, Start: start,
		Setup: map[string]any{"roles": map[string]any{"Ann": "resistance", "Ben": "spy", "Cat": "resistance", "Dan": "resistance", "Eve": "spy"},
			"leader_order": []any{"Ann", "Ben", "Cat", "Dan", "Eve"}}}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "res", "resistance", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id, r.eng = g.ID, mustLookup(t, "resistance")
	r.tick()
	return r
}

// TestExportAndVoteLog: the GM's export has every command with its phase,
// player, status, reason and a link to its post, a formula written by a
// player neutralised; the public vote log has, phase by phase, only the
// thread's commands (not its chatter): a replaced vote and an edited post
// struck through, a
// refusal that only its player may know the reason of without it, a PM
// command only as a number, and the counts.
func TestExportAndVoteLog(t *testing.T) {
	r := newResistanceRig(t)
	r.at(time.Minute)
	team := r.post("Ann", "[b]TEAM: Ann, Ben[/b]")
	r.at(2 * time.Minute)
	r.post("Cat", "[b]APPROVE[/b]")
	r.ff.PM(r.ctx, "Dan", "REJECT")
	r.ff.PM(r.ctx, "Ben", "SABOTAGE")
	r.tick()
	r.at(3 * time.Minute)
	r.post("Cat", "no, [b]REJECT[/b]")
	r.post("Dan", "[b]APPROVE[/b]")
	eve := r.post("Eve", "[b]=HYPERLINK(\"http://x\")[/b] [b]VOTECOUNT[/b]")
	r.tick()
	r.at(4 * time.Minute)
	r.ff.Edit(eve, "[b]VOTECOUNT[/b] again")
	r.tick()

	lines, zone, err := r.m.CommandLines(r.ctx, "res", gamelog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := gamelog.WriteCSV(&b, lines, zone); err != nil {
		t.Fatal(err)
	}
	csvText := b.String()
	for _, want := range []string{
		"m1-p1,\"Mission 1, proposal 1\",2026-03-01 12:01:00 UTC,Ann,thread,\"TEAM: Ann, Ben\",team,accepted,,http://fake/viewtopic.php?p=" + team + "#p" + team,
		"Dan,PM,REJECT,vote,accepted", "Ben,PM,SABOTAGE,order,accepted",
		"Dan,thread,APPROVE,vote,rejected,your vote by PM stands",
		"Eve,thread,\"'=HYPERLINK(\"\"http://x\"\")\",,superseded",
		"Eve,thread,VOTECOUNT,count,superseded",
	} {
		if !strings.Contains(csvText, want) {
			t.Errorf("the export lacks %q:\n%s", want, csvText)
		}
	}
	if got, _, _ := r.m.CommandLines(r.ctx, "res", gamelog.Filter{Player: "cat"}); len(got) != 2 {
		t.Errorf("the export for Cat: %+v", got)
	}

	v, err := r.m.VoteLog(r.ctx, "res")
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Phases) != 1 || !v.Phases[0].Current || v.Phases[0].ByPM != 2 || len(v.Phases[0].Counts) != 1 {
		t.Fatalf("the vote log: %+v", v.Phases)
	}
	var log []string
	for _, c := range v.Phases[0].Commands {
		log = append(log, fmt.Sprintf("%s %q %s struck=%v hidden=%v %s", c.Player, c.Text, c.Status, c.Struck, c.Hidden, c.Reason))
	}
	want := []string{
		`Ann "TEAM: Ann, Ben" accepted struck=false hidden=false `,
		`Cat "APPROVE" accepted struck=true hidden=false replaced by a later one`,
		`Cat "REJECT" accepted struck=false hidden=false `,
		`Dan "APPROVE" rejected struck=false hidden=true `,
		`Eve "VOTECOUNT" superseded struck=true hidden=false the post was edited: the edit counts instead`,
		`Eve "VOTECOUNT" accepted struck=false hidden=false waiting for the next count`,
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("the vote log's commands:\n%s\nwant\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
	if all := fmt.Sprintf("%+v", v); strings.Contains(all, "SABOTAGE") || strings.Contains(all, "your vote by PM stands") {
		t.Errorf("the vote log holds a PM's command or a private reason: %s", all)
	}
}
