package forum

import (
	"encoding/json"
	"testing"
	"time"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

// minute is the stamp of a board text "HH:MM" (to the minute).
func minute(s string) Stamp {
	t := ts(s)
	return Stamp{Earliest: t, Latest: t.Add(time.Minute), Precision: PrecisionMinute}
}

func TestStampBeforeAfter(t *testing.T) {
	t.Parallel()
	exact := ExactStamp(ts("2026-11-30T18:05:30Z"), "")
	m := minute("2026-11-30T18:05:00Z")
	unread := UnreadableStamp("yesterday-ish", nil)
	cases := []struct {
		name          string
		s             Stamp
		d             string
		before, after Tri
	}{
		{"exact, deadline later", exact, "2026-11-30T18:06:00Z", Yes, No},
		{"exact, deadline at it", exact, "2026-11-30T18:05:30Z", No, No},
		{"exact, deadline earlier", exact, "2026-11-30T18:05:29Z", No, Yes},
		{"minute, deadline at its end", m, "2026-11-30T18:06:00Z", Yes, No},
		{"minute, deadline at its start", m, "2026-11-30T18:05:00Z", No, Maybe},
		{"minute, deadline just before its start", m, "2026-11-30T18:04:59Z", No, Yes},
		{"minute, deadline inside", m, "2026-11-30T18:05:30Z", Maybe, Maybe},
		{"minute, deadline at its last second", m, "2026-11-30T18:05:59Z", Maybe, Maybe},
		{"unreadable", unread, "2026-11-30T18:05:30Z", Maybe, Maybe},
	}
	for _, c := range cases {
		d := ts(c.d)
		if got := c.s.Before(d); got != c.before {
			t.Errorf("%s: Before = %s, want %s", c.name, got, c.before)
		}
		if got := c.s.After(d); got != c.after {
			t.Errorf("%s: After = %s, want %s", c.name, got, c.after)
		}
	}
}

func TestStampBasics(t *testing.T) {
	t.Parallel()
	m := minute("2026-11-30T18:05:00Z")
	if !m.Known() || m.Exact() || m.Width() != time.Minute {
		t.Errorf("minute stamp: known %v exact %v width %s", m.Known(), m.Exact(), m.Width())
	}
	if !m.Contains(ts("2026-11-30T18:05:59Z")) || m.Contains(ts("2026-11-30T18:06:00Z")) || m.Contains(ts("2026-11-30T18:04:59Z")) {
		t.Error("minute stamp contains the wrong instants")
	}
	e := ExactStamp(ts("2026-11-30T18:05:30+01:00"), "x")
	if !e.Exact() || e.Width() != 0 || !e.Contains(ts("2026-11-30T17:05:30Z")) || e.Earliest.Location() != time.UTC {
		t.Errorf("exact stamp %+v", e)
	}
	u := UnreadableStamp("Gestern", nil)
	if u.Known() || u.Err == "" || u.Text != "Gestern" || u.Contains(time.Now()) {
		t.Errorf("unreadable stamp %+v", u)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back Stamp
	if err := json.Unmarshal(b, &back); err != nil || back != m {
		t.Errorf("JSON round trip: %s → %+v (%v)", b, back, err)
	}
	if string(b) != `{"earliest":"2026-11-30T18:05:00Z","latest":"2026-11-30T18:06:00Z","precision":"minute"}` {
		t.Errorf("JSON = %s", b)
	}
}

func TestNarrow(t *testing.T) {
	t.Parallel()
	m := minute("2026-11-30T18:05:00Z")
	cases := []struct {
		name   string
		lo, hi string
		want   Stamp
		ok     bool
	}{
		{"no bounds", "", "", m, true},
		{"seen at 18:05:20", "", "2026-11-30T18:05:20Z", Stamp{Earliest: m.Earliest, Latest: ts("2026-11-30T18:05:20Z"), Precision: PrecisionMinute}, true},
		{"after a post of 18:05:10", "2026-11-30T18:05:10Z", "", Stamp{Earliest: ts("2026-11-30T18:05:10Z"), Latest: m.Latest, Precision: PrecisionMinute}, true},
		{"bounds outside change nothing", "2026-11-30T18:00:00Z", "2026-11-30T18:10:00Z", m, true},
		{"seen before the minute began: contradiction", "", "2026-11-30T18:04:00Z", m, false},
		{"follows a later message: contradiction", "2026-11-30T18:07:00Z", "", m, false},
	}
	for _, c := range cases {
		var lo, hi time.Time
		if c.lo != "" {
			lo = ts(c.lo)
		}
		if c.hi != "" {
			hi = ts(c.hi)
		}
		got, ok := m.Narrow(lo, hi)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: got %+v %v, want %+v %v", c.name, got, ok, c.want, c.ok)
		}
	}
	e := ExactStamp(ts("2026-11-30T18:05:30Z"), "")
	if got, ok := e.Narrow(ts("2026-11-30T18:05:00Z"), ts("2026-11-30T18:06:00Z")); !ok || got != e {
		t.Errorf("exact narrowed to %+v %v", got, ok)
	}
	if _, ok := e.Narrow(time.Time{}, ts("2026-11-30T18:05:30Z")); ok {
		t.Error("an exact stamp seen at its own instant is a contradiction (seen means made before)")
	}
}

// The MyBB case: the opening post is known to the second (the bot
// made it); replies stamped in the same minute narrow to after it.
func TestNarrowByOrder(t *testing.T) {
	t.Parallel()
	open := ExactStamp(ts("2026-11-30T18:05:40Z"), "")
	stamps := []Stamp{
		minute("2026-11-30T18:05:00Z"), // a post before the opening post, same minute
		open,
		minute("2026-11-30T18:05:00Z"), // Civ pick in the game's first minute
		minute("2026-11-30T18:06:00Z"),
		UnreadableStamp("??", nil),
		ExactStamp(ts("2026-11-30T18:06:10Z"), ""),
		minute("2026-11-30T18:06:00Z"),
	}
	if n := NarrowByOrder(stamps); n != 0 {
		t.Fatalf("conflicts = %d", n)
	}
	want := []struct{ e, l string }{
		{"2026-11-30T18:05:00Z", "2026-11-30T18:05:40.000000001Z"},
		{"2026-11-30T18:05:40Z", "2026-11-30T18:05:40Z"},
		{"2026-11-30T18:05:40Z", "2026-11-30T18:06:00Z"},
		{"2026-11-30T18:06:00Z", "2026-11-30T18:06:10.000000001Z"},
		{"", ""},
		{"2026-11-30T18:06:10Z", "2026-11-30T18:06:10Z"},
		{"2026-11-30T18:06:10Z", "2026-11-30T18:07:00Z"},
	}
	for i, w := range want {
		var e, l time.Time
		if w.e != "" {
			e, l = ts(w.e), ts(w.l)
		}
		if !stamps[i].Earliest.Equal(e) || !stamps[i].Latest.Equal(l) {
			t.Errorf("stamp %d = [%s, %s), want [%s, %s)", i, stamps[i].Earliest, stamps[i].Latest, w.e, w.l)
		}
	}
	// The Civ pick now certainly follows the opening post.
	if stamps[2].Before(open.Earliest) != No || CompareStamps(open, stamps[2]) != 0 {
		t.Errorf("pick vs opening post: before %s, compare %d", stamps[2].Before(open.Earliest), CompareStamps(open, stamps[2]))
	}
	// A board whose clock went back is reported, not papered over.
	back := []Stamp{minute("2026-11-30T18:07:00Z"), minute("2026-11-30T18:05:00Z")}
	if n := NarrowByOrder(back); n == 0 {
		t.Error("no conflict reported for stamps out of order")
	}
}

func TestCompare(t *testing.T) {
	t.Parallel()
	a := minute("2026-11-30T18:05:00Z")
	b := minute("2026-11-30T18:06:00Z")
	e := ExactStamp(ts("2026-11-30T18:05:59Z"), "")
	e2 := ExactStamp(ts("2026-11-30T18:05:59Z"), "")
	for _, c := range []struct {
		name string
		a, b Stamp
		want int
	}{
		{"adjacent minutes", a, b, -1},
		{"reversed", b, a, 1},
		{"same minute", a, a, 0},
		{"exact inside a minute", e, a, 0},
		{"exact before the next minute", e, b, -1},
		{"same instant", e, e2, 0},
		{"unknown", UnreadableStamp("", nil), a, 0},
	} {
		if got := CompareStamps(c.a, c.b); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
	p := func(id string, s Stamp) Post { return Post{ID: id, Stamp: s, Time: s.Earliest} }
	for _, c := range []struct {
		name string
		a, b Post
		want int
	}{
		{"same minute: by id", p("9", a), p("10", a), -1},
		{"same minute: by id, reversed", p("10", a), p("9", a), 1},
		{"numeric ids win over stamps", p("11", b), p("12", a), -1},
		{"non-numeric ids: stamps first", p("b", a), p("a", b), -1},
		{"non-numeric ids, overlapping stamps: ids", p("b", a), p("a", a), 1},
	} {
		if got := ComparePosts(c.a, c.b); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}

func TestDeadlineOn(t *testing.T) {
	t.Parallel()
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	for _, c := range []struct {
		d    time.Time
		unit time.Duration
		want string
	}{
		{ts("2026-11-30T18:05:08Z"), time.Minute, "2026-11-30T18:06:00Z"},
		{ts("2026-11-30T18:05:00Z"), time.Minute, "2026-11-30T18:05:00Z"},
		{ts("2026-11-30T18:05:00.5Z"), time.Minute, "2026-11-30T18:06:00Z"},
		{ts("2026-11-30T18:05:08.25Z"), time.Second, "2026-11-30T18:05:09Z"},
		{ts("2026-11-30T18:05:08Z"), 0, "2026-11-30T18:05:08Z"},
		// India is UTC+5:30: a whole UTC minute is a whole local minute.
		{time.Date(2026, 11, 30, 23, 59, 1, 0, time.FixedZone("IST", 19800)), time.Minute, "2026-11-30T18:30:00Z"},
		// Across New York's fall-back hour.
		{time.Date(2026, 11, 1, 1, 59, 30, 0, ny), time.Minute, "2026-11-01T06:00:00Z"},
	} {
		if got := DeadlineOn(c.d, c.unit); !got.Equal(ts(c.want)) {
			t.Errorf("DeadlineOn(%s, %s) = %s, want %s", c.d, c.unit, got.UTC().Format(time.RFC3339Nano), c.want)
		}
	}
}

func TestDeadlineUnitAndLayouts(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		layout string
		want   time.Duration
	}{
		{"Mon Jan 02, 2006 3:04 pm", time.Minute},
		{time.RFC3339, time.Second},
		{"01-02-2006", 24 * time.Hour},
		{"Jan 2, 2006, 3 PM", time.Hour},
		{"January 2, 2006, 03:04:05 PM", time.Second},
	} {
		if got := LayoutUnit(c.layout); got != c.want {
			t.Errorf("LayoutUnit(%q) = %s, want %s", c.layout, got, c.want)
		}
	}
	for _, name := range BuiltinNames() {
		p, _ := Builtin(name)
		if u := p.DeadlineUnit(); u != time.Minute {
			t.Errorf("%s: DeadlineUnit = %s, want a minute (its textual times show minutes)", name, u)
		}
	}
	p, _ := Builtin("phpbb")
	p.TimeLayouts = []string{"January 2, 2006, 03:04:05 PM", "2006-01-02"}
	if u := p.DeadlineUnit(); u != time.Second {
		t.Errorf("seconds board: DeadlineUnit = %s", u)
	}
}

func TestLocationOffsets(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		zone string
		off  int // seconds east of UTC; -1: error
	}{
		{"", 0}, {"UTC", 0}, {"UTC+2", 7200}, {"GMT-5", -18000}, {"+05:30", 19800},
		{"-0330", -12600}, {"utc+10", 36000}, {"UTC+15", -1}, {"+05:75", -1}, {"Mars/Olympus", -1},
	} {
		p := Profile{TimeZone: c.zone}
		loc, err := p.Location()
		if c.off == -1 {
			if err == nil {
				t.Errorf("%q: no error", c.zone)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.zone, err)
			continue
		}
		if _, off := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Zone(); off != c.off {
			t.Errorf("%q: offset %d, want %d", c.zone, off, c.off)
		}
	}
}

func TestPrecisionText(t *testing.T) {
	t.Parallel()
	for p := PrecisionUnknown; p <= PrecisionDay; p++ {
		b, _ := p.MarshalText()
		var q Precision
		if err := q.UnmarshalText(b); err != nil || q != p {
			t.Errorf("%d: %s → %d %v", p, b, q, err)
		}
	}
	var q Precision
	if q.UnmarshalText([]byte("fortnight")) == nil {
		t.Error("unknown precision name accepted")
	}
}
