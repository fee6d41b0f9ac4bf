package scraper

import (
	"context"
	"slices"
	"sync"

	"github.com/forumgm/forumgm/forum"
)

// turns is the session's one request at a time, handed out in order of
// asking, reads first: a request asked for with forum.Later (the bot's
// sends: forms, submissions, their confirmations) waits while a read
// waits, but for no more than readsFirst reads in a row. So a burst of
// sends on a shared session does not leave the games' thread reads behind
// it, and reads that fill the board's whole rate (more games than it
// allows a poll) do not stop the sends. Later requests go by their rank
// (forum.LaterRank: a message's send class), first come first within one.
type turns struct {
	mu     sync.Mutex
	busy   bool
	first  []chan struct{} // reads waiting
	second []waiter        // later requests waiting, by rank, then arrival
	reads  int             // reads handed the turn in a row while sends waited
}

type waiter struct {
	ch   chan struct{}
	rank int
}

// readsFirst is how many reads may go before a waiting send.
const readsFirst = 2

func (t *turns) take(later bool, rank int) {
	t.mu.Lock()
	if !t.busy {
		t.busy = true
		t.mu.Unlock()
		return
	}
	ch := make(chan struct{})
	if later {
		i := len(t.second)
		for i > 0 && t.second[i-1].rank > rank {
			i--
		}
		t.second = slices.Insert(t.second, i, waiter{ch, rank})
	} else {
		t.first = append(t.first, ch)
	}
	t.mu.Unlock()
	<-ch // handed the turn: busy stays set
}

func (t *turns) give() {
	t.mu.Lock()
	defer t.mu.Unlock()
	var next chan struct{}
	switch {
	case len(t.first) > 0 && (len(t.second) == 0 || t.reads < readsFirst):
		next, t.first = t.first[0], t.first[1:]
		if len(t.second) > 0 {
			t.reads++
		}
	case len(t.second) > 0:
		next, t.second = t.second[0].ch, t.second[1:]
		t.reads = 0
	default:
		t.busy = false
		return
	}
	close(next)
}

// lock takes the session's request turn for ctx.
func (s *Session) lock(ctx context.Context) {
	rank, later := forum.LaterOf(ctx)
	s.turns.take(later, rank)
}

func (s *Session) unlock() { s.turns.give() }
