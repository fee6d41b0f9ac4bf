package moderator

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/retry"
	"github.com/forumgm/forumgm/store"
)

// drain sends a game's due outbox items in order. Exactly once: an item is
// marked sending (committed) before the forum is touched and sent after;
// an item found still sending (or unconfirmed) was interrupted at an
// unknown point, so the thread or the sent folder is searched for its
// marker before any retry. Flood control never holds the tick up: while
// the board does not allow the next post or PM, drain returns and a later
// tick sends.
//
// One message's trouble holds up only its own lane (the thread, or one
// player's PMs, whose order is kept): that lane waits for a later tick,
// the others go on. Two troubles in a row end the drain (the forum itself
// is likely failing); the items that had trouble then wait out a backoff
// while the others go first on the next ticks. The first trouble is
// returned once the rest has gone.
func (m *Moderator) drain(ctx context.Context, l *loaded, f forum.BoardSender) error {
	return m.drainEach(ctx, l, f, func(_ *store.OutboxItem, send func() error) error { return send() })
}

// drainEach is drain with each item's try run through each (Send: on one of
// the account's send lanes, given back between two items, taken in the
// item's class).
func (m *Moderator) drainEach(ctx context.Context, l *loaded, f forum.BoardSender, each func(*store.OutboxItem, func() error) error) error {
	max := m.MaxAttempts
	if max <= 0 {
		max = 20
	}
	held := map[string]bool{} // lanes held up in this drain
	var first error
	inARow := 0
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := m.nextItem(ctx, l.row.ID, held)
		if err != nil {
			return fmt.Errorf("send %s: %w", l.row.Name, err)
		}
		if it == nil {
			// After the sends: what they left to confirm, together.
			if err := m.confirmLater(ctx, f, l); err != nil && first == nil {
				first = fmt.Errorf("send %s: %w", l.row.Name, err)
			}
			if err := m.recheckTaken(ctx, f, l); err != nil && first == nil {
				first = err
			}
			return first
		}
		ictx := ctx
		if forum.IsLater(ctx) {
			// Its requests wait for the session's turn by its class.
			ictx = forum.LaterRank(ctx, int(it.Class))
		}
		err = each(it, func() error { return m.sendItem(ictx, f, l, it, max) })
		var tr *troubleError
		switch {
		case err == nil:
			inARow = 0
		case errors.Is(err, errNotYet):
			// Waiting for the board's flood slot: meanwhile, confirm.
			if err := m.confirmLater(ctx, f, l); err != nil && first == nil {
				first = fmt.Errorf("send %s: %w", l.row.Name, err)
			}
			return first
		case errors.As(err, &tr) && tr.waiting:
			held[lane(it)] = true
		case errors.As(err, &tr):
			held[lane(it)] = true
			if first == nil {
				first = fmt.Errorf("send %s: %w", l.row.Name, tr.err)
			}
			m.log().Warn("a message could not go now; the others go on", "game", l.row.Name, "marker", it.Marker, "err", tr.err)
			if inARow++; inARow >= 2 {
				return first
			}
		default:
			return fmt.Errorf("send %s: %w", l.row.Name, err)
		}
	}
}

// takenRecheck is how often an item the board said it took, whose marker
// was not found, is looked for again (takenPerDrain at a time): found, it
// is sent; never resent.
const (
	takenRecheck  = 5 * time.Minute
	takenPerDrain = 3
)

