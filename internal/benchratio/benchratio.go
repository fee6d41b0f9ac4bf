// Package benchratio times a benchmark against a baseline measured in the
// same run. The machines the benchmarks run on are noisy, so absolute times
// are not comparable between runs; a ratio to a baseline is.
package benchratio

import (
	"testing"
	"time"
)

// Alternate runs base and work b.N times each, switching which goes first
// every iteration (so neither always gets the warm cache or the cold one),
// and returns work's total time over base's. It resets b's timer first.
// Report the result with b.ReportMetric(ratio, "x-baseline").
func Alternate(b *testing.B, base, work func()) float64 {
	b.ResetTimer()
	return alternate(b.N, base, work)
}

func alternate(n int, base, work func()) float64 {
	var tb, tw time.Duration
	for i := 0; i < n; i++ {
		first, second, t1, t2 := base, work, &tb, &tw
		if i%2 == 1 {
			first, second, t1, t2 = work, base, &tw, &tb
		}
		s := time.Now()
		first()
		m := time.Now()
		second()
		*t1 += m.Sub(s)
		*t2 += time.Since(m)
	}
	return float64(tw) / float64(tb)
}
