package poster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scraper"
)

var start = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

type board struct {
	sim               *forumsim.Server
	clk               *clock.Fake
	s                 *scraper.Session
	sc                *scraper.Scraper
	p                 *poster.Poster
	topic             int
	bot, alice, bob   int
	topicStr, baseURL string
	rt                *hookRT // counts the bot's submissions
}

// newBoard runs forumsim in-process with a 25-post topic (3 pages) and
// the bot logged out; nothing really waits (fake clock).
func newBoard(t *testing.T, opts ...func(*forumsim.Options)) *board {
	t.Helper()
	clk := clock.NewFake(start)
	o := forumsim.Options{Clock: clk, FloodInterval: 15 * time.Second}
	for _, f := range opts {
		f(&o)
	}
	sim := forumsim.New(o)
	b := &board{sim: sim, clk: clk}
	var err error
	must := func(id int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	b.bot = must(sim.AddUser("GMBot", "gm-pass", false))
	b.alice = must(sim.AddUser("Alice", "a", false))
	b.bob = must(sim.AddUser("Bjørn Ærøe", "b", false))
	f := sim.AddForum("Games", "")
	b.topic, _, err = sim.AddTopic(f, b.bot, "Mafia 1", "Welcome. Vote with [b]VOTE: name[/b].")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < 25; i++ {
		clk.Advance(time.Minute)
		who, text := b.alice, fmt.Sprintf("post %d [b]VOTE: Bjørn Ærøe[/b]", i)
		if i%2 == 0 {
			who, text = b.bob, fmt.Sprintf("[quote=Alice]post %d [b]VOTE: Bjørn Ærøe[/b][/quote]no [b]VOTE: Alice[/b]", i)
		}
		must(sim.Post(b.topic, who, text))
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	b.baseURL = srv.URL + "/forum/"
	prof, _ := forum.Builtin("phpbb")
	b.rt = &hookRT{path: "posting.php", done: true}
	b.s, err = scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: clk, Transport: b.rt})
	if err != nil {
		t.Fatal(err)
	}
	b.sc, b.p = scraper.New(b.s), poster.New(b.s)
	b.topicStr = fmt.Sprint(b.topic)
	return b
}

