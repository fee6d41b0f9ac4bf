package moderator

import (
	"errors"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store/storetest"
)

// A poll that brings nothing for the game records its read in the tick's
// last step (one save of the game, not two), and loses nothing to a crash
// before that step: the read is made again. A poll after a failed read
// saves the read at once (TestOutageExtendedOnceAcrossCrashes).
func TestQuietPollSavesOnce(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	r.tick() // the opening: a first, healthy read
	r.at(5 * time.Second)
	r.tick() // the roles sent
	for _, it := range r.box() {
		if it.State.Unsent() {
			t.Fatalf("still queued: %s", it.Marker)
		}
	}
	rev := func() int64 { g, _, _ := r.game(); return g.Revision }
	lastRead := func() time.Time { g, _, _ := r.game(); return g.LastRead }

	r.at(10 * time.Second)
	before := rev()
	r.tick()
	// This board has no change signal: the thread's one page is recorded
	// in a step of its own.
	if got := rev() - before; got != 2 {
		t.Errorf("a quiet poll saved the game %d times, want twice (the thread's page, the tick's last step)", got)
	}
	if !lastRead().Equal(start.Add(10 * time.Second)) {
		t.Errorf("after a quiet poll at +10s the game is read to %v", lastRead())
	}
	if h := r.health(); !h.LastGoodRead.Equal(start.Add(10 * time.Second)) {
		t.Errorf("after a quiet poll at +10s the last good read is %v", h.LastGoodRead)
	}

	// A crash between the read and the last step: nothing saved; the next
	// tick reads again, and a PM sent meanwhile is taken.
	r.at(20 * time.Second)
	r.m.Crash = func(point string) error {
		if point == "after-read" {
			return ErrCrash
		}
		return nil
	}
	before = rev()
	if err := r.m.Tick(r.ctx, r.id); !errors.Is(err, ErrCrash) {
		t.Fatalf("tick: %v", err)
	}
	r.m.Crash = nil
	if got := rev() - before; got != 1 || !lastRead().Equal(start.Add(10*time.Second)) {
		t.Errorf("after a crash before the last step: %d saves, read to %v; want the page's only, +10s", got, lastRead())
	}
	r.ff.PMSubject("Ann", "orders", "I am here")
	r.at(30 * time.Second)
	before = rev()
	r.tick()
	if got := rev() - before; got < 3 {
		t.Errorf("a poll with a PM saved the game %d times; want its inbox recorded in a step of its own", got)
	}
	if !lastRead().Equal(start.Add(30 * time.Second)) {
		t.Errorf("after the poll at +30s the game is read to %v", lastRead())
	}
	msgs, err := r.m.unread(r.ctx, r.id)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 0 {
		t.Errorf("%d messages left unread", len(msgs))
	}
	found := false
	for _, c := range r.commands() {
		found = found || c.Player == "Ann"
	}
	if !found {
		t.Error("Ann's PM is not in the audit log")
	}
}

// A tick's end says what the worker needs next (run.go): the game's status
// and deadline as its last step left them, whether the board is failing,
// and whether anything is queued, so a quiet tick asks the sender for no
// drain and the worker loads nothing more. An item a GM's command queues
// from another process is seen by the next tick.
func TestTickEndSaysWhatIsQueued(t *testing.T) {
	r := newOutageRig(t, storetest.SQLite(t), nil)
	end := func() *tickEnd {
		t.Helper()
		e, err := r.m.tick(r.ctx, r.id, false)
		if err != nil || e == nil {
			t.Fatalf("tick: %v, %v", e, err)
		}
		g, _, _ := r.game()
		if e.status != g.Status || !e.deadline.Equal(g.Deadline) {
			t.Errorf("tick's end: %s, deadline %v; the game is %s, deadline %v", e.status, e.deadline, g.Status, g.Deadline)
		}
		return e
	}
	if e := end(); !e.unsent || e.failing {
		t.Errorf("after the opening tick: %+v, want its posts queued", e)
	}
	acct := gameconfig.ForumConfig{URL: "http://fake/", Bot: "GMbot"}.Account()
	if err := r.m.Send(r.ctx, r.id, acct); err != nil {
		t.Fatal(err)
	}
	r.at(time.Second)
	if e := end(); e.unsent {
		t.Errorf("a quiet tick with everything sent: %+v, want nothing queued", e)
	}
	gm := &Moderator{DB: r.db, Clock: r.clk} // the GM's command line
	if err := gm.Pause(r.ctx, "res"); err != nil {
		t.Fatal(err)
	}
	r.at(2 * time.Second)
	if e := end(); !e.unsent || e.status != Paused {
		t.Errorf("after the GM paused the game: %+v, want paused, its announcement queued", e)
	}
	r.ff.Lock()
	r.ff.Down = true
	r.ff.Unlock()
	r.at(3 * time.Second)
	// A failed tick says nothing: the worker loads the game itself.
	if e, err := r.m.tick(r.ctx, r.id, false); err == nil || e != nil {
		t.Errorf("a tick with the board down: %+v, %v; want no end, an error", e, err)
	}
}
