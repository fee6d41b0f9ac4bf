package parser

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
)

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UTC()
}

func parserFor(t testing.TB, engine, zone string, skew int) *Parser {
	t.Helper()
	p := mustProfile(t, engine)
	p.TimeZone = zone
	p.ClockSkewSeconds = skew
	x, err := New(p)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// Every format the boards render, with the interval it allows. Fetch times
// are the bot's clock when the page was read; relative intervals follow
// from how MyBB's my_date and phpBB's datetime::format round (see ago).
func TestParseTimeFormats(t *testing.T) {
	const F = "2026-11-30T20:00:00Z" // fetched
	cases := []struct {
		name, engine, zone string
		skew               int
		fetch              Fetch
		text               string
		earliest, latest   string
		prec               forum.Precision
		rel                bool
	}{
		// Absolute texts: the minute they name.
		{"phpBB default", "phpbb", "", 0, Fetch{}, "Mon Nov 30, 2026 8:09 pm", "2026-11-30T20:09:00Z", "2026-11-30T20:10:00Z", forum.PrecisionMinute, false},
		{"phpBB default, PM upper-case", "phpbb", "", 0, Fetch{}, "Mon Nov 30, 2026 8:09 PM", "2026-11-30T20:09:00Z", "2026-11-30T20:10:00Z", forum.PrecisionMinute, false},
		{"phpBB d M Y, H:i", "phpbb", "", 0, Fetch{}, "30 Nov 2026, 18:05", "2026-11-30T18:05:00Z", "2026-11-30T18:06:00Z", forum.PrecisionMinute, false},
		{"phpBB d M Y H:i", "phpbb", "", 0, Fetch{}, "30 Nov 2026 18:05", "2026-11-30T18:05:00Z", "2026-11-30T18:06:00Z", forum.PrecisionMinute, false},
		{"phpBB M jS, 'y, H:i", "phpbb", "", 0, Fetch{}, "Jan 1st, '27, 13:37", "2027-01-01T13:37:00Z", "2027-01-01T13:38:00Z", forum.PrecisionMinute, false},
		{"phpBB F jS, Y, g:i a", "phpbb", "", 0, Fetch{}, "January 22nd, 2027, 1:37 pm", "2027-01-22T13:37:00Z", "2027-01-22T13:38:00Z", forum.PrecisionMinute, false},
		{"RFC 3339: exact", "phpbb", "America/New_York", 0, Fetch{}, "2026-11-30T20:06:51+00:00", "2026-11-30T20:06:51Z", "2026-11-30T20:06:51Z", forum.PrecisionExact, false},
		{"MyBB default", "mybb", "", 0, Fetch{}, "11-30-2026, 08:05 AM", "2026-11-30T08:05:00Z", "2026-11-30T08:06:00Z", forum.PrecisionMinute, false},
		{"MyBB date only", "mybb", "", 0, Fetch{}, "11-30-2026", "2026-11-30T00:00:00Z", "2026-12-01T00:00:00Z", forum.PrecisionDay, false},
		{"no-break spaces", "mybb", "", 0, Fetch{}, "11-30-2026,\u00a008:05\u00a0AM", "2026-11-30T08:05:00Z", "2026-11-30T08:06:00Z", forum.PrecisionMinute, false},

		// Day-relative: the board's day, in the bot account's zone.
		{"phpBB Today", "phpbb", "", 0, At(utc(F)), "Today, 13:37", "2026-11-30T13:37:00Z", "2026-11-30T13:38:00Z", forum.PrecisionMinute, true},
		{"phpBB Yesterday", "phpbb", "", 0, At(utc(F)), "Yesterday, 23:59", "2026-11-29T23:59:00Z", "2026-11-30T00:00:00Z", forum.PrecisionMinute, true},
		{"phpBB Tomorrow (a stamp ahead of the clock)", "phpbb", "", 0, At(utc(F)), "Tomorrow, 00:01", "2026-12-01T00:01:00Z", "2026-12-01T00:02:00Z", forum.PrecisionMinute, true},
		{"MyBB Today", "mybb", "", 0, At(utc(F)), "Today, 08:15 PM", "2026-11-30T20:15:00Z", "2026-11-30T20:16:00Z", forum.PrecisionMinute, true},
		{"MyBB Yesterday", "mybb", "", 0, At(utc(F)), "Yesterday, 11:02 PM", "2026-11-29T23:02:00Z", "2026-11-29T23:03:00Z", forum.PrecisionMinute, true},
		{"SMF Today at", "phpbb", "", 0, At(utc(F)), "Today at 08:15 PM", "2026-11-30T20:15:00Z", "2026-11-30T20:16:00Z", forum.PrecisionMinute, true},
		{"SMF Yesterday at, lower case", "phpbb", "", 0, At(utc(F)), "yesterday at 8:15 pm", "2026-11-29T20:15:00Z", "2026-11-29T20:16:00Z", forum.PrecisionMinute, true},
		{"Today with seconds", "phpbb", "", 0, At(utc(F)), "Today at 08:15:07 PM", "2026-11-30T20:15:07Z", "2026-11-30T20:15:08Z", forum.PrecisionSecond, true},

		// "Ago": d = board now − stamp, rounded down to whole units.
		{"MyBB less than 1 minute", "mybb", "", 0, At(utc(F)), "Less than 1 minute ago", "2026-11-30T19:59:00Z", "2026-11-30T20:01:00Z", forum.PrecisionMinute, true},
		{"phpBB less than a minute", "phpbb", "", 0, At(utc(F)), "less than a minute ago", "2026-11-30T19:59:00Z", "2026-11-30T20:01:00Z", forum.PrecisionMinute, true},
		{"1 minute ago: d in [60, 119] s", "mybb", "", 0, At(utc(F)), "1 minute ago", "2026-11-30T19:58:01Z", "2026-11-30T19:59:01Z", forum.PrecisionMinute, true},
		{"5 minutes ago: d in [300, 359] s", "mybb", "", 0, At(utc(F)), "5 minutes ago", "2026-11-30T19:54:01Z", "2026-11-30T19:55:01Z", forum.PrecisionMinute, true},
		{"phpBB 60 minutes ago", "phpbb", "", 0, At(utc(F)), "60 minutes ago", "2026-11-30T18:59:01Z", "2026-11-30T19:00:01Z", forum.PrecisionMinute, true},
		{"MyBB 1 hour ago: d in [1 h, 2 h)", "mybb", "", 0, At(utc(F)), "1 hour ago", "2026-11-30T18:00:01Z", "2026-11-30T19:00:01Z", forum.PrecisionHour, true},
		{"MyBB 9 hours ago ≈ [F−10h, F−9h]", "mybb", "", 0, At(utc(F)), "9 hours ago", "2026-11-30T10:00:01Z", "2026-11-30T11:00:01Z", forum.PrecisionHour, true},
		{"MyBB In 5 minutes (ahead of the board's clock)", "mybb", "", 0, At(utc(F)), "In 5 minutes", "2026-11-30T20:05:00Z", "2026-11-30T20:06:00Z", forum.PrecisionMinute, true},
		{"MyBB In Less than 1 minute", "mybb", "", 0, At(utc(F)), "In Less than 1 minute", "2026-11-30T20:00:00Z", "2026-11-30T20:01:01Z", forum.PrecisionMinute, true},
		{"a minute ago", "phpbb", "", 0, At(utc(F)), "a minute ago", "2026-11-30T19:58:01Z", "2026-11-30T19:59:01Z", forum.PrecisionMinute, true},
		{"30 seconds ago", "phpbb", "", 0, At(utc(F)), "30 seconds ago", "2026-11-30T19:59:30Z", "2026-11-30T19:59:31Z", forum.PrecisionSecond, true},
		{"just now", "phpbb", "", 0, At(utc(F)), "just now", "2026-11-30T19:59:00Z", "2026-11-30T20:01:00Z", forum.PrecisionMinute, true},
		// The page was rendered somewhere between Sent and Received.
		{"a slow fetch widens the interval", "mybb", "", 0, Fetch{Sent: utc(F), Received: utc(F).Add(3500 * time.Millisecond)}, "5 minutes ago", "2026-11-30T19:54:01Z", "2026-11-30T19:55:04Z", forum.PrecisionMinute, true},
		{"clock skew widens it too", "mybb", "", 30, At(utc(F)), "5 minutes ago", "2026-11-30T19:53:31Z", "2026-11-30T19:55:31Z", forum.PrecisionMinute, true},

		// Time zones: the bot account in New York.
		{"NY absolute", "phpbb", "America/New_York", 0, Fetch{}, "Mon Nov 30, 2026 3:09 pm", "2026-11-30T20:09:00Z", "2026-11-30T20:10:00Z", forum.PrecisionMinute, false},
		{"NY summer time", "phpbb", "America/New_York", 0, Fetch{}, "Wed Jul 01, 2026 3:09 pm", "2026-07-01T19:09:00Z", "2026-07-01T19:10:00Z", forum.PrecisionMinute, false},
		{"NY fall back: 1:30 happens twice", "phpbb", "America/New_York", 0, Fetch{}, "Sun Nov 01, 2026 1:30 am", "2026-11-01T05:30:00Z", "2026-11-01T06:31:00Z", forum.PrecisionMinute, false},
		{"NY just before fall back", "phpbb", "America/New_York", 0, Fetch{}, "Sun Nov 01, 2026 12:59 am", "2026-11-01T04:59:00Z", "2026-11-01T05:00:00Z", forum.PrecisionMinute, false},
		{"NY just after spring forward", "phpbb", "America/New_York", 0, Fetch{}, "Sun Mar 08, 2026 3:00 am", "2026-03-08T07:00:00Z", "2026-03-08T07:01:00Z", forum.PrecisionMinute, false},
		{"NY Today, fall-back day", "mybb", "America/New_York", 0, At(utc("2026-11-01T12:00:00Z")), "Today, 01:30 AM", "2026-11-01T05:30:00Z", "2026-11-01T06:31:00Z", forum.PrecisionMinute, true},
		{"NY Today late evening (UTC is already tomorrow)", "mybb", "America/New_York", 0, At(utc("2026-12-01T04:30:00Z")), "Today, 11:50 PM", "2026-12-01T04:50:00Z", "2026-12-01T04:51:00Z", forum.PrecisionMinute, true},
		{"NY Yesterday just after midnight", "mybb", "America/New_York", 0, At(utc("2026-12-01T05:10:00Z")), "Yesterday, 11:02 PM", "2026-12-01T04:02:00Z", "2026-12-01T04:03:00Z", forum.PrecisionMinute, true},
		{"NY Today while the board may be either side of midnight: both days", "mybb", "America/New_York", 0,
			Fetch{Sent: utc("2026-12-01T04:59:58Z"), Received: utc("2026-12-01T05:00:02Z")}, "Today, 11:59 PM", "2026-12-01T04:59:00Z", "2026-12-02T05:00:00Z", forum.PrecisionMinute, true},
		{"NY day only across fall back: a 25-hour day", "mybb", "America/New_York", 0, Fetch{}, "11-01-2026", "2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z", forum.PrecisionDay, false},
		{"NY 9 hours ago: zone does not matter", "mybb", "America/New_York", 0, At(utc(F)), "9 hours ago", "2026-11-30T10:00:01Z", "2026-11-30T11:00:01Z", forum.PrecisionHour, true},
		// MyBB's own offsets are fixed (no DST unless the member ticks it).
		{"fixed offset UTC-5 on fall-back night", "mybb", "UTC-5", 0, Fetch{}, "11-01-2026, 01:30 AM", "2026-11-01T06:30:00Z", "2026-11-01T06:31:00Z", forum.PrecisionMinute, false},
		{"fixed offset +05:30", "mybb", "+05:30", 0, Fetch{}, "11-30-2026, 08:05 AM", "2026-11-30T02:35:00Z", "2026-11-30T02:36:00Z", forum.PrecisionMinute, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := parserFor(t, c.engine, c.zone, c.skew)
			st, err := x.ParseTime(c.fetch, c.text)
			if err != nil {
				t.Fatalf("%q: %v", c.text, err)
			}
			if !st.Earliest.Equal(utc(c.earliest)) || !st.Latest.Equal(utc(c.latest)) || st.Precision != c.prec || st.Relative != c.rel {
				t.Errorf("%q = [%s, %s) %s rel=%v; want [%s, %s) %s rel=%v", c.text,
					st.Earliest.Format(time.RFC3339), st.Latest.Format(time.RFC3339), st.Precision, st.Relative,
					c.earliest, c.latest, c.prec, c.rel)
			}
			if st.Text == "" || st.Err != "" || !st.Known() {
				t.Errorf("stamp %+v: want its text and no error", st)
			}
			if st.Earliest.Location() != time.UTC || st.Latest.Location() != time.UTC {
				t.Errorf("stamp not in UTC: %+v", st)
			}
		})
	}
}

