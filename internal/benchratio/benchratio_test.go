package benchratio

import (
	"strings"
	"testing"
	"time"
)

func TestAlternateTakesTurnsGoingFirst(t *testing.T) {
	var order strings.Builder
	alternate(4, func() { order.WriteString("b") }, func() { order.WriteString("w") })
	if got := order.String(); got != "bwwbbwwb" {
		t.Errorf("call order %q, want bwwbbwwb", got)
	}
}

func TestAlternateIsWorkOverBase(t *testing.T) {
	// Sleeps only ever overrun, so the bounds are loose on purpose: a slow
	// work must come out well above 1 and a swapped pair well below it.
	fast := func() { time.Sleep(time.Millisecond) }
	slow := func() { time.Sleep(8 * time.Millisecond) }
	if r := alternate(6, fast, slow); r < 2 {
		t.Errorf("ratio of 8ms work to 1ms base = %.2f, want > 2", r)
	}
	if r := alternate(6, slow, fast); r > 0.5 {
		t.Errorf("ratio of 1ms work to 8ms base = %.2f, want < 0.5", r)
	}
}

func TestAlternateUsesBN(t *testing.T) {
	calls := 0
	res := testing.Benchmark(func(b *testing.B) {
		calls = 0
		Alternate(b, func() {}, func() { calls++ })
	})
	if res.N == 0 || calls != res.N {
		t.Errorf("work ran %d times, benchmark N = %d", calls, res.N)
	}
}

func TestThreadCPUCountsWorkNotSleep(t *testing.T) {
	runtimeLock(t)
	s := ThreadCPU()
	time.Sleep(30 * time.Millisecond)
	slept := ThreadCPU() - s
	s = ThreadCPU()
	x := 0
	for d := time.Now(); time.Since(d) < 30*time.Millisecond; {
		x++
	}
	busy := ThreadCPU() - s
	if busy <= 0 || x == 0 {
		t.Fatalf("30 ms of work counted %v", busy)
	}
	if runtimeGOOS == "linux" && slept > busy/2 {
		t.Errorf("a 30 ms sleep counted %v, 30 ms of work %v", slept, busy)
	}
}
