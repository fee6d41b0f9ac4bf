// Package gate bounds how many of something are under way at once, by a
// limit that may change between takes (the poster's submissions, the
// moderator's send lanes).
package gate

import (
	"context"
	"sync"
)

// Gate counts what is under way. The zero Gate is ready to use.
type Gate struct {
	mu    sync.Mutex
	busy  int
	freed chan struct{} // closed when one ends
}

// Take waits until fewer than limit() are under way (limit is asked again
// after each wait), counts one more, and returns its release.
func (g *Gate) Take(ctx context.Context, limit func() int) (release func(), err error) {
	for {
		n := max(limit(), 1)
		g.mu.Lock()
		if g.busy < n {
			g.busy++
			g.mu.Unlock()
			return g.release, nil
		}
		if g.freed == nil {
			g.freed = make(chan struct{})
		}
		ch := g.freed
		g.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

func (g *Gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.busy--
	if g.freed != nil {
		close(g.freed)
		g.freed = nil
	}
}