func (b *board) read(t *testing.T, cur scraper.Cursor) (scraper.Result, []forum.Post) {
	t.Helper()
	var got []forum.Post
	res, err := b.sc.ReadThread(context.Background(), b.topicStr, cur, func(p forum.Post) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, got
}

func TestForumsimReadPollEditDeleteLogout(t *testing.T) {
	b := newBoard(t)
	res, posts := b.read(t, scraper.Cursor{})
	if len(posts) != 25 || res.Pages != 3 || res.PagesRead != 3 || !res.ToEnd {
		t.Fatalf("backfill: %d posts %+v", len(posts), res)
	}
	if p := posts[2]; p.Author.Name != "Bjørn Ærøe" || p.Author.ID != fmt.Sprint(b.bob) || p.Page != 1 {
		t.Errorf("post 3: %+v", p)
	}
	if segs := b.s.Parser.Segments(posts[2].BodyHTML); strings.Join(segs, "|") != "VOTE: Alice" {
		t.Errorf("quoted vote counted: %q", segs)
	}
	if !posts[24].Time.Equal(start.Add(24 * time.Minute)) {
		t.Errorf("time %v", posts[24].Time)
	}

	// Unchanged: one request.
	n := b.sim.Requests()
	res2, again := b.read(t, res.Cursor)
	if b.sim.Requests()-n != 1 || len(again) != 5 {
		t.Errorf("poll: %d requests, %d posts", b.sim.Requests()-n, len(again))
	}
	body, err := b.s.Parser.BodyReader()
	if err != nil {
		t.Fatal(err)
	}
	hash := map[string]string{}
	for _, p := range again {
		hash[p.ID] = body.Hash(p.BodyHTML)
	}

	// An edit of the last post (phpBB shows no notice for it), a deletion,
	// and a forced logout of the bot.
	last := again[len(again)-1]
	var lastID, delID int
	fmt.Sscan(last.ID, &lastID)
	fmt.Sscan(again[1].ID, &delID)
	if err := b.sim.Edit(lastID, b.alice, "changed [b]VOTE: Alice[/b]", ""); err != nil {
		t.Fatal(err)
	}
	if err := b.sim.DeletePost(delID); err != nil {
		t.Fatal(err)
	}
	b.sim.ForceLogout(b.bot)
	res3, seen := b.read(t, res2.Cursor)
	ids := map[string]bool{}
	for _, p := range seen {
		ids[p.ID] = true
		if p.ID == last.ID && hash[p.ID] == body.Hash(p.BodyHTML) {
			t.Error("edit not visible in the body hash")
		}
	}
	if ids[again[1].ID] || !res3.Covers(again[1].ID) {
		t.Errorf("deletion of %s: seen %v covered %v (%s..%s)", again[1].ID, ids[again[1].ID], res3.Covers(again[1].ID), res3.From, res3.To)
	}
	if !ids[last.ID] {
		t.Error("after forced logout the thread was not read")
	}
}

// A bot not exempt from flood control, its status unknown: the first reply
// goes at once, the second is refused by the board, which teaches the
// poster "limited, 15 s" (phpBB's notice names no wait: the profile's
// interval); the third is paced by the poster itself, never refused.
func TestForumsimRepliesUnderFlood(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	var ids []string
	refusals := 0
	for i := 1; i <= 3; i++ {
		id, err := poster.Patiently(ctx, b.clk, func() (string, error) {
			before := b.rt.posts
			id, err := b.p.Reply(ctx, b.topicStr, fmt.Sprintf("m1.day-1.%d", i), "", fmt.Sprintf("Update %d for [b]%s[/b]", i, rules.Esc("[b]x")))
			if errors.Is(err, forum.ErrFlood) && b.rt.posts > before {
				refusals++
			}
			return id, err
		})
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			if st := b.p.Flood(); st.State != forum.FloodLimited || st.Interval != 15*time.Second || st.Source != "refused" || st.Learned.IsZero() {
				t.Errorf("after the first refusal: %+v, want limited 15 s, learned", st)
			}
		}
		ids = append(ids, id)
	}
	if refusals != 1 || b.rt.posts != 4 {
		t.Errorf("%d refusals, %d submissions; want 1 refusal and 4 submissions", refusals, b.rt.posts)
	}
	var times []time.Time
	for _, id := range ids {
		var n int
		fmt.Sscan(id, &n)
		p, ok := b.sim.GetPost(n)
		if !ok || p.AuthorID != b.bot {
			t.Fatalf("post %s: %+v", id, p)
		}
		times = append(times, p.Time)
	}
	for i := 1; i < len(times); i++ {
		if times[i].Sub(times[i-1]) < 15*time.Second {
			t.Errorf("replies %v apart under a 15 s flood limit", times[i].Sub(times[i-1]))
		}
	}
	// A PM right after a post is refused too: phpBB's one flood clock.
	if _, err := b.p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.pm.1", "", "hi"); !errors.Is(err, forum.ErrFlood) {
		t.Errorf("PM right after a post: %v, want a flood error", err)
	}
	b.clk.Advance(15 * time.Second)
	id, err := b.p.Reply(ctx, b.topicStr, "m1.day-1.4", "", "fourth")
	if err != nil {
		t.Fatalf("after the interval: %v", err)
	}
	// The marker is found after a "crash".
	got, ok, err := poster.New(b.s).PostWithMarker(ctx, b.topicStr, "m1.day-1.2")
	if err != nil || !ok || got != ids[1] {
		t.Errorf("PostWithMarker = %q %v %v, want %s", got, ok, err, ids[1])
	}
	_, posts := b.read(t, scraper.Cursor{})
	lastPost := posts[len(posts)-1]
	if lastPost.ID != id || len(poster.FindMarkers(lastPost.BodyHTML)) != 1 {
		t.Errorf("last post %s markers %q", lastPost.ID, poster.FindMarkers(lastPost.BodyHTML))
	}
	// Escaped player text stays text.
	if segs := b.s.Parser.Segments(posts[25].BodyHTML); len(segs) != 1 || !strings.Contains(segs[0], "[\u200bb]x") {
		t.Errorf("escaped segment %q", segs)
	}
}

