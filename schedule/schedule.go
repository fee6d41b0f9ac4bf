// Package schedule is a GM's deadline schedule: phases close at a clock time
// in a named time zone on chosen weekdays ("21:00 Europe/London, Mon and
// Thu"), at the first such slot at least a minimum length after the phase
// opens. It is pure: no clock, the zone comes in as a *time.Location, and
// every answer is a function of its arguments.
package schedule

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// MaxMinimum caps a schedule's minimum: a phase that must last more than
// four weeks is a mistake in the game file, not a schedule.
const MaxMinimum = 28 * 24 * time.Hour

// Schedule is a clock time in a zone on some weekdays, and the least time a
// phase stays open.
type Schedule struct {
	Hour, Minute int
	Zone         *time.Location
	Days         [7]bool // by time.Weekday; at least one is set
	Minimum      time.Duration
}

// New checks and builds a schedule. at is a 24-hour clock time ("21:00",
// "9:30"); days are weekday names (Mon, monday, THU; none: every day);
// minimum nil means DefaultMinimum of the days.
func New(at string, zone *time.Location, days []string, minimum *time.Duration) (Schedule, error) {
	var s Schedule
	if zone == nil {
		return s, fmt.Errorf("a schedule needs a time zone")
	}
	s.Zone = zone
	var err error
	if s.Hour, s.Minute, err = ParseClock(at); err != nil {
		return s, err
	}
	if s.Days, err = ParseDays(days); err != nil {
		return s, err
	}
	if minimum == nil {
		s.Minimum = DefaultMinimum(s.Days)
	} else {
		s.Minimum = *minimum
	}
	if s.Minimum < 0 || s.Minimum > MaxMinimum {
		return s, fmt.Errorf("minimum %v: must be 0 to %v", s.Minimum, MaxMinimum)
	}
	return s, nil
}

// ParseClock reads a 24-hour clock time, "HH:MM" (the hour may have one digit).
func ParseClock(at string) (hour, minute int, err error) {
	bad := fmt.Errorf("at %q: write a 24-hour clock time like 21:00 or 9:30", at)
	h, m, ok := strings.Cut(strings.TrimSpace(at), ":")
	if !ok || len(h) < 1 || len(h) > 2 || len(m) != 2 {
		return 0, 0, bad
	}
	if hour, err = strconv.Atoi(h); err != nil || hour < 0 || hour > 23 || h[0] == '+' || h[0] == '-' {
		return 0, 0, bad
	}
	if minute, err = strconv.Atoi(m); err != nil || minute < 0 || minute > 59 || m[0] == '+' || m[0] == '-' {
		return 0, 0, bad
	}
	return hour, minute, nil
}

var dayNames = map[string]time.Weekday{}

func init() {
	for d := time.Sunday; d <= time.Saturday; d++ {
		full := strings.ToLower(d.String())
		dayNames[full] = d
		dayNames[full[:3]] = d
	}
}

// ParseDays reads weekday names, in any case, three letters or in full; no
// names at all is every day. A day named twice is an error (likely a typo
// for another day).
func ParseDays(days []string) ([7]bool, error) {
	var set [7]bool
	if len(days) == 0 {
		for i := range set {
			set[i] = true
		}
		return set, nil
	}
	for _, name := range days {
		d, ok := dayNames[strings.ToLower(strings.TrimSpace(name))]
		if !ok {
			return set, fmt.Errorf("day %q: write a weekday like Mon or Thursday", name)
		}
		if set[d] {
			return set, fmt.Errorf("day %q is given twice", name)
		}
		set[d] = true
	}
	return set, nil
}

// DefaultMinimum is half the shortest gap between two slots in a week: a
// phase that opens just before a slot runs to the next one but one rather
// than closing at once ("Mon and Thu": 36 hours; every day: 12 hours).
func DefaultMinimum(days [7]bool) time.Duration {
	shortest := 7
	prev := -1
	first := -1
	for d := 0; d < 7; d++ {
		if !days[d] {
			continue
		}
		if first < 0 {
			first = d
		}
		if prev >= 0 && d-prev < shortest {
			shortest = d - prev
		}
		prev = d
	}
	if first >= 0 && first+7-prev < shortest {
		shortest = first + 7 - prev
	}
	return time.Duration(shortest) * 12 * time.Hour
}

// Next is when a phase opened at opened closes: the first slot at or after
// opened + Minimum.
func (s Schedule) Next(opened time.Time) time.Time {
	earliest := opened.Add(s.Minimum)
	local := earliest.In(s.Zone)
	// From the day before (a slot's instant may fall on the previous local
	// day's date in no zone, but a day's margin costs nothing) to eight days
	// on: a week always holds a slot.
	y, m, d := local.Date()
	for i := -1; i <= 8; i++ {
		day := time.Date(y, m, d+i, 12, 0, 0, 0, time.UTC) // noon: only the date matters
		if !s.Days[day.Weekday()] {
			continue
		}
		if t, ok := Slot(day.Year(), day.Month(), day.Day(), s.Hour, s.Minute, s.Zone); ok && !t.Before(earliest) {
			return t
		}
	}
	panic("schedule: no slot in a week") // New refuses a schedule without days
}

// Slot is the instant the clocks in zone show hour:minute on that date.
// A time the clocks skip (they go forward through it) is the instant they
// jump: 01:30 on the night London goes from 01:00 to 02:00 is the jump,
// 02:00 BST, as a player watching the clock would see the deadline come.
// A time the clocks show twice (they go back) is the first time they show
// it. ok is false for a date the zone's calendar skips altogether (Samoa
// went from 29 to 31 December 2011): that day has no slot.
func Slot(year int, month time.Month, day, hour, minute int, zone *time.Location) (t time.Time, ok bool) {
	wall := time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
	var first time.Time
	for _, probe := range []time.Duration{-48 * time.Hour, -24 * time.Hour, 0, 24 * time.Hour, 48 * time.Hour} {
		_, off := wall.Add(probe).In(zone).Zone()
		c := wall.Add(-time.Duration(off) * time.Second)
		if c.In(zone).Format("2006-01-02 15:04") == wall.Format("2006-01-02 15:04") && (first.IsZero() || c.Before(first)) {
			first = c
		}
	}
	if !first.IsZero() {
		return first, true
	}
	// Skipped: read with the offset before the jump, the wall time lands
	// after it; the zone in effect there began at the jump.
	_, before := wall.Add(-48 * time.Hour).In(zone).Zone()
	start, _ := wall.Add(-time.Duration(before) * time.Second).In(zone).ZoneBounds()
	if y, m, d := start.In(zone).Date(); y != year || m != month || d != day {
		return time.Time{}, false
	}
	return start, true
}

// String is the schedule as a GM writes it: "21:00 Europe/London, Mon and
// Thu", "9:30 UTC, every day".
func (s Schedule) String() string {
	var names []string
	all := true
	for _, d := range []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday, time.Sunday} {
		if s.Days[d] {
			names = append(names, d.String()[:3])
		} else {
			all = false
		}
	}
	days := "every day"
	switch {
	case all:
	case len(names) == 1:
		days = names[0]
	default:
		days = strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
	}
	zone := "UTC"
	if s.Zone != nil {
		zone = s.Zone.String()
	}
	return fmt.Sprintf("%02d:%02d %s, %s", s.Hour, s.Minute, zone, days)
}
