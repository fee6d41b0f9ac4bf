package moderator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// newOutageRig is a Resistance game of 30-second proposals on the fake
// board, read every 10 s, deadlines not rounded; extension is the game
// file's forum.outage_extension (nil: not set).
func newOutageRig(t *testing.T, db *store.DB, extension *bool) *rig {
	t.Helper()
	return newFiveRig(t, db, func(_ *gameconfig.GameConfig, fc *gameconfig.ForumConfig) { fc.OutageExtension = extension })
}

// newFiveRig is a five-player Resistance game on an in-memory board with
// phases of 30 s, polled every 10 s, its configs changed by edit.
func newFiveRig(t *testing.T, db *store.DB, edit func(*gameconfig.GameConfig, *gameconfig.ForumConfig)) *rig {
	t.Helper()
	r := &rig{t: t, ctx: context.Background(), db: db, clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	players := []string{"Ann", "Ben", "Cat", "Dan", "Eve"}
	gc := gameconfig.GameConfig{Players: players, Options: map[string]any{"phase_hours": 30.0 / 3600}, Seed: 3, Start: start}
	zero := 0.0
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "mybb", Thread: "1", Bot: "GMbot", PasswordEnv: "X",
		PollSeconds: 10, DeadlineUnitSeconds: &zero}
	edit(&gc, &fc)
	var ps []store.Player
	for _, p := range players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := r.m.Create(r.ctx, "res", "resistance", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	r.eng, _ = rules.Lookup("resistance")
	return r
}

// outage takes the board down from start+from to start+to, with the bot
// polling every 10 s throughout (each read in it failing).
func (r *rig) outage(from, to time.Duration) {
	r.t.Helper()
	r.ff.Lock()
	r.ff.Down = true
	r.ff.Unlock()
	for d := from; d < to; d += 10 * time.Second {
		r.at(d)
		if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, forumtest.ErrDown) {
			r.t.Fatalf("a read at +%v with the board down: %v", d, err)
		}
	}
	r.ff.Lock()
	r.ff.Down = false
	r.ff.Unlock()
	r.at(to)
}

func (r *rig) health() store.Health {
	r.t.Helper()
	var h store.Health
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; h, err = tx.Health(r.id); return err })
	return h
}

// threadPosts are the bot's thread posts that contain text.
func (r *rig) threadPosts(text string) []string {
	var out []string
	for _, p := range r.ff.BotPosts() {
		if strings.Contains(p, text) {
			out = append(out, p)
		}
	}
	return out
}

func (r *rig) journalKinds() map[journal.Kind]int {
	r.t.Helper()
	var j []journal.Entry
	r.db.View(r.ctx, func(tx *store.Tx) error { var err error; j, err = tx.Journal(r.id); return err })
	n := map[journal.Kind]int{}
	for _, e := range j {
		n[e.Kind]++
	}
	return n
}

// TestOutageExtendsTheDeadline is the Resistance case of issue 11: the
// board cannot be read for two minutes across a proposal's deadline. The
// old behaviour resolved four missed proposals in the one read after it
// (each a step toward the rejection limit); now the proposal's deadline
// moves on by the outage, the thread is told from when to when and until
// when, and the leader proposes in time. With outage_extension: false the
// old behaviour stays.
func TestOutageExtendsTheDeadline(t *testing.T) {
	off := false
	for _, tc := range []struct {
		name      string
		extension *bool
	}{{"default (on)", nil}, {"off", &off}} {
		t.Run(tc.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				r := newOutageRig(t, db, tc.extension)
				r.tick() // the opening post and roles; proposal 1 until +30 s
				r.at(5 * time.Second)
				r.tick()
				r.outage(10*time.Second, 130*time.Second) // down from +10 s to +130 s
				r.tick()
				g, st, _ := r.game()
				journal := r.journalKinds()
				if tc.extension != nil {
					if g.Phase != "m1-p5" || journal["resolve"] != 4 {
						t.Errorf("option off: phase %s after %d resolutions, want m1-p5 after 4 (the old behaviour)", g.Phase, journal["resolve"])
					}
					if n := len(r.threadPosts("could not be read")); n != 0 {
						t.Errorf("option off: %d outage posts", n)
					}
					return
				}
				if g.Phase != "m1-p1" || journal["resolve"] != 0 {
					t.Fatalf("after the outage: phase %s after %d resolutions, want m1-p1 still open", g.Phase, journal["resolve"])
				}
				// Open for its 20 s left after the outage's 120 s.
				if want := start.Add(150 * time.Second); !g.Deadline.Equal(want) {
					t.Errorf("deadline %v, want %v (30 s + the 120 s outage)", g.Deadline, want)
				}
				posts := r.threadPosts("could not be read")
				if len(posts) != 1 {
					t.Fatalf("%d outage posts, want 1", len(posts))
				}
				for _, want := range []string{"from Sun 1 Mar 2026, 12:00 UTC to Sun 1 Mar 2026, 12:02 UTC", "moves to Sun 1 Mar 2026, 12:02 UTC", "2 minutes later", "Mission 1, proposal 1"} {
					if !strings.Contains(posts[0], want) {
						t.Errorf("outage post lacks %q:\n%s", want, posts[0])
					}
				}
				// The leader proposes in the extended time: it counts.
				leader := r.eng.Status(st).Waiting[0]
				var team []string
				for _, p := range []string{"Ann", "Ben", "Cat"} {
					if p != leader && len(team) < 1 {
						team = append(team, p)
					}
				}
				r.at(140 * time.Second)
				r.post(leader, "[b]PROPOSE "+leader+", "+team[0]+"[/b]")
				r.tick()
				r.at(200 * time.Second) // well past the old and the new deadline
				r.tick()
				for _, c := range r.commands() {
					if c.Player == leader && c.Status != store.CommandAccepted {
						t.Errorf("the leader's proposal: %s: %s", c.Status, c.Reason)
					}
				}
				if n := len(r.threadPosts("could not be read")); n != 1 {
					t.Errorf("%d outage posts after more reads, want 1", n)
				}
				if mustJSONString(r.rebuilt()) != mustJSONString(r.state()) {
					t.Errorf("a rebuild from the journal differs from the state")
				}
			})
		})
	}
}

