package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// leaseGame is a game with one queued thread post.
func leaseGame(t *testing.T, db *store.DB, name string) (*store.Game, *store.OutboxItem) {
	g := newGame(t, db, name)
	items := []store.OutboxItem{{GameID: g.ID, Kind: "post", Body: "result", Marker: name + "/p1/1"}}
	tx(t, db, func(tx *store.Tx) error { return tx.Enqueue(items) })
	return g, &items[0]
}

func acquire(t *testing.T, db *store.DB, id int64, owner string, ttl time.Duration, force bool) (int64, bool) {
	t.Helper()
	var epoch int64
	var ok bool
	tx(t, db, func(tx *store.Tx) error {
		var err error
		epoch, ok, err = tx.AcquireLease(id, owner, ttl, force)
		return err
	})
	return epoch, ok
}

// claim claims a fresh copy of the item (as read now) under fence f.
func claim(db *store.DB, f store.Fence, it store.OutboxItem) error {
	return db.Tx(store.WithFence(ctx, f), func(tx *store.Tx) error { return tx.ClaimOutbox(&it) })
}

func readItem(t *testing.T, db *store.DB, id int64) store.OutboxItem {
	t.Helper()
	var out []store.OutboxItem
	must(t, db.View(ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(id); return err }))
	return out[0]
}

// TestLeaseFencedClaim: two runners, A then B by takeover. Once B holds the
// game (epoch 2), A can neither claim an outbox item, save a step, update
// an item nor renew; B can, and its claim is a compare-and-set on what it
// read.
func TestLeaseFencedClaim(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g, _ := leaseGame(t, db, "fenced")
		hour := time.Hour
		ea, ok := acquire(t, db, g.ID, "A", hour, false)
		if !ok || ea != 1 {
			t.Fatalf("A: epoch %d ok %v, want 1 true", ea, ok)
		}
		if _, ok := acquire(t, db, g.ID, "B", hour, false); ok {
			t.Fatal("B took a lease A holds and has not let expire")
		}
		fa := store.Fence{GameID: g.ID, Owner: "A", Epoch: ea, Budget: time.Minute}
		must(t, claim(db, fa, readItem(t, db, g.ID)))
		if it := readItem(t, db, g.ID); it.State != store.OutboxSending || it.Attempts != 1 {
			t.Fatalf("after A's claim: %s, %d attempts", it.State, it.Attempts)
		}

		// B takes over (as a runner that knows it is alone would).
		eb, ok := acquire(t, db, g.ID, "B", hour, true)
		if !ok || eb != 2 {
			t.Fatalf("takeover: epoch %d ok %v, want 2 true", eb, ok)
		}
		stale := readItem(t, db, g.ID)
		if err := claim(db, fa, stale); !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("A's claim after the takeover: %v, want ErrLeaseLost", err)
		}
		fenced := store.WithFence(ctx, fa)
		err := db.Tx(fenced, func(tx *store.Tx) error {
			cur, err := tx.LockGame(g.ID)
			if err != nil {
				return err
			}
			cur.Phase = "stale"
			return tx.Save(&store.Changes{Game: cur})
		})
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("A's step save after the takeover: %v, want ErrLeaseLost", err)
		}
		err = db.Tx(fenced, func(tx *store.Tx) error {
			it := stale
			it.State = store.OutboxSent
			return tx.UpdateOutbox(&it)
		})
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("A's outbox update after the takeover: %v, want ErrLeaseLost", err)
		}
		if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.RenewLease(fa, hour) }); !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("A's renewal after the takeover: %v, want ErrLeaseLost", err)
		}
		if it := readItem(t, db, g.ID); it.State != store.OutboxSending || it.Attempts != 1 {
			t.Errorf("A changed the item after losing the lease: %+v", it)
		}
		var cur *store.Game
		must(t, db.View(ctx, func(tx *store.Tx) error { var err error; cur, err = tx.GameByID(g.ID); return err }))
		if cur.Phase == "stale" {
			t.Error("A's step was saved")
		}

		// B works the game: its claim is a compare-and-set on state and
		// attempts, so a second claim from the same stale read fails.
		fb := store.Fence{GameID: g.ID, Owner: "B", Epoch: eb, Budget: time.Minute}
		must(t, claim(db, fb, stale))
		if err := claim(db, fb, stale); !errors.Is(err, store.ErrClaimed) {
			t.Errorf("a second claim from the same read: %v, want ErrClaimed", err)
		}
		if it := readItem(t, db, g.ID); it.Attempts != 2 {
			t.Errorf("after B's claim: %d attempts, want 2", it.Attempts)
		}
		must(t, db.Tx(store.WithFence(ctx, fb), func(tx *store.Tx) error {
			cur, err := tx.LockGame(g.ID)
			if err != nil {
				return err
			}
			return tx.Save(&store.Changes{Game: cur})
		}))
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.RenewLease(fb, hour) }))
		var ls []store.Lease
		must(t, db.View(ctx, func(tx *store.Tx) error { var err error; ls, err = tx.Leases(); return err }))
		if len(ls) != 1 || ls[0].Owner != "B" || ls[0].Epoch != 2 || time.Until(ls[0].Expires) < 50*time.Minute {
			t.Errorf("leases: %+v", ls)
		}
	})
}

