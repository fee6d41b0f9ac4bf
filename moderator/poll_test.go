package moderator

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestPollPeriod: the period follows the game within its bounds, always
// poll_seconds halved or doubled: faster toward a deadline (about ten polls
// in its last stretch), slower after a quiet while, fixed without bounds.
func TestPollPeriod(t *testing.T) {
	now := start.Add(time.Hour)
	s := func(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }
	wide := gameconfig.ForumConfig{PollSeconds: 30, PollMinSeconds: 5, PollMaxSeconds: 240}
	for _, c := range []struct {
		name     string
		fc       gameconfig.ForumConfig
		quiet    time.Duration // since the last news
		deadline time.Duration // from now (0: none)
		want     time.Duration
	}{
		{"busy", wide, 0, 0, s(30)},
		{"quiet for 2 min", wide, 2 * time.Minute, 0, s(30)},
		{"quiet for 4 min", wide, 4 * time.Minute, 0, s(60)},
		{"quiet for 10 min", wide, 10 * time.Minute, 0, s(120)},
		{"quiet for a day", wide, 24 * time.Hour, 0, s(240)},
		{"deadline in 10 min", wide, 0, 10 * time.Minute, s(30)},
		{"deadline in 2 min", wide, 0, 2 * time.Minute, s(7.5)},
		{"deadline in 30 s", wide, 0, 30 * time.Second, s(7.5)}, // 3.75 s would be under the 5 s bound
		{"quiet but the deadline near", wide, 24 * time.Hour, 4 * time.Minute, s(15)},
		{"deadline passed", wide, 0, -time.Minute, s(30)},
		{"no bounds: poll_seconds", gameconfig.ForumConfig{PollSeconds: 30}, 24 * time.Hour, 30 * time.Second, s(30)},
		{"default", gameconfig.ForumConfig{}, time.Hour, 0, s(30)},
		{"max not a doubling", gameconfig.ForumConfig{PollSeconds: 30, PollMaxSeconds: 100}, time.Hour, 0, s(60)},
	} {
		var dl time.Time
		if c.deadline != 0 {
			dl = now.Add(c.deadline)
		}
		if got := pollPeriod(c.fc, now.Add(-c.quiet), dl, now); got != c.want {
			t.Errorf("%s: period %s, want %s", c.name, got, c.want)
		}
	}
}

// TestPeriodsMeetOnTheCycle: whatever period each game of an account has,
// its polls fall on the turns of the account's cycle of poll_seconds, so a
// slower game's polls are polls of every faster one (and take their inbox
// and topic lists).
func TestPeriodsMeetOnTheCycle(t *testing.T) {
	p := &Pool{}
	acct := gameconfig.ForumConfig{URL: "http://board/", Bot: "GMBot"}.Account()
	p.nextPoll(acct, 30*time.Second, start) // the cycle starts
	for _, period := range []time.Duration{7500 * time.Millisecond, 15 * time.Second, 30 * time.Second, time.Minute, 4 * time.Minute} {
		for at := time.Duration(0); at < 10*time.Minute; at += 1700 * time.Millisecond {
			next := at + p.nextPoll(acct, period, start.Add(at))
			if next%period != 0 || next%(7500*time.Millisecond) != 0 {
				t.Fatalf("period %s at +%s: polls at +%s, not a turn of the cycle", period, at, next)
			}
		}
	}
}

// signalRig is a two-player Nations game on the fake
// board, its thread in forum 2 (the topic list is the change signal),
// polled every 30 s (a full read at least every 5 minutes, less a share by
// the game's id).
type signalRig struct {
	*nationsRig
}

func newSignalRig(t *testing.T, engine string, minutes bool, roundMinutes int) *signalRig {
	return newSignalRigIn(t, engine, minutes, roundMinutes, "2")
}

// newSignalRigIn is newSignalRig with the game file's forum setting.
func newSignalRigIn(t *testing.T, engine string, minutes bool, roundMinutes int, forumID string) *signalRig {
	r := &nationsRig{t: t, ctx: context.Background(), db: storetest.SQLite(t), clk: clock.NewFake(start)}
	r.ff = forumtest.New(r.clk)
	r.ff.Minutes = minutes
	r.m = &Moderator{DB: r.db, Clock: r.clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return r.ff, nil }}
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 2, "round_minutes": roundMinutes, "break_minutes": 1}, Seed: 3, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: engine, Thread: "1", Forum: forumID, Bot: "GMbot", PasswordEnv: "X", PollSeconds: 30}
	g, err := r.m.Create(r.ctx, "n1", "nations", gc, fc, []store.Player{{Slot: "Alice", ForumName: "Alice"}, {Slot: "Bob", ForumName: "Bob"}})
	if err != nil {
		t.Fatal(err)
	}
	r.id = g.ID
	return &signalRig{r}
}

