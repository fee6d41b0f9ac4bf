// Benchmarks, reported as ratios to a baseline timed in the same run (the
// machines are noisy, absolute times are not comparable):
//
//	go test -run '^$' -bench . ./bbcode
//
// BenchmarkRender: "x-baseline" is the time of Render on a long post over
// the time of html.EscapeString on the same text.
package bbcode_test

import (
	"fmt"
	"html"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/internal/benchratio"
)

// longPost is a long post with every kind of tag a game thread sees.
func longPost() string {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "Paragraph %d: some discussion of who is suspicious & why, with [i]emphasis[/i], <angle brackets> and a [url=https://example.com/%d]link[/url], www.example.org too.\n", i, i)
		fmt.Fprintf(&b, "[quote=Alice]I think [b]VOTE: Bob %d[/b] is right.[quote=Bob]No, [b]VOTE: Alice[/b][/quote][/quote]\n", i)
		fmt.Fprintf(&b, "[b]VOTE: [s]Carol[/s] Dave %d[/b] and [color=red]really[/color] mean it.\n", i)
		fmt.Fprintf(&b, "[spoiler]hidden [b]TEAM: Ann, Ben[/b][/spoiler] [code][b]not bold[/b][/code] [list][*]one[*]two[/list]\n")
	}
	return b.String()
}

var sink string

func BenchmarkRender(b *testing.B) {
	text := longPost()
	if out := bbcode.Render(text, bbcode.Options{}); !strings.Contains(out, "<blockquote") {
		b.Fatalf("no quote rendered: %.200s", out)
	}
	ratio := benchratio.Alternate(b, func() {
		sink = html.EscapeString(text)
	}, func() {
		sink = bbcode.Render(text, bbcode.Options{})
	})
	b.ReportMetric(ratio, "x-baseline")
}
