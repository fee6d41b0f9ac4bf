package parser

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// Fetch is when the bot read a page, by its own clock: the board rendered
// it after Sent and before Received. Relative times ("Today at 08:15 PM",
// "9 hours ago") are resolved against it; the zero Fetch leaves them
// unreadable (an error, never a guess).
type Fetch struct {
	Sent, Received time.Time
	// board: the times are the board's own clock (Selectors.PageTime), so
	// no clock skew applies.
	board bool
}

// At is a Fetch known to one instant (tests, saved pages).
func At(t time.Time) Fetch { return Fetch{Sent: t, Received: t} }

// IsZero reports whether the fetch time is unknown.
func (f Fetch) IsZero() bool { return f.Sent.IsZero() && f.Received.IsZero() }

// ErrNoFetchTime: a relative time was met with no fetch time to resolve it.
var ErrNoFetchTime = errors.New("a relative time needs the time the page was fetched")

// layout is a profile time layout with what it shows.
type layout struct {
	layout string
	unit   time.Duration
	// zoned layouts carry their own offset (RFC 3339); others are wall
	// times in the bot account's zone.
	zoned bool
}

func compileLayouts(ls []string) []layout {
	out := make([]layout, 0, len(ls))
	for _, l := range ls {
		// Texts are normalised to upper-case AM/PM (normTime), so the
		// layouts are too: Go reads "pm" and "PM" case-sensitively.
		l = strings.ReplaceAll(l, "pm", "PM")
		probe := "2006-01-02 15:04:05"
		ref, _ := time.Parse(probe, probe)
		txt := ref.Format(l)
		a, errA := time.ParseInLocation(l, txt, time.UTC)
		b, errB := time.ParseInLocation(l, txt, time.FixedZone("probe", 3*3600+1800))
		out = append(out, layout{layout: l, unit: forum.LayoutUnit(l), zoned: errA == nil && errB == nil && a.Equal(b)})
	}
	return out
}

var (
	reSpaces  = regexp.MustCompile(`[\s\x{00a0}\x{202f}]+`)
	reOrdinal = regexp.MustCompile(`(\d)(?:st|nd|rd|th)\b`)
	reAMPM    = regexp.MustCompile(`(?i)\b([ap])\.?m\b\.?`)
	// "Today at 08:15 PM" (SMF), "Today, 08:15 PM" (MyBB, phpBB), "Yesterday".
	reDayRel = regexp.MustCompile(`(?i)^(today|yesterday|tomorrow)\b\s*(?:,|at\b|-|@)?\s*(.*)$`)
	// "5 minutes ago", "Less than 1 minute ago" (MyBB), "less than a minute
	// ago" (phpBB), "9 hours ago", "In 5 minutes" (MyBB, a stamp ahead of
	// the board's clock).
	reAgo = regexp.MustCompile(`(?i)^(in\s+)?(less\s+than\s+)?(a|an|one|\d{1,6})\s+(seconds?|secs?|minutes?|mins?|hours?|hrs?)(\s+ago)?$`)
	reNow = regexp.MustCompile(`(?i)^(just now|now|moments? ago)$`)
)

// timeOfDay layouts for the time after "Today"; texts are normalised first.
var timeOfDay = []string{"3:04 PM", "3:04PM", "3:04:05 PM", "3:04:05PM", "15:04", "15:04:05"}

// normTime collapses spaces, drops ordinal suffixes ("1st" → "1") and
// upper-cases am/pm, so one layout reads every spelling the boards use.
func normTime(s string) string {
	s = strings.TrimSpace(reSpaces.ReplaceAllString(s, " "))
	s = reOrdinal.ReplaceAllString(s, "$1")
	return reAMPM.ReplaceAllStringFunc(s, func(m string) string {
		return strings.ToUpper(m[:1]) + "M"
	})
}

// ParseTime reads a time text as the board showed it: each text is tried
// in turn (the first that reads wins) as RFC 3339, as a relative time
// resolved against f in the profile's time zone, and with each of the
// profile's layouts in that zone. The stamp is the interval the text
// allows. A text nothing reads is an error, and the returned stamp is then
// an unreadable-time marker holding the text (never the zero time passed
// off as a real one).
func (x *Parser) ParseTime(f Fetch, texts ...string) (forum.Stamp, error) {
	var shown []string
	var specific error
	for _, raw := range texts {
		txt := normTime(raw)
		if txt == "" {
			continue
		}
		shown = append(shown, collapse(strings.ReplaceAll(raw, "\u00a0", " ")))
		st, err := x.parseOne(f, txt)
		if err == nil {
			st.Text = shown[len(shown)-1] // as the page showed it
			return st, nil
		}
		if specific == nil && !errors.Is(err, errNoMatch) {
			specific = err
		}
	}
	text := strings.Join(shown, " | ")
	var err error
	switch {
	case len(shown) == 0:
		err = errors.New("unreadable time: no time text on the page")
	case specific != nil:
		err = fmt.Errorf("unreadable time %q: %w", text, specific)
	default:
		err = fmt.Errorf("unreadable time %q: neither relative nor in a layout of profile %s (time_layouts)", text, x.Profile.Name)
	}
	return forum.UnreadableStamp(text, err), err
}