// A time nothing reads is an error, and the stamp says so with the text.
func TestParseTimeErrors(t *testing.T) {
	F := At(utc("2026-11-30T20:00:00Z"))
	cases := []struct {
		name, engine, zone string
		fetch              Fetch
		texts              []string
		want               string // in the error
		is                 error
	}{
		{"empty", "phpbb", "", F, []string{"", "  "}, "no time text", nil},
		{"another language", "phpbb", "", F, []string{"Gestern, 10:00"}, `"Gestern, 10:00"`, nil},
		{"garbage", "mybb", "", F, []string{"a while ago"}, "time_layouts", nil},
		{"impossible date", "phpbb", "", F, []string{"Mon Nov 31, 2026 8:09 pm"}, "time_layouts", nil},
		{"relative without a fetch time", "mybb", "", Fetch{}, []string{"5 minutes ago"}, "fetched", ErrNoFetchTime},
		{"Today without a fetch time", "mybb", "", Fetch{}, []string{"Today, 08:15 PM"}, "fetched", ErrNoFetchTime},
		{"Today with a bad time", "mybb", "", F, []string{"Today, 25:99"}, "not a time of day", nil},
		{"NY spring-forward gap", "phpbb", "America/New_York", F, []string{"Sun Mar 08, 2026 2:30 am"}, "daylight-saving gap", nil},
		{"absurd ago", "mybb", "", F, []string{"999999 hours ago"}, "more than a year", nil},
		{"both in and ago", "mybb", "", F, []string{"in 5 minutes ago"}, "time_layouts", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x := parserFor(t, c.engine, c.zone, 0)
			st, err := x.ParseTime(c.fetch, c.texts...)
			if err == nil {
				t.Fatalf("%q read as %+v", c.texts, st)
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "unreadable time") {
				t.Errorf("error %q, want it to say %q", err, c.want)
			}
			if c.is != nil && !errors.Is(err, c.is) {
				t.Errorf("error %v is not %v", err, c.is)
			}
			if st.Known() || st.Precision != forum.PrecisionUnknown || st.Err != err.Error() || !st.Earliest.IsZero() {
				t.Errorf("stamp %+v: want an unreadable marker carrying the error", st)
			}
			if joined := strings.TrimSpace(strings.Join(c.texts, "")); joined != "" && st.Text == "" {
				t.Errorf("stamp lost the raw text: %+v", st)
			}
		})
	}
}

