package moderator

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// heldBoard is the fake board with its sends of one kind held: before
// their request leaves (before: a form slow to come, the pacer), or once
// it has left (after: the board taking its time over it). An error from
// before is the port's "not submitted"; one from after is the request's
// own (a timeout), and the board may still take it.
type heldBoard struct {
	*forumtest.Board
	kind          forum.MessageKind
	before, after func(ctx context.Context, land func()) error
}

func (b heldBoard) send(ctx context.Context, kind forum.MessageKind, do func(context.Context) (string, error)) (string, error) {
	if kind != b.kind {
		return do(ctx)
	}
	inner := forum.WithSubmit(ctx, nil) // the wrapped fake must not run the hook again
	land := func() { do(inner) }
	if b.before != nil {
		if err := b.before(ctx, land); err != nil {
			return "", fmt.Errorf("%w: %w", forum.ErrNotSubmitted, err)
		}
	}
	ended, err := forum.Submitting(ctx)
	defer ended()
	if err != nil {
		return "", fmt.Errorf("%w: %w", forum.ErrNotSubmitted, err)
	}
	if b.after != nil {
		if err := b.after(ctx, land); err != nil {
			return "", err
		}
	}
	return do(inner)
}

func (b heldBoard) Reply(ctx context.Context, thread, body, key string) (string, error) {
	return b.send(ctx, forum.KindPost, func(ctx context.Context) (string, error) { return b.Board.Reply(ctx, thread, body, key) })
}

func (b heldBoard) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	return b.send(ctx, forum.KindPM, func(ctx context.Context) (string, error) { return b.Board.SendPM(ctx, to, subject, body, key) })
}

// stopRig is one game on the held board, worked by runner A under a lease
// (its sender started, not yet poked), and what a successor B needs.
type stopRig struct {
	db    *store.DB
	fake  *forumtest.Board
	board heldBoard
	fc    gameconfig.ForumConfig
	g     *store.Game
	pm    string // the marker of a PM queued to A1
}

func newStopRig(t *testing.T, ctx context.Context, name string, kind forum.MessageKind, late time.Duration) *stopRig {
	t.Helper()
	r := &stopRig{db: storetest.SQLite(t), fake: forumtest.New(clock.Real{})}
	r.board = heldBoard{Board: r.fake, kind: kind}
	lateSec := late.Seconds()
	r.fc = gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "t", Bot: "GMbot", PasswordEnv: "X", LateSeconds: &lateSec}
	m := &Moderator{DB: r.db, Clock: clock.Real{}}
	g, err := m.Create(ctx, name, "nations", gameconfig.GameConfig{Players: []string{"A1", "B2"}, Seed: 1, Start: time.Now()}, r.fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	r.g = g
	if kind == forum.KindPM {
		r.pm = name + ".test/gm/1"
		pm := []store.OutboxItem{{GameID: g.ID, Kind: forum.KindPM, Recipient: "A1", RecipientName: "A1", Subject: "A note", Body: "Only for you.", Marker: r.pm}}
		if err := r.db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: pm}) }); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// runner is a moderator for the rig's board holding the game's lease as