// recheckTaken looks again for the markers of the game's taken items that
// are due, once the rest has gone: a marker check that failed, or a board
// slow to list the message, no longer needs the GM.
func (m *Moderator) recheckTaken(ctx context.Context, f forum.BoardSender, l *loaded) error {
	var taken []store.OutboxItem
	if err := m.DB.View(ctx, func(tx *store.Tx) (err error) { taken, err = tx.Taken(l.row.ID); return err }); err != nil {
		return fmt.Errorf("send %s: %w", l.row.Name, err)
	}
	n := 0
	for i := range taken {
		it := &taken[i]
		m.mu.Lock()
		at := m.takenAt[it.ID]
		m.mu.Unlock()
		if at.After(m.now()) || n >= takenPerDrain {
			continue
		}
		n++
		m.recheckAt(it.ID)
		fid, found, err := m.find(ctx, f, l, it)
		if err != nil || !found {
			continue
		}
		m.log().Info("found on the board a message it said it took", "game", l.row.Name, "marker", it.Marker)
		if err := m.markFound(ctx, l, it, store.OutboxSent, fid, "", wentUp{found: true}); err != nil {
			return err
		}
	}
	return nil
}

// take records an item the board said it took, whose marker was not found
// (why, a forum.ErrSaidSent): taken, never sent again by itself, looked
// for again later (takenRecheck), and the GM told.
func (m *Moderator) take(ctx context.Context, l *loaded, it *store.OutboxItem, why error) error {
	if err := m.mark(ctx, l, it, store.OutboxTaken, "", why.Error()); err != nil {
		return err
	}
	m.recheckAt(it.ID) // just looked for
	m.log().Warn("the board said it took a message, but its marker could not be found there (err says why): it is not sent again by itself; look on the board, and `forumgm retry` it if it is missing",
		"game", l.row.Name, "marker", it.Marker, "err", why)
	return nil
}

// recheckAt puts off the next look for taken item id's marker.
func (m *Moderator) recheckAt(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.takenAt == nil {
		m.takenAt = map[int64]time.Time{}
	}
	m.takenAt[id] = m.now().Add(takenRecheck)
}

// troubleError is one item's trouble (an unclear or failed send, a failed
// marker check): its lane waits, the others do not.
type troubleError struct {
	err     error
	waiting bool // only waiting out its backoff: no new trouble
}

func (e *troubleError) Error() string { return e.err.Error() }
func (e *troubleError) Unwrap() error { return e.err }

// sendItem takes one item as far as it can go now: its marker checked for
// when an earlier try may have sent it, given up after max attempts, cut
// into parts when longer than the board is known to take, or sent.
func (m *Moderator) sendItem(ctx context.Context, f forum.BoardSender, l *loaded, it *store.OutboxItem, max int) error {
	if it.State != store.OutboxPending {
		// Sending, unconfirmed or unknown: an earlier try may be on the
		// board, or on its way to it.
		if at := m.settleAt(it.ID); at.After(m.now()) {
			return &troubleError{err: fmt.Errorf("%s: the board may still be taking its last submission, until %s", it.Marker, at.UTC().Format(time.RFC3339)), waiting: true}
		}
		done, err := m.confirm(ctx, f, l, it)
		if err != nil || done {
			return err
		}
		if err := m.settled(ctx, it); err != nil {
			return err
		}
	}
	if at := m.retryAfter(it.ID); at.After(m.now()) {
		return &troubleError{err: fmt.Errorf("%s waits until %s after: %s", it.Marker, at.UTC().Format(time.RFC3339), it.LastError), waiting: true}
	}
	if it.Attempts >= max {
		if err := m.mark(ctx, l, it, store.OutboxFailed, "", it.LastError); err != nil {
			return err
		}
		m.log().Error("giving up on a message after repeated failures", "game", l.row.Name, "marker", it.Marker)
		return nil
	}
	if limit := l.row.MessageLimit; limit > 0 && len(forum.SplitMessage(it.Body, limit)) > 1 {
		// Queued before the board's limit was learned.
		return m.split(ctx, l, it, limit, "")
	}
	if until := m.floodUntil(l.row.ID, f); until.After(m.now()) {
		return errNotYet
	}
	return m.sendOne(ctx, f, l, it)
}

