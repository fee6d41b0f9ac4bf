package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// drain sends a game's due outbox items in order. Exactly once: an item is
// marked sending (committed) before the forum is touched and sent after;
// an item found still sending was interrupted at an unknown point, so the
// thread or the sent folder is searched for its marker before any retry.
// Flood control never holds the tick up: while the board does not allow the
// next post or PM, drain returns and a later tick sends.
func (m *Moderator) drain(ctx context.Context, l *loaded, f Forum) error {
	max := m.MaxAttempts
	if max <= 0 {
		max = 20
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		it, err := m.nextItem(ctx, l.row.ID)
		if err != nil {
			return fmt.Errorf("send %s: %w", l.row.Name, err)
		}
		if it == nil {
			return nil
		}
		if it.State == store.OutboxSending {
			done, err := m.confirmInterrupted(ctx, f, l, it)
			if err != nil {
				return fmt.Errorf("send %s: %w", l.row.Name, err)
			}
			if done {
				continue
			}
		}
		if it.Attempts >= max {
			if err := m.mark(ctx, it, store.OutboxFailed, "", it.LastError); err != nil {
				return fmt.Errorf("send %s: %w", l.row.Name, err)
			}
			m.log().Error("giving up on a message after repeated failures", "game", l.row.Name, "marker", it.Marker)
			continue
		}
		if until := m.floodUntil(l.row.ID, f); until.After(m.now()) {
			return nil
		}
		if err := m.sendOne(ctx, f, l, it); errors.Is(err, errNotYet) {
			return nil
		} else if err != nil {
			return fmt.Errorf("send %s: %w", l.row.Name, err)
		}
	}
}

// errNotYet: flood control refused a send, or the lease is too short to
// start one; it stays queued.
var errNotYet = errors.New("not yet: flood control")

// Flooder is what a Forum may tell of its account's flood control: what it
// has learned, and when the next post or PM may go.
type Flooder interface {
	Flood() forum.FloodStatus
}

// floodUntil is when a game's next post or PM may go: what the last flood
// refusal said, or what the forum connection knows.
func (m *Moderator) floodUntil(id int64, f Forum) time.Time {
	m.mu.Lock()
	until := m.flood[id]
	m.mu.Unlock()
	if fl, ok := f.(Flooder); ok {
		if n := fl.Flood().Next; n.After(until) {
			until = n
		}
	}
	return until
}

// saveFlood records the forum connection's learned flood status when it
// has changed, for `forumgm status` (another process) to show.
func (m *Moderator) saveFlood(ctx context.Context, id int64, f Forum) error {
	fl, ok := f.(Flooder)
	if !ok {
		return nil
	}
	st := fl.Flood()
	st.Next = time.Time{} // changes with every send; status needs the rest
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

// nextItem is the next item due, nil when there is none.
func (m *Moderator) nextItem(ctx context.Context, id int64) (*store.OutboxItem, error) {
	var it *store.OutboxItem
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		items, err := tx.Unsent(id)
		it = nextDue(items, m.now())
		return err
	})
	return it, err
}

// confirmInterrupted looks for an interrupted send on the forum; found, it
// is marked sent and done is true.
func (m *Moderator) confirmInterrupted(ctx context.Context, f Forum, l *loaded, it *store.OutboxItem) (done bool, err error) {
	fid, found, err := m.find(ctx, f, l, it)
	if err != nil {
		return false, fmt.Errorf("checking whether %s was sent: %w", it.Marker, err)
	}
	if !found {
		return false, nil
	}
	m.log().Info("found an interrupted send already on the forum", "game", l.row.Name, "marker", it.Marker)
	return true, m.mark(ctx, it, store.OutboxSent, fid, "")
}

