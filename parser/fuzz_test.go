package parser

import (
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// checkSegments: segments are non-empty, trimmed and collapsed.
func checkSegments(t *testing.T, segs []string) {
	t.Helper()
	for _, s := range segs {
		if s == "" || s != collapse(s) {
			t.Fatalf("segment %q is not collapsed", s)
		}
	}
}

func FuzzParseThreadPage(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.html"))
	closed, _ := filepath.Glob(filepath.Join("testdata", "real", "*_closed*.html"))
	for _, file := range append(files, closed...) {
		b, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	php := MustNew(mustProfile(f, "phpbb"))
	my := MustNew(mustProfile(f, "mybb"))
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, x := range []*Parser{php, my} {
			if doc, err := Doc(page); err == nil {
				if closed, said := x.Closed(doc); closed && said == "" {
					t.Fatal("closed without the board's words")
				}
			}
			th, err := x.ParseThread(page)
			if err != nil {
				return
			}
			if th.Page < 1 || th.Pages < th.Page {
				t.Fatalf("page %d of %d", th.Page, th.Pages)
			}
			for i, p := range th.Posts {
				if p.ID == "" {
					t.Fatal("post without id")
				}
				checkSegments(t, x.Segments(p.BodyHTML))
				checkSegments(t, x.Lines(p.BodyHTML))
				checkSegments(t, th.Segments(i))
			}
			_, _ = x.MakeReport(page)
		}
	})
}

// FuzzSegments: whatever surrounds it, text that the HTML parser puts
// inside a quote (and nowhere else) never reaches a segment or a PM line.
func FuzzSegments(f *testing.F) {
	f.Add("", "VOTE: Bob", "")
	f.Add("<strong>VOTE: A</strong>", "x", "<b>VOTE: B</b>")
	f.Add("<strong>", "VOTE", "</strong>")
	f.Add("<b><blockquote><div>", "y", "</div></blockquote></b>")
	f.Add("<span style=\"font-weight: bold\">", "</blockquote>", "<br>")
	f.Add("<div class=\"spoiler\">", "z", "</div><s><b>x</b></s>")
	f.Add("<b>", "a", "</b><blockquote class=\"uncited\"><b>q</b></blockquote><b>k</b>")
	php := MustNew(mustProfile(f, "phpbb"))
	my := MustNew(mustProfile(f, "mybb"))
	const sentinel = "QZXSENTINEL"
	f.Fuzz(func(t *testing.T, prefix, quoted, suffix string) {
		if strings.Contains(prefix+quoted+suffix, sentinel) {
			return
		}
		for _, c := range []struct {
			x    *Parser
			open string
		}{
			{php, `<blockquote><div><cite>A wrote:</cite><strong class="text-strong">`},
			{my, `<blockquote class="mycode_quote"><cite>A Wrote:</cite><span style="font-weight: bold;" class="mycode_b">`},
		} {
			body := prefix + c.open + sentinel + " " + html.EscapeString(quoted) + "</strong></span></blockquote>" + suffix
			doc, err := Doc([]byte(body))
			if err != nil {
				return
			}
			inQuote := strings.Contains(doc.Find(forum.QuoteSelector).Text(), sentinel)
			doc.Find(forum.QuoteSelector).Remove()
			outside := strings.Contains(doc.Text(), sentinel)
			segs := c.x.Segments(body)
			lines := c.x.Lines(body)
			checkSegments(t, segs)
			checkSegments(t, lines)
			if !inQuote || outside {
				continue // the surrounding markup swallowed or moved the quote
			}
			for _, s := range append(segs, lines...) {
				if strings.Contains(s, sentinel) {
					t.Fatalf("quoted text leaked: %q from %q", s, body)
				}
			}
		}
	})
}

var fuzzZones = []string{"UTC", "America/New_York", "UTC-5", "+05:30", "Australia/Lord_Howe"}

// FuzzParseTime: whatever the text, fetch time and zone, ParseTime either
// reads an interval (ordered, in UTC, of a sane width, the same twice) or
// returns an error with an unreadable-time stamp carrying it; never a
// zero time passed off as read, never a panic.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"9 hours ago", "Today, 08:15 PM", "Less than 1 minute ago", "Sun Nov 01, 2026 1:30 am",
		"2026-11-30T20:06:51+00:00", "In 5 minutes", "yesterday at 11:59 pm", "11-30-2026", "Jan 1st, '27, 13:37"} {
		for z := range fuzzZones {
			f.Add(s, int64(1796068800), uint8(z))
		}
	}
	parsers := map[string][]*Parser{}
	for _, z := range fuzzZones {
		for _, e := range []string{"phpbb", "mybb"} {
			p := mustProfile(f, e)
			p.TimeZone = z
			x, err := New(p)
			if err != nil {
				f.Fatal(err)
			}
			parsers[z] = append(parsers[z], x)
		}
	}
	const span = 300 * 365 * 24 * 3600 // fetch times from 1970 to about 2270
	f.Fuzz(func(t *testing.T, text string, fetch int64, zone uint8) {
		if fetch < 0 {
			fetch = -(fetch + 1)
		}
		at := At(time.Unix(fetch%span, 0))
		for _, x := range parsers[fuzzZones[int(zone)%len(fuzzZones)]] {
			st, err := x.ParseTime(at, text)
			again, err2 := x.ParseTime(at, text)
			if st != again || (err == nil) != (err2 == nil) {
				t.Fatalf("%q: not deterministic: %+v / %+v", text, st, again)
			}
			if err != nil {
				if st.Known() || st.Precision != forum.PrecisionUnknown || !st.Earliest.IsZero() || st.Err != err.Error() {
					t.Fatalf("%q: error %v with stamp %+v", text, err, st)
				}
				continue
			}
			if !st.Known() || st.Err != "" || st.Latest.Before(st.Earliest) {
				t.Fatalf("%q: bad stamp %+v", text, st)
			}
			if st.Earliest.Location() != time.UTC || st.Latest.Location() != time.UTC {
				t.Fatalf("%q: stamp not in UTC %+v", text, st)
			}
			if w := st.Width(); w > 50*time.Hour {
				t.Fatalf("%q: interval %s wide", text, w)
			}
			if st.Relative && (st.Latest.Before(at.Sent.AddDate(-1, 0, -3)) || st.Earliest.After(at.Sent.AddDate(1, 0, 3))) {
				t.Fatalf("%q: relative stamp %+v far from the fetch time %s", text, st, at.Sent)
			}
		}
	})
}
