package moderator

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// orderBoard is the fake board, each send taking a while, with the order
// the sends reached it in.
type orderBoard struct {
	*forumtest.Board
	mu    sync.Mutex
	order []string // markers
}

func (b *orderBoard) note(key string) {
	time.Sleep(30 * time.Millisecond)
	b.mu.Lock()
	b.order = append(b.order, key)
	b.mu.Unlock()
}

func (b *orderBoard) Reply(ctx context.Context, thread, body, key string) (string, error) {
	b.note(key)
	return b.Board.Reply(ctx, thread, body, key)
}

func (b *orderBoard) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	b.note(key)
	return b.Board.SendPM(ctx, to, subject, body, key)
}

func (b *orderBoard) sent() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.order...)
}

// TestAnAnswerPassesAnotherGamesBacklog (issue 39, item 2): three games on
// one bot account, one send lane. Games A and C each have a backlog of
// reminders (six PMs); while they go out, a player of game B gets an
// answer. B's answer takes the lane as soon as the send under way ends,
// before the reminders already waiting for it; and a phase's results of A
// in the thread, queued after, go before A's and C's remaining reminders
// (each player's PMs keep their order whatever their class).
func TestAnAnswerPassesAnotherGamesBacklog(t *testing.T) {
	t.Parallel()
	db := storetest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	board := &orderBoard{Board: forumtest.New(clock.Real{})}
	m := &Moderator{DB: db, Clock: clock.Real{}, Pool: &Pool{SendLanes: 1},
		Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return board, nil }}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X", FloodSeconds: new(float64)}
	ids := map[string]int64{}
	for _, name := range []string{"a", "b", "c"} {
		g, err := m.Create(ctx, name, "nations", gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = g.ID
		if err := m.Send(ctx, g.ID, fc.Account()); err != nil { // the opening post
			t.Fatal(err)
		}
	}
	queue := func(game, marker string, class store.SendClass) {
		it := []store.OutboxItem{{GameID: ids[game], Kind: forum.KindPM, Recipient: "A1", RecipientName: "A1", Subject: marker, Body: marker, Marker: marker, Class: class}}
		if class == store.SendResults {
			it[0].Kind, it[0].Recipient, it[0].RecipientName = forum.KindPost, "", "" // the thread's lane
		}
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: it}) }); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 6 {
		queue("a", fmt.Sprintf("a.test/remind/%d", i), store.SendChores)
		queue("c", fmt.Sprintf("c.test/remind/%d", i), store.SendChores)
	}
	done := make(chan error, 3)
	send := func(game string) { go func() { done <- m.Send(ctx, ids[game], fc.Account()) }() }
	send("a")
	send("c")
	waitFor(t, ctx, func() bool { return len(board.sent()) >= 5 }, "the backlogs under way")
	queue("b", "b.test/receipt/1", store.SendAnswers)
	asked := len(board.sent())
	send("b")
	waitFor(t, ctx, func() bool { return len(board.sent()) >= asked+2 }, "the next sends")
	queue("a", "a.test/results/1", store.SendResults)
	for range 3 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Send(ctx, ids["a"], fc.Account()); err != nil { // what A queued last, if its drain had ended
		t.Fatal(err)
	}
	all := board.sent()
	pos := map[string]int{}
	for i, k := range all {
		pos[k] = i
	}
	t.Logf("order: %v", all[3:])
	answer, ok := pos["b.test/receipt/1"]
	if !ok || len(all) != 3+14 {
		t.Fatalf("sent %v, want the openings, A's and C's six reminders, A's results and B's answer", all)
	}
	if answer > asked+1 {
		t.Errorf("B's answer went out %d sends after it was queued, behind the reminders waiting: %v", answer-asked, all[3:])
	}
	if r := pos["a.test/results/1"]; r > pos["a.test/remind/5"] || r > pos["c.test/remind/5"] {
		t.Errorf("A's results went out after the last reminders: %v", all[3:])
	}
}