// settled returns nil once the board has had the time to finish the
// item's last submission (its claim's fence budget, store.ClaimSettles),
// so the marker's absence just seen is proof it never went out; before
// that, the item waits (its lane only) and is looked for again then. A
// request its sender cancelled (a runner stopped cleanly, or giving the
// game back, releases the lease at once) may still land: this is the
// bound that protects a runner killed with kill -9, whose lease another
// runner can take only once it has run out.
func (m *Moderator) settled(ctx context.Context, it *store.OutboxItem) error {
	var wait time.Duration
	if err := m.DB.View(ctx, func(tx *store.Tx) error { var err error; wait, err = tx.ClaimSettles(it.ID); return err }); err != nil {
		return fmt.Errorf("checking %s's last claim: %w", it.Marker, err)
	}
	if wait <= 0 {
		return nil
	}
	at := m.now().Add(wait)
	m.mu.Lock()
	if m.settle == nil {
		m.settle = map[int64]time.Time{}
	}
	m.settle[it.ID] = at
	m.mu.Unlock()
	m.log().Info("not on the board yet, but its last submission may still land: looking again before any resend", "marker", it.Marker, "at", at)
	return &troubleError{err: fmt.Errorf("%s: the board may still be taking its last submission, until %s", it.Marker, at.UTC().Format(time.RFC3339)), waiting: true}
}

// settleAt is when an item's last submission has surely ended (zero: it
// has, as far as this moderator knows).
func (m *Moderator) settleAt(id int64) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.settle[id]
}

// lane is the order an item keeps: the thread's posts, or one player's PMs.
func lane(it *store.OutboxItem) string {
	if it.Kind == forum.KindPM {
		return string(forum.KindPM) + ":" + it.Recipient
	}
	return string(forum.KindPost)
}

// retryAfter is when an item that had trouble may be sent again (zero: now).
func (m *Moderator) retryAfter(id int64) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.retryAt[id]
}

// backOff holds an item back after trouble, doubling with its attempts
// from 30 seconds to 10 minutes, so a message that keeps failing is not
// the first thing tried on every tick.
func (m *Moderator) backOff(it *store.OutboxItem) {
	d := retry.Nth(30*time.Second, 10*time.Minute, it.Attempts)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.retryAt == nil {
		m.retryAt = map[int64]time.Time{}
	}
	m.retryAt[it.ID] = m.now().Add(d)
}

func (m *Moderator) clearBackOff(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.retryAt, id)
}

// errNotYet: flood control refused a send, or the lease is too short to
// start one; it stays queued.
var errNotYet = errors.New("not yet: flood control")

// floodUntil is when a game's next post or PM may go: what the last flood
// refusal said, or what the forum connection knows.
func (m *Moderator) floodUntil(id int64, f forum.BoardSender) time.Time {
	m.mu.Lock()
	until := m.flood[id]
	m.mu.Unlock()
	if n := f.Flood().Next; n.After(until) {
		until = n
	}
	return until
}

// saveFlood records the forum connection's learned flood status when it
// has changed, for `forumgm status` (another process) to show.
func (m *Moderator) saveFlood(ctx context.Context, id int64, f forum.BoardSender) error {
	st := f.Flood()
	st.Next, st.Depth = time.Time{}, 0 // change with every send; status needs the rest
	doc := mustJSON(st)
	m.mu.Lock()
	same := m.floodSaved[id] == string(doc)
	m.mu.Unlock()
	if same {
		return nil
	}
	if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.SetFlood(id, doc) }); err != nil {
		return fmt.Errorf("recording the flood status: %w", err)
	}
	m.mu.Lock()
	if m.floodSaved == nil {
		m.floodSaved = map[int64]string{}
	}
	m.floodSaved[id] = string(doc)
	m.mu.Unlock()
	return nil
}

// floodRecorded says whether this moderator has recorded game id's flood
// status (saveFlood) since it started.
func (m *Moderator) floodRecorded(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.floodSaved[id]
	return ok
}

// FloodUntil is when a game's next post or PM may go, as far as this
// moderator knows (zero: whenever). The daemon wakes for it.
func (m *Moderator) FloodUntil(id int64) time.Time {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.flood[id]
}