// poll moves the clock on by d and ticks; read says whether the tick read
// the thread.
func (r *signalRig) poll(d time.Duration) (read bool) {
	r.t.Helper()
	r.clk.Advance(d)
	before := r.ff.Fetches
	r.tick()
	return r.ff.Fetches > before
}

// A game file that names no forum gets the signal from the forum its
// thread's pages name (the breadcrumbs); forum: off, or pages that name
// none, read the thread at every poll and never ask the list.
func TestChangeSignalFromThePage(t *testing.T) {
	for _, c := range []struct {
		name, named, onPage string
		signal              bool
	}{
		{"named by the page", "", "7", true},
		{"named by the game file", "2", "7", true},
		{"off", "off", "7", false},
		{"named nowhere", "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newSignalRigIn(t, "phpbb", false, 60, c.named)
			r.ff.Forum = c.onPage
			reads := 0
			for i := range 5 {
				if r.poll(time.Duration(min(i, 1)) * 30 * time.Second) {
					reads++
				}
			}
			want := c.named // the list asked for
			if want == "" {
				want = c.onPage
			}
			switch {
			case c.signal && (reads != 2 || r.ff.MarkForum != want):
				t.Errorf("%d of 5 polls read the thread, the list of forum %q asked; want 2 (the first, the opening post's), forum %q", reads, r.ff.MarkForum, want)
			case !c.signal && (reads != 5 || r.ff.Marks != 0):
				t.Errorf("%d of 5 polls read the thread, %d marks taken; want 5 and none", reads, r.ff.Marks)
			}
		})
	}
}

// A game not read yet takes its first mark in the forum its account's
// other games' pages named: no full read just to learn the forum. The
// forumtest board's Mark shows the thread in whichever forum is asked, so
// only the forum asked for is checked here; a list that does not show the
// thread (a mark without a sign) makes the poll read it, as any mark that
// proves nothing does.
func TestChangeSignalFirstGuess(t *testing.T) {
	r := newSignalRigIn(t, "phpbb", false, 60, "")
	r.ff.Forum = "7"
	r.poll(0) // learns the forum from the page
	gc := gameconfig.GameConfig{Players: []string{"Carol", "Dan"}, Options: map[string]any{"rounds": 2, "round_minutes": 60, "break_minutes": 1}, Seed: 4, Start: start}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "9", Bot: "GMbot", PasswordEnv: "X", PollSeconds: 30}
	g, err := r.m.Create(r.ctx, "n2", "nations", gc, fc, []store.Player{{Slot: "Carol", ForumName: "Carol"}, {Slot: "Dan", ForumName: "Dan"}})
	if err != nil {
		t.Fatal(err)
	}
	r.ff.MarkForum = ""
	if err := r.m.Tick(r.ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if r.ff.MarkForum != "7" {
		t.Errorf("the new game's first poll asked the list of forum %q, want 7 (its account's other game's)", r.ff.MarkForum)
	}
}

