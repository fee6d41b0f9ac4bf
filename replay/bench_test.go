// Benchmarks, reported as ratios to a baseline timed in the same run (the
// machines are noisy, absolute times are not comparable):
//
//	go test -run '^$' -bench . ./replay
//
// BenchmarkReplayExamples: "x-baseline" is the time of loading and
// replaying the three example scenarios in testdata/examples over the time
// of only loading them.
package replay_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/forumgm/forumgm/replay"
	_ "github.com/forumgm/forumgm/rules/nations"
	_ "github.com/forumgm/forumgm/rules/protest"
	_ "github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/scenario"
)

// alternate times base and work b.N times each, switching which goes
// first, and returns work's time over base's.
func alternate(b *testing.B, base, work func()) float64 {
	var tb, tw time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
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

func BenchmarkReplayExamples(b *testing.B) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "examples", "*.yaml"))
	if err != nil || len(files) != 3 {
		b.Fatalf("want the 3 example scenarios, found %v (%v)", files, err)
	}
	load := func() []*scenario.Scenario {
		var out []*scenario.Scenario
		for _, f := range files {
			sc, err := scenario.Load(f)
			if err != nil {
				b.Fatal(err)
			}
			out = append(out, sc)
		}
		return out
	}
	ratio := alternate(b, func() { load() }, func() {
		for _, sc := range load() {
			res, err := replay.Run(sc, replay.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if !res.Status.Finished {
				b.Fatalf("%s did not finish", res.Game)
			}
		}
	})
	b.ReportMetric(ratio, "x-baseline")
}