func (m *Moderator) setFloodUntil(id int64, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.flood == nil {
		m.flood = map[int64]time.Time{}
	}
	m.flood[id] = t
}

// nextItem is the next item due outside the held lanes, nil when there is none.
func (m *Moderator) nextItem(ctx context.Context, id int64, held map[string]bool) (*store.OutboxItem, error) {
	var it *store.OutboxItem
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		items, err := tx.Unsent(id)
		it = nextDue(items, m.now(), held)
		return err
	})
	return it, err
}

// confirm looks on the forum for an item an earlier try may have sent;
// found, it is marked sent and done is true. When the check itself fails,
// the item is unconfirmed: checked again on a later tick, never resent
// blind and never given up for it.
func (m *Moderator) confirm(ctx context.Context, f forum.BoardSender, l *loaded, it *store.OutboxItem) (done bool, err error) {
	fid, found, err := m.find(ctx, f, l, it)
	if err != nil {
		why := fmt.Sprintf("not confirmed yet: the check for its marker failed: %v", err)
		if it.State != store.OutboxUnconfirmed || it.LastError != why {
			if merr := m.mark(ctx, l, it, store.OutboxUnconfirmed, "", why); merr != nil {
				return false, merr
			}
		}
		// A board that cannot show it (a full sent folder) is no failing
		// forum: only this item's lane waits, the rest goes on.
		return false, &troubleError{err: fmt.Errorf("checking whether %s was sent: %w", it.Marker, err), waiting: errors.Is(err, forum.ErrNoProof)}
	}
	if !found {
		return false, nil
	}
	m.log().Info("found an earlier send already on the forum", "game", l.row.Name, "marker", it.Marker)
	m.clearBackOff(it.ID)
	return true, m.markFound(ctx, l, it, store.OutboxSent, fid, "", wentUp{found: true})
}

