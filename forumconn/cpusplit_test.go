package forumconn_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime/pprof"

	"github.com/google/pprof/profile"
)

// The benchmarks run the board (forumsim) in the bot's process, so the
// process's CPU is the two together. The board's goroutines carry a pprof
// label (its server starts in a labelled goroutine, and every goroutine
// it starts inherits the label: the accept loop, each connection), and a
// CPU profile over the measured stretch gives the board's share, which the
// bot's CPU leaves out. What no goroutine of either owns (the garbage
// collector's workers, the scheduler) stays the bot's.

const boardLabel = "side"

// serveBoard starts h as the benchmarks' board, its goroutines labelled.
func serveBoard(h http.Handler) *httptest.Server {
	srv := httptest.NewUnstartedServer(h)
	pprof.Do(context.Background(), pprof.Labels(boardLabel, "board"), func(context.Context) { srv.Start() })
	return srv
}

// cpuSplit is a CPU profile of a measured stretch.
type cpuSplit struct {
	buf bytes.Buffer
	on  bool
}

// startCPUSplit starts profiling; when another profile runs (go test
// -cpuprofile), there is no split and the board's share is unknown.
func startCPUSplit() *cpuSplit {
	c := &cpuSplit{}
	heapSnapshot(".heap0")
	c.on = pprof.StartCPUProfile(&c.buf) == nil
	return c
}

// heapSnapshot writes the allocations so far next to the burst's profile:
// go tool pprof -sample_index=alloc_space -base FILE.heap0 FILE.heap1 shows
// the stretch's own.
func heapSnapshot(suffix string) {
	if f := os.Getenv("FORUMGM_BURST_PROFILE"); f != "" {
		var b bytes.Buffer
		if pprof.Lookup("allocs").WriteTo(&b, 0) == nil {
			_ = os.WriteFile(f+suffix, b.Bytes(), 0o644)
		}
	}
}

// boardShare stops the profile and says which share of the CPU samples
// were the board's goroutines' (ok false: no profile).
func (c *cpuSplit) boardShare() (share float64, ok bool) {
	if !c.on {
		return 0, false
	}
	pprof.StopCPUProfile()
	heapSnapshot(".heap1")
	c.on = false
	if f := os.Getenv("FORUMGM_BURST_PROFILE"); f != "" {
		// The measured stretch alone, for go tool pprof (the games'
		// creation and opening left out, which -cpuprofile would keep);
		// its allocations are FILE.heap1 over FILE.heap0 (heapSnapshot).
		_ = os.WriteFile(f, c.buf.Bytes(), 0o644)
	}
	p, err := profile.Parse(&c.buf)
	if err != nil || len(p.SampleType) == 0 {
		return 0, false
	}
	v := len(p.SampleType) - 1 // cpu nanoseconds, after the sample count
	var board, all int64
	for _, s := range p.Sample {
		all += s.Value[v]
		if s.HasLabel(boardLabel, "board") {
			board += s.Value[v]
		}
	}
	if all == 0 {
		return 0, false
	}
	return float64(board) / float64(all), true
}
