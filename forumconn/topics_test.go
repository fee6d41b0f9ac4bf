package forumconn_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
)

// TestMarksSharedByTheAccount: the games of one account take their marks
// from one read of their forum's topic list (60 topics, three pages), read
// no further than the threads asked for; a mark changes with a post in its
// thread only; a thread the list does not show has an empty mark; a game
// naming no forum, or a profile without a topic list, has no signal.
func TestMarksSharedByTheAccount(t *testing.T) {
	t.Setenv("FORUMGM_TOPICS_PW", "s3cret")
	clk := clock.NewFake(time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC))
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: -1})
	bot, _ := sim.AddUser("GMBot", "s3cret", true)
	ann, _ := sim.AddUser("Ann", "a", false)
	games, other := sim.AddForum("Games", ""), sim.AddForum("Chat", "")
	var topics []int
	for i := 0; i < 60; i++ {
		id, _, err := sim.AddTopic(games, bot, fmt.Sprintf("Game %d", i), "Welcome.")
		if err != nil {
			t.Fatal(err)
		}
		topics = append(topics, id)
		clk.Advance(time.Second)
	}
	elsewhere, _, _ := sim.AddTopic(other, bot, "Off topic", "Hi.")
	var lists atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "viewforum.php") {
			lists.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()
	ss := &forumconn.Sessions{Clock: clk, Version: "test"}
	conn := func(topic int) *forumconn.Conn {
		fc := gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: fmt.Sprint(topic), Bot: "GMBot", PasswordEnv: "FORUMGM_TOPICS_PW", RequestsPerSecond: 1000}
		site, err := fc.Site()
		if err != nil {
			t.Fatal(err)
		}
		c, err := ss.Connect(site)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	ctx := context.Background()
	forumID := fmt.Sprint(games)
	// The ten oldest topics, on the list's last page, and one on the first.
	watched := append([]int{topics[59]}, topics[:10]...)
	marks := func() map[int]string {
		out := map[int]string{}
		for _, tp := range watched {
			m, err := conn(tp).Mark(ctx, forumID, fmt.Sprint(tp))
			if err != nil {
				t.Fatal(err)
			}
			out[tp] = m.Sign
		}
		return out
	}
	first := marks() // each game asks for the first time: its thread is looked for from then on
	clk.Advance(10 * time.Second)
	lists.Store(0)
	again := marks()
	if n := lists.Load(); n != 3 {
		t.Errorf("a cycle of 11 games read %d pages of the list, want its 3 once", n)
	}
	for tp, s := range again {
		if s == "" || s != first[tp] {
			t.Errorf("topic %d: mark %q then %q", tp, first[tp], s)
		}
	}
	// A post in one thread changes its mark only (the thread moves to the
	// list's first page).
	if _, err := sim.Post(topics[3], ann, "Bump."); err != nil {
		t.Fatal(err)
	}
	clk.Advance(10 * time.Second)
	after := marks()
	for tp, s := range after {
		if changed := s != again[tp]; changed != (tp == topics[3]) {
			t.Errorf("topic %d: mark %q then %q", tp, again[tp], s)
		}
	}
	// Not in the list: an empty mark (the game reads its thread).
	if m, err := conn(elsewhere).Mark(ctx, forumID, fmt.Sprint(elsewhere)); err != nil || m.Sign != "" {
		t.Errorf("a thread of another forum: %+v, %v", m, err)
	}
	// No forum named: no signal.
	if _, err := conn(topics[0]).Mark(ctx, "", fmt.Sprint(topics[0])); err != forum.ErrNoSignal {
		t.Errorf("no forum: %v, want ErrNoSignal", err)
	}
}