var errNoMatch = errors.New("no match")

func (x *Parser) parseOne(f Fetch, txt string) (forum.Stamp, error) {
	if t, err := time.Parse(time.RFC3339, txt); err == nil {
		return forum.ExactStamp(t, txt), nil
	}
	if m := reDayRel.FindStringSubmatch(txt); m != nil {
		return x.dayRelative(f, strings.ToLower(m[1]), m[2])
	}
	if m := reAgo.FindStringSubmatch(txt); m != nil && (m[1] != "") != (m[5] != "") {
		return x.ago(f, m[1] != "", m[2] != "", m[3], m[4])
	}
	if reNow.MatchString(txt) {
		return x.ago(f, false, true, "1", "minute")
	}
	for _, l := range x.layouts {
		if l.zoned {
			if t, err := time.Parse(l.layout, txt); err == nil {
				return interval([]time.Time{t}, l.unit), nil
			}
			continue
		}
		w, err := time.ParseInLocation(l.layout, txt, time.UTC)
		if err != nil {
			continue
		}
		c, err := x.wall(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), l.unit)
		if err != nil {
			return forum.Stamp{}, err
		}
		return c, nil
	}
	return forum.Stamp{}, errNoMatch
}

// boardNow is the interval holding the board's clock, in whole seconds
// (PHP's time()), when it rendered the page.
func (x *Parser) boardNow(f Fetch) (lo, hi time.Time, err error) {
	if f.IsZero() {
		return lo, hi, ErrNoFetchTime
	}
	sent, recv := f.Sent, f.Received
	if sent.IsZero() {
		sent = recv
	}
	if recv.IsZero() || recv.Before(sent) {
		recv = sent
	}
	skew := x.skew
	if f.board {
		skew = 0
	}
	return sent.Add(-skew).Truncate(time.Second), recv.Add(skew).Truncate(time.Second), nil
}

// ago resolves "N units ago". The board rounds the difference d between
// its clock n and the stamp r down to whole units (MyBB my_date, phpBB
// datetime::format), so "N units ago" means d in [N·u, (N+1)·u − 1 s] and
// r in [n − (N+1)·u + 1 s, n − N·u]. "Less than N units" is d in
// [−59 s, N·u] (phpBB also says it for stamps up to 59 s ahead of its
// clock); "In N units" is the same ahead of the clock.
func (x *Parser) ago(f Fetch, future, lessThan bool, num, unitWord string) (forum.Stamp, error) {
	nLo, nHi, err := x.boardNow(f)
	if err != nil {
		return forum.Stamp{}, err
	}
	n := 1
	switch strings.ToLower(num) {
	case "a", "an", "one":
	default:
		if n, err = strconv.Atoi(num); err != nil {
			return forum.Stamp{}, err
		}
	}
	var u time.Duration
	prec := forum.PrecisionMinute
	switch w := strings.ToLower(unitWord); {
	case strings.HasPrefix(w, "s"):
		u, prec = time.Second, forum.PrecisionSecond
	case strings.HasPrefix(w, "m"):
		u = time.Minute
	default:
		u, prec = time.Hour, forum.PrecisionHour
	}
	if n > 366*24*3600/int(u/time.Second) {
		return forum.Stamp{}, fmt.Errorf("%d %s is more than a year", n, unitWord)
	}
	// d (board now minus stamp) lies in [dMin, dMax].
	dMin, dMax := time.Duration(n)*u, time.Duration(n+1)*u-time.Second
	if lessThan {
		dMin, dMax = -59*time.Second, time.Duration(n)*u
	}
	if future {
		dMin, dMax = -dMax, -dMin
		if lessThan {
			dMin, dMax = -time.Duration(n)*u, 0
		}
	}
	return forum.Stamp{Earliest: nLo.Add(-dMax).UTC(), Latest: nHi.Add(-dMin + time.Second).UTC(),
		Precision: prec, Relative: true}, nil
}

