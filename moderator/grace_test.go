package moderator

import (
	"context"
	"errors"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/journal"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// newDeadlineRig is a Nations game of Alice, Bob and Carol (rounds of an
// hour, no break) from t0 on the fake phpBB board (deadlines on the whole
// minute), with the game file's deadlines block dl, on a board whose bot
// account reads times in zone ("": UTC).
func newDeadlineRig(t *testing.T, db *store.DB, t0 time.Time, rounds int, dl *gameconfig.Deadlines, zone string) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), db: db, clk: clock.NewFake(t0)}
	r.ff = forumtest.New(r.clk)
	r.m = &Moderator{DB: db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	players := []string{"Alice", "Bob", "Carol"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"rounds": rounds, "round_minutes": 60, "break_minutes": 0}, Seed: 3, Start: t0, Deadlines: dl}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", TimeZone: zone}
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
	return r
}

// status is the game's rules status now.
func (r *rig) status() rules.Status {
	r.t.Helper()
	_, st, _ := r.game()
	return r.eng.Status(st)
}

// restart is a new moderator on the same database and board, as after a
// crash or a restart of `forumgm run`.
func (r *rig) restart() {
	r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
}

// resolveTimes are the times of the game's journalled resolutions.
func (r *rig) resolveTimes() []time.Time {
	r.t.Helper()
	var j []journal.Entry
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; j, err = tx.Journal(r.id); return err })
	var out []time.Time
	for _, e := range j {
		if e.Kind == journal.KindResolve {
			out = append(out, e.Time)
		}
	}
	return out
}

// TestGracePeriod: with `grace: 30m`, a round still missing an order at its
// deadline stays open up to 30 minutes more; the thread is told once who is
// missing and until when (not again on the next poll, nor after a
// restart), and the round closes as soon as the last order is in, at that
// order. The next round, where nobody orders, has its own grace and then
// closes at its end. A rebuild from the journal reproduces every deadline.
func TestGracePeriod(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newDeadlineRig(t, db, start, 2, &gameconfig.Deadlines{Grace: "30m"}, "")
		r.tick()
		r.at(10 * time.Minute)
		r.ff.PM(r.ctx, "Alice", "PROSPER")
		r.ff.PM(r.ctx, "Bob", "DEFEND")
		r.tick()
		r.at(61 * time.Minute)
		r.tick()
		st := r.status()
		if st.Phase != "round-1" || !st.Deadline.Equal(start.Add(90*time.Minute)) {
			t.Fatalf("a minute past the deadline with Carol's order missing: %s until %v, want round-1 until %v", st.Phase, st.Deadline, start.Add(90*time.Minute))
		}
		want := "Time is up for Round 1 of 2</strong>, but not everyone has acted: still waiting for Carol. It stays open for them until Sun 1 Mar 2026, 13:30 UTC (a grace period of 30 minutes) and closes as soon as everyone has acted."
		if got := r.threadPosts("Time is up"); len(got) != 1 || !strings.Contains(got[0], want) {
			t.Fatalf("the grace notice: %q, want one saying %q", got, want)
		}
		r.at(62 * time.Minute)
		r.tick()
		r.restart()
		r.at(63 * time.Minute)
		r.tick()
		if n := len(r.threadPosts("Time is up")); n != 1 {
			t.Errorf("%d grace notices after another poll and a restart, want 1", n)
		}
		checkRebuild(t, db, r.id)

		r.at(70 * time.Minute)
		r.ff.PM(r.ctx, "Carol", "INVADE Alice")
		r.at(71 * time.Minute)
		r.tick()
		st = r.status()
		closed := start.Add(70 * time.Minute)
		if ts := r.resolveTimes(); st.Phase != "round-2" || len(ts) != 1 || !ts[0].Equal(closed) {
			t.Fatalf("after Carol's order: %s, resolutions at %v; want round-2, round 1 closed at her order (%v)", st.Phase, ts, closed)
		}
		if !st.Deadline.Equal(closed.Add(60 * time.Minute)) {
			t.Errorf("round 2's deadline %v, want an hour after round 1 closed", st.Deadline)
		}

		// Round 2: nobody orders. Its grace, then its close.
		r.at(131 * time.Minute)
		r.tick()
		got := r.threadPosts("Time is up for Round 2")
		if len(got) != 1 || !strings.Contains(got[0], "still waiting for Alice, Bob and Carol") || !strings.Contains(got[0], "until Sun 1 Mar 2026, 14:40 UTC") {
			t.Fatalf("round 2's grace notice: %q", got)
		}
		checkRebuild(t, db, r.id)
		r.at(161 * time.Minute)
		r.tick()
		if st := r.status(); !st.Finished {
			t.Fatalf("after round 2's grace: %s, want the game over", st.Phase)
		}
		if ts := r.resolveTimes(); len(ts) != 2 || !ts[1].Equal(start.Add(160*time.Minute)) {
			t.Errorf("resolutions at %v; want round 2 closed when its grace ended", ts)
		}
		if n := len(r.threadPosts("Time is up")); n != 2 {
			t.Errorf("%d grace notices in all, want one per round", n)
		}
		checkRebuild(t, db, r.id)
	})
}