func TestForumsimPMs(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	pmID, err := b.sim.SendPM(b.alice, []int{b.bot}, "Night", "KILL Bob\n[quote=GMBot]Send KILL name[/quote]\nPROTECT Carol")
	if err != nil {
		t.Fatal(err)
	}
	hs, err := b.sc.Inbox(ctx)
	if err != nil || len(hs) != 1 || hs[0].ID != fmt.Sprint(pmID) || hs[0].From.ID != fmt.Sprint(b.alice) || !hs[0].Unread {
		t.Fatalf("inbox %+v %v", hs, err)
	}
	m, err := b.sc.ReadPM(ctx, hs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(b.s.Parser.Lines(m.BodyHTML), "|"); got != "KILL Bob|PROTECT Carol" || m.From.Name != "Alice" || m.Subject != "Night" {
		t.Errorf("PM %+v lines %q", m, got)
	}
	if m.Time.IsZero() {
		t.Error("PM time not parsed")
	}

	sent, err := b.p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.role.alice", "Your role", "You are [b]Town[/b].")
	if err != nil {
		t.Fatal(err)
	}
	in := b.sim.Inbox(b.alice)
	if len(in) != 1 || fmt.Sprint(in[0].ID) != sent || !strings.Contains(in[0].HTML, "forumgm·m1.role.alice") {
		t.Fatalf("Alice's inbox %+v (sent %s)", in, sent)
	}
	// Second PM within the flood interval: refused; sent patiently, it goes
	// once the interval has passed.
	sent2, err := poster.Patiently(ctx, b.clk, func() (string, error) {
		return b.p.SendPM(ctx, forum.Author{Name: "Bjørn Ærøe", ID: fmt.Sprint(b.bob)}, "m1.role.bob", "Your role", "Mafia.")
	})
	if err != nil {
		t.Fatal(err)
	}
	bobIn := b.sim.Inbox(b.bob)
	if len(bobIn) != 1 || bobIn[0].Time.Sub(in[0].Time) < 15*time.Second {
		t.Errorf("second PM %s: %+v", sent2, bobIn)
	}
	got, ok, err := poster.New(b.s).SentPMWithMarker(ctx, "m1.role.alice", time.Time{})
	if err != nil || !ok || got != sent {
		t.Errorf("SentPMWithMarker = %q %v %v", got, ok, err)
	}
}

// A flood-exempt bot (phpBB's u_ignoreflood) sends back to back, and the
// poster learns "exempt" from the board taking a reply sooner than 15 s.
func TestForumsimExemptLearned(t *testing.T) {
	b := newBoard(t)
	if err := b.sim.SetExempt(b.bot, true); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	t0 := b.clk.Now()
	for i := 1; i <= 3; i++ {
		if _, err := b.p.Reply(ctx, b.topicStr, fmt.Sprintf("m1.x.%d", i), "", "quick"); err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		want := forum.FloodUnknown
		if i > 1 {
			want = forum.FloodExempt
		}
		if st := b.p.Flood(); st.State != want {
			t.Errorf("after reply %d: %+v, want %s", i, st, want)
		}
	}
	if _, err := b.p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.pm.1", "", "hi"); err != nil {
		t.Errorf("PM right after: %v", err)
	}
	if d := b.clk.Now().Sub(t0); d >= 15*time.Second {
		t.Errorf("three replies and a PM took %v: the poster waited", d)
	}
	st := b.p.Flood()
	if st.State != forum.FloodExempt || st.String() == "" || !strings.HasPrefix(st.String(), "exempt (learned ") {
		t.Errorf("status %+v %q", st, st)
	}
}

// hookRT runs a hook before the first POST to a path (another player posts
// while the bot's reply form is open).
type hookRT struct {
	path  string
	hook  func()
	done  bool
	posts int
}

func (h *hookRT) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, h.path) {
		h.posts++
		if !h.done {
			h.done = true
			h.hook()
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// phpBB's post review: a post made while the form was open sends the form
// back; the poster resubmits on a fresh form and posts exactly once.
func TestForumsimPostReview(t *testing.T) {
	b := newBoard(t)
	rt := &hookRT{path: "posting.php", hook: func() {
		if _, err := b.sim.Post(b.topic, b.alice, "sneaky [b]VOTE: GMBot[/b]"); err != nil {
			t.Error(err)
		}
	}}
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: b.clk, Transport: rt})
	if err != nil {
		t.Fatal(err)
	}
	before := len(b.sim.Posts(b.topic))
	id, err := poster.New(s).Reply(context.Background(), b.topicStr, "m1.review.1", "", "after review")
	if err != nil {
		t.Fatal(err)
	}
	ps := b.sim.Posts(b.topic)
	if rt.posts != 2 {
		t.Errorf("%d submissions, want 2 (review, then resubmit)", rt.posts)
	}
	if !rt.done || len(ps) != before+2 || fmt.Sprint(ps[len(ps)-1].ID) != id {
		t.Errorf("hook %v, %d new posts, last %d, got %s", rt.done, len(ps)-before, ps[len(ps)-1].ID, id)
	}
}