// sendOne makes one attempt at an item: claimed (marked sending) first,
// sent after. Under a lease the claim is fenced and the send given up once
// the fence's budget is spent, so it is over before any other runner can
// take the game (and look for the item's marker). A stop (the runner's, or
// the game given back) ends the attempt at once while nothing of it has
// left; once a request of it is on its way, that request ends by itself
// (bounded by the send's own deadline) and what became of it is recorded
// before the game is let go.
func (m *Moderator) sendOne(ctx context.Context, f forum.BoardSender, l *loaded, it *store.OutboxItem) error {
	if err := m.claim(ctx, it); errors.Is(err, store.ErrLeaseShort) || errors.Is(err, store.ErrClaimed) {
		m.log().Info("not sending now", "game", l.row.Name, "marker", it.Marker, "why", err)
		return errNotYet
	} else if err != nil {
		return fmt.Errorf("claiming %s: %w", it.Marker, err)
	}
	if err := m.crash("before-send"); err != nil {
		return err
	}
	sendCtx, rec := ctx, ctx
	var sub *submission
	if fe := store.FenceFrom(ctx); fe != nil && fe.Budget > 0 {
		sub = m.submit(ctx, it, fe.Budget, l.forum.Late())
		defer sub.close()
		sendCtx = sub.ctx
	}
	if it.Kind != forum.KindPost || l.cfg.OpeningPost != "" {
		// Its marker may be looked for later (confirmLater), with the
		// thread's next read or the other PMs', where the board's
		// success names no id. Not the opening post: its id starts the
		// game's clock.
		sendCtx = forum.ConfirmLater(sendCtx)
	}
	var fid string
	var err error
	if it.Kind == forum.KindPost {
		fid, err = f.Reply(sendCtx, l.forum.Thread, it.Body, it.Marker)
	} else {
		fid, err = f.SendPM(sendCtx, forum.Author{Name: it.RecipientName, ID: it.RecipientID}, it.Subject, it.Body, it.Marker)
	}
	if sub != nil {
		// What became of it is recorded even after a stop, within
		// recordLimit from its end: the lease is let go only after that.
		var cancel context.CancelFunc
		rec, cancel = context.WithTimeout(context.WithoutCancel(ctx), recordLimit)
		defer cancel()
	}
	if cerr := sub.crash(); cerr != nil {
		return cerr
	}
	var fe *forum.FloodError
	if errors.As(err, &fe) {
		// Flood control: the board did not take it (never submitted, or
		// refused), so it is not an attempt and goes back to pending; only
		// an unclear earlier submission in the same call keeps it sending,
		// for the marker check.
		it.Attempts--
		state := store.OutboxPending
		if fe.Uncertain {
			state = store.OutboxSending
		}
		if merr := m.mark(rec, l, it, state, "", fe.Error()); merr != nil {
			return merr
		}
		if fe.PMsOnly {
			// The board's cap on PMs an hour: this PM waits (and the
			// others, which the poster holds without asking the board);
			// the game's posts go on.
			m.mu.Lock()
			if m.retryAt == nil {
				m.retryAt = map[int64]time.Time{}
			}
			m.retryAt[it.ID] = fe.Until
			m.mu.Unlock()
			m.log().Info("the board's PMs an hour: this PM waits, posts go on", "game", l.row.Name, "marker", it.Marker, "at", fe.Until, "board_says", fe.Said)
			return &troubleError{err: fe, waiting: true}
		}
		m.setFloodUntil(l.row.ID, fe.Until)
		m.log().Info("flood control: sending resumes later", "game", l.row.Name, "marker", it.Marker, "at", fe.Until, "board_says", fe.Said)
		return errNotYet
	}
	if errors.Is(err, forum.ErrNotSubmitted) {
		// Its deadline (or a stop) came before anything of it reached
		// the board: no attempt, and nothing to check for; it goes again
		// on the next drain, with a new budget.
		it.Attempts--
		if merr := m.mark(rec, l, it, store.OutboxPending, "", err.Error()); merr != nil {
			return merr
		}
		m.log().Info("not sent in time: it goes again later", "game", l.row.Name, "marker", it.Marker, "err", err)
		return errNotYet
	}
	var tl *forum.TooLongError
	if errors.As(err, &tl) {
		return m.tooLong(rec, l, it, tl)
	}
	if errors.Is(err, forum.ErrConfirmLater) {
		// Taken: sent, never again by itself; its id (or the news that
		// it is not on the board) comes with confirmLater.
		m.clearBackOff(it.ID)
		if err := m.crash("after-send"); err != nil {
			return err
		}
		if err := m.markFound(rec, l, it, store.OutboxSent, "", store.ConfirmLaterNote, wentUp{left: sub.leftAt()}); err != nil {
			return err
		}
		m.log().Info("sent; its marker is looked for later", "game", l.row.Name, "kind", it.Kind, "marker", it.Marker)
		return nil
	}
	if errors.Is(err, forum.ErrSaidSent) {
		// The board said it took it: never sent again by itself (a
		// board whose pages garble the marker took every copy). The
		// messages after it go on; the GM decides.
		return m.take(rec, l, it, err)
	}
	if errors.Is(err, forum.ErrUnconfirmed) {
		// It may well be on the forum: a later tick checks for its
		// marker again, and only a check that answers can lead to a resend.
		if merr := m.mark(rec, l, it, store.OutboxUnconfirmed, "", err.Error()); merr != nil {
			return merr
		}
		m.backOff(it)
		return &troubleError{err: fmt.Errorf("sending %s: %w", it.Marker, err)}
	}
	if errors.Is(err, forum.ErrPermanent) {
		// The board refused it for good (an unknown recipient, a locked
		// topic): retrying will not help, and it must not hold up the
		// game's other messages. The GM sees it and can `retry` it.
		if merr := m.mark(rec, l, it, store.OutboxFailed, "", err.Error()); merr != nil {
			return merr
		}
		m.log().Error("the forum refused a message; later ones go on", "game", l.row.Name, "marker", it.Marker, "err", err)
		return nil
	}
	if err != nil {
		// Whether it went out is unknown until the marker check on the
		// next try: "unknown" when a request of it left (timed out, cut
		// off), else it stays sending. Never failed for it.
		state := store.OutboxSending
		if sub.left() {
			state = store.OutboxUnknown
			m.log().Warn("a message's request ended without an answer: it may be on the board; it is looked for before any resend", "game", l.row.Name, "marker", it.Marker, "err", err)
		}
		if merr := m.mark(rec, l, it, state, "", err.Error()); merr != nil {
			return merr
		}
		m.backOff(it)
		return &troubleError{err: fmt.Errorf("sending %s: %w", it.Marker, err)}
	}
	m.clearBackOff(it.ID)
	if it.Kind == forum.KindPost && fid != "" {
		m.ownPosted(l.row.ID, fid, m.now()) // its change to the topic list is no news (poll.go)
	}
	if err := m.crash("after-send"); err != nil {
		return err
	}
	if err := m.markFound(rec, l, it, store.OutboxSent, fid, "", wentUp{left: sub.leftAt()}); err != nil {
		return err
	}
	m.log().Info("sent", "game", l.row.Name, "kind", it.Kind, "marker", it.Marker)
	return nil
}

