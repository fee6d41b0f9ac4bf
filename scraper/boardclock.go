package scraper

import (
	"context"
	"strconv"
	"sync"
	"time"
)

// boardClock narrows down the board's clock against ours from the forms it
// makes: a form stamped with second C of its clock (phpBB's creation_time)
// while our request for it was under way (sent at s, its answer in at r,
// our clock) puts the board's offset (its time less ours) in
// (C − r, C + 1 − s). Intersected over the forms it comes within a round
// trip of the truth once a form was made just after a second began; lo is
// the least the offset can be, what a wait for the board's clock must
// assume. The forms' own stamps, not the Date header: a proxy in front of
// the board may have a clock of its own.
type boardClock struct {
	mu     sync.Mutex
	lo, hi time.Duration
	known  bool
}

// note takes in a form stamped made (Unix seconds of the board's clock),
// fetched by a request sent at sent whose answer came in at received.
func (c *boardClock) note(made int64, sent, received time.Time) {
	if sent.IsZero() || received.Before(sent) {
		return
	}
	d := time.Unix(made, 0)
	lo, hi := d.Sub(received), d.Add(time.Second).Sub(sent)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known && lo <= c.hi && hi >= c.lo {
		lo, hi = max(lo, c.lo), min(hi, c.hi)
	}
	// Disjoint from what was known: a clock was set; start again from here.
	c.lo, c.hi, c.known = lo, hi, true
}

// least is the least the board's offset can be.
func (c *boardClock) least() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lo
}

// FormWait waits until the form with the values given, fetched as page
// pg, may be submitted. A profile naming the form's creation-time field
// (form_time_field: phpBB's creation_time, in Unix seconds of the board's
// clock; a token is refused in that second) is waited until the board's
// clock has surely passed that second, as its forms so far place it
// (boardClock); without the field, form_wait_seconds.
func (s *Session) FormWait(ctx context.Context, pg *Page, values map[string][]string) error {
	flat := time.Duration(s.Profile.FormWaitSeconds) * time.Second
	if f := s.Profile.FormTimeField; f != "" && len(values[f]) > 0 && pg != nil {
		if made, err := strconv.ParseInt(values[f][0], 10, 64); err == nil {
			s.clock.note(made, pg.Sent, pg.Received)
			// The board's time is now + offset >= now + least: past the
			// form's second once now + least >= made + 1.
			until := time.Unix(made+1, 0).Add(-s.clock.least())
			if wait := until.Sub(s.opt.Clock.Now()); wait > 0 {
				return s.opt.Clock.Sleep(ctx, min(wait, max(flat, time.Second)))
			}
			return nil
		}
	}
	if flat > 0 {
		return s.opt.Clock.Sleep(ctx, flat)
	}
	return nil
}