func (r *rig) state() rules.State {
	_, st, _ := r.game()
	return st
}

// TestOutageExtendedOnceAcrossCrashes: the read that ends the outage is
// saved, then the bot crashes before applying anything; the next tick
// extends the deadline and posts, once; later ticks do neither again.
func TestOutageExtendedOnceAcrossCrashes(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	r.tick()
	r.outage(10*time.Second, 130*time.Second)
	crashes := 0
	r.m.Crash = func(point string) error {
		if point == "after-read" && crashes == 0 {
			crashes++
			return ErrCrash
		}
		return nil
	}
	if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, ErrCrash) {
		t.Fatalf("tick: %v", err)
	}
	if h := r.health(); !h.Outage() || h.Failing() {
		t.Fatalf("after the read that ended it: %+v, want an outage waiting, reads not failing", h)
	}
	for i := range 3 {
		r.at(131*time.Second + time.Duration(i)*time.Second)
		r.tick()
	}
	if n := r.journalKinds()["deadline"]; n != 1 {
		t.Errorf("%d deadline changes, want 1", n)
	}
	if n := len(r.threadPosts("could not be read")); n != 1 {
		t.Errorf("%d outage posts, want 1", n)
	}
	if h := r.health(); h.Outage() {
		t.Errorf("outage still waiting after it was acted on: %+v", h)
	}
	if g, _, _ := r.game(); !g.Deadline.Equal(start.Add(150 * time.Second)) {
		t.Errorf("deadline %v", g.Deadline)
	}
}

// TestBlipAndStoppedBotAreNoOutage: one failed read, retried at the next
// poll, moves nothing; nor does the bot itself being stopped across the
// deadline (the board was readable; the posts count by their stamps); and
// a failing board the bot then stopped watching counts only until the
// bot's last failed read.
func TestBlipAndStoppedBotAreNoOutage(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	r.tick()
	r.outage(10*time.Second, 20*time.Second) // one failed read
	r.tick()
	if h := r.health(); h.Outage() || h.Failing() || !h.LastGoodRead.Equal(start.Add(20*time.Second)) {
		t.Errorf("after a blip: %+v", h)
	}
	r.at(100 * time.Second) // the bot was stopped from +20 s to +100 s
	r.tick()
	if g, _, _ := r.game(); g.Phase == "m1-p1" || len(r.threadPosts("could not be read")) != 0 {
		t.Errorf("the bot being stopped extended the deadline: phase %s", g.Phase)
	}

	// Failing at +110 s and +120 s, then stopped until +400 s: the outage
	// is +110..+120 s as far as the bot knows, 10 s: no outage.
	r.outage(110*time.Second, 130*time.Second)
	r.at(400 * time.Second)
	r.tick()
	if h := r.health(); h.Outage() || len(r.threadPosts("could not be read")) != 0 {
		t.Errorf("a stopped bot's unknown time counted as an outage: %+v", h)
	}
}

