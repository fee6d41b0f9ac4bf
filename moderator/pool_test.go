package moderator

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// The pool runs at most Workers ticks at once, however many games ask.
func TestPoolBoundsTicks(t *testing.T) {
	p := &Pool{Workers: 3}
	var now, peak atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.do(context.Background(), tickRank(i%3), func() error {
				n := now.Add(1)
				for {
					old := peak.Load()
					if n <= old || peak.CompareAndSwap(old, n) {
						break
					}
				}
				time.Sleep(time.Millisecond)
				now.Add(-1)
				return nil
			})
		}()
	}
	wg.Wait()
	if got := peak.Load(); got != 3 {
		t.Errorf("peak %d ticks at once, want 3", got)
	}
}

// Games starting together get first ticks Stagger apart; a game starting
// alone later goes at once.
func TestPoolStaggersStart(t *testing.T) {
	p := &Pool{Stagger: 100 * time.Millisecond}
	var got []time.Duration
	for i := 0; i < 4; i++ {
		got = append(got, p.firstWait(start))
	}
	want := []time.Duration{0, 100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("game %d waits %s, want %s", i, got[i], want[i])
		}
	}
	if w := p.firstWait(start.Add(time.Hour)); w != 0 {
		t.Errorf("a game starting an hour later waits %s", w)
	}
	if w := (*Pool)(nil).firstWait(start); w != 0 {
		t.Errorf("no pool: waits %s", w)
	}
}

// The games of one board and bot account poll on one cycle, whenever each
// finished its last tick; another account keeps its own.
func TestPoolSharedCycle(t *testing.T) {
	p := &Pool{}
	poll := 10 * time.Second
	a := gameconfig.ForumConfig{URL: "http://board/", Bot: "GMBot"}.Account()
	a2 := gameconfig.ForumConfig{URL: "http://BOARD", Bot: "gmbot"}.Account()
	b := gameconfig.ForumConfig{URL: "http://board/", Bot: "Other"}.Account()
	if a != a2 || a == b {
		t.Fatalf("accounts %v %v %v", a, a2, b)
	}
	for _, tc := range []struct {
		key  forum.Account
		at   time.Duration // since start
		want time.Duration
	}{
		{a, 0, 10 * time.Second}, // the cycle starts with the first game
		{a, 3 * time.Second, 7 * time.Second},
		{a, 9500 * time.Millisecond, 10500 * time.Millisecond}, // just before a turn: that turn is too close, the next
		{a, 12 * time.Second, 8 * time.Second},
		{b, 4 * time.Second, 10 * time.Second}, // its own cycle
	} {
		if got := p.nextPoll(tc.key, poll, start.Add(tc.at)); got != tc.want {
			t.Errorf("at +%s: next poll in %s, want %s", tc.at, got, tc.want)
		}
	}
	if got := (*Pool)(nil).nextPoll(a, poll, start); got != poll {
		t.Errorf("no pool: %s", got)
	}
}