// RenewLeases renews the leases still the runner's, in one transaction,
// and names the ones another runner took, which it leaves as they are.
func TestRenewLeases(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const hour = time.Hour
		a, _ := leaseGame(t, db, "renew-a")
		b, _ := leaseGame(t, db, "renew-b")
		ea, _ := acquire(t, db, a.ID, "A", time.Minute, false)
		eb, _ := acquire(t, db, b.ID, "A", time.Minute, false)
		fa := store.Fence{GameID: a.ID, Owner: "A", Epoch: ea}
		fb := store.Fence{GameID: b.ID, Owner: "A", Epoch: eb}
		if _, ok := acquire(t, db, b.ID, "B", time.Minute, true); !ok {
			t.Fatal("B could not take game b over")
		}
		var lost []store.Fence
		tx(t, db, func(tx *store.Tx) (err error) { lost, err = tx.RenewLeases([]store.Fence{fa, fb}, hour); return err })
		if len(lost) != 1 || lost[0] != fb {
			t.Errorf("lost %+v, want only %+v", lost, fb)
		}
		var ls []store.Lease
		must(t, db.View(context.Background(), func(tx *store.Tx) (err error) { ls, err = tx.Leases(); return err }))
		if len(ls) != 2 {
			t.Fatalf("leases: %+v", ls)
		}
		if l := ls[0]; l.GameID != a.ID || l.Owner != "A" || time.Until(l.Expires) < 50*time.Minute {
			t.Errorf("A's lease of game a not renewed: %+v", l)
		}
		if l := ls[1]; l.GameID != b.ID || l.Owner != "B" || time.Until(l.Expires) > 2*time.Minute {
			t.Errorf("B's lease of game b changed: %+v", l)
		}
	})
}

// TestLeaseExpiry: a lease not renewed is free once it runs out (another
// runner takes it with a higher epoch); a released one at once; a lease
// about to end is too short to send under, without being lost.
func TestLeaseExpiry(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g, it := leaseGame(t, db, "expiry")
		ea, _ := acquire(t, db, g.ID, "A", 300*time.Millisecond, false)
		fa := store.Fence{GameID: g.ID, Owner: "A", Epoch: ea, Budget: time.Second}
		if err := claim(db, fa, *it); !errors.Is(err, store.ErrLeaseShort) {
			t.Errorf("claim with 0.3 s left and a 1 s budget: %v, want ErrLeaseShort", err)
		}
		if got := readItem(t, db, g.ID); got.State != store.OutboxPending || got.Attempts != 0 {
			t.Errorf("a refused claim changed the item: %+v", got)
		}
		if _, ok := acquire(t, db, g.ID, "B", time.Hour, false); ok {
			t.Fatal("B took the lease before it ran out")
		}
		time.Sleep(400 * time.Millisecond)
		eb, ok := acquire(t, db, g.ID, "B", time.Hour, false)
		if !ok || eb != ea+1 {
			t.Fatalf("after expiry B got epoch %d ok %v, want %d", eb, ok, ea+1)
		}
		fb := store.Fence{GameID: g.ID, Owner: "B", Epoch: eb}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(fb) }))
		if ec, ok := acquire(t, db, g.ID, "C", time.Hour, false); !ok || ec != eb+1 {
			t.Fatalf("after release C got epoch %d ok %v", ec, ok)
		}
	})
}

