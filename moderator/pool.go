package moderator

import (
	"context"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/gate"
)

// Pool shapes `forumgm run`'s work across all its games: at most Workers
// ticks at once in the whole process, the games' first ticks spread
// Stagger apart (a restart with many games does not log in and backfill
// them all at once), and the games of one board and bot account polled on
// one shared cycle, so their polls meet and one inbox list serves them all.
// A nil Pool leaves every game on its own (tests, the demo).
type Pool struct {
	Workers int           // ticks at once [8]
	Stagger time.Duration // between two games' first ticks [0: none]
	// SendLanes: how many games of one account send at once, each
	// message taking a lane (sender.go) [DefaultSendLanes]. Sends never
	// take a worker.
	SendLanes int

	once   sync.Once
	ticks  gate.Gate
	n      int // Workers, or its default
	mu     sync.Mutex
	slot   time.Time                   // the last first-tick slot handed out
	epochs map[forum.Account]time.Time // an account's cycle start
	lanes  lanes
}

func (p *Pool) init() {
	p.once.Do(func() {
		p.n = p.Workers
		if p.n <= 0 {
			p.n = 8
		}
		p.epochs = map[forum.Account]time.Time{}
	})
}

// tickRank is what a game's tick is to the players waiting on it: the
// pool lets the lowest rank in first when a worker frees (first come first
// within a rank).
type tickRank int

const (
	// tickHailed: a PM from one of its players is in the account's inbox
	// (hail.go).
	tickHailed tickRank = iota
	// tickRunning: a game at play, signing up or paused.
	tickRunning
	// tickOpening: its opening post is not up yet (awaitingOpening).
	tickOpening
)

// Do runs one tick when a worker is free (nil: at once), as a running
// game's (do).
func (p *Pool) Do(ctx context.Context, tick func() error) error {
	return p.do(ctx, tickRunning, tick)
}

// do runs one tick when a worker is free (nil: at once), running games'
// before opening games' (rank). An opening game's tick never takes the
// last worker: such ticks wait on their account's session behind the
// running games' reads and answers (readRank), and eight of them holding
// every worker kept a running game's tick, and so its answer, waiting
// for 20 s while 19 games opened (BenchmarkRealBurst).
func (p *Pool) do(ctx context.Context, rank tickRank, tick func() error) error {
	if p == nil {
		return tick()
	}
	p.init()
	limit := p.n
	if rank >= tickOpening {
		limit = max(p.n-1, 1)
	}
	release, err := p.ticks.TakeClass(ctx, func() int { return limit }, int(rank))
	if err != nil {
		return err
	}
	defer release()
	return tick()
}

// firstWait is how long a game waits before its first tick: the next free
// start-up slot, Stagger after the one before.
func (p *Pool) firstWait(now time.Time) time.Duration {
	if p == nil || p.Stagger <= 0 {
		return 0
	}
	p.init()
	p.mu.Lock()
	defer p.mu.Unlock()
	at := now
	if next := p.slot.Add(p.Stagger); next.After(at) {
		at = next
	}
	p.slot = at
	return at.Sub(now)
}

// nextPoll is the wait until a game's next poll: the next turn of its
// account's cycle (every poll from the account's first game's start), so
// the games of one account poll together.
func (p *Pool) nextPoll(session forum.Account, poll time.Duration, now time.Time) time.Duration {
	if p == nil || poll <= 0 {
		return poll
	}
	p.init()
	p.mu.Lock()
	epoch, ok := p.epochs[session]
	if !ok {
		epoch = now
		p.epochs[session] = now
	}
	p.mu.Unlock()
	wait := poll - now.Sub(epoch)%poll
	if wait < poll/10 {
		wait += poll // just past a turn: the next one, not a poll at once
	}
	return wait
}
