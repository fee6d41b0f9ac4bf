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
	if got := WithMarker("Hello\n\n", "g1.day-1.3"); got != "Hello\n\n[size=85]forumgm·g1.day-1.3[/size]" {
		t.Errorf("WithMarker = %q", got)
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
	// The next reply waits out MyBB's 60 s flood limit on the fake clock.
	id2, err := r.p.Reply(ctx, "9", "g1.day-1.2", "", "second")
	if err != nil {
		t.Fatal(err)
	}
	if ps := r.board.Posts(); ps[len(ps)-1].Time.Sub(last.Time) < 60*time.Second {
		t.Errorf("second reply %v after the first, want ≥ 60s", ps[len(ps)-1].Time.Sub(last.Time))
	}
	// A flood error page (the bot thought it was exempt) is honoured.
	r.p.FloodWait = 0
	before := len(r.board.Posts())
	start := r.clk.Now()
	id3, err := r.p.Reply(ctx, "9", "g1.day-1.3", "", "third")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.board.Posts()) != before+1 || id3 == id2 {
		t.Errorf("flood retry posted %d posts", len(r.board.Posts())-before)
	}
	if d := r.clk.Now().Sub(start); d < 60*time.Second || r.p.FloodWait != 60*time.Second {
		t.Errorf("flood: waited %v, FloodWait now %v", d, r.p.FloodWait)
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
	got, ok, err := New(r.s).SentPMWithMarker(ctx, "g1.n1.pm.4")
	if err != nil || !ok || got != id {
		t.Errorf("SentPMWithMarker = %q %v %v", got, ok, err)
	}
	// A second PM right away waits the PM flood interval, then goes.
	if _, err := r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin"}, "g1.n1.pm.5", "", "again"); err != nil {
		t.Fatal(err)
	}
	if pms := r.board.PMs(); len(pms) != 2 || pms[1].Time.Sub(pms[0].Time) < 60*time.Second {
		t.Errorf("PM flood interval not honoured: %+v", pms)
	}
	// An unknown recipient is a rejection with the board's words.
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
