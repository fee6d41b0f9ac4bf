package scraper

import (
	"context"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
)

// Pacer spaces the requests to one board: at least Interval between two,
// and none while a Retry-After the board sent is running. Every session on
// the board shares one (forumconn keeps one per board), so the board's
// configured rate holds however many games and bot accounts use it.
//
// It waits through the clock rather than colly's LimitRule.Delay (which
// sleeps in real time), so simulated clocks decide the waits in tests.
type Pacer struct {
	clk      clock.Clock
	interval time.Duration

	mu       sync.Mutex
	next     time.Time // the earliest the next request may go
	hold     time.Time // a Retry-After: nothing before it
	requests int
}

// NewPacer makes a pacer allowing one request per interval.
func NewPacer(clk clock.Clock, interval time.Duration) *Pacer {
	if clk == nil {
		clk = clock.Real{}
	}
	return &Pacer{clk: clk, interval: interval}
}

// Interval is the least time between two requests.
func (p *Pacer) Interval() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.interval
}

// Requests is how many requests the pacer has let go.
func (p *Pacer) Requests() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.requests
}

// Wait reserves the next slot and sleeps until it comes. Slots are handed
// out in call order, so concurrent sessions queue rather than burst.
func (p *Pacer) Wait(ctx context.Context) error {
	p.mu.Lock()
	now := p.clk.Now()
	at := now
	if p.next.After(at) {
		at = p.next
	}
	if p.hold.After(at) {
		at = p.hold
	}
	p.next = at.Add(p.interval)
	p.requests++
	p.mu.Unlock()
	if d := at.Sub(now); d > 0 {
		return p.clk.Sleep(ctx, d)
	}
	return nil
}

// Hold keeps every request back until t (the board's Retry-After).
func (p *Pacer) Hold(t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.hold) {
		p.hold = t
	}
}

// HeldUntil is the end of the current Retry-After hold (zero: none).
func (p *Pacer) HeldUntil() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.hold.After(p.clk.Now()) {
		return p.hold
	}
	return time.Time{}
}

// SlowTo lengthens the interval to d if d is longer: a board shared by
// games asking for different rates gets the most cautious.
func (p *Pacer) SlowTo(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d > p.interval {
		p.interval = d
	}
}
