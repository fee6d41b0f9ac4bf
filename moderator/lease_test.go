package moderator

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestLostLeaseNeverSends: a running daemon whose game's lease is taken
// over (a higher epoch) sends nothing more for that game, even what is
// queued after the takeover; once the lease is free again it takes the
// game back under a new epoch and sends each message once.
func TestLostLeaseNeverSends(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		fake := forumtest.New(clock.Real{})
		m := &Moderator{DB: db, Clock: clock.Real{}, Lease: 3 * time.Second, Runner: "daemon",
			Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return fake, nil }}
		gc := gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X", PollSeconds: 0.05}
		g, err := m.Create(ctx, "leased", "nations", gc, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- m.Run(ctx) }()
		waitFor(t, ctx, func() bool { return len(fake.BotPosts()) == 1 }, "the opening post")

		// A thief takes the game over; then a notice is queued.
		var epoch int64
		if err := db.Tx(ctx, func(tx *store.Tx) error {
			var err error
			epoch, _, err = tx.AcquireLease(g.ID, "thief", time.Hour, true)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		notice := []store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "A notice from the GM.", Marker: "leased.test/gm/1"}}
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: notice}) }); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1500 * time.Millisecond) // a renewal (every second) and many polls
		if n := len(fake.BotPosts()); n != 1 {
			t.Fatalf("the daemon posted %d times after losing the lease, want 1 (the opening post only)", n)
		}
		if pending := unsentCount(t, db, g.ID); pending == 0 {
			t.Fatal("the notice is not pending")
		}

		// Freed, the game comes back to the daemon under a newer epoch.
		if err := db.Tx(ctx, func(tx *store.Tx) error {
			return tx.ReleaseLease(store.Fence{GameID: g.ID, Owner: "thief", Epoch: epoch})
		}); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, func() bool { return unsentCount(t, db, g.ID) == 0 }, "the notice to go out")
		posts := fake.BotPosts()
		if len(posts) != 2 || !strings.Contains(posts[1], "A notice from the GM.") {
			t.Errorf("bot posts after the lease came back: %d %q", len(posts), posts)
		}
		var ls []store.Lease
		db.View(ctx, func(tx *store.Tx) error { ls, err = tx.Leases(); return err })
		if len(ls) != 1 || ls[0].Owner != "daemon" || ls[0].Epoch <= epoch {
			t.Errorf("leases after the return: %+v (the thief had epoch %d)", ls, epoch)
		}
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatal("Run did not return within 20 s of its context's end")
		}
	})
}

func waitFor(t *testing.T, ctx context.Context, ok func() bool, what string) {
	t.Helper()
	for !ok() {
		if ctx.Err() != nil {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func unsentCount(t *testing.T, db *store.DB, id int64) int {
	t.Helper()
	var n int
	if err := db.View(context.Background(), func(tx *store.Tx) error {
		items, err := tx.Unsent(id)
		for _, it := range items {
			if it.State == store.OutboxPending || it.State == store.OutboxSending {
				n++
			}
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestDatabaseRestartResumesWithinLease (PostgreSQL): the database goes
// away for longer than a lease and comes back; the daemon holding the game
// works it again within a lease period of the return (a message queued
// then goes out), rather than after the doubling backoff a failing forum
// gets, which by then would be several seconds and growing.
func TestDatabaseRestartResumesWithinLease(t *testing.T) {
	t.Parallel() // waits on the real clock: beside the others
	srv := pgtest.Own(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	db, err := store.Open(ctx, srv.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const lease = 3 * time.Second
	fake := forumtest.New(clock.Real{})
	m := &Moderator{DB: db, Clock: clock.Real{}, Lease: lease, Runner: "daemon",
		Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return fake, nil }}
	gc := gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X", PollSeconds: 0.05}
	g, err := m.Create(ctx, "restarted", "nations", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	waitFor(t, ctx, func() bool { return len(fake.BotPosts()) == 1 }, "the opening post")

	srv.Restart(t, 2*lease)
	back := time.Now()
	notice := []store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "After the restart.", Marker: "restarted.test/gm/1"}}
	for {
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: notice}) }); err == nil {
			break
		} else if ctx.Err() != nil {
			t.Fatalf("queueing the notice after the restart: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // the test's own pool reconnecting
	}
	waitFor(t, ctx, func() bool { return len(fake.BotPosts()) == 2 }, "the notice after the restart")
	if d := time.Since(back); d > lease {
		t.Errorf("the game was worked again %s after the database came back, want within the lease (%s)", d.Round(10*time.Millisecond), lease)
	} else {
		t.Logf("worked again %s after the database came back", d.Round(10*time.Millisecond))
	}
	cancel()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return within 20 s of its context's end")
	}
}

// slowReply is the fake board with a post that takes until hold returns.
type slowReply struct {
	*forumtest.Board
	hold func()
}

// Reply is slow once its request has left (after the sender's hook): the
// board takes its time over a submission already on its way.
func (b slowReply) Reply(ctx context.Context, thread, body, key string) (string, error) {
	ended, err := forum.Submitting(ctx)
	defer ended()
	if err != nil {
		return "", fmt.Errorf("%w: %w", forum.ErrNotSubmitted, err)
	}
	b.hold()
	return b.Board.Reply(forum.WithSubmit(ctx, nil), thread, body, key)
}

// A send whose lease ran out while it was under way (the database away
// longer than a lease) is refused when it is recorded; that does not stop
// the game's sender. A lease nobody took over is renewed, the worker goes
// on, and so must its sends: nothing is sent twice, and what was queued
// goes out.
func TestSenderOutlivesALapsedLease(t *testing.T) {
	db := storetest.SQLite(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	fake := forumtest.New(clock.Real{})
	const ttl = time.Second
	var slow atomic.Bool
	slow.Store(true)
	board := slowReply{Board: fake, hold: func() {
		if slow.Swap(false) {
			time.Sleep(ttl + 500*time.Millisecond) // the lease runs out meanwhile
		}
	}}
	m := &Moderator{DB: db, Clock: clock.Real{}, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return board, nil }}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X"}
	g, err := m.Create(ctx, "lapsed", "nations", gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	var epoch int64
	if err := db.Tx(ctx, func(tx *store.Tx) (err error) {
		epoch, _, err = tx.AcquireLease(g.ID, "me", ttl, false)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	f := store.Fence{GameID: g.ID, Owner: "me", Epoch: epoch, Budget: 100 * time.Millisecond}
	snd := m.startSender(store.WithFence(ctx, f), g.ID, fc.Account())
	defer snd.close()
	snd.poke() // the opening post: it goes up, and its record is refused
	waitFor(t, ctx, func() bool { return len(fake.BotPosts()) == 1 && !slow.Load() }, "the slow opening post")
	time.Sleep(ttl) // its drain ends, refused
	if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.RenewLease(f, time.Minute) }); err != nil {
		t.Fatal(err)
	}
	notice := []store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "After the lease came back.", Marker: "lapsed.test/gm/1"}}
	if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: notice}) }); err != nil {
		t.Fatal(err)
	}
	snd.poke()
	waitFor(t, ctx, func() bool { return len(fake.BotPosts()) >= 2 && unsentCount(t, db, g.ID) == 0 }, "the notice once the lease was renewed")
	if n := len(fake.BotPosts()); n != 2 {
		t.Errorf("%d posts on the board, want 2 (the opening once, the notice)", n)
	}
}
