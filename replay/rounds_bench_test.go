package replay_test

// BenchmarkReplay replays a Nations game of 25 and of 400 rounds (four
// players, one PM order each per round, plus chatter posts): "ns/command"
// is the time per command (post or PM), in thread CPU time. Apply and replay must be linear in
// the number of commands, so the per-command cost at 400 rounds must stay
// within 2x of 25 rounds. "x-25-rounds" (reported by rounds=400) is that
// ratio, with the 25-round game timed alternately in the same run:
//
//	go test -run '^$' -bench 'Replay/' ./replay

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/scenario"
)

// longNations is a scenario of a Nations game of the given rounds and its
// number of commands (posts and PMs).
func longNations(b *testing.B, rounds int) (*scenario.Scenario, int) {
	b.Helper()
	players := []string{"Ann", "Ben", "Cat", "Dan"}
	var y strings.Builder
	fmt.Fprintf(&y, "game: nations\nseed: 3\nplayers: [%s]\noptions: {rounds: %d}\nscript:\n", strings.Join(players, ", "), rounds)
	cmds := 0
	for i, p := range players[:3] {
		fmt.Fprintf(&y, "  - {post: %s, text: \"We rise. [b]CIV: %s[/b]\"}\n", p, []string{"Fire", "Water", "Earth"}[i])
		cmds++
	}
	for r := 1; r <= rounds; r++ {
		for i, p := range players {
			order := "PROSPER"
			if (r+i)%3 == 0 {
				order = "DEFEND"
			}
			fmt.Fprintf(&y, "  - {pm: %s, text: %s}\n", p, order)
			fmt.Fprintf(&y, "  - {post: %s, text: \"round %d thoughts, [b]nothing to see[/b]\"}\n", p, r)
			cmds += 2
		}
		y.WriteString("  - {deadline: true}\n")
	}
	sc, err := scenario.Parse(fmt.Sprintf("nations-%d", rounds), []byte(y.String()))
	if err != nil {
		b.Fatal(err)
	}
	return sc, cmds
}

func replayOnce(b *testing.B, sc *scenario.Scenario, rounds int) {
	res, err := replay.Run(sc, replay.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if !res.Status.Finished || len(res.Rejected) != 0 {
		b.Fatalf("%d rounds: finished %v, rejected %v", rounds, res.Status.Finished, res.Rejected)
	}
}

func BenchmarkReplay(b *testing.B) {
	short, shortCmds := longNations(b, 25)
	for _, rounds := range []int{25, 400} {
		b.Run(fmt.Sprintf("rounds=%d", rounds), func(b *testing.B) {
			sc, cmds := longNations(b, rounds)
			// Timed in the thread's CPU time: other processes' load on a
			// shared machine does not inflate it as it does wall time.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var t, base time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := benchratio.ThreadCPU()
				replayOnce(b, sc, rounds)
				t += benchratio.ThreadCPU() - s
				if rounds != 25 {
					s = benchratio.ThreadCPU()
					replayOnce(b, short, 25)
					base += benchratio.ThreadCPU() - s
				}
			}
			b.StopTimer()
			perCmd := float64(t) / float64(b.N*cmds)
			b.ReportMetric(perCmd, "ns/command")
			if base > 0 {
				b.ReportMetric(perCmd/(float64(base)/float64(b.N*shortCmds)), "x-25-rounds")
			}
		})
	}
}
