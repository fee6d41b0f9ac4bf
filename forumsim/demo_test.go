package forumsim

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
)

func TestSeedDemo(t *testing.T) {
	s := New(Options{Clock: clock.NewFake(t0)})
	d, err := SeedDemo(s, func(n string) string { return strings.ToLower(n[:3]) + "-pw" })
	if err != nil {
		t.Fatal(err)
	}
	posts := s.Posts(d.TopicID)
	if len(posts) != 25 || len(d.Users) != 6 || !d.Bot.Exempt {
		t.Fatalf("%d posts, %d users", len(posts), len(d.Users))
	}
	for i := 1; i < len(posts); i++ {
		if !posts[i].Time.After(posts[i-1].Time) {
			t.Fatal("posts must be dated in order")
		}
	}
	if posts[9].EditCount != 1 {
		t.Error("post 10 carries the demo's edit notice")
	}
	all := ""
	for _, p := range posts {
		all += p.HTML
	}
	for _, want := range []string{"text-strong", "<blockquote", "spoiler-content", "line-through", "codebox"} {
		if !strings.Contains(all, want) {
			t.Errorf("demo thread lacks %s", want)
		}
	}
	if strings.Contains(all, "[the]") {
		t.Error("the bot's roster must escape the name with brackets")
	}
	if _, ok := s.UserID("Zoë [the] Bold"); !ok {
		t.Error("no user with brackets")
	}
	if fs := s.Forums(); len(fs) != 2 || fs[0].ID != d.ForumID {
		t.Errorf("forums %+v", fs)
	}
	if ts := s.Topics(d.ForumID); len(ts) != 1 || len(ts[0].PostIDs()) != 25 || ts[0].PostIDs()[0] != posts[0].ID {
		t.Errorf("topics %+v", ts)
	}
	if _, err := SeedDemo(s, nil); err == nil {
		t.Error("seeding twice must fail on taken names")
	}
}
