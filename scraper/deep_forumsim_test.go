package scraper_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/scraper"
)

// TestDeepPostsOnForumsim: the exact posts that froze a game — 5,000
// nested [b] (35 KB) and 3,900 nested quotes, both within the board's
// 60,000 characters — are accepted by the local phpBB-like board; the
// thread still reads, each of them as unreadable (no commands), the posts
// around them as usual; a PM nested as deep reads as unreadable too.
func TestDeepPostsOnForumsim(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	sim := forumsim.New(forumsim.Options{Clock: clk})
	bot, _ := sim.AddUser("GMBot", "gm-pass", false)
	ann, _ := sim.AddUser("Ann", "a", false)
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Game", "Vote with [b]VOTE: name[/b].")
	if err != nil {
		t.Fatal(err)
	}
	bold := strings.Repeat("[b]", 5000) + "VOTE: Bot" + strings.Repeat("[/b]", 5000)
	quotes := strings.Repeat("[quote]", 3900) + "[b]VOTE: Bot[/b]" + strings.Repeat("[/quote]", 3900)
	texts := []string{"before [b]VOTE: Ann[/b]", bold, "middle [b]VOTE: Bob[/b]", quotes, "after [b]VOTE: Cat[/b]"}
	for _, tx := range texts {
		if len(tx) > 60000 {
			t.Fatalf("a test post of %d characters is over phpBB's limit", len(tx))
		}
		clk.Advance(time.Minute)
		if _, err := sim.Post(topic, ann, tx); err != nil {
			t.Fatal(err)
		}
	}
	if len(bold) < 35000 {
		t.Fatalf("5000 nested [b] is %d characters", len(bold))
	}
	if _, err := sim.SendPM(ann, []int{bot}, "orders", strings.Repeat("[quote]", 3900)+"SABOTAGE"+strings.Repeat("[/quote]", 3900)); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"}, scraper.Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	sc := scraper.New(s)
	ctx := context.Background()
	var posts []forum.Post
	if _, err := sc.ReadThread(ctx, fmt.Sprint(topic), scraper.Cursor{}, func(p forum.Post) error {
		posts = append(posts, p)
		return nil
	}); err != nil {
		t.Fatalf("the thread does not read: %v", err)
	}
	if len(posts) != 1+len(texts) {
		t.Fatalf("%d posts, want %d", len(posts), 1+len(texts))
	}
	want := []string{"VOTE: name", "VOTE: Ann", "", "VOTE: Bob", "", "VOTE: Cat"}
	for i, p := range posts {
		got := strings.Join(s.Parser.Segments(p.BodyHTML), "|")
		if got != want[i] {
			t.Errorf("post %d: segments %q, want %q", i, got, want[i])
		}
		if unreadable := forum.IsUnreadable(p.BodyHTML); unreadable != (want[i] == "") {
			t.Errorf("post %d: unreadable=%v: %.120s", i, unreadable, p.BodyHTML)
		}
	}
	hs, err := sc.Inbox(ctx)
	if err != nil || len(hs) != 1 {
		t.Fatalf("inbox: %v %v", hs, err)
	}
	pm, err := sc.ReadPM(ctx, hs[0].ID)
	if err != nil {
		t.Fatalf("the PM does not read: %v", err)
	}
	if !forum.IsUnreadable(pm.BodyHTML) || len(s.Parser.Lines(pm.BodyHTML)) != 0 || pm.From.Name != "Ann" {
		t.Errorf("PM: from %q, body %.120s", pm.From.Name, pm.BodyHTML)
	}
}