// TestNoGraceWhenNobodyIsMissing: a round everyone has ordered in closes at
// its deadline (Nations has no early close), grace or not.
func TestNoGraceWhenNobodyIsMissing(t *testing.T) {
	r := newDeadlineRig(t, storetest.SQLite(t), start, 2, &gameconfig.Deadlines{Grace: "30m"}, "")
	r.tick()
	r.at(10 * time.Minute)
	for _, p := range []string{"Alice", "Bob", "Carol"} {
		r.ff.PM(r.ctx, p, "PROSPER")
	}
	r.tick()
	if st := r.status(); st.Phase != "round-1" {
		t.Fatalf("%s: a Nations round closed before its deadline", st.Phase)
	}
	r.at(61 * time.Minute)
	r.tick()
	if st := r.status(); st.Phase != "round-2" || len(r.threadPosts("Time is up")) != 0 {
		t.Errorf("%s, %d grace notices: want round 2, none", st.Phase, len(r.threadPosts("Time is up")))
	}
}

// TestGraceWithPauseExtendAndOutage: the GM's controls and the outage rule
// work on a phase in its grace period. A pause stops the grace's clock too
// (resume moves its end by the pause); an extension moves it; an outage
// across the deadline moves the deadline first and the grace counts from
// the moved one. In each case the phase still closes as soon as the last
// order is in, and the thread is told of the grace once.
func TestGraceWithPauseExtendAndOutage(t *testing.T) {
	grace := &gameconfig.Deadlines{Grace: "30m"}
	setup := func(t *testing.T) *rig {
		r := newDeadlineRig(t, storetest.SQLite(t), start, 2, grace, "")
		r.tick()
		r.at(10 * time.Minute)
		r.ff.PM(r.ctx, "Alice", "PROSPER")
		r.ff.PM(r.ctx, "Bob", "DEFEND")
		r.tick()
		return r
	}
	closesAtCarol := func(t *testing.T, r *rig, at time.Duration) {
		t.Helper()
		r.at(at)
		r.ff.PM(r.ctx, "Carol", "PROSPER")
		r.at(at + time.Minute)
		r.tick()
		if ts := r.resolveTimes(); r.status().Phase != "round-2" || len(ts) != 1 || !ts[0].Equal(start.Add(at)) {
			t.Errorf("after Carol's order at +%v: %s, resolved at %v; want round 2, round 1 closed at her order", at, r.status().Phase, ts)
		}
		if n := len(r.threadPosts("Time is up")); n != 1 {
			t.Errorf("%d grace notices, want 1", n)
		}
		checkRebuild(t, r.db, r.id)
	}
	t.Run("pause", func(t *testing.T) {
		r := setup(t)
		r.at(61 * time.Minute)
		r.tick() // the grace: until +90m
		r.at(65 * time.Minute)
		if err := r.m.Pause(r.ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		r.at(120 * time.Minute) // past the grace's end, paused
		r.tick()
		if st := r.status(); st.Phase != "round-1" {
			t.Fatalf("paused: %s, want round 1 still open", st.Phase)
		}
		if err := r.m.Resume(r.ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		if st := r.status(); !st.Deadline.Equal(start.Add(145 * time.Minute)) {
			t.Errorf("after the resume: deadline %v, want the grace's end moved by the 55-minute pause (+145m)", st.Deadline)
		}
		r.tick()
		closesAtCarol(t, r, 125*time.Minute)
	})
	t.Run("extend", func(t *testing.T) {
		r := setup(t)
		r.at(61 * time.Minute)
		r.tick()
		if _, err := r.m.Extend(r.ctx, "n1", time.Hour); err != nil {
			t.Fatal(err)
		}
		if st := r.status(); !st.Deadline.Equal(start.Add(150 * time.Minute)) {
			t.Errorf("extended: deadline %v, want the grace's end an hour later (+150m)", st.Deadline)
		}
		r.at(100 * time.Minute)
		r.tick()
		if st := r.status(); st.Phase != "round-1" {
			t.Fatalf("past the grace's first end, extended: %s", st.Phase)
		}
		closesAtCarol(t, r, 110*time.Minute)
	})
	t.Run("outage", func(t *testing.T) {
		r := setup(t)
		r.ff.Lock()
		r.ff.Down = true
		r.ff.Unlock()
		for d := 55 * time.Minute; d < 65*time.Minute; d += 30 * time.Second {
			r.at(d)
			if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, forumtest.ErrDown) {
				t.Fatalf("a read at +%v with the board down: %v", d, err)
			}
		}
		r.ff.Lock()
		r.ff.Down = false
		r.ff.Unlock()
		r.at(65 * time.Minute)
		r.tick()
		if st := r.status(); st.Phase != "round-1" || !st.Deadline.Equal(start.Add(70*time.Minute)) || len(r.threadPosts("could not be read")) != 1 {
			t.Fatalf("after the outage: %s until %v, %d outage notices; want round 1 until +70m, one notice", st.Phase, st.Deadline, len(r.threadPosts("could not be read")))
		}
		if n := len(r.threadPosts("Time is up")); n != 0 {
			t.Fatalf("a grace notice before the moved deadline")
		}
		r.at(71 * time.Minute)
		r.tick()
		if st := r.status(); !st.Deadline.Equal(start.Add(100 * time.Minute)) {
			t.Errorf("the grace: until %v, want 30 minutes after the moved deadline (+100m)", st.Deadline)
		}
		closesAtCarol(t, r, 80*time.Minute)
	})
}

// TestScheduleWithPauseExtendAndOutage: on a game with the GM's schedule
// ("21:00 Europe/London, Mon and Thu, at least 24 hours"), pause, extend and
// the outage rule move the open phase's deadline exactly as before, off the
// schedule's slot; the next phase opens on the schedule again, counted from
// when the moved phase closed.
func TestScheduleWithPauseExtendAndOutage(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t0 := time.Date(2026, 3, 2, 21, 0, 0, 0, time.UTC) // Mon 21:00 GMT
		r := newDeadlineRig(t, db, t0, 4, londonMonThu(), "America/New_York")
		set := func(s string) {
			tm, err := time.Parse(time.RFC3339, s)
			if err != nil {
				t.Fatal(err)
			}
			r.clk.Set(tm)
		}
		deadline := func(phase, want string) {
			t.Helper()
			if st := r.status(); st.Phase != phase || st.Deadline.UTC().Format(time.RFC3339) != want {
				t.Fatalf("%s until %s, want %s until %s", st.Phase, st.Deadline.UTC().Format(time.RFC3339), phase, want)
			}
		}
		r.tick()
		deadline("round-1", "2026-03-05T21:00:00Z") // Thu

		// Paused for two hours on Tuesday: Thursday's deadline moves by them.
		set("2026-03-03T12:00:00Z")
		if err := r.m.Pause(r.ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		set("2026-03-03T14:00:00Z")
		if err := r.m.Resume(r.ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		deadline("round-1", "2026-03-05T23:00:00Z")
		set("2026-03-05T23:01:00Z")
		r.tick()
		// Opened Thu 23:00: at least Fri 23:00, so Monday's slot.
		deadline("round-2", "2026-03-09T21:00:00Z")

		// Extended by an hour.
		if _, err := r.m.Extend(r.ctx, "n1", time.Hour); err != nil {
			t.Fatal(err)
		}
		deadline("round-2", "2026-03-09T22:00:00Z")
		set("2026-03-09T22:00:30Z")
		r.tick()
		deadline("round-3", "2026-03-12T21:00:00Z")

		// The board cannot be read from 20:50 to 21:10 on Thursday.
		r.ff.Lock()
		r.ff.Down = true
		r.ff.Unlock()
		for tm := time.Date(2026, 3, 12, 20, 50, 0, 0, time.UTC); tm.Before(time.Date(2026, 3, 12, 21, 10, 0, 0, time.UTC)); tm = tm.Add(30 * time.Second) {
			r.clk.Set(tm)
			if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, forumtest.ErrDown) {
				t.Fatalf("a read at %v with the board down: %v", tm, err)
			}
		}
		r.ff.Lock()
		r.ff.Down = false
		r.ff.Unlock()
		set("2026-03-12T21:10:00Z")
		r.tick()
		deadline("round-3", "2026-03-12T21:20:00Z")
		if got := r.threadPosts("could not be read"); len(got) != 1 || !strings.Contains(got[0], "moves to Thu 12 Mar 2026, 17:20 EDT / 21:20 UTC") {
			t.Errorf("the outage notice: %q", got)
		}
		set("2026-03-12T21:21:00Z")
		r.tick()
		deadline("round-4", "2026-03-16T21:00:00Z")
		checkRebuild(t, db, r.id)
	})
}

