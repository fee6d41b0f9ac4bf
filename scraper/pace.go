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
	last     time.Time // the last request let go
	hold     time.Time // a Retry-After: nothing before it
	requests int
	granted  func(slot time.Time) // tests: each grant's slot, under mu
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

// Wait sleeps until a request may go and counts it. Each grant keeps to
// slots at least Interval apart: a waiter woken late by less than an
// Interval (timer and scheduling latency, about a millisecond on a busy
// machine, a fifth of the slot at 200 requests a second) keeps its slot,
// so the latency does not slow the board's rate; one woken later gives it
// up and the next slot counts from when it went, so two never go at once
// to make up for a pause.
func (p *Pacer) Wait(ctx context.Context) error {
	for {
		p.mu.Lock()
		now := p.clk.Now()
		at := p.hold
		if !p.last.IsZero() {
			if t := p.last.Add(p.interval); t.After(at) {
				at = t
			}
		}
		if !now.Before(at) {
			p.last = now
			if !at.IsZero() && now.Sub(at) < p.interval {
				p.last = at
			}
			p.requests++
			if p.granted != nil {
				p.granted(p.last)
			}
			p.mu.Unlock()
			return nil
		}
		p.mu.Unlock()
		if err := p.clk.Sleep(ctx, at.Sub(now)); err != nil {
			return err
		}
	}
}

// Hold keeps every request back until t (the board's Retry-After); it
// says whether that is longer than the hold already running.
func (p *Pacer) Hold(t time.Time) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.hold) {
		p.hold = t
		return true
	}
	return false
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
