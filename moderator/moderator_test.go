package moderator

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
	"github.com/forumgm/forumgm/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// fastGames are the three games with minute-long phases.
var fastGames = []struct {
	kind    string
	players []string
	options map[string]any
	setup   map[string]any
}{
	{"nations", []string{"Alice", "Bob", "Carol", "Dave"}, map[string]any{"rounds": 3, "round_minutes": 5, "break_minutes": 2}, nil},
	{"resistance", []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus"}, map[string]any{"phase_hours": 0.1}, nil},
	{"protest", []string{"Pia", "Quin", "Rob", "Sue"}, map[string]any{"turn_hours": 0.1, "sites": 3},
		map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}}},
}

// input is one move a simulated player made at some iteration.
type input struct {
	Iter    int
	Player  string
	Text    string
	Private bool
}

type outcome struct {
	status rules.Status
	posts  []string
	pms    map[string][]string
	inputs []input
}

// play runs one game to its end on the fake forum. With script == nil the
// simulated players decide (and their moves are recorded); otherwise the
// recorded moves are replayed at the same iterations. crash is the chance of
// a crash at each crash point.
//
// gm, when given, is what the GM does at each iteration before the tick
// (words_test.go: announcements and flavor in flight through the crashes).
func play(t *testing.T, db *store.DB, gi int, script []input, crash float64, seed uint64, gm ...func(ctx context.Context, m *Moderator, name string, st rules.Status, iter int)) outcome {
	t.Helper()
	ctx := context.Background()
	fg := fastGames[gi]
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	rng := rand.New(rand.NewPCG(seed, 99))
	crashes := 0
	opened := false
	mk := func() *Moderator {
		return &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil },
			Crash: func(point string) error {
				// Not before the opening post is up: the game's clock starts
				// then, so a crash delaying it would rightly move every
				// deadline and the runs could not be compared.
				if crash > 0 && opened && rng.Float64() < crash {
					crashes++
					crashedAt.Store(point, true)
					return ErrCrash
				}
				return nil
			}}
	}
	m := mk()
	gc := gameconfig.GameConfig{Players: fg.players, Options: fg.options, Setup: fg.setup, Seed: 11, Start: start, Instance: "t1"}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
	var ps []store.Player
	for _, p := range fg.players {
		ps = append(ps, store.Player{Slot: p, ForumName: p})
	}
	g, err := m.Create(ctx, "g-"+fg.kind, fg.kind, gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := rules.Lookup(fg.kind)
	table := &simplayers.Table{Game: eng, Seed: 5}
	var rec []input
	si := 0
	for iter := 0; iter < 3000; iter++ {
		var row *store.Game
		db.View(ctx, func(tx *store.Tx) error { row, err = tx.GameByID(g.ID); return err })
		st, err := eng.Decode(row.State)
		if err != nil {
			t.Fatal(err)
		}
		if script == nil {
			mv, err := table.Act(ctx, st, recorder{ff, &rec, iter})
			if err != nil {
				t.Fatal(err)
			}
			_ = mv
		} else {
			for ; si < len(script) && script[si].Iter == iter; si++ {
				in := script[si]
				if in.Private {
					ff.PM(ctx, in.Player, in.Text)
				} else {
					ff.Post(ctx, in.Player, in.Text)
				}
			}
		}
		for _, f := range gm {
			f(ctx, m, "g-"+fg.kind, eng.Status(st), iter)
		}
		if crash > 0 && opened && rng.Float64() < crash/3 {
			ff.Lose = 1
		}
		if err := m.Tick(ctx, g.ID); err != nil {
			if !errors.Is(err, ErrCrash) && !strings.Contains(err.Error(), "timeout") {
				t.Fatalf("tick %d: %v", iter, err)
			}
			m = mk() // the process died; a new one starts from the database
		}
		opened = len(ff.BotPosts()) > 0
		db.View(ctx, func(tx *store.Tx) error { row, err = tx.GameByID(g.ID); return err })
		var pending *store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { pending, err = tx.NextOutbox(g.ID, start.AddDate(1, 0, 0)); return err })
		if row.Status == Finished && pending == nil && (script == nil || si >= len(script)) {
			st, _ := eng.Decode(row.State)
			if crash > 0 {
				t.Logf("%s finished after %d iterations and %d crashes", fg.kind, iter, crashes)
			}
			return outcome{status: eng.Status(st), posts: ff.BotPosts(), pms: ff.SentTo(), inputs: rec}
		}
		clk.Advance(time.Minute)
	}
	t.Fatalf("%s did not finish: %s", fg.kind, ff)
	return outcome{}
}