// recordLimit bounds recording what became of a send after a stop.
const recordLimit = 10 * time.Second

// submission is one attempt's requests under a lease. Its context ends at
// the fence's budget; a stop ends it at once only while none of its
// requests is on its way, else as soon as the last one has ended, so a
// request that has left is never cut off (the board might still take it
// while its sender records nothing), and none leaves after the stop.
type submission struct {
	ctx     context.Context
	cancel  context.CancelFunc // a stop: no new request (forum.ErrStopping)
	release context.CancelFunc
	watch   func() bool

	mu       sync.Mutex
	stopping bool
	open     int       // requests on their way
	gone     bool      // some request has left
	leftTime time.Time // when the first one left (the moderator's clock)
	crashed  error     // a test's crash as a request left: nothing more is recorded
}

// submit starts an attempt's submission for claimed item it: each request
// of it, just before it leaves, records on the item that the board may be
// taking it until the attempt's deadline plus late (SubmitOutbox).
func (m *Moderator) submit(ctx context.Context, it *store.OutboxItem, budget, late time.Duration) *submission {
	s := &submission{}
	stoppable, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	base, cancel := context.WithTimeout(stoppable, budget)
	s.cancel = func() { stop(forum.ErrStopping) }
	s.release = func() { cancel(); stop(nil) }
	deadline, _ := base.Deadline()
	s.watch = context.AfterFunc(ctx, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.stopping = true
		if s.open == 0 {
			s.cancel()
		}
	})
	claimed := *it
	record := context.WithoutCancel(ctx)
	s.ctx = forum.WithSubmit(base, func() (func(), error) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.stopping {
			return nil, forum.ErrStopping
		}
		// The window is on the database's clock from now: what is left of
		// the request's time, then the board's lateness.
		window := time.Until(deadline) + late
		if err := m.DB.Tx(record, func(tx *store.Tx) error { return tx.SubmitOutbox(&claimed, window) }); err != nil {
			return nil, fmt.Errorf("recording %s as on its way: %w", it.Marker, err)
		}
		if err := m.crash("submitting"); err != nil {
			s.crashed = err
			return nil, err
		}
		s.open++
		if !s.gone {
			s.leftTime = m.now()
		}
		s.gone = true
		return func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.open--
			if s.stopping && s.open == 0 {
				s.cancel()
			}
		}, nil
	})
	return s
}

// left says whether a request of the attempt left (false for nil).
func (s *submission) left() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