// dayRelative resolves "Today, 08:15 PM": the day is the board's current
// day in the bot account's zone (both days when the board's clock may be
// either side of midnight), the time of day is read as written.
func (x *Parser) dayRelative(f Fetch, day, rest string) (forum.Stamp, error) {
	nLo, nHi, err := x.boardNow(f)
	if err != nil {
		return forum.Stamp{}, err
	}
	offset := map[string]int{"yesterday": -1, "today": 0, "tomorrow": 1}[day]
	var clock time.Time
	unit := 24 * time.Hour
	if rest = strings.TrimSpace(rest); rest != "" {
		ok := false
		for _, l := range timeOfDay {
			if t, err := time.Parse(l, rest); err == nil {
				clock, unit, ok = t, forum.LayoutUnit(l), true
				break
			}
		}
		if !ok {
			return forum.Stamp{}, fmt.Errorf("%q after %q is not a time of day", rest, day)
		}
	}
	var out forum.Stamp
	seen := map[string]bool{}
	for d := nLo.In(x.loc); ; d = d.AddDate(0, 0, 1) {
		date := time.Date(d.Year(), d.Month(), d.Day()+offset, 0, 0, 0, 0, time.UTC)
		if !seen[date.Format(time.DateOnly)] {
			seen[date.Format(time.DateOnly)] = true
			st, err := x.wall(date.Year(), date.Month(), date.Day(), clock.Hour(), clock.Minute(), clock.Second(), unit)
			if err != nil {
				return forum.Stamp{}, err
			}
			out = hull(out, st)
		}
		// Stop once the calendar day of nHi has been covered.
		hiDay := nHi.In(x.loc)
		if d.Year() > hiDay.Year() || (d.Year() == hiDay.Year() && d.YearDay() >= hiDay.YearDay()) {
			break
		}
	}
	out.Relative = true
	return out, nil
}

// wall resolves a wall-clock time in the bot account's zone to the stamp
// it allows. A wall time that happens twice (the hour a DST change repeats)
// gives an interval over both; one that never happens (the hour skipped)
// is an error, since the board cannot have shown it in this zone.
func (x *Parser) wall(y int, mo time.Month, d, h, mi, s int, unit time.Duration) (forum.Stamp, error) {
	cands := resolveWall(y, mo, d, h, mi, s, x.loc)
	if len(cands) == 0 {
		return forum.Stamp{}, fmt.Errorf("%04d-%02d-%02d %02d:%02d does not exist in time zone %s (a daylight-saving gap): is the profile's time_zone the bot account's?",
			y, mo, d, h, mi, x.loc)
	}
	st := interval(cands, unit)
	if unit >= 24*time.Hour {
		// A day runs to the next midnight, 23 or 25 hours away on DST days.
		if next := resolveWall(y, mo, d+1, 0, 0, 0, x.loc); len(next) > 0 {
			st.Latest = next[0].UTC()
		}
	}
	return st, nil
}

// resolveWall is every instant whose wall clock in loc reads these fields.
func resolveWall(y int, mo time.Month, d, h, mi, s int, loc *time.Location) []time.Time {
	t := time.Date(y, mo, d, h, mi, s, 0, loc)
	want := time.Date(y, mo, d, h, mi, s, 0, time.UTC) // normalised fields
	var out []time.Time
	for _, c := range []time.Time{t.Add(-time.Hour), t.Add(-30 * time.Minute), t, t.Add(30 * time.Minute), t.Add(time.Hour)} {
		w := c.In(loc)
		if time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), 0, time.UTC).Equal(want) {
			out = append(out, c)
		}
	}
	return out
}

// interval is the stamp of a text of this unit read as any of the instants
// (sorted): from the first to the end of the last one's unit.
func interval(cands []time.Time, unit time.Duration) forum.Stamp {
	st := forum.Stamp{Earliest: cands[0].UTC(), Latest: cands[len(cands)-1].Add(unit).UTC()}
	switch unit {
	case time.Second:
		st.Precision = forum.PrecisionSecond
	case time.Minute:
		st.Precision = forum.PrecisionMinute
	case time.Hour:
		st.Precision = forum.PrecisionHour
	default:
		st.Precision = forum.PrecisionDay
	}
	return st
}

// hull is the smallest stamp covering both (a when b is empty).
func hull(a, b forum.Stamp) forum.Stamp {
	if a.Earliest.IsZero() {
		return b
	}
	if b.Earliest.Before(a.Earliest) {
		a.Earliest = b.Earliest
	}
	if b.Latest.After(a.Latest) {
		a.Latest = b.Latest
	}
	if b.Precision > a.Precision {
		a.Precision = b.Precision
	}
	return a
}
