// Benchmarks, reported as ratios to a baseline timed in the same run (the
// machines are noisy, absolute times are not comparable):
//
//	go test -run '^$' -bench . ./parser
//
// BenchmarkSegments: "x-baseline" is the time of Segments on a long post
// over the time of only parsing the same HTML into a goquery document.
package parser_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/parser"
)

// longPost is a long phpBB post: chatter, votes, nested quotes with votes
// in them, spoilers, struck text and code.
func longPost() string {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "Paragraph %d: some discussion of who is suspicious and why, with [i]emphasis[/i] and a [url=https://example.com/%d]link[/url].\n", i, i)
		fmt.Fprintf(&b, "[quote=Alice]I think [b]VOTE: Bob %d[/b] is right.[quote=Bob]No, [b]VOTE: Alice[/b][/quote][/quote]\n", i)
		fmt.Fprintf(&b, "[b]VOTE: [s]Carol[/s] Dave %d[/b] and [b]really[/b] mean it.\n", i)
		fmt.Fprintf(&b, "[spoiler]hidden [b]TEAM: Ann, Ben[/b][/spoiler] [code][b]not bold[/b][/code]\n")
	}
	return bbcode.Render(b.String(), bbcode.Options{})
}

func BenchmarkSegments(b *testing.B) {
	prof, ok := forum.Builtin("phpbb")
	if !ok {
		b.Fatal("no phpbb profile")
	}
	x := parser.MustNew(prof)
	body := longPost()
	if segs := x.Segments(body); len(segs) < 80 {
		b.Fatalf("only %d segments in the long post", len(segs))
	}
	ratio := benchratio.Alternate(b, func() {
		if _, err := parser.Doc([]byte(body)); err != nil {
			b.Fatal(err)
		}
	}, func() {
		x.Segments(body)
	})
	b.ReportMetric(ratio, "x-baseline")
}
