package poster

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
	"github.com/forumgm/forumgm/scraper/fakemybb"
)

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

type rig struct {
	board     *fakemybb.Board
	srv       *httptest.Server
	clk       *clock.Fake
	s         *scraper.Session
	p         *Poster
	bot, unal int
}

func newRig(t *testing.T) *rig {
	t.Helper()
	clk := clock.NewFake(t0)
	b := fakemybb.New(clk)
	r := &rig{board: b, clk: clk}
	r.bot = b.AddUser("GMBot", "s3cret")
	r.unal = b.AddUser("Ünal Şahin", "pw")
	b.AddPost(r.unal, "", "first")
	r.srv = httptest.NewServer(b)
	t.Cleanup(r.srv.Close)
	prof, _ := forum.Builtin("mybb")
	s, err := scraper.NewSession(r.srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "s3cret"},
		scraper.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	r.s, r.p = s, New(s)
	return r
}

func TestMarkers(t *testing.T) {
	for _, tc := range []struct{ engine, want string }{
		{"phpbb", "Hello\n\n[size=85]forumgm·g1.day-1.3[/size]"},
		{"mybb", "Hello\n\n[size=x-small]forumgm·g1.day-1.3[/size]"},
		{"smf", "Hello\n\n[size=0.8em]forumgm·g1.day-1.3[/size]"},
	} {
		prof, _ := forum.Builtin(tc.engine)
		p := &Poster{Session: &scraper.Session{Profile: prof}}
		if got := p.mark("Hello\n\n", "g1.day-1.3"); got != tc.want {
			t.Errorf("%s: the marked body is %q, want %q", tc.engine, got, tc.want)
		}
	}
	for _, bad := range []string{"", "a b", "x[b]", strings.Repeat("k", 121), "ключ"} {
		if ValidKey(bad) == nil {
			t.Errorf("key %q accepted", bad)
		}
	}
	body := `Result<br><span style="font-size: 85%; line-height: normal">forumgm&middot;g1.day-1.3</span>` +
		`<blockquote><div><cite>GMBot wrote:</cite><span>forumgm·g1.day-0.9</span></div></blockquote>`
	if got := FindMarkers(body); len(got) != 1 || got[0] != "g1.day-1.3" {
		t.Errorf("FindMarkers = %q", got)
	}
}

func TestReplyFloodAndMarker(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	id, err := r.p.Reply(ctx, "9", "g1.day-1.1", "", "Day 1 begins. [b]Vote![/b]")
	if err != nil {
		t.Fatal(err)
	}
	posts := r.board.Posts()
	last := posts[len(posts)-1]
	if id != fmt.Sprint(last.ID) || last.UID != r.bot || !strings.Contains(last.Message, "forumgm·g1.day-1.1") {
		t.Fatalf("posted %s, board last %+v", id, last)
	}
	if st := r.p.Flood(); st.State != forum.FloodUnknown {
		t.Errorf("before any refusal: flood %+v, want unknown", st)
	}
	// The next reply at once: MyBB refuses it ("Please wait 56 more
	// seconds": the seconds left, its pacing having taken some); the
	// poster returns at once, nothing posted, and has learned the whole
	// limit, counted from its first reply.
	before := len(r.board.Posts())
	_, err = r.p.Reply(ctx, "9", "g1.day-1.2", "", "second")
	var fe *forum.FloodError
	refusedAt := r.clk.Now()
	if !errors.As(err, &fe) || !errors.Is(err, forum.ErrFlood) || !fe.Until.Equal(last.Time.Add(60*time.Second)) || fe.Uncertain {
		t.Fatalf("second reply at once: %v, want a flood error until 60 s after the first (%v)", err, last.Time)
	}
	st := r.p.Flood()
	if st.State != forum.FloodLimited || st.Interval != 60*time.Second || !st.Learned.Equal(r.clk.Now()) || !st.Next.Equal(fe.Until) {
		t.Errorf("after the refusal: flood %+v", st)
	}
	if refusedAt.Sub(last.Time) > 5*time.Second || len(r.board.Posts()) != before {
		t.Errorf("the poster waited (%v) or posted (%d)", r.clk.Now().Sub(last.Time), len(r.board.Posts())-before)
	}
	// Asked again too soon, it refuses without asking the board.
	r.clk.Advance(30 * time.Second)
	if _, err := r.p.Reply(ctx, "9", "g1.day-1.2", "", "second"); !errors.As(err, &fe) || !fe.Until.Equal(last.Time.Add(60*time.Second)) || !r.clk.Now().Equal(refusedAt.Add(30*time.Second)) {
		t.Errorf("30 s later: %v", err)
	}
	r.clk.Set(last.Time.Add(60 * time.Second))
	id2, err := r.p.Reply(ctx, "9", "g1.day-1.2", "", "second")
	if err != nil {
		t.Fatal(err)
	}
	if ps := r.board.Posts(); len(ps) != before+1 || ps[len(ps)-1].Time.Sub(last.Time) < 60*time.Second {
		t.Errorf("second reply %v after the first, want ≥ 60s", ps[len(ps)-1].Time.Sub(last.Time))
	}
	// A game file saying "exempt" is believed until the board refuses.
	r.p.SetFlood(0)
	if _, err := r.p.Reply(ctx, "9", "g1.day-1.3", "", "third"); !errors.As(err, &fe) {
		t.Fatalf("configured exempt, refused by the board: %v", err)
	}
	if st := r.p.Flood(); st.State != forum.FloodLimited || st.Interval != 60*time.Second {
		t.Errorf("after a refusal of a configured exempt account: %+v", st)
	}
	r.clk.Advance(time.Minute)
	id3, err := r.p.Reply(ctx, "9", "g1.day-1.3", "", "third")
	if err != nil || id3 == id2 || len(r.board.Posts()) != before+2 {
		t.Errorf("third reply: %s %v, %d posts", id3, err, len(r.board.Posts())-before)
	}
	// After a crash a new poster finds the post instead of posting again.
	p2 := New(r.s)
	got, ok, err := p2.PostWithMarker(ctx, "9", "g1.day-1.1")
	if err != nil || !ok || got != id {
		t.Errorf("PostWithMarker = %q %v %v, want %s", got, ok, err, id)
	}
	if _, ok, _ := p2.PostWithMarker(ctx, "9", "g1.day-9.9"); ok {
		t.Error("found a marker that was never posted")
	}
}