// TestRunners: heartbeats count live runners; a runner that stops beating
// drops out once its time runs out, one that leaves at once.
func TestRunners(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		live := func() int {
			var n int
			must(t, db.View(ctx, func(tx *store.Tx) error { var err error; n, err = tx.LiveRunners(); return err }))
			return n
		}
		tx(t, db, func(tx *store.Tx) error { return tx.Heartbeat("r1", time.Hour) })
		tx(t, db, func(tx *store.Tx) error { return tx.Heartbeat("r2", time.Hour) })
		tx(t, db, func(tx *store.Tx) error { return tx.Heartbeat("r3", 200*time.Millisecond) })
		if n := live(); n != 3 {
			t.Fatalf("%d live runners, want 3", n)
		}
		time.Sleep(300 * time.Millisecond)
		if n := live(); n != 2 {
			t.Errorf("%d live runners after r3's ran out, want 2", n)
		}
		tx(t, db, func(tx *store.Tx) error { return tx.LeaveRunners("r2") })
		tx(t, db, func(tx *store.Tx) error { return tx.Heartbeat("r1", time.Hour) })
		if n := live(); n != 1 {
			t.Errorf("%d live runners after r2 left, want 1", n)
		}
	})
}

// TestClaimHoldsOffTakeover (PostgreSQL): while a claim's transaction is
// open, a takeover waits for it, so the new owner reads the item as
// sending (and looks for it on the forum) rather than pending.
func TestClaimHoldsOffTakeover(t *testing.T) {
	t.Parallel()
	db := storetest.Postgres(t)
	g, it := leaseGame(t, db, "holdoff")
	ea, _ := acquire(t, db, g.ID, "A", 200*time.Millisecond, false)
	fa := store.Fence{GameID: g.ID, Owner: "A", Epoch: ea, Budget: 100 * time.Millisecond}
	claimed, release := make(chan struct{}), make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- db.Tx(store.WithFence(ctx, fa), func(tx *store.Tx) error {
			c := *it
			if err := tx.ClaimOutbox(&c); err != nil {
				return err
			}
			close(claimed)
			<-release
			return nil
		})
	}()
	select {
	case <-claimed:
	case err := <-done:
		t.Fatalf("claim: %v", err)
	}
	time.Sleep(300 * time.Millisecond) // A's lease has run out meanwhile
	other := storetest.Reopen(t, db)
	got := make(chan store.OutboxItem, 1)
	go func() {
		var epoch int64
		var ok bool
		err := other.Tx(context.Background(), func(tx *store.Tx) error {
			var err error
			epoch, ok, err = tx.AcquireLease(g.ID, "B", time.Hour, false)
			return err
		})
		if err != nil || !ok || epoch != 2 {
			t.Errorf("B's takeover: epoch %d ok %v err %v", epoch, ok, err)
		}
		got <- readItem(t, other, g.ID)
	}()
	select {
	case it := <-got:
		t.Fatalf("the takeover did not wait for the claim; B read %s", it.State)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	must(t, <-done)
	if it := <-got; it.State != store.OutboxSending {
		t.Errorf("B read the item as %s, want sending", it.State)
	}
}