// withoutLapsing is each player's PMs without those that lapse when their
// phase closes first (reminders: their marker ends in between.LapseSuffix, as
// closeOff tells them).
func withoutLapsing(pms map[string][]string) map[string][]string {
	out := map[string][]string{}
	for k, bodies := range pms {
		for _, b := range bodies {
			if !slices.ContainsFunc(forum.Markers(b), func(m string) bool { return strings.HasSuffix(m, between.LapseSuffix) }) {
				out[k] = append(out[k], b)
			}
		}
	}
	return out
}

// crashedAt records the crash points the crash test has hit.
var crashedAt sync.Map

// crashPoints are all the places the moderator can be killed in a test.
var crashPoints = []string{"after-read", "after-thread", "after-message", "in-apply", "in-resolve", "in-between", "before-send", "after-send"}

type recorder struct {
	ff   *forumtest.Board
	rec  *[]input
	iter int
}

func (r recorder) Post(ctx context.Context, p, text string) error {
	*r.rec = append(*r.rec, input{r.iter, p, text, false})
	return r.ff.Post(ctx, p, text)
}
func (r recorder) PM(ctx context.Context, p, text string) error {
	*r.rec = append(*r.rec, input{r.iter, p, text, true})
	return r.ff.PM(ctx, p, text)
}

// TestGamesToTheEndSurvivingCrashes plays each game to its end, then plays
// the same moves again while the moderator crashes at random points (and
// sends whose answer is lost): the thread and the PMs must come out exactly
// the same — nothing sent twice, nothing missing — and so must the result.
func TestGamesToTheEndSurvivingCrashes(t *testing.T) {
	for gi, fg := range fastGames {
		t.Run(fg.kind, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				clean := play(t, db, gi, nil, 0, 1)
				if !clean.status.Finished || len(clean.posts) < 3 {
					t.Fatalf("clean run: finished=%v posts=%d", clean.status.Finished, len(clean.posts))
				}
				checkNoDuplicates(t, clean)
				for _, seed := range []uint64{2, 3} {
					db2 := storetest.SQLite(t)
					if db.Driver() == "postgres" {
						db2 = storetest.Postgres(t)
					}
					crashed := play(t, db2, gi, clean.inputs, 0.12, seed)
					checkNoDuplicates(t, crashed)
					if !reflect.DeepEqual(strip(clean.status), strip(crashed.status)) {
						t.Errorf("seed %d: final status differs:\nclean   %+v\ncrashed %+v", seed, clean.status, crashed.status)
					}
					if !reflect.DeepEqual(clean.posts, crashed.posts) {
						t.Errorf("seed %d: thread differs: %d clean posts, %d with crashes", seed, len(clean.posts), len(crashed.posts))
					}
					// A reminder goes only while its phase is open: a crash
					// that delays the tick at its time may let the phase close
					// first (it lapses), or a delayed close may give it the
					// time. Everything else comes out the same.
					cleanPMs, crashedPMs := withoutLapsing(clean.pms), withoutLapsing(crashed.pms)
					if !reflect.DeepEqual(cleanPMs, crashedPMs) {
						for k := range cleanPMs {
							if !reflect.DeepEqual(cleanPMs[k], crashedPMs[k]) {
								t.Errorf("seed %d: PMs to %s differ:\nclean   %q\ncrashed %q", seed, k, cleanPMs[k], crashedPMs[k])
							}
						}
					}
				}
			})
		})
	}
}

