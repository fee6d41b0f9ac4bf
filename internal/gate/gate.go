// Package gate bounds how many of something are under way at once, by a
// limit that may change between takes (the poster's submissions, the
// moderator's send lanes), and says who goes next when one ends: the
// lowest class first, first come first within a class.
package gate

import (
	"context"
	"sync"
)

// Gate counts what is under way. The zero Gate is ready to use.
type Gate struct {
	mu      sync.Mutex
	busy    int
	seq     uint64
	waiting []*waiter
}

// waiter is one Take waiting for its turn.
type waiter struct {
	class int
	seq   uint64
	limit func() int
	ready chan struct{} // closed when it is let in (counted in busy)
}

// Take waits until fewer than limit() are under way (limit is asked again
// as others end), counts one more, and returns its release. Takes wait in
// the order they came.
func (g *Gate) Take(ctx context.Context, limit func() int) (release func(), err error) {
	return g.TakeClass(ctx, limit, 0)
}

// TakeClass is Take for a taker of class class: when one ends, the waiting
// taker of the lowest class goes next, the earliest among equals. A taker
// never passes one of its own class or lower that came before it.
func (g *Gate) TakeClass(ctx context.Context, limit func() int, class int) (release func(), err error) {
	g.mu.Lock()
	if g.busy < max(limit(), 1) && !g.ahead(class) {
		g.busy++
		g.mu.Unlock()
		return g.release, nil
	}
	g.seq++
	w := &waiter{class: class, seq: g.seq, limit: limit, ready: make(chan struct{})}
	g.waiting = append(g.waiting, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return g.release, nil
	case <-ctx.Done():
		g.mu.Lock()
		defer g.mu.Unlock()
		select {
		case <-w.ready:
			// Let in as it gave up: pass the turn on.
			g.busy--
			g.admit()
		default:
			g.drop(w)
		}
		return nil, ctx.Err()
	}
}

// ahead says whether a waiter of class or lower waits (g.mu held).
func (g *Gate) ahead(class int) bool {
	for _, w := range g.waiting {
		if w.class <= class {
			return true
		}
	}
	return false
}

func (g *Gate) drop(w *waiter) {
	for i, o := range g.waiting {
		if o == w {
			g.waiting = append(g.waiting[:i], g.waiting[i+1:]...)
			return
		}
	}
}

// admit lets the best waiters in while their limit allows (g.mu held).
func (g *Gate) admit() {
	for len(g.waiting) > 0 {
		best := 0
		for i, w := range g.waiting {
			if b := g.waiting[best]; w.class < b.class || (w.class == b.class && w.seq < b.seq) {
				best = i
			}
		}
		w := g.waiting[best]
		if g.busy >= max(w.limit(), 1) {
			return
		}
		g.waiting = append(g.waiting[:best], g.waiting[best+1:]...)
		g.busy++
		close(w.ready)
	}
}

func (g *Gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	g.admit()
}