// leftAt is when the attempt's first request left (zero: none did, or nil).
func (s *submission) leftAt() time.Time {
	if s == nil {
		return time.Time{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leftTime
}

// crash is the test's crash as a request left (nil for nil).
func (s *submission) crash() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.crashed
}

func (s *submission) close() {
	s.watch()
	s.release()
}

// nextDue picks the next item to send. Thread posts go out in order, and so
// do the PMs to each player; but a post held back (a round report waiting for
// the next round to open) does not hold up a receipt, nor one player's
// messages another's, nor a lane held up by a message's trouble (held) any
// other. Of the lanes' first items due, the one of the lowest class goes
// (results before answers before reminders), the oldest among equals.
func nextDue(items []store.OutboxItem, now time.Time, held map[string]bool) *store.OutboxItem {
	seen := map[string]bool{} // lanes whose first unsent item was looked at
	var best *store.OutboxItem
	for i := range items {
		it := &items[i]
		if !it.State.Unsent() {
			continue
		}
		ln := lane(it)
		if seen[ln] || held[ln] {
			continue
		}
		seen[ln] = true
		if it.NotBefore.After(now) {
			continue
		}
		if best == nil || it.Class < best.Class {
			best = it
		}
	}
	return best
}

// find looks for an item that may already be on the forum: first among the
// thread's posts the bot has already read and stored (however long ago), then
// on the forum itself (its last pages, its sent folder).
func (m *Moderator) find(ctx context.Context, f forum.BoardSender, l *loaded, it *store.OutboxItem) (string, bool, error) {
	if it.Kind == forum.KindPost {
		stored, err := m.storedPosts(ctx, l, time.Time{})
		if err != nil {
			return "", false, err
		}
		if id := stored[it.Marker]; id != "" {
			return id, true, nil
		}
		return f.FindPost(ctx, l.forum.Thread, it.Marker)
	}
	return f.FindSentPM(ctx, it.Marker, it.CreatedAt)
}

// Retry sends failed messages again (all of a game's, or one by marker),
// and those the board said it took but whose markers were not found
// (taken): each is checked for on the forum first, as any uncertain send
// is.
func (m *Moderator) Retry(ctx context.Context, name, marker string) (int, error) {
	n := 0
	err := m.DB.Tx(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(name)
		if err != nil {
			return fmt.Errorf("game %q: %w", name, err)
		}
		items, err := tx.Outbox(g.ID)
		if err != nil {
			return err
		}
		for i := range items {
			it := &items[i]
			if (it.State != store.OutboxFailed && it.State != store.OutboxTaken) || (marker != "" && it.Marker != marker) {
				continue
			}
			it.State, it.Attempts = store.OutboxSending, 0
			if err := tx.UpdateOutbox(it); err != nil {
				return err
			}
			n++
		}
		if n == 0 && marker != "" {
			return fmt.Errorf("no failed or unconfirmed (taken) message %s in game %s", marker, name)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("retry %s: %w", name, err)
	}
	return n, nil
}

func (m *Moderator) mark(ctx context.Context, l *loaded, it *store.OutboxItem, state store.OutboxState, forumID, lastErr string) error {
	return m.markFound(ctx, l, it, state, forumID, lastErr, wentUp{})
}

// wentUp is what is known of when a sent item went up on the board: found
// on the board by its marker rather than answered for (when is not
// known), or the moment its request left (zero: not known).
type wentUp struct {
	found bool
	left  time.Time
}

// markFound is mark, with what is known of when a sent item went up.
func (m *Moderator) markFound(ctx context.Context, l *loaded, it *store.OutboxItem, state store.OutboxState, forumID, lastErr string, up wentUp) error {
	it.State, it.LastError = state, lastErr
	if forumID != "" {
		it.ForumID = forumID
	}
	if state == store.OutboxSent {
		it.SentAt = m.now()
	}
	if err := m.DB.Tx(ctx, func(tx *store.Tx) error {
		if err := tx.UpdateOutbox(it); err != nil || state != store.OutboxSent {
			return err
		}
		return m.openingPosted(tx, l, it, up)
	}); err != nil {
		return fmt.Errorf("marking %s %s: %w", it.Marker, state, err)
	}
	return nil
}

// claim marks an item sending, as a compare-and-set on what was read (and,
// under a lease, on the lease, in the same statement); on success *it is
// the claimed item.
func (m *Moderator) claim(ctx context.Context, it *store.OutboxItem) error {
	c := *it
	if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.ClaimOutbox(&c) }); err != nil {
		return err
	}
	*it = c
	return nil
}

