// Package retry computes how long to wait between attempts: exponential
// backoff with jitter, the one policy the forum client, the poster and the
// moderator's workers share.
//
// It only computes. Callers sleep through their own clock.Clock, so a
// simulated clock in tests still decides how long a wait really takes.
//
// Jitter only lengthens a wait (by up to Jitter of itself), and never past
// the ceiling: each wait is at least the doubled base, so a configured least
// wait (the login lockout) is never cut short, and at most the ceiling, so a
// documented cap (the moderator's 5 minutes) holds. Many clients that failed
// together still spread out: their waits differ on the way up, so once at
// the ceiling they keep the same period at different moments.
package retry

import (
	"math/rand/v2"
	"time"
)

// DefaultJitter is the share of each wait added at random by New's Backoff.
const DefaultJitter = 0.2

// Backoff yields waits that start at an initial duration and double up to a
// cap, each stretched by a random share of up to its jitter. Not safe for
// concurrent use: each retry loop owns one.
type Backoff struct {
	initial, max time.Duration
	jitter       float64
	rand         func() float64 // in [0, 1)
	next         time.Duration  // base of the next wait
}

// New returns a Backoff whose waits start at initial and double up to ceiling
// (a ceiling below initial is taken as initial), with DefaultJitter.
func New(initial, ceiling time.Duration) *Backoff {
	return &Backoff{initial: initial, max: max(initial, ceiling), jitter: DefaultJitter, rand: rand.Float64, next: initial}
}

// WithJitter sets the jitter share (0 for none, at most 1) and the source of
// randomness in [0, 1) (nil keeps the current one): tests pin both.
func (b *Backoff) WithJitter(share float64, rnd func() float64) *Backoff {
	b.jitter = min(max(share, 0), 1)
	if rnd != nil {
		b.rand = rnd
	}
	return b
}

// Next returns the next wait and doubles the base for the one after.
func (b *Backoff) Next() time.Duration {
	d := b.next
	if d <= 0 {
		return 0
	}
	if d > b.max/2 {
		b.next = b.max
	} else {
		b.next = d * 2
	}
	if b.jitter > 0 {
		if f := float64(d) * (1 + b.jitter*b.rand()); f < float64(b.max) {
			d = time.Duration(f)
		} else {
			d = b.max
		}
	}
	return d
}

// Nth is the base (without jitter) of the nth wait of a Backoff from
// initial up to ceiling (n ≤ 1: the first), for a caller that keeps only an
// attempt count, not a Backoff, between tries (an outbox item's attempts
// survive a restart; its Backoff would not).
func Nth(initial, ceiling time.Duration, n int) time.Duration {
	d := initial
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	return min(d, max(initial, ceiling))
}

// Reset starts the waits over from the initial one (after a success).
func (b *Backoff) Reset() { b.next = b.initial }