// Candidates are tried in order; a later one reads when an earlier fails.
func TestParseTimeCandidates(t *testing.T) {
	x := parserFor(t, "mybb", "", 0)
	st, err := x.ParseTime(Fetch{}, "nonsense", "11-30-2026, 08:05 AM")
	if err != nil || !st.Earliest.Equal(utc("2026-11-30T08:05:00Z")) || st.Text != "11-30-2026, 08:05 AM" {
		t.Errorf("got %+v %v", st, err)
	}
	// A specific reason (no fetch time) is reported over "no layout".
	_, err = x.ParseTime(Fetch{}, "5 minutes ago", "nonsense")
	if !errors.Is(err, ErrNoFetchTime) {
		t.Errorf("err = %v", err)
	}
}

func readReal(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "real", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func smfParser(t *testing.T, zone string) *Parser {
	t.Helper()
	b := readReal(t, "smf214.profile.yaml")
	p, err := forum.ParseProfile(b)
	if err != nil {
		t.Fatal(err)
	}
	p.TimeZone = zone
	return MustNew(p)
}

// Pages saved from a real phpBB 3.3.10: thread posts carry exact RFC 3339
// times, PM pages and the inbox only the minute.
func TestRealPhpBBStamps(t *testing.T) {
	x := parserFor(t, "phpbb", "", 0)
	fetched := At(utc("2026-11-30T20:10:00Z"))
	th, err := x.ParseThreadAt(readReal(t, "phpbb3310_thread_p1.html"), fetched)
	if err != nil || len(th.Posts) != 10 {
		t.Fatalf("%d posts, %v", len(th.Posts), err)
	}
	wantFirst := []string{"2026-11-30T20:06:51Z", "2026-11-30T20:06:53Z", "2026-11-30T20:06:54Z"}
	for i, p := range th.Posts {
		if p.Stamp.Precision != forum.PrecisionExact || !p.Stamp.Exact() || !p.Time.Equal(p.Stamp.Earliest) {
			t.Errorf("post %s: stamp %+v", p.ID, p.Stamp)
		}
		if i < len(wantFirst) && !p.Time.Equal(utc(wantFirst[i])) {
			t.Errorf("post %s: time %s, want %s", p.ID, p.Time, wantFirst[i])
		}
		if i > 0 && forum.ComparePosts(th.Posts[i-1], p) != -1 {
			t.Errorf("posts %s, %s out of order", th.Posts[i-1].ID, p.ID)
		}
	}
	doc, _ := Doc(readReal(t, "phpbb3310_pm_view.html"))
	m, ok := x.PMAt(doc, fetched)
	if !ok {
		t.Fatal("no PM")
	}
	if m.Stamp.Precision != forum.PrecisionMinute || !m.Stamp.Earliest.Equal(utc("2026-11-30T20:09:00Z")) ||
		!m.Stamp.Latest.Equal(utc("2026-11-30T20:10:00Z")) || m.Stamp.Text != "Mon Nov 30, 2026 8:09 pm" || !m.Time.Equal(m.Stamp.Earliest) {
		t.Errorf("PM stamp %+v", m.Stamp)
	}
	doc, _ = Doc(readReal(t, "phpbb3310_pm_inbox.html"))
	hs := x.InboxAt(doc, fetched)
	if len(hs) == 0 {
		t.Fatal("no inbox rows")
	}
	for _, h := range hs {
		if h.Stamp.Precision != forum.PrecisionMinute || h.Stamp.Width() != time.Minute || !h.Time.Equal(h.Stamp.Earliest) {
			t.Errorf("inbox row %s: stamp %+v", h.ID, h.Stamp)
		}
	}
	if !hs[0].Stamp.Earliest.Equal(utc("2026-11-30T20:09:00Z")) {
		t.Errorf("inbox row %s: %+v", hs[0].ID, hs[0].Stamp)
	}
	// The bot account in New York reads the same page's text 5 hours on.
	ny := parserFor(t, "phpbb", "America/New_York", 0)
	doc, _ = Doc(readReal(t, "phpbb3310_pm_view.html"))
	m, _ = ny.PMAt(doc, fetched)
	if !m.Stamp.Earliest.Equal(utc("2026-12-01T01:09:00Z")) {
		t.Errorf("NY PM stamp %+v", m.Stamp)
	}
}

// Pages saved from a real SMF 2.1.4: "Today at 08:15 PM" everywhere, and
// a header <time datetime> with the board's own clock, which anchors the
// relative times even with no fetch time.
func TestRealSMFStamps(t *testing.T) {
	x := smfParser(t, "UTC")
	for _, f := range []Fetch{{}, At(utc("2026-12-03T10:00:00Z"))} {
		th, err := x.ParseThreadAt(readReal(t, "smf214_thread_p1.html"), f)
		if err != nil || len(th.Posts) != 15 {
			t.Fatalf("%d posts, %v", len(th.Posts), err)
		}
		for _, p := range th.Posts {
			s := p.Stamp
			if !s.Known() || !s.Relative || s.Precision != forum.PrecisionMinute || s.Width() != time.Minute ||
				s.Earliest.Format("2006-01-02") != "2026-11-30" || !strings.HasPrefix(s.Text, "Today at 08:1") {
				t.Errorf("post %s: stamp %+v", p.ID, s)
			}
		}
		if p := th.Posts[0]; p.ID != "4" || !p.Time.Equal(utc("2026-11-30T20:15:00Z")) {
			t.Errorf("first post %s at %s", p.ID, p.Time)
		}
		if p := th.Posts[11]; !p.Time.Equal(utc("2026-11-30T20:16:00Z")) {
			t.Errorf("post %s at %s", p.ID, p.Time)
		}
		doc, _ := Doc(readReal(t, "smf214_pm_view.html"))
		m, ok := x.PMAt(doc, f)
		if !ok || m.ID != "1" || !m.Stamp.Earliest.Equal(utc("2026-11-30T20:17:00Z")) || !m.Stamp.Relative {
			t.Errorf("PM %+v (%v)", m, ok)
		}
		doc, _ = Doc(readReal(t, "smf214_pm_inbox.html"))
		hs := x.InboxAt(doc, f)
		if len(hs) != 1 || !hs[0].Stamp.Earliest.Equal(utc("2026-11-30T20:17:00Z")) {
			t.Errorf("inbox %+v", hs)
		}
	}
	// The print view's absolute times.
	page := string(readReal(t, "smf214_thread_print.html"))
	i := strings.Index(page, "Post by: <strong>alice</strong> on <strong>")
	if i < 0 {
		t.Fatal("print view changed")
	}
	txt := page[i+len("Post by: <strong>alice</strong> on <strong>"):]
	txt = txt[:strings.Index(txt, "<")]
	st, err := x.ParseTime(Fetch{}, txt)
	if err != nil || !st.Earliest.Equal(utc("2026-11-30T20:15:00Z")) || st.Relative {
		t.Errorf("%q → %+v %v", txt, st, err)
	}
	// Without the header anchor and without a fetch time, SMF's relative
	// times are unreadable: an error on each post, never a silent zero.
	page = strings.Replace(string(readReal(t, "smf214_thread_p1.html")), `<time datetime="2026-11-30T20:17:12Z">`, `<time>`, 1)
	th, _ := x.ParseThreadAt([]byte(page), Fetch{})
	for _, p := range th.Posts {
		if p.Stamp.Known() || !strings.Contains(p.Stamp.Err, "fetched") || p.Stamp.Text == "" || !p.Time.IsZero() {
			t.Errorf("post %s: stamp %+v", p.ID, p.Stamp)
		}
	}
}

// MyBB's relative dates carry the absolute minute in a title: it wins
// over the visible "9 hours ago", and the stamp shows both texts.
func TestMyBBTitleBeatsRelative(t *testing.T) {
	x := parserFor(t, "mybb", "", 0)
	F := At(utc("2026-11-30T20:00:00Z"))
	for _, c := range []struct {
		html, earliest, latest, text string
		rel                          bool
	}{
		{`<span class="post_date"><span title="11-30-2026, 10:37 AM">9 hours ago</span></span>`, "2026-11-30T10:37:00Z", "2026-11-30T10:38:00Z", "9 hours ago [11-30-2026, 10:37 AM]", false},
		{`<span class="post_date"><span title="11-30-2026">Today</span>, 10:37 AM</span>`, "2026-11-30T10:37:00Z", "2026-11-30T10:38:00Z", "Today, 10:37 AM [11-30-2026, 10:37 AM]", false},
		{`<span class="post_date"><span title="">9 hours ago</span></span>`, "2026-11-30T10:00:01Z", "2026-11-30T11:00:01Z", "9 hours ago", true},
		{`<span class="post_date">Yesterday, 10:37 AM <span class="post_edit">(edited)</span></span>`, "2026-11-29T10:37:00Z", "2026-11-29T10:38:00Z", "Yesterday, 10:37 AM", true},
	} {
		doc, _ := Doc([]byte(c.html))
		st := x.timeOf(doc.Find("span.post_date"), x.tmTitle, nil, F)
		if !st.Earliest.Equal(utc(c.earliest)) || !st.Latest.Equal(utc(c.latest)) || st.Text != c.text || st.Relative != c.rel {
			t.Errorf("%s → %+v", c.html, st)
		}
	}
	doc, _ := Doc([]byte(`<div class="post" id="post_5"><div class="post_body">x</div></div>`))
	th := x.ThreadAt(doc, F)
	if len(th.Posts) != 1 || th.Posts[0].Stamp.Known() || !strings.Contains(th.Posts[0].Stamp.Err, "no time node") {
		t.Errorf("post without a time: %+v", th.Posts)
	}
}