// TestGraceInTheResistance: a Resistance proposal whose leader proposed no
// team by the deadline gets its grace, naming the leader (whom the phase
// waits for); when it ends the turn passes without a proposal (issue 23:
// a silence is no rejected team, so the rejection count stays), and the
// proposal after it gets a grace of its own.
func TestGraceInTheResistance(t *testing.T) {
	r := &rig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eve"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"phase_hours": 1}, Seed: 3, Start: start, Deadlines: &gameconfig.Deadlines{Grace: "30m"}}
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
	leader := r.status().Waiting
	if len(leader) != 1 {
		t.Fatalf("the first proposal waits for %v, want its leader", leader)
	}
	r.at(61 * time.Minute)
	r.tick()
	if got := r.threadPosts("Time is up for Mission 1, proposal 1"); len(got) != 1 || !strings.Contains(got[0], "still waiting for "+leader[0]+".") {
		t.Fatalf("the grace notice: %q, want it to name the leader %s", got, leader[0])
	}
	r.at(91 * time.Minute)
	r.tick()
	st := r.status()
	if st.Phase != "m1-p2" || !strings.Contains(strings.Join(r.threadPosts("proposed no team"), ""), "the rejection count stays at 0 of 5") {
		t.Fatalf("after the grace: %s, want the turn passed with the rejection count kept", st.Phase)
	}
	r.at(151 * time.Minute)
	r.tick()
	if n := len(r.threadPosts("Time is up for Mission 1, proposal 2")); n != 1 {
		t.Errorf("%d grace notices for proposal 2, want 1", n)
	}
	checkRebuild(t, r.db, r.id)
}

