package moderator

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestBoardLimitLearnedOnForumsim: a board whose max_post_chars (20,000) is
// below what the phpBB profile assumes (60,000). A 3,000-line PM's receipt,
// cut for 60,000, is refused in phpBB's words; the bot learns 20,000 from
// them, sends the receipt in parts under it, each once, and the round's
// report and Bob's PMs queued behind it go out too. Nothing fails.
func TestBoardLimitLearnedOnForumsim(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true, MaxPostChars: 20000})
	bot, _ := sim.AddUser("GMBot", "s3cret", true)
	alice, _ := sim.AddUser("Alice", "a", false)
	bob, _ := sim.AddUser("Bob", "b", false)
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Nations", "Nations starts here.")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	defer srv.Close()
	t.Setenv("FORUMGM_LIMIT_TEST_PW", "s3cret")
	m := &Moderator{DB: db, Clock: clk, Connect: func(ctx context.Context, fc gameconfig.ForumConfig) (Forum, error) {
		return forumconn.Connect(fc, clk, "test")
	}}
	zero := 0.0
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Options: map[string]any{"rounds": 2, "round_minutes": 30, "break_minutes": 5}, Seed: 4, Start: start}
	fc := gameconfig.ForumConfig{URL: srv.URL + "/forum/", Engine: "phpbb", Thread: fmt.Sprint(topic), Bot: "GMBot", PasswordEnv: "FORUMGM_LIMIT_TEST_PW", FloodSeconds: &zero}
	g, err := m.Create(ctx, "limit", "nations", gc, fc, []store.Player{
		{Slot: "Alice", ForumName: "Alice", ForumUserID: fmt.Sprint(alice)}, {Slot: "Bob", ForumName: "Bob", ForumUserID: fmt.Sprint(bob)}})
	if err != nil {
		t.Fatal(err)
	}
	tick := func() {
		t.Helper()
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	tick()
	var lines []string
	for i := 1; i <= 3000; i++ {
		lines = append(lines, fmt.Sprintf("line %d of my very long letter", i))
	}
	if _, err := sim.SendPM(alice, []int{bot}, "orders", strings.Join(lines, "\n")); err != nil {
		t.Fatal(err)
	}
	tick()
	clk.Advance(31 * time.Minute) // round 1 closes; round 2's report after the break
	for range 8 {
		tick()
		clk.Advance(time.Minute)
	}

	var out []store.OutboxItem
	var row *store.Game
	db.View(ctx, func(tx *store.Tx) error {
		if out, err = tx.Outbox(g.ID); err != nil {
			return err
		}
		row, err = tx.GameByID(g.ID)
		return err
	})
	if row.MessageLimit != 20000 {
		t.Errorf("learned limit %d, want the board's 20000", row.MessageLimit)
	}
	split := 0
	for _, it := range out {
		switch it.State {
		case store.OutboxSent:
		case store.OutboxSplit:
			split++
		default:
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
		}
	}
	if split == 0 {
		t.Error("nothing was re-split under the learned limit")
	}
	var receipt strings.Builder
	parts, gotBob := 0, 0
	for _, pm := range sim.Sent(bot) {
		if len([]rune(pm.Source)) > 20000 {
			t.Errorf("a PM of %d characters reached the board", len(pm.Source))
		}
		switch {
		case pm.To[0] == bob:
			gotBob++
		case strings.Contains(pm.Source, "(part "):
			parts++
			receipt.WriteString(pm.Source)
		}
	}
	if parts < 4 {
		t.Fatalf("the receipt went out in %d parts, want at least 4 under 20,000", parts)
	}
	for _, n := range []int{1, 1500, 2999, 3000} {
		if c := strings.Count(receipt.String(), fmt.Sprintf("line %d of my", n)); c != 1 {
			t.Errorf("the receipt's parts answer line %d %d times, want 1", n, c)
		}
	}
	botPosts := 0
	for _, p := range sim.Posts(topic) {
		if p.AuthorID == bot {
			botPosts++
		}
	}
	if botPosts < 3 {
		t.Errorf("behind the receipt: %d bot posts in the thread (Bob got %d PMs)", botPosts, gotBob)
	}
}
