package schedule

import (
	"strings"
	"testing"
	"time"
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatalf("time zone %s: %v", name, err)
	}
	return loc
}

func utc(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func dur(d time.Duration) *time.Duration { return &d }

// TestNext: the first slot at or after opened + minimum, in zones other
// than UTC, across both daylight-saving changes of both hemispheres, over
// the gap between two weekdays, and at times the clocks skip or show twice.
func TestNext(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name    string
		at      string
		zone    string
		days    []string
		minimum *time.Duration
		opened  string
		want    string
	}{
		// London, Mon and Thu at 21:00, at least 24 hours.
		{"monday to thursday", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(24 * time.Hour), "2026-03-02T21:00:00Z", "2026-03-05T21:00:00Z"},
		{"weekday gap: thursday to monday", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(24 * time.Hour), "2026-03-05T21:00:00Z", "2026-03-09T21:00:00Z"},
		{"the minimum reaches past a slot", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(24 * time.Hour), "2026-03-04T22:00:00Z", "2026-03-09T21:00:00Z"},
		{"exactly the minimum is enough", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(72 * time.Hour), "2026-03-02T21:00:00Z", "2026-03-05T21:00:00Z"},
		{"a minute short of it is not", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(72 * time.Hour), "2026-03-02T21:01:00Z", "2026-03-09T21:00:00Z"},
		// Spring: clocks go forward on Sun 29 Mar 2026, so Monday's 21:00 is
		// BST (20:00 UTC) and the phase is 71 hours long.
		{"london spring forward", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(24 * time.Hour), "2026-03-26T21:00:00Z", "2026-03-30T20:00:00Z"},
		// Autumn: clocks go back on Sun 25 Oct 2026: BST 20:00 UTC on
		// Thursday, GMT 21:00 UTC on Monday, 73 hours.
		{"london fall back", "21:00", "Europe/London", []string{"Mon", "Thu"}, dur(24 * time.Hour), "2026-10-22T20:00:00Z", "2026-10-26T21:00:00Z"},
		// New York, Mondays and Thursdays at 19:00 (DST 8 Mar and 1 Nov 2026).
		{"new york spring forward", "19:00", "America/New_York", []string{"monday", "thursday"}, nil, "2026-03-06T00:00:00Z", "2026-03-09T23:00:00Z"},
		{"new york fall back", "19:00", "America/New_York", []string{"MON", "THU"}, nil, "2026-10-29T23:00:00Z", "2026-11-03T00:00:00Z"},
		// Sydney's seasons are the other way round: forward on 4 Oct, back
		// on 5 Apr 2026. 08:00 AEST is 22:00 UTC the day before, AEDT 21:00: the
		// phases opened at 08:00 the day before last 23 and 25 hours.
		{"sydney spring forward", "08:00", "Australia/Sydney", nil, dur(12 * time.Hour), "2026-10-02T22:00:00Z", "2026-10-03T21:00:00Z"},
		{"sydney fall back", "08:00", "Australia/Sydney", nil, dur(12 * time.Hour), "2026-04-03T21:00:00Z", "2026-04-04T22:00:00Z"},
		// A zone half an hour off UTC, without daylight saving.
		{"kolkata", "18:00", "Asia/Kolkata", []string{"Fri"}, dur(time.Hour), "2026-03-02T00:00:00Z", "2026-03-06T12:30:00Z"},
		// 01:30 does not happen in London on 29 Mar 2026 (01:00 GMT jumps
		// to 02:00 BST): the deadline is the jump.
		{"a skipped time is the jump", "01:30", "Europe/London", nil, dur(0), "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"},
		// 01:30 happens twice on 25 Oct 2026: the first time, in BST.
		{"a repeated time is the first", "01:30", "Europe/London", nil, dur(0), "2026-10-24T12:00:00Z", "2026-10-25T00:30:00Z"},
		// Samoa skipped 30 December 2011: its noon slot is the 31st's.
		{"a skipped day has no slot", "12:00", "Pacific/Apia", nil, dur(time.Hour), "2011-12-29T22:00:00Z", "2011-12-30T22:00:00Z"},
		{"utc", "9:30", "UTC", []string{"Sat"}, dur(0), "2026-03-07T09:30:00Z", "2026-03-07T09:30:00Z"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := New(c.at, zone(t, c.zone), c.days, c.minimum)
			if err != nil {
				t.Fatal(err)
			}
			got := s.Next(utc(c.opened))
			if want := utc(c.want); !got.Equal(want) {
				t.Errorf("%s opened %s: next %s (%s), want %s (%s)", s, c.opened, got.UTC().Format(time.RFC3339), got.In(s.Zone).Format("Mon 15:04 MST"),
					want.Format(time.RFC3339), want.In(s.Zone).Format("Mon 15:04 MST"))
			}
			if open := utc(c.opened); got.Before(open.Add(s.Minimum)) {
				t.Errorf("closes %v, before the minimum %v after %v", got, s.Minimum, open)
			}
		})
	}
}

