package poster_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// heldLists is a phpBB board (forumsim) whose listings of the bot's sent
// PMs are counted (each begins with the outbox's first page, where phpBB
// keeps a PM until it is read) and whose folder lists, while held, wait: a
// test holds the listing under way while more marker checks ask.
type heldLists struct {
	sim   *forumsim.Server
	lists atomic.Int32
	mu    sync.Mutex
	hold  chan struct{} // nil: not held
	began chan struct{} // a held list request arrived
	// sentOnly: only the sent folder's lists are held, not the outbox's.
	sentOnly bool
}

func (h *heldLists) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if f := q.Get("folder"); f == "sentbox" || f == "outbox" {
		if f == "outbox" && !q.Has("start") {
			h.lists.Add(1)
		}
		h.mu.Lock()
		hold, began := h.hold, h.began
		if h.sentOnly && f != "sentbox" {
			hold = nil
		}
		h.mu.Unlock()
		if hold != nil {
			select {
			case began <- struct{}{}:
			default:
			}
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	h.sim.ServeHTTP(w, r)
}

// sentPMs sends n PMs from a flood-exempt bot, one after another, and
// returns the poster and their keys.
func sentPMs(t *testing.T, n int) (*poster.Poster, *heldLists, []string) {
	t.Helper()
	sim := forumsim.New(forumsim.Options{FloodInterval: -1, PMSentNamesNone: true})
	if _, err := sim.AddUser("GMBot", "gm-pass", true); err != nil {
		t.Fatal(err)
	}
	alice, err := sim.AddUser("Alice", "a", false)
	if err != nil {
		t.Fatal(err)
	}
	h := &heldLists{sim: sim}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: clock.Real{}, MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := poster.New(s)
	p.SetFlood(0)
	var keys []string
	for i := range n {
		key := fmt.Sprintf("lists.%d", i)
		if _, err := p.SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(alice)}, key, "Your role", "You are a spy."); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, key)
	}
	return p, h, keys
}

// hold makes the next sent-folder list requests wait until the returned
// func is called; it returns once one has arrived.
func (h *heldLists) holdNext(t *testing.T, start func()) (release func()) {
	h.mu.Lock()
	h.hold, h.began = make(chan struct{}), make(chan struct{}, 1)
	hold, began := h.hold, h.began
	h.mu.Unlock()
	start()
	select {
	case <-began:
	case <-time.After(10 * time.Second):
		t.Fatal("no sent-folder list was asked for")
	}
	return func() {
		h.mu.Lock()
		h.hold = nil
		h.mu.Unlock()
		close(hold)
	}
}

// TestChecksShareTheNextListing: marker checks asked while a listing is
// read wait for the next one and share it: four checks and a check for a
// PM never sent cost two listings, not five, and each gets its own answer.
func TestChecksShareTheNextListing(t *testing.T) {
	p, h, keys := sentPMs(t, 4)
	type res struct {
		key, id string
		ok      bool
		err     error
	}
	out := make(chan res, 8)
	check := func(key string) {
		id, ok, err := p.SentPMWithMarker(context.Background(), key, time.Time{})
		out <- res{key, id, ok, err}
	}
	before := h.lists.Load()
	release := h.holdNext(t, func() { go check(keys[0]) })
	for _, k := range append(keys[1:], "lists.never") {
		go check(k)
	}
	time.Sleep(200 * time.Millisecond) // they join the listing not begun
	release()
	ids := map[string]bool{}
	for range 5 {
		r := <-out
		switch {
		case r.err != nil:
			t.Errorf("%s: %v", r.key, r.err)
		case r.key == "lists.never" && r.ok:
			t.Errorf("a PM never sent was found: %s", r.id)
		case r.key != "lists.never" && (!r.ok || r.id == ""):
			t.Errorf("%s was sent but not found", r.key)
		case r.ok:
			if ids[r.id] {
				t.Errorf("%s found as %s, which another key had", r.key, r.id)
			}
			ids[r.id] = true
		}
	}
	if n := h.lists.Load() - before; n != 2 {
		t.Errorf("5 checks listed the sent PMs %d times, want 2 (the one under way, and one shared)", n)
	}
}