// minMessageLimit: a board that refuses even parts this short as too long
// is refusing something else; the message is given up for the GM.
const minMessageLimit = 1000

// tooLong learns from the board's refusal of an item as too long: the
// limit it named (or, naming none, three quarters of what it refused),
// recorded for the game, and the item re-sent in parts under it.
func (m *Moderator) tooLong(ctx context.Context, l *loaded, it *store.OutboxItem, tl *forum.TooLongError) error {
	it.Attempts-- // refused outright: nothing went out
	limit := tl.Max
	if size := forum.MessageSize(it.Body); limit <= 0 || limit >= size {
		limit = size * 3 / 4
	}
	m.log().Warn("the board refused a message as too long; sending it in parts", "game", l.row.Name, "marker", it.Marker, "limit", limit, "board", tl.Said)
	return m.split(ctx, l, it, limit, tl.Said)
}

// split replaces an item by its parts under limit (forum.MessageSize), in its place:
// each part its own item and marker, so each is sent exactly once. When it
// is itself a part, the parts after it are cut again too, so the order
// holds. The learned limit is recorded for the game (later messages are
// queued under it) in the same step.
func (m *Moderator) split(ctx context.Context, l *loaded, it *store.OutboxItem, limit int, said string) error {
	if limit < minMessageLimit || len(forum.SplitMessage(it.Body, limit)) < 2 {
		why := fmt.Sprintf("too long for the board, and cannot be cut shorter than %d characters: %s", limit, said)
		if err := m.mark(ctx, l, it, store.OutboxFailed, "", why); err != nil {
			return err
		}
		m.log().Error("the forum refused a message as too long; later ones go on", "game", l.row.Name, "marker", it.Marker, "err", why)
		return nil
	}
	root := it.ID
	if it.PartOf != 0 {
		root = it.PartOf
	}
	_, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error {
		group := []store.OutboxItem{*it}
		if it.PartOf != 0 {
			items, err := tx.Unsent(l.row.ID)
			if err != nil {
				return err
			}
			for _, o := range items {
				if o.PartOf == root && o.ID > it.ID && o.State == store.OutboxPending {
					group = append(group, o)
				}
			}
		}
		var parts []store.OutboxItem
		for i := range group {
			g := &group[i]
			texts := forum.SplitMessage(g.Body, limit)
			for j, text := range texts {
				p := store.OutboxItem{GameID: g.GameID, Kind: g.Kind, Recipient: g.Recipient, RecipientName: g.RecipientName,
					RecipientID: g.RecipientID, Subject: g.Subject, Body: text, Marker: fmt.Sprintf("%s.p%d", g.Marker, j+1),
					PartOf: root, Class: g.Class, NotBefore: g.NotBefore, State: store.OutboxPending}
				if len(texts) > 1 {
					p.Subject = fmt.Sprintf("%s (%d/%d)", g.Subject, j+1, len(texts))
				}
				parts = append(parts, p)
			}
			g.State = store.OutboxSplit
			g.LastError = fmt.Sprintf("sent instead in %d parts under the board's limit of %d characters", len(texts), limit)
			if said != "" {
				g.LastError += " (the board said: " + said + ")"
			}
		}
		s.ch.OutboxUpdates, s.ch.Outbox = group, parts
		s.ch.MessageLimit = &store.MessageLimitChange{GameID: l.row.ID, Max: limit}
		return nil
	})
	if err != nil {
		return fmt.Errorf("splitting %s: %w", it.Marker, err)
	}
	if l.row.MessageLimit <= 0 || limit < l.row.MessageLimit {
		l.row.MessageLimit = limit
	}
	return nil
}