// TestClaimSettles: a fenced claim marks nothing as on its way to the
// board; SubmitOutbox, just before each request, says how long the board
// may still be taking it (the window it is given, here the fence's budget,
// on the database's clock), so
// a runner that takes the game over waits that long before a missing
// marker counts, and one that finds a claim whose request never left
// waits for nothing. Neither a release, a new claim nor a shorter
// submission shortens a window still running; a lost lease refuses the
// submission; outside a lease nothing is recorded.
func TestClaimSettles(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		g, it := leaseGame(t, db, "settles")
		settles := func() time.Duration {
			var d time.Duration
			must(t, db.View(ctx, func(tx *store.Tx) error { var err error; d, err = tx.ClaimSettles(it.ID); return err }))
			return d
		}
		submit := func(f store.Fence) error {
			cur := readItem(t, db, g.ID)
			return db.Tx(store.WithFence(ctx, f), func(tx *store.Tx) error { return tx.SubmitOutbox(&cur, f.Budget) })
		}
		if d := settles(); d != 0 {
			t.Errorf("never claimed: settles in %s, want 0", d)
		}
		ea, _ := acquire(t, db, g.ID, "A", time.Hour, false)
		fa := store.Fence{GameID: g.ID, Owner: "A", Epoch: ea, Budget: time.Minute}
		must(t, claim(db, fa, readItem(t, db, g.ID)))
		if d := settles(); d != 0 {
			t.Errorf("claimed, no request written: settles in %s, want 0", d)
		}
		must(t, submit(fa))
		if d := settles(); d <= 50*time.Second || d > time.Minute {
			t.Errorf("a request on its way under a 1-minute budget: settles in %s", d)
		}
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.ReleaseLease(fa) }))
		if err := submit(fa); !errors.Is(err, store.ErrLeaseLost) {
			t.Errorf("a submission after the lease was released: %v, want ErrLeaseLost", err)
		}
		eb, ok := acquire(t, db, g.ID, "B", time.Hour, false)
		if !ok {
			t.Fatal("B could not take the released lease")
		}
		if d := settles(); d <= 50*time.Second {
			t.Errorf("after the release and takeover: settles in %s, want A's request's window still", d)
		}
		fb := store.Fence{GameID: g.ID, Owner: "B", Epoch: eb, Budget: 200 * time.Millisecond}
		must(t, claim(db, fb, readItem(t, db, g.ID)))
		must(t, submit(fb))
		if d := settles(); d <= 50*time.Second {
			t.Errorf("B's claim and a 0.2 s submission: settles in %s, want A's window kept", d)
		}
		// Another game's item: a short window runs out.
		g2, it2 := leaseGame(t, db, "settles-short")
		e2, _ := acquire(t, db, g2.ID, "B", time.Hour, false)
		f2 := store.Fence{GameID: g2.ID, Owner: "B", Epoch: e2, Budget: 200 * time.Millisecond}
		must(t, claim(db, f2, readItem(t, db, g2.ID)))
		cur2 := readItem(t, db, g2.ID)
		must(t, db.Tx(store.WithFence(ctx, f2), func(tx *store.Tx) error { return tx.SubmitOutbox(&cur2, f2.Budget) }))
		short := func() time.Duration {
			var d time.Duration
			must(t, db.View(ctx, func(tx *store.Tx) error { var err error; d, err = tx.ClaimSettles(it2.ID); return err }))
			return d
		}
		if d := short(); d > 200*time.Millisecond || d == 0 {
			t.Errorf("a 0.2 s submission: settles in %s", d)
		}
		time.Sleep(300 * time.Millisecond)
		if d := short(); d != 0 {
			t.Errorf("past the budget: settles in %s, want 0", d)
		}
		// Outside a lease (the GM's one-off commands): nothing recorded.
		cur := readItem(t, db, g2.ID)
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.ClaimOutbox(&cur) }))
		must(t, db.Tx(ctx, func(tx *store.Tx) error { return tx.SubmitOutbox(&cur, time.Minute) }))
		if d := short(); d != 0 {
			t.Errorf("claimed and submitted without a fence: settles in %s, want 0", d)
		}
	})
}