// TestChangeSignal: with the topic list, a poll reads the thread only when
// its mark changed since the last full read, or when the list cannot prove
// it unchanged: an edit changes no mark, so it is seen at the next full
// read (at most full_read_seconds later) or in a deadline's last stretch,
// where every poll reads; the first poll after the deadline reads too, and
// only then does the phase close. PMs are read and answered at every poll.
// A board without a topic list is read at every poll.
func TestChangeSignal(t *testing.T) {
	r := newSignalRig(t, "phpbb", false, 60)
	if !r.poll(0) || !r.poll(30*time.Second) { // the first read; then the opening post changed the mark
		t.Fatal("the first polls did not read the thread")
	}
	if r.poll(30 * time.Second) {
		t.Error("an unchanged thread was read")
	}
	if r.ff.Marks != 3 {
		t.Errorf("%d marks taken in 3 polls", r.ff.Marks)
	}
	r.ff.Post(r.ctx, "Alice", "I pick [b]CIV: Fire[/b]")
	post := r.ff.LastID()
	if !r.poll(30 * time.Second) {
		t.Fatal("a new post was not read")
	}
	if s, _ := r.state(); s.CivOf("Alice") != "Fire" {
		t.Fatalf("civ %q", s.CivOf("Alice"))
	}
	// An edit: the list shows nothing.
	r.ff.Edit(post, "No: [b]CIV: Water[/b]")
	if r.poll(30 * time.Second) {
		t.Error("a thread with only an edit was read: the signal cannot see edits")
	}
	// A PM is read and applied though the thread is not.
	r.ff.PM(r.ctx, "Bob", "INVADE Alice")
	if r.poll(30*time.Second) || !contains(nationsActed(mustState(r.nationsRig)), "Bob") {
		t.Error("the PM was not applied at a poll that skipped the thread")
	}
	// The full read comes within full_read_seconds (5 min) and sees it.
	reads := 0
	for i := 0; i < 10; i++ {
		if r.poll(30 * time.Second) {
			reads++
		}
	}
	if s, _ := r.state(); reads != 1 || s.CivOf("Alice") != "Water" {
		t.Errorf("in 5 minutes %d full reads, civ %q; want 1 and the edit seen", reads, s.CivOf("Alice"))
	}
	// The deadline's last stretch: every poll reads.
	_, g := r.state()
	dl := g.Deadline
	r.clk.Set(dl.Add(-4 * time.Minute))
	for i := 0; i < 3; i++ {
		if !r.poll(30 * time.Second) {
			t.Errorf("poll %d of the last stretch did not read", i)
		}
	}
	// The first poll after the deadline reads, and then the round closes.
	r.clk.Set(dl.Add(time.Second))
	before := r.ff.Fetches
	r.tick()
	if _, g := r.state(); r.ff.Fetches == before || g.Deadline.Equal(dl) {
		t.Errorf("after the deadline: read %v, deadline %s (was %s)", r.ff.Fetches > before, g.Deadline, dl)
	}

	// No topic list: every poll reads, and the list is not asked again.
	r2 := newSignalRig(t, "phpbb", false, 60)
	r2.ff.NoSignal = true
	for i := 0; i < 4; i++ {
		if !r2.poll(30 * time.Second) {
			t.Errorf("no signal: poll %d did not read", i)
		}
	}
}

// TestChangeSignalOwnPosts: the bot's own reply changes its thread's mark
// but is no news, so the poll after it does not read the thread (in
// BenchmarkBurst, 1,000 openings had cost ~785 re-reads); a member's post
// after it, or between the base and it, is read as any change is.
func TestChangeSignalOwnPosts(t *testing.T) {
	r := newSignalRig(t, "phpbb", false, 60)
	r.ff.Post(r.ctx, "GM", "Welcome to the game.") // the thread the GM opened
	if !r.poll(0) {
		t.Fatal("the first poll did not read the thread")
	}
	if got := len(r.ff.BotPosts()); got != 1 {
		t.Fatalf("%d bot posts after the first poll; want the opening post", got)
	}
	if r.poll(30 * time.Second) {
		t.Error("the poll after the bot's opening post read the thread: only the bot's post changed the mark")
	}
	if r.poll(30 * time.Second) {
		t.Error("a thread unchanged since the bot's post was read")
	}
	r.ff.Post(r.ctx, "Alice", "I pick [b]CIV: Fire[/b]")
	if !r.poll(30 * time.Second) {
		t.Fatal("a member's post after the bot's was not read")
	}
	if s, _ := r.state(); s.CivOf("Alice") != "Fire" {
		t.Fatalf("civ %q", s.CivOf("Alice"))
	}
	if r.poll(30 * time.Second) {
		t.Error("an unchanged thread was read")
	}
}