// The older phpBB bold (span style) from the same board.
func TestForumsimSpanBold(t *testing.T) {
	clk := clock.NewFake(start)
	sim := forumsim.New(forumsim.Options{Clock: clk, Bold: bbcode.BoldSpan})
	bot, _ := sim.AddUser("GMBot", "pw", false)
	f := sim.AddForum("Games", "")
	topic, _, err := sim.AddTopic(f, bot, "T", "[quote][b]VOTE: X[/b][/quote][b]VOTE: Y[/b] [s][b]VOTE: Z[/b][/s] [spoiler][b]VOTE: W[/b][/spoiler][code][b]VOTE: V[/b][/code]")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()
	prof, _ := forum.Builtin("phpbb")
	s, _ := scraper.NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"}, scraper.Options{Clock: clk})
	var segs []string
	_, err = scraper.New(s).ReadThread(context.Background(), fmt.Sprint(topic), scraper.Cursor{}, func(p forum.Post) error {
		if !strings.Contains(p.BodyHTML, `style="font-weight: bold"`) {
			t.Errorf("not span bold: %s", p.BodyHTML)
		}
		segs = append(segs, s.Parser.Segments(p.BodyHTML)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(segs, "|") != "VOTE: Y" {
		t.Errorf("segments %q", segs)
	}
}

// TestForumsimUnmarked: an unmarked poster (a simulated player) posts the
// body as typed, confirmed by the board's redirect alone.
func TestForumsimUnmarked(t *testing.T) {
	b := newBoard(t)
	b.p.Unmarked = true
	id, err := b.p.Reply(context.Background(), b.topicStr, "k1", "", "just [b]VOTE: Alice[/b]")
	if err != nil {
		t.Fatal(err)
	}
	var n int
	fmt.Sscan(id, &n)
	p, ok := b.sim.GetPost(n)
	if !ok || p.Source != "just [b]VOTE: Alice[/b]" {
		t.Fatalf("post %s = %+v", id, p)
	}
	if len(poster.FindMarkers(p.HTML)) != 0 {
		t.Error("an unmarked post has a marker")
	}
}

// TestForumsimUnmarkedPM: an unmarked PM is confirmed by the board's
// redirect to it, not mistaken for a refusal.
func TestForumsimUnmarkedPM(t *testing.T) {
	b := newBoard(t)
	b.p.Unmarked = true
	id, err := b.p.SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "k2", "orders", "INVADE Bjørn")
	if err != nil {
		t.Fatalf("unmarked PM: %v", err)
	}
	if id == "" {
		t.Error("no PM id")
	}
	if n := len(b.sim.Inbox(b.alice)); n != 1 {
		t.Errorf("Alice has %d PMs, want 1", n)
	}
}

// sentboxDown answers every read of the sent folder (and of the outbox,
// read first) with a 404, as a board whose folder pages failed after the
// PM was taken.
type sentboxDown struct{}

func (sentboxDown) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && (strings.Contains(r.URL.RawQuery, "folder=sentbox") || strings.Contains(r.URL.RawQuery, "folder=outbox")) {
		return &http.Response{StatusCode: http.StatusNotFound, Status: "404 Not Found", Header: http.Header{},
			Body: http.NoBody, Request: r}, nil
	}
	return http.DefaultTransport.RoundTrip(r)
}

// pmSentNamesNone: the board's page after a PM names no new PM (as
// MyBB's and SMF's), so the sender looks for it in the sent folder.
func pmSentNamesNone(o *forumsim.Options) { o.PMSentNamesNone = true }

// A PM the board took ("This message has been sent successfully") whose
// sent-folder check then failed is not a refusal (issue 11 item 4): the
// send ends unconfirmed, to be checked again, and was made once.
func TestForumsimPMCheckFailedIsNotRefused(t *testing.T) {
	b := newBoard(t, pmSentNamesNone)
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: b.clk, Transport: sentboxDown{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = poster.New(s).SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.role.alice", "Your role", "You are [b]Town[/b].")
	if err == nil || errors.Is(err, poster.ErrRejected) {
		t.Fatalf("SendPM with the sent folder failing: %v, want an unconfirmed send, not a refusal", err)
	}
	if in := b.sim.Inbox(b.alice); len(in) != 1 {
		t.Errorf("Alice got %d PMs, want 1", len(in))
	}
	t.Logf("unconfirmed: %v", err)
}

// A sent PM is confirmed from the sent folder's list alone (its marker key
// ends the subject), still after 60 newer PMs of other games pushed it to
// the list's third page: a few list reads, no PM opened.
func TestForumsimSentPMFromList(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	b.sim.SetFloodInterval(-1)
	sent, err := b.p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1/day-1/7", "[m1] Your role", "You are [b]Town[/b].")
	if err != nil {
		t.Fatal(err)
	}
	in := b.sim.Inbox(b.alice)
	if len(in) != 1 || in[0].Subject != "[m1] Your role #m1/day-1/7#" {
		t.Fatalf("Alice's inbox %+v", in)
	}
	for i := 0; i < 60; i++ {
		if _, err := b.sim.SendPM(b.bot, []int{b.bob}, fmt.Sprintf("[g%d] Receipt #g%d/day-1/1#", i, i), "ok"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		perPage int
		found   bool
		reads   int
	}{
		{0, true, 1},  // forumsim lists sent PMs as phpBB's outbox too, whole
		{25, true, 3}, // three outbox pages (forumsim's outbox is its sent list: found there)
		{10, true, 7}, // a board showing fewer rows than the profile's 25: steps by 10, skips none
	} {
		b.sim.SetSentPerPage(tc.perPage)
		p := poster.New(b.s)
		p.ScanSent = 0
		before := b.s.Requests()
		got, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/7", time.Time{})
		if err != nil || ok != tc.found || got != sent {
			t.Errorf("per page %d: SentPMWithMarker = %q %v %v, want %s", tc.perPage, got, ok, err, sent)
		}
		if n := b.s.Requests() - before; n != tc.reads {
			t.Errorf("per page %d: %d requests, want %d list reads and no PM opened", tc.perPage, n, tc.reads)
		}
	}
	// A key never sent is absent after the whole folder was listed.
	if _, ok, err := poster.New(b.s).SentPMWithMarker(ctx, "m1/day-1/99", time.Time{}); ok || err != nil {
		t.Errorf("an unsent key: found %v, err %v", ok, err)
	}
}

func TestSubjectWithKey(t *testing.T) {
	for _, tc := range []struct {
		subject, key string
		max          int
		want         string
	}{
		{"[m1] Your role", "m1/day-1/7", 120, "[m1] Your role #m1/day-1/7#"},
		{"[m1] A very long subject about the results of the night", "m1/night-2/12", 40, "[m1] A very long subjec… #m1/night-2/12#"},
		{"Hi", strings.Repeat("k", 90), 85, "Hi"}, // no room: the body's marker is read instead
	} {
		got := poster.SubjectWithKey(tc.subject, tc.key, tc.max)
		if got != tc.want {
			t.Errorf("SubjectWithKey(%q, %q, %d) = %q, want %q", tc.subject, tc.key, tc.max, got, tc.want)
		}
		if n := len([]rune(got)); n > tc.max {
			t.Errorf("%q is %d characters, over %d", got, n, tc.max)
		}
		if k := poster.SubjectKey(got); (k == tc.key) != (got != tc.subject) {
			t.Errorf("SubjectKey(%q) = %q", got, k)
		}
	}
	// A board that cut the subject inside the key: no key, not another one.
	if k := poster.SubjectKey("[p] Protest — Turn 1 of 6 #protest.ojeb/tur"); k != "" {
		t.Errorf("a key cut short read as %q", k)
	}
}

// A sent folder longer than the pages the poster reads proves nothing by
// not holding a key: the check says so instead of "not sent".
func TestForumsimSentFolderTooLong(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	for i := 0; i < 30; i++ {
		if _, err := b.sim.SendPM(b.bot, []int{b.bob}, fmt.Sprintf("[g%d] Receipt #g%d/day-1/1#", i, i), "ok"); err != nil {
			t.Fatal(err)
		}
	}
	b.sim.SetSentPerPage(10)
	p := poster.New(b.s)
	p.SentPages = 2
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", time.Time{}); ok || !errors.Is(err, poster.ErrUnchecked) {
		t.Errorf("a key beyond the pages read: found %v, err %v; want ErrUnchecked", ok, err)
	}
	p.SentPages = 5
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", time.Time{}); ok || err != nil {
		t.Errorf("the whole folder read: found %v, err %v; want not found", ok, err)
	}
}

// A board that deletes the oldest sent PMs once the folder is full (phpBB's
// full_folder_action) may have deleted the one looked for: a full folder
// reaching back no further than when the message was queued proves nothing
// by not holding its key, so the check says ErrUnchecked, never "not sent";
// a folder reaching back before then, or not full, is proof. Full is the
// profile's size reached, or the board's page saying so (its admin's limit).
func TestForumsimFullSentFolderProvesNothing(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	queued := b.clk.Now()
	for i := 0; i < 6; i++ {
		b.clk.Advance(time.Minute)
		if _, err := b.sim.SendPM(b.bot, []int{b.bob}, fmt.Sprintf("[g%d] Receipt #g%d/day-1/1#", i, i), "ok"); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name      string
		size      int
		fullText  string // sent_folder_full_text
		since     time.Time
		unchecked bool
	}{
		{"full, newer than the message", 6, "", queued, true},
		{"full, no queueing time known", 6, "", time.Time{}, false},
		{"full, reaching back before the message", 6, "", queued.Add(3 * time.Minute), false},
		{"not full", 10, "", queued, false},
		{"never deletes", 0, "", queued, false},
		// The board's page says full below the profile's size (an admin
		// set a lower limit: phpBB's pm_max_msgs 3, not 50).
		{"the board says full, newer than the message", 50, "Private messages", queued, true},
		{"the board says full, reaching back before the message", 50, "Private messages", queued.Add(3 * time.Minute), false},
		{"the board's full text not on the page", 50, "Folder is 100% full", queued, false},
		// A board that keeps no copy while full (MyBB's pmquota): nothing
		// is proof, whenever the message was queued.
		{"the board says full and keeps no copies", 0, "Private messages", time.Time{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b.s.Profile.SentFolderSize = tc.size
			b.s.Profile.SentFolderFullText = nil
			if tc.fullText != "" {
				b.s.Profile.SentFolderFullText = []string{tc.fullText}
			}
			_, ok, err := poster.New(b.s).SentPMWithMarker(ctx, "m1/day-1/99", tc.since)
			if ok {
				t.Fatal("an unsent key was found")
			}
			if got := errors.Is(err, poster.ErrUnchecked); got != tc.unchecked || (!tc.unchecked && err != nil) {
				t.Errorf("err = %v, want unchecked %v", err, tc.unchecked)
			}
		})
	}
}

// A board that hands the form back with a refusal no resubmission changes
// (profile refused_text: SMF's "as their inbox is full") rejects the PM
// at the first submission: ErrRejected with the board's words, nothing
// resubmitted. Without it, the same answer is a stale form, submitted
// again on a fresh one.
func TestForumsimRefusedWithTheForm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		refused []string
	}{
		{"refused", []string{"form was invalid"}},
		{"stale form", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t)
			ctx := context.Background()
			b.s.Profile.RefusedText = tc.refused
			if err := b.sim.AddFault(forumsim.FaultRule{Kind: forumsim.FaultToken, Method: "POST", Path: "mode=compose", Count: 1}); err != nil {
				t.Fatal(err)
			}
			_, err := b.p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.refused", "Your role", "Town.")
			n := len(b.sim.Inbox(b.alice))
			if tc.refused != nil {
				if !errors.Is(err, poster.ErrRejected) || !strings.Contains(err.Error(), "form was invalid") || n != 0 {
					t.Fatalf("err %v, %d PMs in the inbox; want ErrRejected with the board's words, none sent", err, n)
				}
				return
			}
			if err != nil || n != 1 {
				t.Fatalf("err %v, %d PMs in the inbox; want sent once on a fresh form", err, n)
			}
		})
	}
}

