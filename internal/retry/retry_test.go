package retry

import (
	"math"
	"testing"
	"time"
)

func TestBackoffSequence(t *testing.T) {
	t.Parallel()
	s := time.Second
	for _, tc := range []struct {
		name         string
		initial, max time.Duration
		share, rnd   float64
		want         []time.Duration
	}{
		{"doubles to the cap", 2 * s, 10 * s, 0, 0, []time.Duration{2 * s, 4 * s, 8 * s, 10 * s, 10 * s}},
		{"cap below initial", 5 * s, s, 0, 0, []time.Duration{5 * s, 5 * s}},
		{"least jitter adds nothing", 2 * s, 10 * s, 0.5, 0, []time.Duration{2 * s, 4 * s, 8 * s, 10 * s}},
		{"most jitter adds its share, up to the cap", 2 * s, 10 * s, 0.5, math.Nextafter(1, 0), []time.Duration{3 * s, 6 * s, 10 * s, 10 * s}},
		{"half jitter", time.Minute, time.Hour, 0.2, 0.5, []time.Duration{66 * s, 132 * s}},
		{"no initial wait", 0, time.Minute, 0.2, 0.5, []time.Duration{0, 0}},
		{"huge cap does not overflow", time.Duration(1 << 61), time.Duration(1<<63 - 1), 0, 0,
			[]time.Duration{1 << 61, 1 << 62, 1<<63 - 1, 1<<63 - 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b := New(tc.initial, tc.max).WithJitter(tc.share, func() float64 { return tc.rnd })
			for i, want := range tc.want {
				got := b.Next()
				// Jitter is computed in float64: allow a microsecond.
				if d := got - want; d < -time.Microsecond || d > time.Microsecond {
					t.Fatalf("wait %d = %v, want %v", i+1, got, want)
				}
			}
		})
	}
}

// TestCapHoldsWithJitter is issue 22's long idle: the moderator's 5-minute
// cap came out at up to 6 minutes once jitter was added. No wait is ever
// above the ceiling nor below the initial wait, whatever the random draw.
func TestCapHoldsWithJitter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ initial, ceiling time.Duration }{
		{30 * time.Second, 5 * time.Minute}, // the moderator's default poll
		{5 * time.Minute, 24 * time.Hour},   // the login lockout
		{2 * time.Second, 5 * time.Minute},  // the scraper's GET retries
		{10 * time.Minute, time.Minute},     // a ceiling below initial is initial
	} {
		for _, rnd := range []float64{0, 0.3, 0.5, 0.9, math.Nextafter(1, 0)} {
			b := New(tc.initial, tc.ceiling).WithJitter(1, func() float64 { return rnd })
			for i := range 20 {
				if d := b.Next(); d > max(tc.initial, tc.ceiling) || d < tc.initial {
					t.Fatalf("New(%v, %v), draw %v: wait %d = %v, outside [%v, %v]", tc.initial, tc.ceiling, rnd, i+1, d, tc.initial, max(tc.initial, tc.ceiling))
				}
			}
		}
	}
}

func TestReset(t *testing.T) {
	t.Parallel()
	b := New(time.Second, time.Minute).WithJitter(0, nil)
	b.Next()
	b.Next()
	b.Reset()
	if got := b.Next(); got != time.Second {
		t.Errorf("after Reset: %v, want 1s", got)
	}
}

// TestDefaultJitter: with the real random source, waits stay within
// [base, base×(1+DefaultJitter)] and are not all equal (they do spread).
func TestDefaultJitter(t *testing.T) {
	t.Parallel()
	seen := map[time.Duration]bool{}
	for range 200 {
		d := New(10*time.Second, time.Minute).Next()
		if d < 10*time.Second || d > 12*time.Second {
			t.Fatalf("wait %v outside [10s, 12s]", d)
		}
		seen[d] = true
	}
	if len(seen) < 10 {
		t.Errorf("only %d distinct waits in 200: no jitter", len(seen))
	}
}

func TestJitterDoesNotOverflow(t *testing.T) {
	t.Parallel()
	b := New(1<<62, 1<<63-1).WithJitter(1, func() float64 { return 0.999 })
	for i := range 4 {
		if d := b.Next(); d < 1<<62 {
			t.Fatalf("wait %d = %v: overflowed", i+1, d)
		}
	}
}

// TestNth: the nth wait's base from an attempt count is what a Backoff
// without jitter would give at its nth Next.
func TestNth(t *testing.T) {
	for _, tc := range []struct {
		initial, ceiling time.Duration
	}{
		{30 * time.Second, 10 * time.Minute},
		{time.Second, 5 * time.Second},
		{time.Minute, time.Second}, // a ceiling below initial is initial
	} {
		b := New(tc.initial, tc.ceiling).WithJitter(0, nil)
		for n := 1; n <= 12; n++ {
			if got, want := Nth(tc.initial, tc.ceiling, n), b.Next(); got != want {
				t.Errorf("Nth(%v, %v, %d) = %v, want %v", tc.initial, tc.ceiling, n, got, want)
			}
		}
		if got := Nth(tc.initial, tc.ceiling, 0); got != tc.initial {
			t.Errorf("Nth(…, 0) = %v, want %v", got, tc.initial)
		}
	}
	// The outbox's back-off: 30 s doubling per attempt up to 10 minutes.
	for n, want := range map[int]time.Duration{1: 30 * time.Second, 2: time.Minute, 5: 8 * time.Minute, 6: 10 * time.Minute, 20: 10 * time.Minute} {
		if got := Nth(30*time.Second, 10*time.Minute, n); got != want {
			t.Errorf("outbox back-off after %d attempts: %v, want %v", n, got, want)
		}
	}
}
