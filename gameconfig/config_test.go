package gameconfig

import (
	"testing"
	"time"
)

// TestPollBounds: the poll's bounds and the full-read interval, set and
// by default.
func TestPollBounds(t *testing.T) {
	for _, c := range []struct {
		f            ForumConfig
		lo, hi, full time.Duration
	}{
		{ForumConfig{}, 30 * time.Second, 30 * time.Second, 5 * time.Minute},
		{ForumConfig{PollSeconds: 60}, time.Minute, time.Minute, 10 * time.Minute},
		{ForumConfig{PollSeconds: 20, PollMinSeconds: 5, PollMaxSeconds: 160, FullReadSeconds: 90}, 5 * time.Second, 160 * time.Second, 90 * time.Second},
	} {
		lo, hi := c.f.PollBounds()
		if lo != c.lo || hi != c.hi || c.f.FullRead() != c.full {
			t.Errorf("%+v: bounds %s..%s, full read %s; want %s..%s, %s", c.f, lo, hi, c.f.FullRead(), c.lo, c.hi, c.full)
		}
		if err := c.f.Check(); err != nil {
			t.Errorf("%+v: %v", c.f, err)
		}
	}
}
