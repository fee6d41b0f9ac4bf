package moderator

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// madePost is the i-th post (0-based) of a long thread the fake board
// makes up when a page is served (so the thread takes no memory of its
// own: the benchmark's heap is the moderator's): players' chatter a second
// apart from the game's start, Bob's civilisation on the second page.
func madePost(ff *forumtest.Board, i int) forum.Post {
	text := fmt.Sprintf("chatter %d: who do we trust? [quote=Bob]not me[/quote]", i)
	if i == 15 {
		text = "We rise. [b]CIV: Fire[/b]"
	}
	who := []string{"Alice", "Bob"}[i%2]
	st := ff.Stamp(start.Add(time.Duration(i+1) * time.Second))
	return forum.Post{ID: strconv.Itoa(i + 1), Author: forum.Author{Name: who, ID: "u-" + who}, Time: st.Earliest, Stamp: st,
		BodyHTML: bbcode.Render(text, bbcode.Options{})}
}

// newPagedGame is a game in a thread that starts with posts made-up posts,
// 10 a page.
func newPagedGame(t testing.TB, db *store.DB, posts int) (*Moderator, *forumtest.Board, int64) {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	ff.Made, ff.PerPage = posts, 10
	ff.MadePost = func(i int) forum.Post { return madePost(ff, i) }
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 2, "round_minutes": 1e5}, Seed: 1, Start: start}
	g, err := m.Create(ctx, "long", "nations", gc, gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	clk.Advance(time.Duration(posts+1) * time.Second) // the posts are made
	return m, ff, g.ID
}

// pagesPerTick makes each of m's ticks read n pages of a long thread before
// its read slice is up: the fake clock moves on by a slice's nth while
// each page is read (as the board's pace would have it), and then calls
// next, if any, at every crash point.
func pagesPerTick(m *Moderator, n int, next func(point string) error) {
	clk := m.Clock.(*clock.Fake)
	step := readSlice(&loaded{}) / time.Duration(n)
	m.Crash = func(point string) error {
		if point == "after-thread" {
			clk.Advance(step)
		}
		if next != nil {
			return next(point)
		}
		return nil
	}
}

