package poster

import (
	"context"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// sentLists shares sent-folder listings among the marker checks of one
// account: a check joins the listing not yet begun, or starts one, and one
// listing runs at a time. A flood-exempt account has many PMs in flight
// (send_depth), each confirmed by its key in the folder: one listing read
// after all their answers confirms them all, where each reading its own
// costs a list (or ten) a PM.
//
// A check uses only a listing that begins after it asked: the board files
// a PM's sent copy before it answers the submission, so such a listing
// shows every PM the check can be about.
type sentLists struct {
	mu   sync.Mutex
	open *sentList     // not begun: checks join it
	run  chan struct{} // held by the listing being read
}

// sentList is one listing of the sent folder (and outbox) for the keys of
// the checks that joined it before it began.
type sentList struct {
	keys map[string]bool
	// since is the earliest time a joined check's message was queued;
	// unknown once a check joined without one.
	since      time.Time
	sinceKnown bool
	waiters    int
	cancel     context.CancelFunc
	done       chan struct{}

	// As the pages are read: a check whose key a page shows is answered
	// then, not when the listing ends (another check's key may be for a PM
	// the board never took, which reads every page).
	mu    sync.Mutex
	found map[string]string // key → the first PM listed with it
	page  chan struct{}     // closed (and replaced) as each page is read

	// Set before done closes.
	rows        []forum.PMHeader // in the order read, outbox first
	ended, full bool
	err         error
}

// list waits for a listing begun after the call that looks for key (read
// until it has every joined check's key, or to the folder's end, or to the
// poster's SentPages), and returns the id it found for key as soon as a
// page shows it, or else the whole listing. Another check's end does not
// end it: the listing is cancelled only once every check on it has left.
func (p *Poster) list(ctx context.Context, key string, since time.Time) (l *sentList, id string, err error) {
	b := &p.lists
	b.mu.Lock()
	if b.run == nil {
		b.run = make(chan struct{}, 1)
	}
	l = b.open
	if l == nil {
		// The listing outlives the check that started it while others
		// wait on it; the context's values (a send's turn) stay.
		lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		l = &sentList{keys: map[string]bool{}, cancel: cancel, done: make(chan struct{}),
			found: map[string]string{}, page: make(chan struct{})}
		b.open = l
		go p.read(lctx, l)
	}
	switch {
	case len(l.keys) == 0:
		l.since, l.sinceKnown = since, !since.IsZero()
	case since.IsZero():
		l.sinceKnown = false
	case since.Before(l.since):
		l.since = since
	}
	l.keys[key] = true
	l.waiters++
	b.mu.Unlock()
	leave := func() {
		b.mu.Lock()
		if l.waiters--; l.waiters == 0 {
			l.cancel()
			if b.open == l {
				b.open = nil
			}
		}
		b.mu.Unlock()
	}
	for {
		l.mu.Lock()
		id, page := l.found[key], l.page
		l.mu.Unlock()
		if id != "" {
			leave()
			return l, id, nil
		}
		select {
		case <-l.done:
			return l, "", nil
		case <-page:
		case <-ctx.Done():
			leave()
			return nil, "", ctx.Err()
		}
	}
}

// read runs the listing l once the one before it has ended.
func (p *Poster) read(ctx context.Context, l *sentList) {
	b := &p.lists
	defer l.cancel()
	defer close(l.done)
	// A moment for the checks asked together (a game's PMs confirmed
	// later, all at once) to join before it begins.
	join := time.NewTimer(joinWindow)
	select {
	case <-join.C:
	case <-ctx.Done():
	}
	join.Stop()
	select {
	case b.run <- struct{}{}:
	case <-ctx.Done():
		b.mu.Lock()
		if b.open == l {
			b.open = nil
		}
		b.mu.Unlock()
		l.err = ctx.Err()
		return
	}
	defer func() { <-b.run }()
	b.mu.Lock()
	if b.open == l {
		b.open = nil // begun: later checks start the next
	}
	keys := l.keys
	back, newest := p.reachBack(l.since, l.sinceKnown)
	b.mu.Unlock()
	pages := max(p.SentPages, 1)
	if newest {
		// Read back to the earliest message, however many pages.
		pages = maxNewestPages
	}
	l.ended, l.full, l.err = p.reader.SentPages(ctx, pages, func(hs []forum.PMHeader) bool {
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, h := range hs {
			l.rows = append(l.rows, h)
			if k := SubjectKey(h.Subject); keys[k] && l.found[k] == "" {
				l.found[k] = h.ID
			}
		}
		close(l.page)
		l.page = make(chan struct{})
		if newest && readBack(hs, back) {
			return false // older than every message looked for: none is further on
		}
		return len(l.found) < len(keys)
	})
}

// joinWindow is how long a listing waits for more checks to join it.
const joinWindow = 20 * time.Millisecond

// maxNewestPages bounds a listing read back to a time (urls.sent_newest_first).
const maxNewestPages = 500

// reachBack is how far back a listing for messages queued at since must
// read on a board whose sent folder lists the newest first with times
// (urls.sent_newest_first, no outbox): to a row older than since by the
// board's clock skew and the list's minute; newest false where that
// cannot be told.
func (p *Poster) reachBack(since time.Time, known bool) (back time.Time, newest bool) {
	prof := p.Session.Profile
	if !prof.URLs.SentNewestFirst || prof.URLs.Outbox != "" || !known {
		return time.Time{}, false
	}
	return since.Add(-2*time.Minute - time.Duration(max(prof.ClockSkewSeconds, 0))*time.Second), true
}

// readBack: rows reach back before t (a row with a known time older).
func readBack(hs []forum.PMHeader, t time.Time) bool {
	for _, h := range hs {
		if !h.Time.IsZero() && h.Time.Before(t) {
			return true
		}
	}
	return false
}