func mustLookup(t *testing.T, kind string) rules.Game {
	t.Helper()
	g, err := rules.Lookup(kind)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestScheduledFirstDeadlineStandsWhenTheOpeningPostIsLate: the first
// phase's scheduled deadline is the slot the opening post announces,
// counted from the planned start; the post going up late does not move it
// (players read a clock time), where a game of lengths of time has its
// first deadline moved by the delay.
func TestScheduledFirstDeadlineStandsWhenTheOpeningPostIsLate(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 20, 0, 0, 0, time.UTC)
	monday := time.Date(2026, 3, 2, 21, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		dl   *gameconfig.Deadlines
		want time.Time
	}{
		{"scheduled", &gameconfig.Deadlines{At: "21:00", Zone: "UTC", Days: []string{"Mon", "Thu"}, Minimum: "1h"}, monday},
		{"lengths of time", nil, monday.Add(5 * time.Minute)},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newDeadlineRig(t, storetest.SQLite(t), t0, 2, c.dl, "")
			if dl := r.status().Deadline; !dl.Equal(monday) {
				t.Fatalf("planned: deadline %v, want Monday 21:00", dl)
			}
			r.clk.Set(t0.Add(5 * time.Minute))
			r.tick()
			r.tick()
			if dl := r.status().Deadline; !dl.Equal(c.want) {
				t.Errorf("with the opening post up at 20:05: deadline %v, want %v", dl, c.want)
			}
			if got := r.threadPosts("Deadline:"); len(got) != 1 || !strings.Contains(got[0], "Mon 2 Mar 2026, 21:00 UTC") {
				t.Errorf("the opening post: %q", got)
			}
			checkRebuild(t, r.db, r.id)
		})
	}
}