func progressOf(t testing.TB, db *store.DB, id int64) store.ThreadProgress {
	t.Helper()
	var p store.ThreadProgress
	if err := db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		p, _, err = tx.ThreadProgressOf(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return p
}

func messagesOf(t testing.TB, db *store.DB, id int64) []store.Message {
	t.Helper()
	var out []store.Message
	if err := db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Messages(id)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBackfillSpreadsOverPolls: a long first read records the pages one
// tick's read slice allows, one transaction each, and resumes where it
// stopped;
// what it has read is applied (a command on page 2 is accepted at the
// first poll) but nothing after its last post (a PM sent since waits), and
// the progress is recorded for `forumgm status`.
func TestBackfillSpreadsOverPolls(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	m, ff, id := newPagedGame(t, db, 95)
	pagesPerTick(m, 3, nil)
	var logs bytes.Buffer
	m.Log = slog.New(slog.NewTextHandler(&logs, nil))
	ff.PM(ctx, "Alice", "PROSPER")

	if err := m.Tick(ctx, id); err != nil {
		t.Fatal(err)
	}
	if p := progressOf(t, db, id); p != (store.ThreadProgress{Page: 3, Pages: 10}) {
		t.Fatalf("after one poll: %+v, want page 3 of 10", p)
	}
	// The next tick comes at once, not at the next poll.
	acct := gameconfig.ForumConfig{URL: "http://fake/", Bot: "GMbot"}.Account()
	if w := m.pollWait(id, acct, gameconfig.ForumConfig{}); !m.Backfilling(id) || w != 0 {
		t.Errorf("behind: backfilling %v, the next tick in %s; want at once", m.Backfilling(id), w)
	}
	// The log follows the backfill page by page (the first read of a long
	// thread shows its progress in the terminal).
	if !strings.Contains(logs.String(), `msg="thread backfill" game=long page="3 of 10"`) {
		t.Errorf("the first poll logged:\n%s", logs.String())
	}
	reps, err := m.Report(ctx, "long")
	if err != nil || len(reps) != 1 || reps[0].ThreadRead == nil || !strings.HasPrefix(reps[0].ThreadRead.String(), "page 3 of 10") {
		t.Fatalf("status after one poll: %+v, %v", reps, err)
	}
	posts, pm := 0, store.MessageNew
	for _, msg := range messagesOf(t, db, id) {
		if msg.Kind == "post" {
			posts++
		} else {
			pm = msg.Status
		}
	}
	if posts != 30 {
		t.Errorf("%d posts recorded at the first poll, want 30 (3 pages)", posts)
	}
	if pm != store.MessageNew {
		t.Errorf("the PM sent after the thread's last recorded post is %s, want it waiting", pm)
	}
	var civ int
	db.View(ctx, func(tx *store.Tx) error {
		cmds, err := tx.Commands(id, store.CommandFilter{})
		for _, c := range cmds {
			if c.Status == store.CommandAccepted {
				civ++
			}
		}
		return err
	})
	if civ != 1 {
		t.Errorf("%d commands accepted at the first poll, want Bob's CIV on page 2", civ)
	}
	polls := 1
	for progressOf(t, db, id).Behind() {
		if polls++; polls > 10 {
			t.Fatal("the backfill never ends")
		}
		if err := m.Tick(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// 10 pages, 3 a tick, each starting again on the page it ended on.
	if polls != 5 {
		t.Errorf("caught up in %d ticks, want 5", polls)
	}
	if !strings.Contains(logs.String(), `msg="thread backfill" game=long page="9 of 10"`) {
		t.Errorf("the backfill's later polls were not logged:\n%s", logs.String())
	}
	if w := m.pollWait(id, acct, gameconfig.ForumConfig{}); m.Backfilling(id) || w != 30*time.Second {
		t.Errorf("caught up: backfilling %v, the next tick in %s; want at the next poll", m.Backfilling(id), w)
	}
	// An ordinary poll of the last page is no backfill.
	logs.Reset()
	if err := m.Tick(ctx, id); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "thread backfill") {
		t.Errorf("an ordinary poll logged progress:\n%s", logs.String())
	}
	all := messagesOf(t, db, id)
	posts = 0
	for _, msg := range all {
		if msg.Kind == "post" {
			posts++
		} else if msg.Status == store.MessageNew {
			t.Errorf("the PM is still waiting once the thread is read")
		}
	}
	if want := ff.Made + len(ff.Posts()); posts != want { // 95 and the bot's opening post
		t.Errorf("%d posts recorded, want %d", posts, want)
	}
	// Caught up: a poll reads the last page only.
	before := ff.Fetches
	if err := m.Tick(ctx, id); err != nil {
		t.Fatal(err)
	}
	if n := ff.Fetches - before; n != 1 {
		t.Errorf("a caught-up poll read %d pages, want 1", n)
	}
}

// BenchmarkBackfill records a 10,000-post thread (10 posts a page)
// through the moderator's paged read on SQLite, poll after poll until
// caught up, and a 1,000-post one in the same run: "posts/s" is the
// 10,000-post rate, "peak-heap-MiB" the highest live heap (after a
// collection, sampled every fifth page) while reading it, and
// "heap-x-1000" that peak over the 1,000-post thread's (target: at most
// 1.5, the heap flat in the thread's length):
//
//	go test -run '^$' -bench Backfill -benchtime 1x ./moderator
func BenchmarkBackfill(b *testing.B) {
	// run backfills a thread of posts posts and returns its rate and peak
	// live heap; the sampling is not timed.
	run := func(posts int) (rate, peakMiB float64) {
		db := storetest.SQLite(b)
		m, _, id := newPagedGame(b, db, posts)
		var high uint64
		var sampling time.Duration
		pages := 0
		pagesPerTick(m, 50, func(point string) error {
			if point != "after-thread" {
				return nil
			}
			if pages++; pages%5 != 0 {
				return nil
			}
			t := time.Now()
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			high = max(high, ms.HeapAlloc)
			sampling += time.Since(t)
			return nil
		})
		s := time.Now()
		for polls := 0; polls == 0 || progressOf(b, db, id).Behind(); polls++ {
			if err := m.Tick(context.Background(), id); err != nil {
				b.Fatal(err)
			}
		}
		total := time.Since(s) - sampling
		db.Close()
		debug.FreeOSMemory()
		return float64(posts) / total.Seconds(), float64(high) / (1 << 20)
	}
	var rate, peak, small float64
	for i := 0; i < b.N; i++ {
		_, s := run(1000)
		r, p := run(10000)
		rate, peak, small = rate+r, max(peak, p), max(small, s)
	}
	b.ReportMetric(rate/float64(b.N), "posts/s")
	b.ReportMetric(peak, "peak-heap-MiB")
	b.ReportMetric(peak/small, "heap-x-1000")
}

// TestPagedReadSeesEdits: an edit on the page a paged read starts on
// replaces the post's commands, as with a whole read.
func TestPagedReadSeesEdits(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	m, ff, id := newPagedGame(t, db, 0)
	if err := m.Tick(ctx, id); err != nil { // the opening post
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		ff.Post(ctx, "Bob", fmt.Sprintf("chatter %d", i))
	}
	ff.Post(ctx, "Alice", "I pick [b]CIV: Fire[/b]")
	post := ff.LastID()
	if err := m.Tick(ctx, id); err != nil {
		t.Fatal(err)
	}
	ff.Edit(post, "Changed my mind: [b]CIV: Water[/b]")
	if err := m.Tick(ctx, id); err != nil {
		t.Fatal(err)
	}
	statuses := map[string]store.CommandStatus{}
	db.View(ctx, func(tx *store.Tx) error {
		cs, err := tx.Commands(id, store.CommandFilter{Player: "Alice"})
		for _, c := range cs {
			statuses[c.Text] = c.Status
		}
		return err
	})
	if statuses["CIV: Fire"] != store.CommandSuperseded || statuses["CIV: Water"] != store.CommandAccepted {
		t.Errorf("command statuses after an edit: %v", statuses)
	}
}

// TestBackfillResumesAfterACrash: a crash between two pages of a backfill
// loses nothing: the pages recorded stay, the next poll goes on from the
// last of them, and every post is recorded once.
func TestBackfillResumesAfterACrash(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	m, ff, id := newPagedGame(t, db, 55)
	calls := 0
	pagesPerTick(m, 3, func(point string) error {
		if point == "after-thread" {
			if calls++; calls == 2 {
				return ErrCrash
			}
		}
		return nil
	})
	if err := m.Tick(ctx, id); err == nil {
		t.Fatal("the crash did not stop the tick")
	}
	if p := progressOf(t, db, id); p != (store.ThreadProgress{Page: 1, Pages: 6}) {
		t.Fatalf("after the crash: %+v, want page 1 of 6 recorded", p)
	}
	for polls := 0; progressOf(t, db, id).Behind() || polls == 0; polls++ {
		if polls > 5 {
			t.Fatal("the backfill never ends")
		}
		if err := m.Tick(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]int{}
	for _, msg := range messagesOf(t, db, id) {
		if msg.Kind == "post" {
			seen[msg.ForumID]++
		}
	}
	if want := ff.Made + len(ff.Posts()); len(seen) != want {
		t.Errorf("%d posts recorded, want %d", len(seen), want)
	}
}