// TestForumsimNoSentFolderProvesNothing (issue 22 item 8): only a page
// showing the profile's sent-folder marker (selectors.sent_folder) proves a
// PM absent. Pointed at another page, or with no marker named, the check
// answers scraper.ErrNotSentFolder (forum.ErrNoProof), never "not sent";
// a key it lists is still found, wherever it is.
func TestForumsimNoSentFolderProvesNothing(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		set  func(p *forum.Profile)
	}{
		{"urls.sent at the index", func(p *forum.Profile) { p.URLs.Sent, p.URLs.Outbox = "index.php", "" }},
		{"urls.sent at the inbox", func(p *forum.Profile) { p.URLs.Sent, p.URLs.Outbox = p.URLs.Inbox, "" }},
		{"no marker named", func(p *forum.Profile) { p.Selectors.SentFolder = "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t)
			if _, err := b.sim.SendPM(b.bot, []int{b.bob}, "[g1] Receipt #g1/day-1/1#", "ok"); err != nil {
				t.Fatal(err)
			}
			if _, err := b.sim.SendPM(b.bob, []int{b.bot}, "Re: [g1] Receipt #g1/day-1/2#", "thanks"); err != nil {
				t.Fatal(err)
			}
			tc.set(&b.s.Profile)
			p := poster.New(b.s)
			_, ok, err := p.SentPMWithMarker(ctx, "g1/day-1/99", time.Time{})
			if ok || !errors.Is(err, scraper.ErrNotSentFolder) || !errors.Is(err, forum.ErrNoProof) {
				t.Errorf("a key never sent: found %v, err %v; want ErrNotSentFolder", ok, err)
			}
			if tc.name == "urls.sent at the inbox" {
				if _, ok, err := p.SentPMWithMarker(ctx, "g1/day-1/2", time.Time{}); !ok || err != nil {
					t.Errorf("a key the page lists: found %v, err %v", ok, err)
				}
			}
		})
	}
	b := newBoard(t)
	if _, ok, err := poster.New(b.s).SentPMWithMarker(ctx, "g1/day-1/99", time.Time{}); ok || err != nil {
		t.Errorf("the real sent folder, empty: found %v, err %v; want proven absent", ok, err)
	}
}

