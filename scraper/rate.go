package scraper

import (
	"sync"
	"time"
)

// roundTrips keeps a session's usual request time: from the pacer letting
// a request go to the board's whole answer. A session makes one request at
// a time, so a board slower to answer than its pacer's interval allows
// fewer requests a second than requests_per_second says.
type roundTrips struct {
	mu  sync.Mutex
	avg time.Duration // a moving average, the last 8 or so requests weighing most
	n   int
}

func (r *roundTrips) note(d time.Duration) {
	if d < 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		r.avg = d
	} else {
		r.avg += (d - r.avg) / 8
	}
	r.n++
}

func (r *roundTrips) mean() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.avg, r.n > 0
}

// Rate is how many requests a second the session can make: its pacer's
// rate, or fewer when the board's answers have taken longer than the
// pacer's interval. 0: no pace set (the pacer lets every request go).
func (s *Session) Rate() float64 {
	iv := s.pacer.Interval()
	if iv <= 0 {
		return 0
	}
	if rt, ok := s.trips.mean(); ok && rt > iv {
		iv = rt
	}
	return float64(time.Second) / float64(iv)
}