// owner (taken by force: the test says who holds it), with a send budget.
func (r *stopRig) runner(t *testing.T, ctx context.Context, owner string, budget time.Duration) (*Moderator, context.Context) {
	t.Helper()
	var epoch int64
	if err := r.db.Tx(ctx, func(tx *store.Tx) (err error) {
		epoch, _, err = tx.AcquireLease(r.g.ID, owner, time.Minute, true)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	board := r.board
	m := &Moderator{DB: r.db, Clock: clock.Real{}, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return board, nil }}
	return m, store.WithFence(ctx, store.Fence{GameID: r.g.ID, Owner: owner, Epoch: epoch, Budget: budget})
}

// item is the rig's held message as stored.
func (r *stopRig) item(t *testing.T, kind forum.MessageKind) store.OutboxItem {
	t.Helper()
	var out []store.OutboxItem
	if err := r.db.View(context.Background(), func(tx *store.Tx) (err error) { out, err = tx.Outbox(r.g.ID); return err }); err != nil {
		t.Fatal(err)
	}
	for _, it := range out {
		if it.Kind == kind && (kind == forum.KindPost || it.Marker == r.pm) {
			return it
		}
	}
	t.Fatalf("no %s in the outbox", kind)
	return store.OutboxItem{}
}

// onBoard counts the held message on the board.
func (r *stopRig) onBoard(kind forum.MessageKind) int {
	if kind == forum.KindPost {
		return len(r.fake.BotPosts())
	}
	n := 0
	for _, body := range r.fake.SentTo()["A1"] {
		if forum.HasMarker(body, r.pm) {
			n++
		}
	}
	return n
}

// settles is how long the held message's last request may still land.
func (r *stopRig) settles(t *testing.T, id int64) time.Duration {
	t.Helper()
	var d time.Duration
	if err := r.db.View(context.Background(), func(tx *store.Tx) (err error) { d, err = tx.ClaimSettles(id); return err }); err != nil {
		t.Fatal(err)
	}
	return d
}

// pokeUntil pokes a sender as a worker does after each tick until ok.
func pokeUntil(t *testing.T, ctx context.Context, s *sender, what string, ok func() bool) {
	t.Helper()
	for !ok() {
		if ctx.Err() != nil {
			t.Fatalf("gave up waiting for %s", what)
		}
		s.poke()
		time.Sleep(30 * time.Millisecond)
	}
}

// TestAStopLetsTheRequestOnItsWayEnd (issue 42, item 1): runner A is
// stopped (SIGTERM, a game given back: its context ends) while a post or
// a PM of its is on its way to a board that takes a second over it. A
// does not cut the request off: it waits for the board's answer, records
// the message sent, and only then lets go, so runner B, taking the game
// at once, has nothing to wait for or look for, and sends nothing again.
func TestAStopLetsTheRequestOnItsWayEnd(t *testing.T) {
	t.Parallel()
	const hold = time.Second
	for _, kind := range []forum.MessageKind{forum.KindPost, forum.KindPM} {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			r := newStopRig(t, ctx, "stop"+string(kind), kind, time.Second)
			inFlight := make(chan struct{}, 1)
			r.board.after = func(ctx context.Context, _ func()) error {
				inFlight <- struct{}{}
				select {
				case <-time.After(hold):
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			a, actx := r.runner(t, ctx, "A", 10*time.Second)
			actx, stop := context.WithCancel(actx)
			sa := a.startSender(actx, r.g.ID, r.fc.Account())
			sa.poke()
			select {
			case <-inFlight:
			case <-ctx.Done():
				t.Fatal("the held send never left")
			}
			stopped := time.Now()
			stop()
			sa.close()
			took := time.Since(stopped)
			if took < hold/2 || took > 5*hold {
				t.Errorf("A let go %s after the stop; want once the request on its way ended (about %s)", took.Round(time.Millisecond), hold)
			}
			it := r.item(t, kind)
			if it.State != store.OutboxSent || it.ForumID == "" {
				t.Errorf("after the stop: %s %s (forum id %q, %q); want sent with the board's id", it.Marker, it.State, it.ForumID, it.LastError)
			}
			if n := r.onBoard(kind); n != 1 {
				t.Fatalf("%d on the board after the stop, want 1", n)
			}

			finds := r.fake.Finds
			b, bctx := r.runner(t, ctx, "B", 10*time.Second)
			sb := b.startSender(bctx, r.g.ID, r.fc.Account())
			defer sb.close()
			for range 10 {
				sb.poke()
				time.Sleep(30 * time.Millisecond)
			}
			if n := r.onBoard(kind); n != 1 {
				t.Errorf("%d on the board after B took over, want 1", n)
			}
			if r.fake.Finds != finds {
				t.Errorf("B looked for a marker %d times; the message was recorded sent", r.fake.Finds-finds)
			}
		})
	}
}

// TestAStopBeforeTheRequestLeaves: runner A is stopped while its post
// waits before its request (the form slow to come). The stop ends the wait
// at once, nothing leaves, and the post goes back to the queue as never
// tried: no window to wait out, no marker to look for. B posts it at once.
func TestAStopBeforeTheRequestLeaves(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := newStopRig(t, ctx, "before", forum.KindPost, time.Second)
	waiting := make(chan struct{}, 1)
	var held atomic.Bool
	held.Store(true)
	r.board.before = func(ctx context.Context, _ func()) error {
		if !held.Load() {
			return nil
		}
		waiting <- struct{}{}
		<-ctx.Done()
		return ctx.Err()
	}
	a, actx := r.runner(t, ctx, "A", 10*time.Second)
	actx, stop := context.WithCancel(actx)
	sa := a.startSender(actx, r.g.ID, r.fc.Account())
	sa.poke()
	<-waiting
	stopped := time.Now()
	stop()
	sa.close()
	if took := time.Since(stopped); took > time.Second {
		t.Errorf("A let go %s after the stop; nothing was on its way", took.Round(time.Millisecond))
	}
	it := r.item(t, forum.KindPost)
	if it.State != store.OutboxPending || it.Attempts != 0 {
		t.Errorf("after the stop: %s %s, %d attempts; want pending, never tried", it.Marker, it.State, it.Attempts)
	}
	if d := r.settles(t, it.ID); d != 0 {
		t.Errorf("a window of %s to wait out; nothing left", d)
	}
	held.Store(false)
	b, bctx := r.runner(t, ctx, "B", 10*time.Second)
	t0 := time.Now()
	sb := b.startSender(bctx, r.g.ID, r.fc.Account())
	defer sb.close()
	pokeUntil(t, ctx, sb, "B's post", func() bool { return r.onBoard(forum.KindPost) > 0 })
	if took := time.Since(t0); took > time.Second {
		t.Errorf("B posted %s after taking over; want at once", took.Round(time.Millisecond))
	}
	time.Sleep(100 * time.Millisecond)
	if n := r.onBoard(forum.KindPost); n != 1 || r.fake.Finds != 0 {
		t.Errorf("%d posts, %d marker checks; want 1 and none", n, r.fake.Finds)
	}
}

// TestATimedOutSendIsUnknown (issue 42, item 3): a post's request times
// out (its send's budget) with no answer, and the board takes it a second
// later, within its lateness (late_seconds 2). The post is recorded
// "unknown", not failed and not pending. Runner B, taking the game, looks
// for its marker (not there yet), waits out what is left of the request's
// window instead of posting, looks again, finds it, and records it sent:
// once on the board.
func TestATimedOutSendIsUnknown(t *testing.T) {
	t.Parallel()
	const budget, late, landsAfter = time.Second, 2 * time.Second, time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := newStopRig(t, ctx, "unknown", forum.KindPost, late)
	var once atomic.Bool
	r.board.after = func(ctx context.Context, land func()) error {
		if once.Swap(true) {
			return nil
		}
		<-ctx.Done() // no answer before the client gives up
		go func() { time.Sleep(landsAfter); land() }()
		return fmt.Errorf("POST posting.php: %w", ctx.Err())
	}
	a, actx := r.runner(t, ctx, "A", budget)
	sa := a.startSender(actx, r.g.ID, r.fc.Account())
	sa.poke()
	waitFor(t, ctx, func() bool { return r.item(t, forum.KindPost).State == store.OutboxUnknown }, "the post recorded unknown")
	sa.close()
	it := r.item(t, forum.KindPost)
	if !strings.Contains(it.LastError, "deadline") {
		t.Errorf("unknown with %q; want the request's own error", it.LastError)
	}
	if d := r.settles(t, it.ID); d < late/2 || d > budget+late {
		t.Errorf("its window runs %s more; want the board's lateness (%s) past the request's deadline", d, late)
	}
	var logs strings.Builder
	b, bctx := r.runner(t, ctx, "B", budget)
	b.Log = slog.New(slog.NewTextHandler(&logs, nil))
	sb := b.startSender(bctx, r.g.ID, r.fc.Account())
	pokeUntil(t, ctx, sb, "the post recorded sent", func() bool { return r.item(t, forum.KindPost).State == store.OutboxSent })
	time.Sleep(100 * time.Millisecond)
	sb.close()
	if n := r.onBoard(forum.KindPost); n != 1 {
		t.Errorf("%d posts on the board, want the one that landed late", n)
	}
	if !strings.Contains(logs.String(), "its last submission may still land") {
		t.Errorf("B did not wait out the request's window; its log:\n%s", logs.String())
	}
}