// reqLog records the requests a session makes after the test starts it.
type reqLog struct {
	mu  sync.Mutex
	on  bool
	got []string
}

func (l *reqLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	if l.on {
		l.got = append(l.got, r.Method+" "+r.URL.RawQuery)
	}
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestPMNamedBySuccessPage: phpBB's page after a PM ("This message has
// been sent successfully") refreshes to the new PM (ucp_pm_compose.php),
// so the send ends there with the PM's id, as a reply's does with the
// post's: the form and the submission, no read of the outbox or the sent
// folder for its marker. A board whose page names no PM is checked there.
func TestPMNamedBySuccessPage(t *testing.T) {
	for _, c := range []struct {
		name  string
		opts  []func(*forumsim.Options)
		reads bool // the sent folder (or outbox) read for the marker
	}{
		{"phpBB's page", nil, false},
		{"a page naming no PM", []func(*forumsim.Options){pmSentNamesNone}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBoard(t, c.opts...)
			rl := &reqLog{}
			prof, _ := forum.Builtin("phpbb")
			s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
				scraper.Options{Clock: b.clk, Transport: rl})
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Login(context.Background()); err != nil {
				t.Fatal(err)
			}
			rl.on = true
			id, err := poster.New(s).SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}, "m1.named", "Your role", "You are [b]Town[/b].")
			in := b.sim.Inbox(b.alice)
			if err != nil || len(in) != 1 || id != fmt.Sprint(in[0].ID) {
				t.Fatalf("SendPM: %q, %v; Alice has %d PMs; want the one PM's id", id, err, len(in))
			}
			read := false
			for _, r := range rl.got {
				read = read || strings.Contains(r, "folder=")
			}
			if read != c.reads || !c.reads && len(rl.got) != 2 {
				t.Errorf("requests %q; want the form and the submission%s", rl.got, map[bool]string{true: ", then the sent folder", false: " only"}[c.reads])
			}
		})
	}
}