// TestMarkersTellGamesApart: a game re-created under the same name gets
// markers of its own, so it never takes its predecessor's posts for its own.
func TestMarkersTellGamesApart(t *testing.T) {
	ctx := context.Background()
	var markers []string
	for i := 0; i < 2; i++ {
		db := storetest.SQLite(t)
		m := &Moderator{DB: db, Clock: clock.NewFake(start)}
		gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: start}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
		g, err := m.Create(ctx, "same-name", "nations", gc, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		db.View(ctx, func(tx *store.Tx) error {
			items, _ := tx.Outbox(g.ID)
			markers = append(markers, items[0].Marker)
			return nil
		})
	}
	if markers[0] == markers[1] || !strings.HasPrefix(markers[0], "same-name.") {
		t.Errorf("markers %q", markers)
	}
}

func TestCrashPointsAllHit(t *testing.T) {
	// Runs after TestGamesToTheEndSurvivingCrashes (tests run in order).
	hit := false
	crashedAt.Range(func(_, _ any) bool { hit = true; return false })
	if !hit {
		t.Skip("needs TestGamesToTheEndSurvivingCrashes to run first")
	}
	for _, p := range crashPoints {
		if _, ok := crashedAt.Load(p); !ok {
			t.Errorf("no crash was simulated at %q", p)
		}
	}
}

func strip(s rules.Status) string {
	s.Deadline = time.Time{}
	b, _ := json.Marshal(s)
	return string(b)
}

func checkNoDuplicates(t *testing.T, o outcome) {
	t.Helper()
	seen := map[string]bool{}
	all := append([]string(nil), o.posts...)
	for _, l := range o.pms {
		all = append(all, l...)
	}
	for _, b := range all {
		i := strings.Index(b, "forumgm·")
		if i < 0 {
			t.Fatalf("a bot message without a marker: %q", b)
		}
		k := b[i:]
		if seen[k] {
			t.Fatalf("sent twice: %s", k)
		}
		seen[k] = true
	}
}

func TestOrderMessages(t *testing.T) {
	at := func(s string) time.Time { v, _ := time.Parse(time.TimeOnly, s); return v }
	exact := func(s string) forum.Stamp { return forum.ExactStamp(at(s), s) }
	within := func(from, to string) forum.Stamp {
		return forum.Stamp{Earliest: at(from), Latest: at(to), Precision: forum.PrecisionMinute}
	}
	msg := func(kind forum.MessageKind, id string, st forum.Stamp, seen string) store.Message {
		return store.Message{Kind: kind, ForumID: id, Stamp: st, FirstSeen: at(seen)}
	}
	tests := []struct {
		name string
		in   []store.Message
		want string
	}{
		{"posts by id, whatever their stamps say",
			[]store.Message{msg("post", "12", within("12:00:00", "12:01:00"), "12:01:00"), msg("post", "9", within("12:00:00", "12:01:00"), "12:01:00")}, "post 9, post 12"},
		{"a merged part right after its post",
			[]store.Message{msg("post", "13", exact("12:00:30"), "12:01:00"), msg("post", "12+1", within("12:00:10", "12:01:00"), "12:01:00"), msg("post", "12", exact("12:00:05"), "12:00:10")}, "post 12, post 12+1, post 13"},
		{"PMs by id",
			[]store.Message{msg("pm", "31", exact("12:00:00"), "12:01:00"), msg("pm", "30", exact("12:00:40"), "12:01:00")}, "pm 30, pm 31"},
		{"a PM surely before a post goes first",
			[]store.Message{msg("post", "5", exact("12:00:30"), "12:01:00"), msg("pm", "30", within("12:00:00", "12:00:20"), "12:01:00")}, "pm 30, post 5"},
		{"overlapping, seen in the same read: the posts first",
			[]store.Message{msg("pm", "30", within("12:00:00", "12:00:40"), "12:00:40"), msg("post", "5", exact("12:00:30"), "12:00:40")}, "post 5, pm 30"},
		{"overlapping, the PM seen in an earlier read: the PM first",
			[]store.Message{msg("pm", "30", within("12:00:00", "12:00:20"), "12:00:20"), msg("post", "5", within("12:00:00", "12:00:40"), "12:00:40")}, "pm 30, post 5"},
	}
	for _, tc := range tests {
		var got []string
		for _, m := range orderMessages(tc.in) {
			got = append(got, string(m.Kind)+" "+m.ForumID)
		}
		if g := strings.Join(got, ", "); g != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, g, tc.want)
		}
	}
}