// A read whose inbox list was asked for before the deadline is complete
// only up to then: the deadline waits for a list asked for after it, and
// the PMs are stamped no later than their list.
func TestSharedInboxListHoldsDeadline(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	lf := forumtest.New(clk) // its inbox list asked for at a set time, as a list shared by the games of one account is
	m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return lf, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 1, "round_minutes": 10}, Seed: 1, Start: start}
	g, err := m.Create(ctx, "listed", "nations", gc, gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	status := func() *store.Game {
		var row *store.Game
		db.View(ctx, func(tx *store.Tx) error { row, err = tx.GameByID(g.ID); return err })
		return row
	}
	lf.ListedAt = clk.Now()
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	deadline := status().Deadline
	if deadline.IsZero() {
		t.Fatal("no deadline")
	}
	lf.PMAt("Alice", "PROSPER", deadline.Add(-30*time.Second))
	clk.Set(deadline.Add(5 * time.Second))
	lf.ListedAt = deadline.Add(-time.Minute)
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if row := status(); row.Status != Running || !row.Deadline.Equal(deadline) {
		t.Fatalf("resolved on a list from before the deadline: %s, deadline %s", row.Status, row.Deadline)
	}
	var pm *store.Message
	db.View(ctx, func(tx *store.Tx) error { pm, err = tx.MessageByForumID(g.ID, "pm", lf.Inbox()[0].ID); return err })
	if err != nil || !pm.FirstSeen.Equal(lf.ListedAt) {
		t.Errorf("PM first seen %v (%v), want its list's time %s", pm, err, lf.ListedAt)
	}
	lf.ListedAt = deadline.Add(time.Second)
	if err := m.Tick(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if row := status(); row.Status == Running && row.Deadline.Equal(deadline) {
		t.Errorf("not resolved once a list from after the deadline was in: %s, deadline %s", row.Status, row.Deadline)
	}
}

// TestPoolRunningGamesFirst: ticks of games whose opening post is not up
// never take the last worker, so a running game's tick starts at once
// while they hold the others; and when a worker frees, a waiting running
// game's tick goes before opening games' ticks that asked earlier.
func TestPoolRunningGamesFirst(t *testing.T) {
	p := &Pool{Workers: 3}
	ctx := context.Background()
	var mu sync.Mutex
	var order []string
	hold := make(chan struct{})
	started := make(chan string, 10)
	run := func(name string, opening bool, block bool) {
		rank := tickRunning
		if opening {
			rank = tickOpening
		}
		go p.do(ctx, rank, func() error {
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			started <- name
			if block {
				<-hold
			}
			return nil
		})
	}
	wait := func(want string) {
		t.Helper()
		select {
		case got := <-started:
			if got != want {
				t.Fatalf("%s started, want %s", got, want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s did not start", want)
		}
	}
	run("opening 1", true, true)
	wait("opening 1")
	run("opening 2", true, true)
	wait("opening 2")
	run("opening 3", true, true) // the last worker is not for it
	time.Sleep(20 * time.Millisecond)
	run("running 1", false, true)
	wait("running 1") // at once, beside the two
	run("running 2", false, false)
	time.Sleep(20 * time.Millisecond)
	select {
	case got := <-started:
		t.Fatalf("%s started with every worker busy", got)
	default:
	}
	hold <- struct{}{} // one tick ends: the running game's goes first
	wait("running 2")
	close(hold)
	wait("opening 3")
}

// TestReadRank: a running game whose opening post is not up reads its
// thread after every send on its account's session (forum.LaterRank below
// the chores); once the post is up, and for a game signing up or paused,
// its reads are reads (first).
func TestReadRank(t *testing.T) {
	bg := context.Background()
	for _, c := range []struct {
		name    string
		status  store.GameStatus
		cfg     gameconfig.GameConfig
		later   bool
		opening bool
	}{
		{"running, opening not up", Running, gameconfig.GameConfig{Players: []string{"Alice"}}, true, true},
		{"running, opening up", Running, gameconfig.GameConfig{Players: []string{"Alice"}, OpeningPost: "12"}, false, false},
		{"signing up", Signups, gameconfig.GameConfig{Signups: &gameconfig.Signups{}}, false, false},
		{"paused", Paused, gameconfig.GameConfig{Players: []string{"Alice"}}, false, false},
	} {
		l := &loaded{row: &store.Game{Status: c.status}, cfg: c.cfg}
		rank, later := forum.LaterOf(readRank(bg, l))
		if later != c.later || later && rank <= int(store.SendChores) || awaitingOpening(l) != c.opening {
			t.Errorf("%s: later %v at rank %d, awaiting its opening %v; want later %v below the chores, awaiting %v", c.name, later, rank, awaitingOpening(l), c.later, c.opening)
		}
	}
}

// TestSleepOrHail: a hail ends a game's wait between polls at once (one
// that came before the wait, too) and says so, unless the game's own read
// had an inbox list as new as the hail's; a wait with no hail runs its
// length; a cancelled context ends it unhailed.
func TestSleepOrHail(t *testing.T) {
	m := &Moderator{Clock: clock.Real{}}
	wake, drop := m.hailable(7)
	defer drop()
	ctx := context.Background()
	at := time.Now()
	go func() { time.Sleep(20 * time.Millisecond); m.hail([]int64{7}, at) }()
	t0 := time.Now()
	if hailed, err := m.sleepOrHail(ctx, time.Minute, wake); !hailed || err != nil || time.Since(t0) > 10*time.Second {
		t.Errorf("hailed in a wait: %v, %v after %v; want hailed at once", hailed, err, time.Since(t0))
	}
	m.hail([]int64{7, 8}, at) // 8: no worker here
	m.hail([]int64{7}, at)    // one wake-up for both
	if hailed, err := m.sleepOrHail(ctx, time.Minute, wake); !hailed || err != nil {
		t.Errorf("hailed before the wait: %v, %v", hailed, err)
	}
	// A game that has read a list as new as the hail's is not woken.
	m.noteListRead(7, at.Add(time.Second))
	m.hail([]int64{7}, at)
	m.hail([]int64{7}, at.Add(time.Second))
	select {
	case <-wake:
		t.Error("hailed for a list no newer than the one its read had")
	default:
	}
	m.hail([]int64{7}, at.Add(2*time.Second))
	if hailed, err := m.sleepOrHail(ctx, time.Minute, wake); !hailed || err != nil {
		t.Errorf("hailed for a newer list: %v, %v", hailed, err)
	}
	if hailed, err := m.sleepOrHail(ctx, 30*time.Millisecond, wake); hailed || err != nil {
		t.Errorf("a wait with no hail: %v, %v; want its whole length, unhailed", hailed, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if hailed, err := m.sleepOrHail(cctx, time.Minute, wake); hailed || err == nil {
		t.Errorf("cancelled: %v, %v", hailed, err)
	}
}

// TestHailedTickReadsTheInboxAlone: a hailed tick (a PM of one of the
// game's players waits in the account's inbox) reads the inbox alone while
// the thread's last full read is younger than the game's poll, so on a
// board without a change signal it costs no thread read; once the poll
// period has passed, or in a deadline's last stretch, it reads the thread
// as any tick does.
func TestHailedTickReadsTheInboxAlone(t *testing.T) {
	r := newFiveRig(t, storetest.SQLite(t), func(gc *gameconfig.GameConfig, fc *gameconfig.ForumConfig) {
		gc.Options["phase_hours"] = 1.0 // the deadline's last stretch (5 min) far off
	})
	threadReads := func() int { r.ff.Lock(); defer r.ff.Unlock(); return len(r.ff.Reads) }
	hailedTick := func() {
		t.Helper()
		if err := r.m.Tick(withHailed(r.ctx), r.id); err != nil {
			t.Fatal(err)
		}
	}
	pmsOf := func(who string) int {
		var ms []store.Message
		r.db.View(r.ctx, func(tx *store.Tx) error { var err error; ms, err = tx.Messages(r.id); return err })
		n := 0
		for _, m := range ms {
			if m.Kind == forum.KindPM && m.AuthorName == who {
				n++
			}
		}
		return n
	}
	r.tick() // the opening post; a full read at the start
	n := threadReads()
	r.at(3 * time.Second)
	r.ff.PMAt("Ben", "[b]APPROVE[/b]", r.clk.Now())
	hailedTick()
	if got := threadReads(); got != n {
		t.Errorf("a hailed tick 3 s after a full read read the thread (%d reads, want %d)", got, n)
	}
	if pmsOf("Ben") != 1 {
		t.Fatal("the hailed tick did not read Ben's PM")
	}
	r.at(11 * time.Second) // past the 10 s poll since the full read
	hailedTick()
	if got := threadReads(); got != n+1 {
		t.Errorf("a hailed tick 11 s after a full read: %d thread reads, want %d", got, n+1)
	}
	r.at(12 * time.Second)
	r.tick()
	if got := threadReads(); got != n+2 {
		t.Errorf("a tick not hailed: %d thread reads, want %d", got, n+2)
	}
	g, _, _ := r.game()
	r.clk.Set(g.Deadline.Add(-time.Minute)) // the last stretch
	r.tick()
	n = threadReads()
	r.clk.Advance(time.Second)
	hailedTick()
	if got := threadReads(); got != n+1 {
		t.Errorf("a hailed tick in the deadline's last stretch: %d thread reads, want %d", got, n+1)
	}
}
