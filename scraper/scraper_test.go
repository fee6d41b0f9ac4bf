package scraper

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper/fakemybb"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

type rig struct {
	board *fakemybb.Board
	srv   *httptest.Server
	clk   *clock.Fake
	s     *Session
	sc    *Scraper
	bot   int
	alice int
}

func newRig(t *testing.T, posts int) *rig {
	t.Helper()
	clk := clock.NewFake(t0)
	b := fakemybb.New(clk)
	r := &rig{board: b, clk: clk}
	r.bot = b.AddUser("GMBot", "s3cret")
	r.alice = b.AddUser("Ünal Şahin", "pw")
	for i := 0; i < posts; i++ {
		b.AddPost(r.alice, "", fmt.Sprintf(`post %d <span style="font-weight: bold;" class="mycode_b">VOTE: x%d</span>`, i, i))
		clk.Advance(time.Minute)
	}
	r.srv = httptest.NewServer(b)
	t.Cleanup(r.srv.Close)
	prof, _ := forum.Builtin("mybb")
	s, err := NewSession(r.srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "s3cret"},
		Options{Clock: clk, UserAgent: UserAgent("1.2.3")})
	if err != nil {
		t.Fatal(err)
	}
	r.s, r.sc = s, New(s)
	return r
}

func (r *rig) read(t *testing.T, cur Cursor) (Result, []forum.Post) {
	t.Helper()
	var got []forum.Post
	res, err := r.sc.ReadThread(context.Background(), "9", cur, func(p forum.Post) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return res, got
}

func TestBackfillPollEditDelete(t *testing.T) {
	t.Parallel()
	r := newRig(t, 23)

	// Backfill: logs in (my_post_key), streams three pages.
	res, posts := r.read(t, Cursor{})
	if len(posts) != 23 || res.Seen != 23 || res.Pages != 3 || res.PagesRead != 3 || !res.ToEnd {
		t.Fatalf("backfill: %d posts, %+v", len(posts), res)
	}
	if r.board.Logins != 1 {
		t.Errorf("logins = %d, want 1", r.board.Logins)
	}
	if posts[0].Author.Name != "Ünal Şahin" || posts[0].Author.ID != fmt.Sprint(r.alice) || posts[22].Page != 3 {
		t.Errorf("first/last post: %+v %+v", posts[0], posts[22])
	}
	if !posts[0].Time.Equal(t0) {
		t.Errorf("time = %v, want %v", posts[0].Time, t0)
	}
	if res.Cursor.LastID != posts[22].ID || res.Cursor.Page != 3 {
		t.Errorf("cursor = %+v", res.Cursor)
	}
	if !strings.HasPrefix(r.board.UserAgent, "forumgm/1.2.3 (+play-by-forum GM bot)") {
		t.Errorf("UA = %q", r.board.UserAgent)
	}

	// Poll of an unchanged thread: one request, whatever its length.
	before := r.board.Requests
	res2, again := r.read(t, res.Cursor)
	if r.board.Requests-before != 1 {
		t.Errorf("unchanged poll cost %d requests, want 1", r.board.Requests-before)
	}
	if len(again) != 3 || res2.Cursor != res.Cursor {
		t.Errorf("re-read %d posts, cursor %+v", len(again), res2.Cursor)
	}

	// A new post, an edit on the cursor page, a deletion in the range.
	body, err := r.s.Parser.BodyReader()
	if err != nil {
		t.Fatal(err)
	}
	hashes := map[string]string{}
	for _, p := range again {
		hashes[p.ID] = body.Hash(p.BodyHTML)
	}
	ids := r.board.Posts()
	r.board.Edit(ids[21].ID, `changed <span class="mycode_b">VOTE: y</span>`)
	r.board.Delete(ids[20].ID)
	newID := r.board.AddPost(r.alice, "", "new")
	res3, seen := r.read(t, res2.Cursor)
	seenIDs := map[string]bool{}
	edited := 0
	for _, p := range seen {
		seenIDs[p.ID] = true
		if h, ok := hashes[p.ID]; ok && h != body.Hash(p.BodyHTML) {
			edited++
			if !p.Edited {
				t.Error("edit notice not seen")
			}
		}
	}
	if edited != 1 || !seenIDs[fmt.Sprint(newID)] {
		t.Errorf("edited=%d new seen=%v", edited, seenIDs[fmt.Sprint(newID)])
	}
	gone := fmt.Sprint(ids[20].ID)
	if seenIDs[gone] || !res3.Covers(gone) {
		t.Errorf("deleted post %s: seen=%v covered=%v (range %s..%s)", gone, seenIDs[gone], res3.Covers(gone), res3.From, res3.To)
	}
	if res3.Covers(fmt.Sprint(ids[0].ID)) {
		t.Error("range claims page-1 posts it did not read")
	}
}

// Deleting posts before the cursor moves it to an earlier page; a thread
// that shrinks past the cursor's page makes MyBB fall back to page 1. No
// new post may be skipped either way.
func TestCursorAfterShrink(t *testing.T) {
	t.Parallel()
	r := newRig(t, 21) // pages: 10, 10, 1
	res, _ := r.read(t, Cursor{})
	if res.Cursor.Page != 3 {
		t.Fatalf("cursor %+v", res.Cursor)
	}
	ps := r.board.Posts()
	r.board.Delete(ps[0].ID)
	r.board.Delete(ps[1].ID) // now 19 posts: the cursor's post is on page 2
	n1 := r.board.AddPost(r.alice, "", "after 1")
	res2, seen := r.read(t, res.Cursor)
	found := false
	for _, p := range seen {
		found = found || p.ID == fmt.Sprint(n1)
	}
	if !found || res2.Cursor.LastID != fmt.Sprint(n1) {
		t.Errorf("new post missed after shrink: cursor %+v, saw %d", res2.Cursor, len(seen))
	}
}

func TestForcedLogoutRelogin(t *testing.T) {
	t.Parallel()
	r := newRig(t, 3)
	res, _ := r.read(t, Cursor{})
	r.board.LogoutAll()
	_, posts := r.read(t, res.Cursor)
	if len(posts) != 3 || r.board.Logins != 2 {
		t.Errorf("after forced logout: %d posts, %d logins", len(posts), r.board.Logins)
	}
}

func TestWrongPasswordBacksOff(t *testing.T) {
	t.Parallel()
	r := newRig(t, 1)
	r.s.creds.Password = "wrong"
	_, err := r.sc.ReadThread(context.Background(), "9", Cursor{}, func(forum.Post) error { return nil })
	if !errors.Is(err, ErrLogin) || !strings.Contains(err.Error(), "invalid username/password") {
		t.Fatalf("err = %v", err)
	}
	before := r.board.Requests
	if err := r.s.Login(context.Background()); !errors.Is(err, ErrLogin) || r.board.Requests != before {
		t.Errorf("second login attempt not held back: %v, %d requests", err, r.board.Requests-before)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Error("password leaked into an error")
	}
	// The hold lasts at least LoginBackoff [5m] (jitter only adds, up to
	// 20%), then one attempt is made, and the next hold is at least twice
	// as long.
	held := func(after time.Duration) bool {
		t.Helper()
		r.clk.Advance(after)
		before := r.board.Requests
		if err := r.s.Login(context.Background()); !errors.Is(err, ErrLogin) {
			t.Fatalf("login with a wrong password: %v", err)
		}
		return r.board.Requests == before
	}
	if !held(5*time.Minute - time.Second) {
		t.Error("attempt before LoginBackoff passed")
	}
	if held(time.Minute + 2*time.Second) {
		t.Error("no attempt after LoginBackoff plus the most jitter")
	}
	if !held(10*time.Minute - time.Second) {
		t.Error("the second hold did not double")
	}
}

func TestRetryAfterAndPacing(t *testing.T) {
	t.Parallel()
	r := newRig(t, 1)
	r.board.Fail, r.board.RetryAfter = 2, 120
	start := r.clk.Now()
	_, posts := r.read(t, Cursor{})
	if len(posts) != 1 {
		t.Fatal("no posts")
	}
	if waited := r.clk.Now().Sub(start); waited < 240*time.Second {
		t.Errorf("waited %v, want at least 2×Retry-After", waited)
	}
	// Per-host spacing: N requests take at least (N-1) × MinInterval.
	start, n0 := r.clk.Now(), r.s.Requests()
	for i := 0; i < 5; i++ {
		if _, err := r.s.Fetch(context.Background(), "index.php"); err != nil {
			t.Fatal(err)
		}
	}
	if d := r.clk.Now().Sub(start); d < time.Duration(r.s.Requests()-n0-1)*time.Second {
		t.Errorf("%d requests in %v", r.s.Requests()-n0, d)
	}
}

func TestForumDown(t *testing.T) {
	t.Parallel()
	r := newRig(t, 1)
	r.srv.Close()
	_, err := r.sc.ReadThread(context.Background(), "9", Cursor{}, func(forum.Post) error { return nil })
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	r2 := newRig(t, 1)
	r2.board.Fail, r2.board.RetryAfter = 100, 1
	if _, err := r2.sc.Inbox(context.Background()); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "503") {
		t.Fatalf("err = %v", err)
	}
}

