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

	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/scenario"
)

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
	ratio := benchratio.Alternate(b, func() { load() }, func() {
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
