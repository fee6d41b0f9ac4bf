package moderator

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
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

// TestReadsNeverWaitOnSends: six Nations games on one bot account, two
// workers, polled every 2 s. Every player sends an order at once, so the
// account has 24 receipts to send, each about a second (phpBB's form wait):
// half a minute of sending. Meanwhile every game is still read at its poll
// period (its sends wait on the account's send lanes, not in a worker), a
// new order to the last game is recorded within two polls, and every
// receipt reaches the board once. With the sends inside the ticks, the two
// workers were held by the games sending, and the others went unread for
// many polls.
func TestReadsNeverWaitOnSends(t *testing.T) {
	t.Parallel() // waits on the real clock: beside the others
	if testing.Short() {
		t.Skip("runs `forumgm run` on the real clock for about half a minute")
	}
	const games, poll = 6, 2 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	ag := newAccountGames(t, ctx, games, []string{"Alice", "Bob", "Carol", "Dave"}, poll, &Moderator{Pool: &Pool{Workers: 2}}, true)
	th, sim, db, ids, topics, players := ag.th, ag.th.Sim, ag.db, ag.ids, ag.topics, ag.players
	defer ag.run(ctx, cancel)()
	sentOf := ag.sentOf
	// The games open (one post each), then every player orders.
	for s, all := sentOf(); (s < games || s < all) && ctx.Err() == nil; s, all = sentOf() {
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range players {
		if _, err := sim.SendPM(th.Players[p], []int{th.Bot}, "orders", "PROSPER"); err != nil {
			t.Fatal(err)
		}
	}
	burst := time.Now()
	// A game's reads, as the board sees them: its thread's pages asked for.
	var mu sync.Mutex
	seen := map[string]time.Time{} // by topic: the last read
	gap := map[string]time.Duration{}
	seenFn := func(r *http.Request) {
		if !strings.Contains(r.URL.Path, "viewtopic") {
			return
		}
		topic, now := r.URL.Query().Get("t"), time.Now()
		mu.Lock()
		defer mu.Unlock()
		if last, ok := seen[topic]; ok {
			gap[topic] = max(gap[topic], now.Sub(last))
		}
		seen[topic] = now
	}
	th.Seen.Store(&seenFn)
	late := players[len(players)-1]
	var asked, recorded time.Time
	for ctx.Err() == nil {
		now := time.Now()
		if asked.IsZero() && now.Sub(burst) > 5*time.Second {
			// Mid-burst: a new order to the last game.
			if _, err := sim.SendPM(th.Players[late], []int{th.Bot}, "more orders", "INVADE Alice0, on second thoughts"); err != nil {
				t.Fatal(err)
			}
			asked = now
		}
		if !asked.IsZero() && recorded.IsZero() {
			for _, msg := range messagesOf(t, db, ids[games-1]) {
				if strings.Contains(msg.BodyHTML, "on second thoughts") {
					recorded = now
				}
			}
		}
		if s, all := sentOf(); s == all && s >= games+len(players) && !recorded.IsZero() {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if ctx.Err() != nil {
		s, all := sentOf()
		t.Fatalf("not done in three minutes: %d of %d messages sent", s, all)
	}
	took := time.Since(burst)
	th.Seen.Store(nil)
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d receipts sent in %s; the longest gap between two reads of a game's thread, by topic: %v; a new order recorded after %s",
		len(players), took.Round(time.Millisecond), gap, recorded.Sub(asked).Round(time.Millisecond))
	if took < 10*time.Second {
		t.Logf("the sends took only %s: the burst did not test much", took)
	}
	for _, topic := range topics {
		if g := gap[topic]; g > poll*3/2+time.Second || g == 0 {
			t.Errorf("the thread of topic %s went %s without a read while the account sent (poll %s)", topic, g.Round(time.Millisecond), poll)
		}
	}
	if d := recorded.Sub(asked); d > 2*poll+time.Second {
		t.Errorf("an order sent mid-burst was recorded after %s, more than two polls", d)
	}
	// Each message once on the board: the posts in their game's thread, the
	// receipts in the bot's sent PMs.
	var board []string
	for _, topic := range topics {
		n, _ := strconv.Atoi(topic)
		for _, p := range sim.Posts(n) {
			if p.AuthorID == th.Bot {
				board = append(board, p.HTML)
			}
		}
	}
	for _, pm := range sim.Sent(th.Bot) {
		board = append(board, pm.HTML)
	}
	all := strings.Join(board, "\n")
	for _, id := range ids {
		for _, it := range simtest.Outbox(t, db, id) {
			if n := strings.Count(all, "forumgm·"+it.Marker+"<"); n != 1 {
				t.Errorf("%s on the board %d times", it.Marker, n)
			}
		}
	}
}

// accountGames: Nations games, each in its own topic, on one flood-exempt
// bot account of a forumsim phpBB board, polled every poll at
// requests_per_second 100 by a Moderator on the real clock.
type accountGames struct {
	t       *testing.T
	th      *simtest.Thread
	db      *store.DB
	m       *Moderator
	ids     []int64
	topics  []string
	players []string // each game's, in turn
}

// newAccountGames creates games games of len(names) players (the names
// numbered by game) under m (its DB, clock and connections filled in);
// forumOff reads every thread at every poll (no change signal).
func newAccountGames(t *testing.T, ctx context.Context, games int, names []string, poll time.Duration, m *Moderator, forumOff bool) *accountGames {
	t.Helper()
	ag := &accountGames{t: t, m: m}
	for g := 0; g < games; g++ {
		for _, n := range names {
			ag.players = append(ag.players, fmt.Sprintf("%s%d", n, g))
		}
	}
	ag.th = simtest.NewThread(t, forumsim.Options{FloodInterval: -1, NoPostReview: true}, "GMBot", "s3cret", true, ag.players, "Games here.")
	ag.db = storetest.SQLite(t)
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "test"}
	m.DB, m.Clock, m.Connect = ag.db, clock.Real{}, ss.Board
	zero := 0.0
	for g := 0; g < games; g++ {
		topic := ag.th.Topic
		if g > 0 {
			var err error
			if topic, _, err = ag.th.Sim.AddTopic(1, ag.th.Bot, fmt.Sprintf("Nations %d", g), "A game."); err != nil {
				t.Fatal(err)
			}
		}
		fc := ag.th.Forum(t, "FORUMGM_ACCOUNT_GAMES_PW")
		fc.Thread, fc.PollSeconds, fc.RequestsPerSecond, fc.FloodSeconds = fmt.Sprint(topic), poll.Seconds(), 100, &zero
		if forumOff {
			fc.Forum = "off"
		}
		ps := ag.players[g*len(names) : (g+1)*len(names)]
		gc := gameconfig.GameConfig{Players: ps, Seed: int64(g + 1), Start: time.Now(), Options: map[string]any{"rounds": 2, "round_minutes": 60}}
		var roster []store.Player
		for _, p := range ps {
			roster = append(roster, store.Player{Slot: p, ForumName: p, ForumUserID: fmt.Sprint(ag.th.Players[p])})
		}
		gm, err := m.Create(ctx, fmt.Sprintf("g%d", g), "nations", gc, fc, roster)
		if err != nil {
			t.Fatal(err)
		}
		ag.ids, ag.topics = append(ag.ids, gm.ID), append(ag.topics, fmt.Sprint(topic))
	}
	return ag
}

// run starts the moderator's loop; the func it returns stops it (cancel)
// and reports its error.
func (ag *accountGames) run(ctx context.Context, cancel context.CancelFunc) func() {
	done := make(chan error, 1)
	go func() { done <- ag.m.Run(ctx) }()
	return func() {
		cancel()
		if err := <-done; err != nil {
			ag.t.Error(err)
		}
	}
}

// sentOf counts the games' messages sent, of all queued.
func (ag *accountGames) sentOf() (sent, all int) {
	for _, id := range ag.ids {
		for _, it := range simtest.Outbox(ag.t, ag.db, id) {
			all++
			if it.State == store.OutboxSent {
				sent++
			}
		}
	}
	return
}