// TestACheckLeavingEndsNotTheShared: a check that gives up (its context
// cancelled) while it waits does not end the listing others wait on.
func TestACheckLeavingEndsNotTheShared(t *testing.T) {
	p, h, keys := sentPMs(t, 2)
	first := make(chan error, 1)
	release := h.holdNext(t, func() {
		go func() {
			_, _, err := p.SentPMWithMarker(context.Background(), keys[0], time.Time{})
			first <- err
		}()
	})
	ctx, cancel := context.WithCancel(context.Background())
	gaveUp := make(chan error, 1)
	go func() {
		_, _, err := p.SentPMWithMarker(ctx, keys[0], time.Time{})
		gaveUp <- err
	}()
	found := make(chan bool, 1)
	go func() {
		_, ok, err := p.SentPMWithMarker(context.Background(), keys[1], time.Time{})
		if err != nil {
			t.Error(err)
		}
		found <- ok
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	if err := <-gaveUp; err == nil {
		t.Error("the cancelled check did not end with its context's error")
	}
	release()
	if err := <-first; err != nil {
		t.Errorf("the first check: %v", err)
	}
	if !<-found {
		t.Errorf("%s was not found once a check sharing its listing gave up", keys[1])
	}
}

// TestACheckIsAnsweredByItsPage: a check whose key the listing's first
// page shows is answered then, while the listing goes on to later pages
// for another check's key (a PM the board never took): one slow or
// unanswerable key does not hold up the answers of the PMs listed with it.
func TestACheckIsAnsweredByItsPage(t *testing.T) {
	p, h, keys := sentPMs(t, 2)
	type res struct {
		id  string
		ok  bool
		err error
	}
	check := func(key string) chan res {
		c := make(chan res, 1)
		go func() {
			id, ok, err := p.SentPMWithMarker(context.Background(), key, time.Time{})
			c <- res{id, ok, err}
		}()
		return c
	}
	var first chan res
	h.holdNext(t, func() { first = check(keys[0]) })
	// These two share the next listing.
	sent, never := check(keys[1]), check("lists.never")
	time.Sleep(200 * time.Millisecond)
	// From now on only the sent folder's lists wait: the outbox, where
	// both PMs are, is read.
	h.mu.Lock()
	old := h.hold
	h.hold, h.began, h.sentOnly = make(chan struct{}), make(chan struct{}, 1), true
	hold := h.hold
	h.mu.Unlock()
	close(old)
	defer close(hold)
	for _, c := range []chan res{first, sent} {
		select {
		case r := <-c:
			if r.err != nil || !r.ok {
				t.Errorf("a sent PM's check: ok %v, err %v", r.ok, r.err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a sent PM's check was not answered while a later page of its listing waited")
		}
	}
	select {
	case r := <-never:
		t.Fatalf("the never-sent PM's check ended before its listing's last page: %+v", r)
	case <-time.After(200 * time.Millisecond):
	}
}

// TestTheCheckOutlastsTheSendsDeadline: the board answered the submission
// (so nothing more of it can reach the board), and its marker check goes on
// past the send's deadline (a fence's budget) while the sent folder is slow
// to list: the PM is confirmed, not left unconfirmed for a later check.
func TestTheCheckOutlastsTheSendsDeadline(t *testing.T) {
	p, h, _ := sentPMs(t, 1) // logged in, and its form wait learned
	alice, _ := h.sim.UserID("Alice")
	type res struct {
		id  string
		err error
	}
	out := make(chan res, 1)
	release := h.holdNext(t, func() {
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			id, err := p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(alice)}, "late.check", "Your role", "You are a spy.")
			out <- res{id, err}
		}()
	})
	time.Sleep(2500 * time.Millisecond) // past the send's deadline
	release()
	select {
	case r := <-out:
		if r.err != nil || r.id == "" {
			t.Errorf("a PM the board took, its check slower than the send's deadline: id %q, %v", r.id, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the send did not end")
	}
}
