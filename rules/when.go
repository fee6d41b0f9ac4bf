package rules

import (
	"fmt"
	"strings"
	"time"
)

// Times people read (deadlines in posts and PMs, the GM's notices) have one
// format across games: the board's time zone, to the minute, with the zone's
// abbreviation, e.g. "Tue 1 Dec 2026, 18:00 UTC". Engines deal in instants
// only; whoever writes for people (the referee, the moderator, the CLI)
// passes the board's zone in, so the engines stay free of zones and clocks.

// When formats t in loc (UTC when nil).
func When(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	return t.In(loc).Format("Mon 2 Jan 2006, 15:04 MST")
}

// WhenUTC is When with the time in UTC as well, for deadlines players in
// other zones must meet: "Tue 1 Dec 2026, 13:00 EST / 18:00 UTC", the UTC
// date added when it is another day ("Tue 1 Dec 2026, 20:00 EST / Wed 2
// Dec, 01:00 UTC"). In UTC itself the time is said once.
func WhenUTC(t time.Time, loc *time.Location) string {
	local := When(t, loc)
	if name, off := t.In(orUTC(loc)).Zone(); name == "UTC" && off == 0 {
		return local
	}
	u := t.UTC()
	if ly, lm, ld := t.In(loc).Date(); ly == u.Year() && lm == u.Month() && ld == u.Day() {
		return local + " / " + u.Format("15:04") + " UTC"
	}
	return local + " / " + u.Format("Mon 2 Jan, 15:04") + " UTC"
}

func orUTC(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// Deadline is the line every phase post ends with: the deadline in the
// board's zone and in UTC (WhenUTC), and how long from now, e.g.
// "Deadline: Tue 1 Dec 2026, 13:00 EST / 18:00 UTC (in 24 hours)".
func Deadline(t time.Time, loc *time.Location, now time.Time) string {
	return "[b]Deadline:[/b] " + WhenUTC(t, loc) + " (" + Until(t.Sub(now)) + ")"
}

// Until says how far away a duration is, for people: "in 2 days 3 hours",
// "in 24 hours", "in 1 hour 30 minutes", "in 45 seconds", "now". It keeps
// the two largest units and rounds to the nearest of the smaller one, so a
// deadline 23 h 59 m 59.6 s away reads "in 24 hours".
func Until(d time.Duration) string {
	if d < time.Second {
		return "now"
	}
	type unit struct {
		d    time.Duration
		name string
	}
	units := []unit{{24 * time.Hour, "day"}, {time.Hour, "hour"}, {time.Minute, "minute"}, {time.Second, "second"}}
	// Whole days are said in hours below two of them: "in 24 hours" reads
	// better than "in 1 day" for a phase of a day.
	if d < 48*time.Hour-30*time.Minute {
		units = units[1:]
	}
	for i, u := range units {
		if d < u.d && i < len(units)-1 {
			continue
		}
		if i == len(units)-1 {
			return "in " + Plural(int((d+u.d/2)/u.d), u.name)
		}
		small := units[i+1]
		n := (d + small.d/2) / small.d // in the smaller unit, rounded
		per := u.d / small.d
		big, rest := int(n/per), int(n%per)
		parts := []string{Plural(big, u.name)}
		if rest > 0 {
			parts = append(parts, Plural(rest, small.name))
		}
		return "in " + strings.Join(parts, " ")
	}
	return "now"
}

// Span is Until without its "in": how long a duration is, for people
// ("2 days 3 hours", "45 seconds").
func Span(d time.Duration) string { return strings.TrimPrefix(Until(d), "in ") }

// JoinNames lists names for people: "Ann", "Ann and Ben", "Ann, Ben and Cat".
func JoinNames(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Plural writes a count with its noun: "1 message", "3 messages". Nouns
// whose plural is not the noun plus "s" pass it after the singular.
func Plural(n int, noun string, plural ...string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", noun)
	}
	p := noun + "s"
	if len(plural) > 0 {
		p = plural[0]
	}
	return fmt.Sprintf("%d %s", n, p)
}
