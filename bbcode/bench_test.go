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
	"time"

	"github.com/forumgm/forumgm/bbcode"
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

var sink string

func BenchmarkRender(b *testing.B) {
	text := longPost()
	if out := bbcode.Render(text, bbcode.Options{}); !strings.Contains(out, "<blockquote") {
		b.Fatalf("no quote rendered: %.200s", out)
	}
	ratio := alternate(b, func() {
		sink = html.EscapeString(text)
	}, func() {
		sink = bbcode.Render(text, bbcode.Options{})
	})
	b.ReportMetric(ratio, "x-baseline")
}
