package moderator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/gate"
	"github.com/forumgm/forumgm/store"
)

// Sending in Run is apart from reading: a game's worker reads, applies and
// resolves in its pool slot (Pool.Do) and hands its outbox to its sender,
// which sends on the account's send lanes, outside any slot. So a game whose
// messages wait on the board's pace (one account sends a message at a
// time, or less often under flood control) still reads at poll_seconds, and
// so do the other games: their ticks never queue behind sends.

// sender sends one game's outbox, a drain at a time, whenever kicked.
type sender struct {
	kick chan struct{}
	done chan struct{}
	stop context.CancelFunc
}

// startSender starts game id's sender; account is the game's bot account,
// whose lanes its sends take.
func (m *Moderator) startSender(ctx context.Context, id int64, account forum.Account) *sender {
	ctx, cancel := context.WithCancel(ctx)
	s := &sender{kick: make(chan struct{}, 1), done: make(chan struct{}), stop: cancel}
	go func() {
		defer close(s.done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-s.kick:
			}
			if err := m.safeSend(ctx, id, account); err != nil && ctx.Err() == nil {
				if errors.Is(err, store.ErrLeaseLost) {
					// The worker stops at its next tick if the lease is
					// gone for good, and closes this sender then. Not
					// before: a lease that ran out while the database was
					// away, and that nobody took, is renewed, and the
					// game goes on; a sender that had stopped here would
					// leave it sending nothing.
					continue
				}
				m.log().Warn("sending failed; the next poll tries again", "game", id, "err", err)
			}
		}
	}()
	return s
}

// safeSend is Send with a panic turned into an error, as safeTick.
func (m *Moderator) safeSend(ctx context.Context, id int64, account forum.Account) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error: %v", r)
		}
	}()
	return m.Send(ctx, id, account)
}

// poke asks the sender for a drain (one pending at most: a drain started
// after the kick sends everything queued before it).
func (s *sender) poke() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// close stops the sender and waits for its drain to end, so that no send
// of the game is in flight once its worker has stopped (its lease may be
// released next).
func (s *sender) close() {
	s.stop()
	<-s.done
}

// Send sends game id's due outbox items (send.go, drain), each on one of
// its account's send lanes (Pool.SendLanes), and records the flood status
// learned. It reads nothing.
func (m *Moderator) Send(ctx context.Context, id int64, account forum.Account) error {
	ctx = forum.Later(ctx) // the account's reads go first
	if m.floodRecorded(id) {
		// Most drains find nothing due (a game's worker asks for one
		// around every tick): then the game need not be loaded, and its
		// flood status is recorded at its next send.
		if it, err := m.nextItem(ctx, id, nil); err != nil {
			return fmt.Errorf("game #%d: %w", id, err)
		} else if it == nil {
			// Nor any sent item to confirm (confirmLater)?
			var confirm bool
			if err := m.DB.View(ctx, func(tx *store.Tx) (err error) { confirm, err = tx.HasToConfirm(id); return err }); err != nil {
				return fmt.Errorf("game #%d: %w", id, err)
			}
			if !confirm {
				return nil
			}
		}
	}
	l, err := m.view(ctx, id)
	if err != nil {
		return fmt.Errorf("game #%d: %w", id, err)
	}
	f, err := m.conn(ctx, l)
	if err != nil {
		return fmt.Errorf("game %s: connecting to the forum: %w", l.row.Name, err)
	}
	lane := func(it *store.OutboxItem, send func() error) error {
		release, err := m.Pool.lane(ctx, account, lanesFor(f), it.Class)
		if err != nil {
			return err
		}
		defer release()
		return send()
	}
	err = m.drainEach(ctx, l, f, lane)
	if ferr := m.saveFlood(ctx, l.row.ID, f); ferr != nil && ctx.Err() == nil {
		m.log().Warn("flood status not recorded", "game", l.row.Name, "err", ferr)
	}
	return err
}

// lanesFor is how many of an account's games may be sending at once: as
// many as its poster has submissions under way (the profile's send_depth
// for a flood-exempt account, as the board's pace allows: Profile.Depth;
// else one), at most Pool.SendLanes. More would only queue at the poster
// with their claims made, spending the send budget of their fence waiting.
func lanesFor(f forum.BoardSender) int {
	return max(f.Flood().Depth, 1)
}

// lanes are the send lanes of each account: how many of its games are
// sending.
type lanes struct {
	mu sync.Mutex
	by map[forum.Account]*gate.Gate
}

// DefaultSendLanes is the most games of one account that send at once.
const DefaultSendLanes = 128

// lane takes one of the account's send lanes, of which there are want (at
// most SendLanes), for an item of class class, waiting for one to be free:
// across the account's games the lowest class goes first (a phase's
// results, then answers to players, then reminders), first come first
// within a class; a game gives its lane back after each item, so a game
// with a backlog takes turns with the others. release gives it back. A
// nil pool has no limit.
func (p *Pool) lane(ctx context.Context, account forum.Account, want int, class store.SendClass) (release func(), err error) {
	if p == nil {
		return func() {}, nil
	}
	p.init()
	n := p.SendLanes
	if n <= 0 {
		n = DefaultSendLanes
	}
	p.lanes.mu.Lock()
	if p.lanes.by == nil {
		p.lanes.by = map[forum.Account]*gate.Gate{}
	}
	g := p.lanes.by[account]
	if g == nil {
		g = &gate.Gate{}
		p.lanes.by[account] = g
	}
	p.lanes.mu.Unlock()
	return g.TakeClass(ctx, func() int { return min(n, max(want, 1)) }, int(class))
}
