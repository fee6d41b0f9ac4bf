package forumconn_test

// The change signal at scale:
//
//	go test -run '^$' -bench ChangeSignal -benchtime 5x ./forumconn
//
// 1,000 games on one board and bot account, each in its own thread of one
// forum, polled every 10 s; in each cycle 10 threads (chosen in turn) get a
// new post. "requests/cycle" is what the account asked of the board in a
// cycle, counted by the board itself (forumsim) and by the board's pacer
// (the benchmark fails if they disagree, or if the cycle asked for more
// than a thread read per changed thread, one request per page of the
// topic list and one inbox list); "want" is that sum; "x-without" is the
// requests of a cycle over those of the same fleet without the signal
// (a thread read per game, and the inbox list), measured in the same run.
// The full reads every game still makes at least every full_read_seconds
// (here 5 minutes: 30 cycles) are not in these cycles: they add about
// 1,000 / 30 = 33 requests a cycle on average, spread by the games' ids.

import (
	"context"
	"testing"
)

func BenchmarkChangeSignal(b *testing.B) {
	ctx := context.Background()
	const n, changed, perPage = 1000, 10, 25
	with := newFleetIn(b, n, 1000, true)
	without := newFleetIn(b, n, 1000, false)
	next := 0
	var got, base, want int
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, f := range []*fleet{with, without} {
			for k := 0; k < changed; k++ {
				g := next % n
				if _, err := f.sim.Post(f.topics[g], f.anns[g], "Still thinking about it."); err != nil {
					b.Fatal(err)
				}
				next++
			}
			pc := f.ss.Pacer(f.url)
			r, sr := pc.Requests(), f.sim.Requests()
			if err := f.cycle(ctx); err != nil {
				b.Fatal(err)
			}
			reqs, board := pc.Requests()-r, f.sim.Requests()-sr
			if reqs != board {
				b.Fatalf("the pacer let %d requests go, the board counted %d", reqs, board)
			}
			if f == with {
				w := changed + (n+perPage-1)/perPage + 1
				if reqs > w {
					b.Fatalf("a cycle with the signal asked %d requests, want at most %d (%d changed threads, %d pages of topics, the inbox)", reqs, w, changed, (n+perPage-1)/perPage)
				}
				got, want = got+reqs, want+w
			} else {
				base += reqs
			}
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(got)/float64(b.N), "requests/cycle")
	b.ReportMetric(float64(want)/float64(b.N), "want")
	b.ReportMetric(float64(base)/float64(b.N), "without")
	b.ReportMetric(float64(got)/float64(base), "x-without")
}