// sendOne makes one attempt at an item: claimed (marked sending) first,
// sent after. Under a lease the claim is fenced and the send given up once
// the fence's budget is spent, so it is over before any other runner can
// take the game (and look for the item's marker).
func (m *Moderator) sendOne(ctx context.Context, f Forum, l *loaded, it *store.OutboxItem) error {
	if err := m.claim(ctx, it); errors.Is(err, store.ErrLeaseShort) || errors.Is(err, store.ErrClaimed) {
		m.log().Info("not sending now", "game", l.row.Name, "marker", it.Marker, "why", err)
		return errNotYet
	} else if err != nil {
		return fmt.Errorf("claiming %s: %w", it.Marker, err)
	}
	if err := m.crash("before-send"); err != nil {
		return err
	}
	sendCtx := ctx
	if fe := store.FenceFrom(ctx); fe != nil && fe.Budget > 0 {
		var cancel context.CancelFunc
		sendCtx, cancel = context.WithTimeout(ctx, fe.Budget)
		defer cancel()
	}
	var fid string
	var err error
	if it.Kind == "post" {
		fid, err = f.Reply(sendCtx, l.forum.Thread, it.Body, it.Marker)
	} else {
		fid, err = f.SendPM(sendCtx, forum.Author{Name: it.RecipientName, ID: it.RecipientID}, it.Subject, it.Body, it.Marker)
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
		if merr := m.mark(ctx, it, state, "", fe.Error()); merr != nil {
			return merr
		}
		m.setFloodUntil(l.row.ID, fe.Until)
		m.log().Info("flood control: sending resumes later", "game", l.row.Name, "marker", it.Marker, "at", fe.Until)
		return errNotYet
	}
	if errors.Is(err, forum.ErrPermanent) {
		// The board refused it for good (an unknown recipient, a locked
		// topic): retrying will not help, and it must not hold up the
		// game's other messages. The GM sees it and can `retry` it.
		if merr := m.mark(ctx, it, store.OutboxFailed, "", err.Error()); merr != nil {
			return merr
		}
		m.log().Error("the forum refused a message; later ones go on", "game", l.row.Name, "marker", it.Marker, "err", err)
		return nil
	}
	if err != nil {
		// Stays sending: whether it went out is unknown until the marker
		// check on the next try.
		it.LastError = err.Error()
		if merr := m.mark(ctx, it, store.OutboxSending, "", it.LastError); merr != nil {
			return merr
		}
		return fmt.Errorf("sending %s: %w", it.Marker, err)
	}
	if err := m.crash("after-send"); err != nil {
		return err
	}
	if err := m.mark(ctx, it, store.OutboxSent, fid, ""); err != nil {
		return err
	}
	m.log().Info("sent", "game", l.row.Name, "kind", it.Kind, "marker", it.Marker)
	return nil
}

// nextDue picks the next item to send. Thread posts go out in order, and so
// do the PMs to each player; but a post held back (a round report waiting for
// the next round to open) does not hold up a receipt, nor one player's
// messages another's.
func nextDue(items []store.OutboxItem, now time.Time) *store.OutboxItem {
	blocked := map[string]bool{}
	for i := range items {
		it := &items[i]
		if it.State != store.OutboxPending && it.State != store.OutboxSending {
			continue
		}
		lane := "post"
		if it.Kind == "pm" {
			lane = "pm:" + it.Recipient
		}
		if blocked[lane] {
			continue
		}
		if it.NotBefore.After(now) {
			blocked[lane] = true
			continue
		}
		return it
	}
	return nil
}

// find looks for an item that may already be on the forum: first among the
// thread's posts the bot has already read and stored (however long ago), then
// on the forum itself (its last pages, its sent folder).
func (m *Moderator) find(ctx context.Context, f Forum, l *loaded, it *store.OutboxItem) (string, bool, error) {
	if it.Kind == "post" {
		var id string
		err := m.DB.View(ctx, func(tx *store.Tx) error {
			msgs, err := tx.Messages(l.row.ID)
			for _, msg := range msgs {
				if msg.Kind == "post" && strings.EqualFold(msg.AuthorName, l.forum.Bot) && forum.HasMarker(msg.BodyHTML, it.Marker) {
					id = msg.ForumID
				}
			}
			return err
		})
		if err != nil || id != "" {
			return id, id != "", err
		}
		return f.FindPost(ctx, l.forum.Thread, it.Marker)
	}
	return f.FindSentPM(ctx, it.Marker)
}

// Retry sends failed messages again (all of a game's, or one by marker):
// each is checked for on the forum first, as any uncertain send is.
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
			if it.State != store.OutboxFailed || (marker != "" && it.Marker != marker) {
				continue
			}
			it.State, it.Attempts = store.OutboxSending, 0
			if err := tx.UpdateOutbox(it); err != nil {
				return err
			}
			n++
		}
		if n == 0 && marker != "" {
			return fmt.Errorf("no failed message %s in game %s", marker, name)
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("retry %s: %w", name, err)
	}
	return n, nil
}

func (m *Moderator) mark(ctx context.Context, it *store.OutboxItem, state store.OutboxState, forumID, lastErr string) error {
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
		return m.openingPosted(tx, it)
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
