package moderator

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestBackfillAtTheBoardsPace: `forumgm run` with two games on one
// forumsim board and bot account, polled every 5 s, the board allowing 50
// requests a second. One game starts in a thread of 2,000 posts (200
// pages): its first read goes on tick after tick without waiting for the
// next poll, so it is caught up in about what the board's rate allows (4
// s of requests), not at 20 pages a poll (10 polls, 45 s and more). It
// keeps running meanwhile (its opening post goes up during the read), and
// so does the other game: a PM to it is answered within two polls.
func TestBackfillAtTheBoardsPace(t *testing.T) {
	if testing.Short() {
		t.Skip("runs `forumgm run` on the real clock for about ten seconds")
	}
	db := storetest.SQLite(t)
	th := simtest.NewThread(t, forumsim.Options{FloodInterval: -1, NoPostReview: true}, "GMBot", "s3cret", true,
		[]string{"Alice", "Bob", "Carol", "Dave"}, "Nations starts here.")
	sim := th.Sim
	long, _, err := sim.AddTopic(1, th.Players["Alice"], "Sign-ups", "Who is in?")
	if err != nil {
		t.Fatal(err)
	}
	const posts = 2000
	for i := 1; i < posts; i++ {
		who := []string{"Alice", "Bob"}[i%2]
		if _, err := sim.Post(long, th.Players[who], fmt.Sprintf("chatter %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "test"}
	m := &Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board, Pool: &Pool{}}
	zero := 0.0
	mk := func(name string, topic int, players []string) *store.Game {
		fc := th.Forum(t, "FORUMGM_BACKFILL_PW")
		fc.Thread, fc.PollSeconds, fc.RequestsPerSecond, fc.FloodSeconds = fmt.Sprint(topic), 5, 50, &zero
		gc := gameconfig.GameConfig{Players: players, Seed: 4, Start: time.Now(), Options: map[string]any{"rounds": 2, "round_minutes": 60}}
		var roster []store.Player
		for _, p := range players {
			roster = append(roster, store.Player{Slot: p, ForumName: p, ForumUserID: fmt.Sprint(th.Players[p])})
		}
		g, err := m.Create(ctx, name, "nations", gc, fc, roster)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	lg := mk("long", long, []string{"Alice", "Bob"})
	mk("short", th.Topic, []string{"Carol", "Dave"})
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// The other game: a PM to it during the backfill is answered.
	carol := th.Players["Carol"]
	for len(th.BotPosts()) < 1 && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	got := len(sim.Inbox(carol))
	if _, err := sim.SendPM(carol, []int{th.Bot}, "orders", "PROSPER"); err != nil {
		t.Fatal(err)
	}
	asked := time.Now()
	for len(sim.Inbox(carol)) <= got && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	answered := time.Since(asked)
	caughtUp := func() bool { return !progressOf(t, db, lg.ID).Behind() && progressOf(t, db, lg.ID).Pages > 1 }
	wasBehind := !caughtUp()
	for !caughtUp() && ctx.Err() == nil {
		time.Sleep(20 * time.Millisecond)
	}
	took := time.Since(began)
	if ctx.Err() != nil {
		t.Fatalf("not done in two minutes: the PM answered after %s, the long thread at %+v", answered, progressOf(t, db, lg.ID))
	}
	t.Logf("the 200-page first read took %s; a PM to the other game was answered after %s (during the read: %v)", took, answered, wasBehind)
	if took > 30*time.Second {
		t.Errorf("the first read of 200 pages took %s: not at the board's pace (50 requests a second)", took)
	}
	if answered > 15*time.Second {
		t.Errorf("the other game's PM was answered after %s, more than two polls (5 s) and some", answered)
	}
	n := 0
	for _, msg := range messagesOf(t, db, lg.ID) {
		if msg.Kind == "post" {
			n++
		}
	}
	if n < posts {
		t.Errorf("%d posts recorded, want the thread's %d", n, posts)
	}
	var opening bool
	for _, p := range sim.Posts(long) {
		opening = opening || p.AuthorID == th.Bot
	}
	if !opening {
		t.Error("the long game's opening post is not on the board")
	}
}
