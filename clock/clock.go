// Package clock lets the forum client, the simulator and the moderator share
// one notion of time, so tests can use a fake clock (flood waits, deadlines)
// instead of really waiting.
package clock

import (
	"context"
	"sync"
	"time"
)

// Clock tells the time and waits.
type Clock interface {
	Now() time.Time
	// Sleep waits d, or until ctx is done (then it returns ctx.Err()).
	Sleep(ctx context.Context, d time.Duration) error
}

// Real is the wall clock.
type Real struct{}

func (Real) Now() time.Time { return time.Now() }

func (Real) Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Fake is a clock that only moves when told to, or when someone sleeps on it
// (a sleep advances it at once), so a 15-second flood wait costs nothing.
type Fake struct {
	mu sync.Mutex
	t  time.Time
}

// NewFake starts a fake clock at t.
func NewFake(t time.Time) *Fake { return &Fake{t: t} }

func (f *Fake) Now() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.t
}

func (f *Fake) Sleep(ctx context.Context, d time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	f.Advance(d)
	return nil
}

// Advance moves the clock forward by d.
func (f *Fake) Advance(d time.Duration) {
	if d <= 0 {
		return
	}
	f.mu.Lock()
	f.t = f.t.Add(d)
	f.mu.Unlock()
}

// Set moves the clock to t (never backwards).
func (f *Fake) Set(t time.Time) {
	f.mu.Lock()
	if t.After(f.t) {
		f.t = t
	}
	f.mu.Unlock()
}

// Skew is real time plus an offset a test moves forward: sleeps are real
// (a board's own waits must pass on its clock), while minutes or hours of
// waiting (a lockout, a list growing old) pass at once with Advance.
type Skew struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *Skew) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.off)
}

func (c *Skew) Sleep(ctx context.Context, d time.Duration) error { return Real{}.Sleep(ctx, d) }

// Advance moves the clock forward by d.
func (c *Skew) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}
