package moderator

import (
	"context"
	"encoding/json"
	"github.com/forumgm/forumgm/journal"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// londonMonThu is "21:00 Europe/London, Mon and Thu, at least 24 hours".
func londonMonThu() *gameconfig.Deadlines {
	return &gameconfig.Deadlines{At: "21:00", Zone: "Europe/London", Days: []string{"Mon", "Thu"}, Minimum: "24h"}
}

// TestScheduleOnForumsim plays Nations on forumsim, through the real
// connection, on the simulated clock, with the deadlines a GM set:
// "21:00 Europe/London, Mon and Thu, at least 24 hours", on a board whose
// bot account reads times in New York. Each round closes at its slot, in
// London time whatever the daylight-saving state of either city: across
// London's change to summer time (29 March 2026, a Thursday-to-Monday gap
// of 71 hours) and back (25 October, 73 hours), with New York changing on
// other dates (8 March, 1 November). Every post states the deadline in
// New York time and in UTC; the posts are compared with
// testdata/golden/schedule-{spring,autumn}.txt. The state rebuilt from the
// journal has the same deadlines.
func TestScheduleOnForumsim(t *testing.T) {
	for _, c := range []struct {
		name  string
		start time.Time
		want  []string // each round's deadline, UTC
	}{
		// Mon 23 Mar 22:00 GMT: after Monday's slot, so Thursday's.
		{"spring", time.Date(2026, 3, 23, 22, 0, 0, 0, time.UTC), []string{
			"2026-03-26T21:00:00Z", // Thu 21:00 GMT
			"2026-03-30T20:00:00Z", // Mon 21:00 BST: the clocks went forward
			"2026-04-02T20:00:00Z", // Thu 21:00 BST
		}},
		// Thu 22 Oct 22:00 BST (21:00 UTC): an hour after Thursday's slot.
		{"autumn", time.Date(2026, 10, 22, 21, 0, 0, 0, time.UTC), []string{
			"2026-10-26T21:00:00Z", // Mon 21:00 GMT: the clocks went back
			"2026-10-29T21:00:00Z", // Thu 21:00 GMT
			"2026-11-02T21:00:00Z", // Mon 21:00 GMT; New York is on EST now
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := storetest.SQLite(t)
			clk := clock.NewFake(c.start)
			th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
			m := simModerator(db, clk, 0)
			fc := th.Forum(t, "FORUMGM_SCHEDULE_TEST_PW")
			fc.TimeZone = "America/New_York"
			gc := th.Nations(c.start, 3, 10, 0)
			gc.Deadlines = londonMonThu()
			g := simtest.Start(t, m, "sched", "nations", gc, fc, th.Roster())
			g.Tick()
			for i, want := range c.want {
				rep := reportOf(t, m, "sched")
				if got := rep.Rules.Deadline.UTC().Format(time.RFC3339); got != want {
					t.Fatalf("round %d: deadline %s, want %s", i+1, got, want)
				}
				// Orders in, then the clock to a minute past the deadline.
				th.Sim.SendPM(th.Players["Alice"], []int{th.Bot}, "orders", "PROSPER")
				th.Sim.SendPM(th.Players["Bob"], []int{th.Bot}, "orders", "DEFEND")
				clk.Set(rep.Rules.Deadline.Add(-time.Hour))
				g.Tick()
				if ph := reportOf(t, m, "sched").Rules.Phase; ph != rep.Rules.Phase {
					t.Fatalf("round %d closed before its deadline (now %s)", i+1, ph)
				}
				clk.Set(rep.Rules.Deadline.Add(time.Minute))
				g.Tick()
				g.Tick()
			}
			if rep := reportOf(t, m, "sched"); !rep.Rules.Finished {
				t.Fatalf("the game is at %s, want it over after three rounds", rep.Rules.Phase)
			}
			posts := postBodies(t, db, g.ID)
			for i, want := range c.want {
				dl, _ := time.Parse(time.RFC3339, want)
				line := rules.WhenUTC(dl, mustZone(t, "America/New_York"))
				if !strings.Contains(posts, line) {
					t.Errorf("round %d: no post states its deadline as %q", i+1, line)
				}
			}
			checkGolden(t, "schedule-"+c.name+".txt", posts)
			checkRebuild(t, db, g.ID)
		})
	}
}

func mustZone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// postBodies are the bodies of a game's thread posts in its outbox, in
// order, as one text.
func postBodies(t testing.TB, db *store.DB, id int64) string {
	t.Helper()
	var posts []string
	for _, it := range simtest.Outbox(t, db, id) {
		if it.Kind == "post" {
			posts = append(posts, it.Body)
		}
	}
	return strings.Join(posts, "\n\n======== next post ========\n\n") + "\n"
}

// checkGolden compares got with testdata/golden/name (-update writes it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", "golden", name)
	if *update {
		os.MkdirAll(filepath.Dir(golden), 0o755)
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("the posts differ from %s:\n%s", golden, got)
	}
}

// checkRebuild: the state replayed from the seed and the journal is the
// stored one.
func checkRebuild(t testing.TB, db *store.DB, id int64) {
	t.Helper()
	var g *store.Game
	var j []journal.Entry
	db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		if g, err = tx.GameByID(id); err != nil {
			return err
		}
		j, err = tx.Journal(id)
		return err
	})
	l, err := decodeGame(g)
	if err != nil {
		t.Fatal(err)
	}
	st, err := journal.Replay(l.game, l.cfg.Rules(), j, journal.Strict)
	if err != nil {
		t.Fatal(err)
	}
	var live, rebuilt any
	json.Unmarshal(g.State, &live)
	json.Unmarshal(mustJSON(st), &rebuilt)
	if a, b := mustJSONString(live), mustJSONString(rebuilt); a != b {
		t.Errorf("the state rebuilt from the journal differs from the stored one:\nstored  %s\nrebuilt %s", a, b)
	}
}