// A player copying the bot's marker into their own post does not count.
func TestMarkerOnlyFromBot(t *testing.T) {
	r := newRig(t)
	r.board.AddPost(r.unal, "", `<span style="font-size: 85%;">forumgm·g1.day-1.1</span>`)
	if _, ok, err := r.p.PostWithMarker(context.Background(), "9", "g1.day-1.1"); err != nil || ok {
		t.Errorf("player's copy taken as the bot's post: %v %v", ok, err)
	}
}

func TestSendPMAndFindInSent(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	id, err := r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin", ID: fmt.Sprint(r.unal)}, "g1.n1.pm.4", "Your role", "You are a [b]spy[/b].")
	if err != nil {
		t.Fatal(err)
	}
	pms := r.board.PMs()
	if len(pms) != 1 || fmt.Sprint(pms[0].ID) != id || pms[0].To != r.unal || !strings.Contains(pms[0].Message, "forumgm·g1.n1.pm.4") {
		t.Fatalf("sent %q, board %+v", id, pms)
	}
	got, ok, err := New(r.s).SentPMWithMarker(ctx, "g1.n1.pm.4", time.Time{})
	if err != nil || !ok || got != id {
		t.Errorf("SentPMWithMarker = %q %v %v", got, ok, err)
	}
	// A second PM right away is refused (MyBB's PM flood interval); sent
	// patiently, it goes once the interval has passed.
	if _, err := r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin"}, "g1.n1.pm.5", "", "again"); !errors.Is(err, forum.ErrFlood) {
		t.Fatalf("second PM at once: %v", err)
	}
	if _, err := Patiently(ctx, r.clk, func() (string, error) {
		return r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin"}, "g1.n1.pm.5", "", "again")
	}); err != nil {
		t.Fatal(err)
	}
	if pms := r.board.PMs(); len(pms) != 2 || pms[1].Time.Sub(pms[0].Time) < 60*time.Second {
		t.Errorf("PM flood interval not honoured: %+v", pms)
	}
	// An unknown recipient is a rejection with the board's words.
	r.clk.Advance(time.Minute)
	_, err = r.p.SendPM(ctx, forum.Author{Name: "Nobody"}, "g1.n1.pm.6", "", "x")
	if !errors.Is(err, ErrRejected) || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("unknown recipient: %v", err)
	}
}

func TestForumDown(t *testing.T) {
	r := newRig(t)
	r.srv.Close()
	_, err := r.p.Reply(context.Background(), "9", "g1.x.1", "", "x")
	if err == nil || !errors.Is(err, scraper.ErrUnavailable) {
		t.Errorf("down forum: %v", err)
	}
}

func TestBadKey(t *testing.T) {
	r := newRig(t)
	if _, err := r.p.Reply(context.Background(), "9", "bad key", "", "x"); err == nil {
		t.Error("bad key accepted")
	}
}