// TestNextEveryWeek: over two years of opening times, in London, the slot
// is always on a chosen day at 21:00 local, at least the minimum on, and no
// chosen slot lies between opened + minimum and it.
func TestNextEveryWeek(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	s, err := New("21:00", london, []string{"Mon", "Thu"}, dur(24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	for open := utc("2026-01-01T00:00:00Z"); open.Before(utc("2028-01-01T00:00:00Z")); open = open.Add(7*time.Hour + 13*time.Minute) {
		got := s.Next(open).In(london)
		if got.Hour() != 21 || got.Minute() != 0 || (got.Weekday() != time.Monday && got.Weekday() != time.Thursday) {
			t.Fatalf("opened %v: next %v is not a slot", open, got)
		}
		if got.Before(open.Add(s.Minimum)) || got.Sub(open) > s.Minimum+4*24*time.Hour+time.Hour {
			t.Fatalf("opened %v: next %v, outside its window", open, got)
		}
	}
}

func TestNewRefuses(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	for _, c := range []struct {
		at      string
		loc     *time.Location
		days    []string
		minimum *time.Duration
		want    string
	}{
		{"25:00", london, nil, nil, "24-hour clock time"},
		{"21", london, nil, nil, "24-hour clock time"},
		{"21:5", london, nil, nil, "24-hour clock time"},
		{"-1:00", london, nil, nil, "24-hour clock time"},
		{"21:60", london, nil, nil, "24-hour clock time"},
		{"9pm", london, nil, nil, "24-hour clock time"},
		{"21:00", nil, nil, nil, "time zone"},
		{"21:00", london, []string{"Mo"}, nil, "weekday"},
		{"21:00", london, []string{"Mon", "monday"}, nil, "twice"},
		{"21:00", london, nil, dur(-time.Hour), "minimum"},
		{"21:00", london, nil, dur(MaxMinimum + time.Hour), "minimum"},
	} {
		if _, err := New(c.at, c.loc, c.days, c.minimum); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%q, %v, %q, %v) = %v, want an error about %q", c.at, c.loc, c.days, c.minimum, err, c.want)
		}
	}
}

func TestDefaultMinimumAndString(t *testing.T) {
	t.Parallel()
	london := zone(t, "Europe/London")
	for _, c := range []struct {
		days []string
		min  time.Duration
		text string
	}{
		{[]string{"Mon", "Thu"}, 36 * time.Hour, "21:00 Europe/London, Mon and Thu"},
		{nil, 12 * time.Hour, "21:00 Europe/London, every day"},
		{[]string{"Sun"}, 84 * time.Hour, "21:00 Europe/London, Sun"},
		{[]string{"Fri", "Mon", "Wed"}, 24 * time.Hour, "21:00 Europe/London, Mon, Wed and Fri"},
		{[]string{"Sat", "Sun"}, 12 * time.Hour, "21:00 Europe/London, Sat and Sun"},
	} {
		s, err := New("21:00", london, c.days, nil)
		if err != nil {
			t.Fatal(err)
		}
		if s.Minimum != c.min || s.String() != c.text {
			t.Errorf("days %v: minimum %v, %q; want %v, %q", c.days, s.Minimum, s.String(), c.min, c.text)
		}
	}
}
