package moderator

import (
	"context"
	"fmt"
	"net/http"
	"strings"
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

// TestSendsKeepPaceWithASlowBoard: six Nations games on one flood-exempt
// account, leases of 10 s (so each send has a 5 s budget), whose board,
// once they are open, answers its forms far slower than its
// requests_per_second says (500 ms each, as one PHP process on a busy
// host gives: CI had that). Every player orders at once: 18 receipts.
// Each is on the board once, and none needed a marker check: a send
// whose turn came too late for its budget went back to the queue without
// reaching the board (forum.ErrNotSubmitted, no attempt), and the
// account's depth fell to what the board could answer in time. Before,
// the six games' receipts went under way together, waited their turns
// past their budgets, and each such send was left "sending", checked for,
// and tried again into the same queue.
func TestSendsKeepPaceWithASlowBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs `forumgm run` on the real clock against a slow board for about half a minute")
	}
	const games, poll = 6, 5 * time.Second
	names := []string{"Alice", "Bob", "Carol"}
	var players []string
	for g := 0; g < games; g++ {
		for _, n := range names {
			players = append(players, fmt.Sprintf("%s%d", n, g))
		}
	}
	th := simtest.NewThread(t, forumsim.Options{FloodInterval: -1, NoPostReview: true}, "GMBot", "s3cret", true, players, "Games here.")
	sim := th.Sim
	db := storetest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "test"}
	m := &Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board, Pool: &Pool{Workers: 4}, Lease: 10 * time.Second}
	zero := 0.0
	var ids []int64
	for g := 0; g < games; g++ {
		topic := th.Topic
		if g > 0 {
			var err error
			if topic, _, err = sim.AddTopic(1, th.Bot, fmt.Sprintf("Nations %d", g), "A game."); err != nil {
				t.Fatal(err)
			}
		}
		fc := th.Forum(t, "FORUMGM_SLOWBOARD_PW")
		fc.Thread, fc.PollSeconds, fc.RequestsPerSecond, fc.FloodSeconds = fmt.Sprint(topic), poll.Seconds(), 100, &zero
		ps := players[g*len(names) : (g+1)*len(names)]
		gc := gameconfig.GameConfig{Players: ps, Seed: int64(g + 1), Start: time.Now(), Options: map[string]any{"rounds": 2, "round_minutes": 60}}
		var roster []store.Player
		for _, p := range ps {
			roster = append(roster, store.Player{Slot: p, ForumName: p, ForumUserID: fmt.Sprint(th.Players[p])})
		}
		gm, err := m.Create(ctx, fmt.Sprintf("g%d", g), "nations", gc, fc, roster)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, gm.ID)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	sentOf := func() (sent, all int) {
		for _, id := range ids {
			for _, it := range simtest.Outbox(t, db, id) {
				all++
				if it.State == store.OutboxSent {
					sent++
				}
			}
		}
		return
	}
	for s, all := sentOf(); (s < games || s < all) && ctx.Err() == nil; s, all = sentOf() {
		time.Sleep(100 * time.Millisecond)
	}
	// From now on the board's forms are slow: each form page and each
	// submission answered in 500 ms (its reads as quick as before).
	slow := func(r *http.Request) {
		if strings.Contains(r.URL.Path, "posting.php") || r.URL.Query().Get("mode") == "compose" {
			time.Sleep(500 * time.Millisecond)
		}
	}
	th.Seen.Store(&slow)
	for _, p := range players {
		if _, err := sim.SendPM(th.Players[p], []int{th.Bot}, "orders", "PROSPER"); err != nil {
			t.Fatal(err)
		}
	}
	burst := time.Now()
	for s, all := sentOf(); (s < games+len(players) || s < all) && ctx.Err() == nil; s, all = sentOf() {
		time.Sleep(100 * time.Millisecond)
	}
	if ctx.Err() != nil {
		s, all := sentOf()
		t.Fatalf("not done in three minutes: %d of %d messages sent", s, all)
	}
	t.Logf("%d receipts sent in %s on a board answering its forms in 500 ms", len(players), time.Since(burst).Round(time.Millisecond))
	var board []string
	for _, pm := range sim.Sent(th.Bot) {
		board = append(board, pm.HTML)
	}
	all := strings.Join(board, "\n")
	for _, id := range ids {
		for _, it := range simtest.Outbox(t, db, id) {
			if it.Kind == "pm" {
				if n := strings.Count(all, "forumgm·"+it.Marker+"<"); n != 1 {
					t.Errorf("%s on the board %d times", it.Marker, n)
				}
			}
			if it.Attempts != 1 {
				t.Errorf("%s: %d attempts: a send reached the board too late for its budget, or was checked for", it.Marker, it.Attempts)
			}
		}
	}
}