// TestOwnOnly: which marks differ from the base by the bot's posts alone.
func TestOwnOnly(t *testing.T) {
	base := forum.ThreadMark{Sign: "post 10, replies 4"}
	own := []ownPost{{id: "11"}, {id: "13"}}
	for _, c := range []struct {
		name string
		base string
		mark string
		own  []ownPost
		want bool
	}{
		{"the bot's two posts", base.Sign, "post 13, replies 6", own, true},
		{"the bot's one post", base.Sign, "post 11, replies 5", own[:1], true},
		{"no post of the bot's", base.Sign, "post 11, replies 5", nil, false},
		{"a member's post after the bot's", base.Sign, "post 14, replies 7", own, false},
		{"a member's post between", base.Sign, "post 13, replies 7", own, false},
		{"a post deleted", base.Sign, "post 13, replies 5", own, false},
		{"the bot's post deleted", base.Sign, "post 11, replies 5", own, false},
		// The one change it cannot see (the full read does): a member's
		// post between while another post was deleted.
		{"a member's post and a deletion", base.Sign, "post 13, replies 6", own, true},
		{"thousands", "post 10, replies 1,999", "post 11, replies 2,000", own[:1], true},
		{"minute marks (MyBB)", "last 12:01 Alice, replies 4", "last 12:02 GMbot, replies 5", []ownPost{{id: "5"}}, false},
		{"a thread the list did not show", "", "post 11, replies 5", own[:1], false},
		{"garbled", base.Sign, "post 11, replies many", own[:1], false},
	} {
		got := ownOnly(forum.ThreadMark{Sign: c.base}, forum.ThreadMark{Sign: c.mark}, c.own)
		if got != c.want {
			t.Errorf("%s: %q → %q: own only %v, want %v", c.name, c.base, c.mark, got, c.want)
		}
	}
}

// TestChangeSignalMergeWindow: on MyBB a member's next post may be
// appended to their last one for an hour (merge_window_seconds), which
// changes no mark: the thread is read at every poll until a read began
// after the window closed; then the signal answers. A bot's own last post
// holds no window (no player's post can be appended to it).
func TestChangeSignalMergeWindow(t *testing.T) {
	r := newSignalRig(t, "mybb", true, 180)
	r.poll(0)
	r.poll(30 * time.Second)
	if r.poll(30 * time.Second) {
		t.Error("the bot's opening post last: an unchanged thread was read")
	}
	id := r.postAt("Alice", "Thinking about it.")
	r.poll(30 * time.Second)
	reads := 0
	for i := 0; i < 20; i++ {
		if r.poll(time.Minute) {
			reads++
		}
	}
	if reads != 20 {
		t.Errorf("%d of 20 polls in the merge window read the thread", reads)
	}
	r.ff.Merge(id, "[b]CIV: Water[/b]")
	r.poll(time.Minute)
	if s, _ := r.state(); s.CivOf("Alice") != "Water" {
		t.Errorf("the appended post was not read: civ %q", s.CivOf("Alice"))
	}
	r.clk.Set(start.Add(time.Hour + 30*time.Minute)) // past the window, the deadline far
	r.poll(0)
	if r.poll(30 * time.Second) {
		t.Error("past the merge window, an unchanged thread was read")
	}
}

func (r *signalRig) postAt(who, text string) string {
	r.ff.Post(r.ctx, who, text)
	return r.ff.LastID()
}

func mustState(r *nationsRig) *nations.State {
	s, _ := r.state()
	return s
}

// TestChangeSignalWithAFailingInbox: a poll that the topic list lets skip
// the thread still reads the inbox, and when the inbox fails it goes on as
// a full read does (inbox.go): the tick does not fail, the health says the
// inbox fails and the thread reads, and once the inbox reads again its PM
// is applied.
func TestChangeSignalWithAFailingInbox(t *testing.T) {
	r := newSignalRig(t, "phpbb", false, 60)
	r.poll(0)
	r.poll(30 * time.Second)
	r.ff.InboxErr = errors.New(`GET ucp.php?i=pm&folder=inbox: the forum answered 404 Not Found`)
	r.ff.PM(r.ctx, "Bob", "INVADE Alice")
	if r.poll(30 * time.Second) {
		t.Fatal("an unchanged thread was read")
	}
	h := reportOf(t, r.m, "n1").ForumHealth
	if h.Failing() || !h.InboxFailing() || !strings.Contains(h.InboxError, "404") {
		t.Errorf("health with the thread skipped and the inbox failing: %+v", h)
	}
	if contains(nationsActed(mustState(r.nationsRig)), "Bob") {
		t.Fatal("a PM applied from an inbox that failed")
	}
	r.ff.InboxErr = nil
	r.poll(30 * time.Second)
	if h := reportOf(t, r.m, "n1").ForumHealth; h.InboxFailing() {
		t.Errorf("health once the inbox reads: %+v", h)
	}
	if !contains(nationsActed(mustState(r.nationsRig)), "Bob") {
		t.Error("Bob's PM was not applied once the inbox read again")
	}
}
