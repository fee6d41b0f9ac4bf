package forumconn_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
)

// Games on one board and bot account share one session: one login, one
// inbox read for the games polling together, each PM opened once, and one
// pacer for the board (the slowest requests_per_second of its games).
func TestSessionsShared(t *testing.T) {
	t.Setenv("FORUMGM_SHARED_PW", "s3cret")
	sim := forumsim.New(forumsim.Options{Clock: clock.Real{}})
	bot, _ := sim.AddUser("GMBot", "s3cret", true)
	ann, _ := sim.AddUser("Ann", "a", false)
	f := sim.AddForum("Games", "")
	var threads []string
	for _, title := range []string{"Game A", "Game B", "Game C"} {
		id, _, err := sim.AddTopic(f, bot, title, "Welcome.")
		if err != nil {
			t.Fatal(err)
		}
		threads = append(threads, itoa(id))
	}
	if _, err := sim.SendPM(ann, []int{bot}, "[a] orders", "PROSPER"); err != nil {
		t.Fatal(err)
	}
	var logins, inboxReads, pmOpens atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.RawQuery
		switch {
		case r.Method == http.MethodPost && strings.Contains(q, "mode=login"):
			logins.Add(1)
		case strings.Contains(q, "folder=inbox"):
			inboxReads.Add(1)
		case strings.Contains(q, "mode=view"):
			pmOpens.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()

	clk := &clock.Skew{}
	ss := &forumconn.Sessions{Clock: clk, Version: "test", InboxAge: time.Minute}
	var conns []*forumconn.Conn
	for i, th := range threads {
		rps := 50.0
		if i == 1 {
			rps = 20 // the most cautious game sets the board's pace
		}
		c, err := ss.Connect(siteOf(t, gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: th, Bot: "GMBot",
			PasswordEnv: "FORUMGM_SHARED_PW", RequestsPerSecond: rps}))
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	if ss.Accounts() != 1 || conns[0].Session != conns[2].Session {
		t.Fatalf("%d sessions for one account", ss.Accounts())
	}
	pc := ss.Pacer(srv.URL)
	if pc.Interval() != 50*time.Millisecond {
		t.Errorf("board interval %s, want the slowest game's 50ms", pc.Interval())
	}
	ctx := context.Background()
	// Every game reads its thread (logging in once), then all poll the
	// inbox together while the board's pacer holds requests back: one list.
	for i, c := range conns {
		if err := c.ReadThread(ctx, threads[i], nil, func(forum.ThreadPage) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	pc.Hold(time.Now().Add(100 * time.Millisecond))
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			box, err := c.NewPMs(ctx, nil, nil)
			if err != nil || len(box.PMs) != 1 || box.PMs[0].Subject != "[a] orders" {
				t.Errorf("NewPMs: %d PMs, %v", len(box.PMs), err)
			}
		}()
	}
	wg.Wait()
	if n := logins.Load(); n != 1 {
		t.Errorf("%d logins for three games on one account", n)
	}
	if n := inboxReads.Load(); n != 1 {
		t.Errorf("%d inbox reads for three games polling together", n)
	}
	if n := pmOpens.Load(); n != 1 {
		t.Errorf("one PM opened %d times", n)
	}
	// A game polling later takes that list while it is at most InboxAge
	// old, and is told when it was asked for (its read is complete up to
	// then only).
	before := clk.Now()
	box, err := conns[1].NewPMs(ctx, nil, nil)
	if err != nil || len(box.PMs) != 1 {
		t.Fatalf("NewPMs within InboxAge: %d PMs, %v", len(box.PMs), err)
	}
	if n := inboxReads.Load(); n != 1 || !box.ListedAt.Before(before) {
		t.Errorf("NewPMs within InboxAge: %d inbox reads (want 1), list of %s (want the earlier one)", n, box.ListedAt)
	}
	// Once the list is older than that, a game's poll reads the inbox
	// again: its read must hold every PM that arrived before it began.
	clk.Advance(time.Minute + time.Second)
	before = clk.Now()
	if box, err = conns[0].NewPMs(ctx, nil, nil); err != nil {
		t.Fatal(err)
	}
	if n := inboxReads.Load(); n != 2 || box.ListedAt.Before(before) {
		t.Errorf("NewPMs past InboxAge: %d inbox reads (want 2), list of %s (want one asked for after %s)", n, box.ListedAt, before)
	}
}

// siteOf is the board of forum settings, as a loaded game has it.
func siteOf(t testing.TB, fc gameconfig.ForumConfig) *gameconfig.Site {
	t.Helper()
	site, err := fc.Site()
	if err != nil {
		t.Fatal(err)
	}
	return site
}

// NewPMs with a skip leaves out the PMs whose inbox list entry shows a sender
// skip refuses, without opening them, and its cursor passes them: the next
// read does not see them again. The others are read, in order.
func TestNewPMsSkipsUnopened(t *testing.T) {
	t.Setenv("FORUMGM_SKIP_PW", "s3cret")
	sim := forumsim.New(forumsim.Options{Clock: clock.Real{}})
	bot, _ := sim.AddUser("GMBot", "s3cret", true)
	ann, _ := sim.AddUser("Ann", "a", false)
	ben, _ := sim.AddUser("[b]Ben[/b]", "b", false)
	f := sim.AddForum("Games", "")
	th, _, err := sim.AddTopic(f, bot, "Game", "Welcome.")
	if err != nil {
		t.Fatal(err)
	}
	for i, from := range []int{ann, ben, ann, ben} {
		if _, err := sim.SendPM(from, []int{bot}, "orders "+itoa(i), "PROSPER"); err != nil {
			t.Fatal(err)
		}
	}
	var opens atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.RawQuery, "mode=view") {
			opens.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "test"}
	c, err := ss.Connect(siteOf(t, gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: itoa(th), Bot: "GMBot",
		PasswordEnv: "FORUMGM_SKIP_PW", RequestsPerSecond: 50}))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var asked []string
	box, err := c.NewPMs(ctx, nil, func(from forum.Author) bool {
		asked = append(asked, from.Name)
		return from.Name == "Ann"
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pm := range box.PMs {
		got = append(got, pm.Subject+" from "+pm.From.Name)
	}
	if want := "orders 1 from [b]Ben[/b],orders 3 from [b]Ben[/b]"; strings.Join(got, ",") != want {
		t.Errorf("read %q, want %q", got, want)
	}
	if strings.Join(asked, ",") != "Ann,[b]Ben[/b],Ann,[b]Ben[/b]" {
		t.Errorf("skip was asked of %q: every PM's listed sender, in order", asked)
	}
	if n := opens.Load(); n != 2 {
		t.Errorf("%d PMs opened, want Ben's 2", n)
	}
	again, err := c.NewPMs(ctx, box.Next, nil)
	if err != nil || len(again.PMs) != 0 {
		t.Errorf("after the cursor: %d PMs, %v; want none", len(again.PMs), err)
	}
}