func TestWrongThread(t *testing.T) {
	t.Parallel()
	r := newRig(t, 1)
	_, err := r.sc.ReadThread(context.Background(), "12345", Cursor{}, func(forum.Post) error { return nil })
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("err = %v", err)
	}
}

func TestVisitErrorStopsWithCursor(t *testing.T) {
	t.Parallel()
	r := newRig(t, 15)
	stop := errors.New("stop")
	n := 0
	res, err := r.sc.ReadThread(context.Background(), "9", Cursor{}, func(p forum.Post) error {
		n++
		if n == 12 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || res.Seen != 11 || res.Cursor.Page != 2 {
		t.Errorf("err %v, res %+v", err, res)
	}
}

func TestInboxAndReadPM(t *testing.T) {
	t.Parallel()
	r := newRig(t, 0)
	id := r.board.SendPM(r.alice, r.bot, "Orders", "SABOTAGE<br />\n<blockquote class=\"mycode_quote\"><cite>GMBot Wrote:</cite>SUCCESS or SABOTAGE</blockquote>vote  yes")
	hs, err := r.sc.Inbox(context.Background())
	if err != nil || len(hs) != 1 {
		t.Fatalf("inbox: %v %+v", err, hs)
	}
	h := hs[0]
	if h.ID != fmt.Sprint(id) || h.Subject != "Orders" || h.From.Name != "Ünal Şahin" || !h.Unread || !h.Time.Equal(r.board.PMs()[0].Time.Truncate(time.Minute)) {
		t.Errorf("header %+v", h)
	}
	m, err := r.sc.ReadPM(context.Background(), h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != h.ID || m.Subject != "Orders" || m.From.ID != fmt.Sprint(r.alice) {
		t.Errorf("pm %+v", m)
	}
	if got := strings.Join(r.s.Parser.Lines(m.BodyHTML), "|"); got != "SABOTAGE|vote yes" {
		t.Errorf("lines %q", got)
	}
	if _, err := r.sc.ReadPM(context.Background(), "999"); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing PM: %v", err)
	}
}

func TestCompareAndCovers(t *testing.T) {
	t.Parallel()
	if CompareIDs("9", "10") >= 0 || CompareIDs("10", "10") != 0 || CompareIDs("b", "a") <= 0 {
		t.Error("CompareIDs")
	}
	r := Result{From: "10", To: "20"}
	if !r.Covers("15") || r.Covers("9") || r.Covers("21") {
		t.Error("Covers")
	}
	r.ToEnd = true
	if !r.Covers("21") || (Result{}).Covers("1") {
		t.Error("Covers to end")
	}
}

func TestCancelled(t *testing.T) {
	t.Parallel()
	r := newRig(t, 30)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	_, err := r.sc.ReadThread(ctx, "9", Cursor{}, func(forum.Post) error {
		n++
		if n == 5 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 10 {
		t.Errorf("err %v after %d posts", err, n)
	}
}

func TestRetryAfterHeader(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	h := map[string][]string{"Retry-After": {"120"}}
	if d, ok := RetryAfter(h, now); !ok || d != 2*time.Minute {
		t.Errorf("seconds: %v %v", d, ok)
	}
	h["Retry-After"] = []string{now.Add(90 * time.Second).Format(http.TimeFormat)}
	if d, ok := RetryAfter(h, now); !ok || d != 90*time.Second {
		t.Errorf("date: %v %v", d, ok)
	}
	h["Retry-After"] = []string{"soon"}
	if _, ok := RetryAfter(h, now); ok {
		t.Error("garbage accepted")
	}
}
