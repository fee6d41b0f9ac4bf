package rules

import (
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "now"},
		{-time.Hour, "now"},
		{time.Second, "in 1 second"},
		{45 * time.Second, "in 45 seconds"},
		{time.Minute, "in 1 minute"},
		{90 * time.Second, "in 1 minute 30 seconds"},
		{time.Hour, "in 1 hour"},
		{90 * time.Minute, "in 1 hour 30 minutes"},
		{24*time.Hour - 400*time.Millisecond, "in 24 hours"},
		{24 * time.Hour, "in 24 hours"},
		{47*time.Hour + 59*time.Minute + 40*time.Second, "in 2 days"},
		{47 * time.Hour, "in 47 hours"},
		{48 * time.Hour, "in 2 days"},
		{51 * time.Hour, "in 2 days 3 hours"},
		{7 * 24 * time.Hour, "in 7 days"},
	} {
		if got := Until(c.d); got != c.want {
			t.Errorf("Until(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestDeadlineInZone(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC)
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tz data:", err)
	}
	for _, c := range []struct {
		loc  *time.Location
		want string
	}{
		{nil, "[b]Deadline:[/b] Tue 1 Dec 2026, 18:00 UTC (in 24 hours)"},
		{time.UTC, "[b]Deadline:[/b] Tue 1 Dec 2026, 18:00 UTC (in 24 hours)"},
		{ny, "[b]Deadline:[/b] Tue 1 Dec 2026, 13:00 EST / 18:00 UTC (in 24 hours)"},
		{time.FixedZone("UTC-5", -5*3600), "[b]Deadline:[/b] Tue 1 Dec 2026, 13:00 UTC-5 / 18:00 UTC (in 24 hours)"},
		{time.FixedZone("UTC+8", 8*3600), "[b]Deadline:[/b] Wed 2 Dec 2026, 02:00 UTC+8 / Tue 1 Dec, 18:00 UTC (in 24 hours)"},
		{time.FixedZone("GMT", 0), "[b]Deadline:[/b] Tue 1 Dec 2026, 18:00 GMT / 18:00 UTC (in 24 hours)"},
	} {
		if got := Deadline(at, c.loc, at.Add(-24*time.Hour)); got != c.want {
			t.Errorf("Deadline in %v = %q, want %q", c.loc, got, c.want)
		}
	}
}

func TestPlural(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		n    int
		args []string
		want string
	}{
		{0, []string{"message"}, "0 messages"},
		{1, []string{"message"}, "1 message"},
		{2, []string{"message"}, "2 messages"},
		{1, []string{"reply", "replies"}, "1 reply"},
		{3, []string{"reply", "replies"}, "3 replies"},
	} {
		if got := Plural(c.n, c.args[0], c.args[1:]...); got != c.want {
			t.Errorf("Plural(%d, %v) = %q, want %q", c.n, c.args, got, c.want)
		}
	}
}

func TestJoinNamesAndSpan(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{{nil, ""}, {[]string{"Ann"}, "Ann"}, {[]string{"Ann", "Ben"}, "Ann and Ben"}, {[]string{"Ann", "Ben", "Cat"}, "Ann, Ben and Cat"}} {
		if got := JoinNames(c.names); got != c.want {
			t.Errorf("JoinNames(%q) = %q, want %q", c.names, got, c.want)
		}
	}
	if got := Span(90 * time.Minute); got != "1 hour 30 minutes" {
		t.Errorf("Span(90m) = %q", got)
	}
	if got := Span(0); got != "now" {
		t.Errorf("Span(0) = %q", got)
	}
}