// TestOutageCountsWhatTheBotSawFail: a closure of 35 s read as a backing-
// off game reads it (+0, +1, +3, +7, +15 and +31 s failed, +63 s good) is a
// blip. The board came back somewhere between +31 s and +63 s; only what
// the bot saw fail counts toward the minute. A run whose failed reads are
// a minute apart counts, up to the good read.
func TestOutageCountsWhatTheBotSawFail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		fails  []time.Duration // after +10 s
		good   time.Duration
		outage bool
	}{
		{"a backoff's reads across 35 s", []time.Duration{0, 1, 3, 7, 15, 31}, 63, false},
		{"failed reads a minute apart", []time.Duration{0, 1, 3, 7, 15, 31, 60}, 63, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newOutageRig(t, storetest.SQLite(t), nil)
			r.tick()
			r.ff.Lock()
			r.ff.Down = true
			r.ff.Unlock()
			for _, d := range tc.fails {
				r.at(10*time.Second + d*time.Second)
				if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, forumtest.ErrDown) {
					t.Fatalf("a read at +%v with the board down: %v", d, err)
				}
			}
			r.ff.Lock()
			r.ff.Down = false
			r.ff.Unlock()
			r.at(10*time.Second + tc.good*time.Second)
			r.tick()
			if h := r.health(); h.Failing() {
				t.Fatalf("after the good read: %+v", h)
			}
			// Proposal 1 was due at +30 s, inside the run of failures: an
			// outage moves it and tells the thread, a blip does neither.
			posts := r.threadPosts("could not be read")
			if got := len(posts) == 1; got != tc.outage || len(posts) > 1 {
				t.Fatalf("%d outage posts, want an outage: %v", len(posts), tc.outage)
			}
			if g, _, _ := r.game(); tc.outage && !strings.Contains(posts[0], "to Sun 1 Mar 2026, 12:01 UTC") {
				t.Errorf("the outage does not run to the good read at +73 s (phase %s):\n%s", g.Phase, posts[0])
			}
		})
	}
}

// TestHealthMessage: what status shows of an error holds no session id or
// URL password, on one line.
func TestHealthMessage(t *testing.T) {
	for _, in := range []string{
		"Get \"http://bot:hunter2@board/viewtopic.php?t=1&sid=0123abcd\": EOF",
		"502\n  Bad   Gateway",
		"index.php?PHPSESSID=zz9&x=1 refused",
	} {
		got := healthMessage(errors.New(in))
		if strings.Contains(got, "hunter2") || strings.Contains(got, "0123abcd") || strings.Contains(got, "zz9") || strings.Contains(got, "\n") {
			t.Errorf("%q → %q", in, got)
		}
	}
	if got := healthMessage(errors.New(strings.Repeat("x", 1000))); len([]rune(got)) != 300 {
		t.Errorf("long error kept %d characters", len([]rune(got)))
	}
}

// TestStatusShowsForumHealth: while the board fails, status says since
// when, the error and the next try; once it can be read again, the last
// good read moves on and the error is gone.
func TestStatusShowsForumHealth(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	r.tick()
	report := func() GameReport {
		t.Helper()
		rs, err := r.m.Report(r.ctx, "res")
		if err != nil || len(rs) != 1 {
			t.Fatalf("report: %v", err)
		}
		return rs[0]
	}
	if h := report().ForumHealth; !h.LastGoodRead.Equal(start) || h.Failing() {
		t.Errorf("after a good read: %+v", h)
	}
	r.outage(10*time.Second, 30*time.Second) // fails at +10 s and +20 s
	rep := report()
	h := rep.ForumHealth
	if !h.Failing() || !h.FailingSince.Equal(start.Add(10*time.Second)) || h.Failures != 2 ||
		!h.NextRetry.Equal(start.Add(30*time.Second)) || !h.LastGoodRead.Equal(start) || !strings.Contains(h.LastError, "connection refused") {
		t.Errorf("while failing: %+v", h)
	}
	text := rep.HealthText()
	for _, want := range []string{"NOT READABLE since Sun 1 Mar 12:00:10 UTC (2 failed reads)", "connection refused", "last good read Sun 1 Mar 12:00:00 UTC", "next try Sun 1 Mar 12:00:30 UTC"} {
		if !strings.Contains(text, want) {
			t.Errorf("status line %q lacks %q", text, want)
		}
	}
	r.tick() // +30 s: readable again
	h = report().ForumHealth
	if h.Failing() || h.LastError != "" || !h.NextRetry.IsZero() || !h.LastGoodRead.Equal(start.Add(30*time.Second)) {
		t.Errorf("after recovery: %+v", h)
	}
	if text := report().HealthText(); text != "read fine, last at Sun 1 Mar 12:00:30 UTC" {
		t.Errorf("after recovery: %q", text)
	}
}
