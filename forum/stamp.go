package forum

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Precision says how finely a board's time stamp pins down when a message
// was made.
type Precision uint8

const (
	// PrecisionUnknown: the time could not be read (Stamp.Err says why).
	PrecisionUnknown Precision = iota
	// PrecisionExact: a machine-readable instant (phpBB's time[datetime]).
	PrecisionExact
	// PrecisionSecond: text to the second.
	PrecisionSecond
	// PrecisionMinute: text to the minute ("30 Nov 2026, 18:05",
	// "Today at 08:15 PM", "5 minutes ago").
	PrecisionMinute
	// PrecisionHour: "9 hours ago" without a title holding the minute.
	PrecisionHour
	// PrecisionDay: a date without a time of day.
	PrecisionDay
)

var precisionNames = []string{"unknown", "exact", "second", "minute", "hour", "day"}

func (p Precision) String() string {
	if int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return "precision(" + strconv.Itoa(int(p)) + ")"
}

// MarshalText writes the name, so audits and JSON read "minute", not 3.
func (p Precision) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a name written by MarshalText.
func (p *Precision) UnmarshalText(b []byte) error {
	for i, n := range precisionNames {
		if string(b) == n {
			*p = Precision(i)
			return nil
		}
	}
	return fmt.Errorf("unknown time precision %q", b)
}

// Stamp is what a board's time stamp says about when a message was made:
// the interval [Earliest, Latest) it allows, by the board's own clock
// (boards record whole seconds). Earliest == Latest is an exact instant.
// A stamp the parser could not read has Precision Unknown, zero times, the
// raw Text and the reason in Err: the message is still returned, so the
// moderator can record the problem instead of dropping it.
type Stamp struct {
	Earliest  time.Time `json:"earliest,omitzero"`
	Latest    time.Time `json:"latest,omitzero"`
	Precision Precision `json:"precision"`
	// Relative is true when the text was resolved against the time the
	// page was fetched ("Today", "9 hours ago").
	Relative bool `json:"relative,omitempty"`
	// Text is the time as the page showed it (for the audit).
	Text string `json:"text,omitempty"`
	// Err says why the time could not be read ("" when it was).
	Err string `json:"error,omitempty"`
}

// ExactStamp is the stamp of a known instant.
func ExactStamp(t time.Time, text string) Stamp {
	t = t.UTC()
	return Stamp{Earliest: t, Latest: t, Precision: PrecisionExact, Text: text}
}

// UnreadableStamp is the stamp of a time that could not be read.
func UnreadableStamp(text string, err error) Stamp {
	s := Stamp{Precision: PrecisionUnknown, Text: text, Err: "unreadable time"}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// Known reports whether the stamp was read.
func (s Stamp) Known() bool { return s.Precision != PrecisionUnknown && !s.Earliest.IsZero() }

// Exact reports whether the stamp is a single instant.
func (s Stamp) Exact() bool { return s.Known() && s.Earliest.Equal(s.Latest) }

// Width is Latest - Earliest (0 for exact and unknown stamps).
func (s Stamp) Width() time.Duration {
	if !s.Known() {
		return 0
	}
	return s.Latest.Sub(s.Earliest)
}

// end is the exclusive upper bound, treating an exact stamp as the
// shortest interval holding its instant.
func (s Stamp) end() time.Time {
	if !s.Latest.After(s.Earliest) {
		return s.Earliest.Add(time.Nanosecond)
	}
	return s.Latest
}

// Contains reports whether the message may have been made at t.
func (s Stamp) Contains(t time.Time) bool {
	return s.Known() && !t.Before(s.Earliest) && t.Before(s.end())
}

// Tri is a three-valued answer: a stamp that straddles the instant asked
// about cannot say.
type Tri int8

const (
	Maybe Tri = 0
	Yes   Tri = 1
	No    Tri = -1
)

func (t Tri) String() string {
	switch t {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "maybe"
}

// Before answers "was the message made strictly before d?".
func (s Stamp) Before(d time.Time) Tri {
	switch {
	case !s.Known():
		return Maybe
	case !s.end().After(d):
		return Yes
	case !s.Earliest.Before(d):
		return No
	}
	return Maybe
}

// After answers "was the message made strictly after d?".
func (s Stamp) After(d time.Time) Tri {
	switch {
	case !s.Known():
		return Maybe
	case s.Earliest.After(d):
		return Yes
	case !s.end().After(d.Add(time.Nanosecond)):
		return No
	}
	return Maybe
}

// Narrow intersects the stamp with what the bot knows otherwise: the
// message was made at or after lo and before hi (a zero bound is no
// bound). hi is typically the moment the bot first saw the message, lo
// the stamp of a message made before it. An exact stamp is not narrowed.
// ok is false, and the stamp is returned unchanged, when the bounds
// contradict the stamp (a board clock far off the bot's): the caller
// should log that rather than trust either.
func (s Stamp) Narrow(lo, hi time.Time) (_ Stamp, ok bool) {
	if !s.Known() {
		return s, true
	}
	e, l := s.Earliest, s.end()
	if !lo.IsZero() && lo.After(e) {
		e = lo
	}
	if !hi.IsZero() && hi.Before(l) {
		l = hi
	}
	if !e.Before(l) {
		return s, false
	}
	if s.Exact() {
		return s, true
	}
	s.Earliest, s.Latest = e, l
	return s, true
}

// CompareStamps is -1 when a was certainly made before b, +1 when after,
// 0 when the stamps overlap or either is unknown (then order by ids, see
// ComparePosts).
func CompareStamps(a, b Stamp) int {
	if !a.Known() || !b.Known() {
		return 0
	}
	if !a.end().After(b.Earliest) {
		return -1
	}
	if !b.end().After(a.Earliest) {
		return 1
	}
	return 0
}

// CompareIDs orders board ids: numerically when both are numbers, else
// shorter first, then bytewise.
func CompareIDs(a, b string) int {
	ai, errA := strconv.ParseInt(a, 10, 64)
	bi, errB := strconv.ParseInt(b, 10, 64)
	if errA == nil && errB == nil {
		switch {
		case ai < bi:
			return -1
		case ai > bi:
			return 1
		}
		return 0
	}
	if len(a) != len(b) {
		if len(a) < len(b) {
			return -1
		}
		return 1
	}
	return strings.Compare(a, b)
}

// ComparePosts orders two posts of one thread in the order they were
// made. Boards number posts as they are made, so numeric ids give the
// order even within one second or one minute, where stamps cannot; other
// ids fall back on the stamps, then on the ids.
func ComparePosts(a, b Post) int {
	_, errA := strconv.ParseInt(a.ID, 10, 64)
	_, errB := strconv.ParseInt(b.ID, 10, 64)
	if errA == nil && errB == nil {
		return CompareIDs(a.ID, b.ID)
	}
	if c := CompareStamps(a.Stamp, b.Stamp); c != 0 {
		return c
	}
	return CompareIDs(a.ID, b.ID)
}

// NarrowByOrder narrows the stamps of messages given in the order they
// were made (a thread's posts by id): none was made before the one before
// it, nor after the one after it. So a minute stamp between two exact
// ones, or after the opening post, shrinks to what the order allows.
// Unknown stamps are left alone and do not carry bounds across.
// Contradictory neighbours (a board whose clock went back) leave a stamp
// unchanged; the returned count says how many such stamps were met.
func NarrowByOrder(stamps []Stamp) (conflicts int) {
	var lo time.Time
	for i := range stamps {
		if !stamps[i].Known() {
			continue
		}
		if n, ok := stamps[i].Narrow(lo, time.Time{}); ok {
			stamps[i] = n
		} else {
			conflicts++
		}
		lo = stamps[i].Earliest
	}
	var hi time.Time
	for i := len(stamps) - 1; i >= 0; i-- {
		if !stamps[i].Known() {
			continue
		}
		if n, ok := stamps[i].Narrow(time.Time{}, hi); ok {
			stamps[i] = n
		} else {
			conflicts++
		}
		hi = stamps[i].end()
	}
	return conflicts
}

// DeadlineOn rounds a deadline up to the next multiple of unit (a board
// that stamps to the minute gets deadlines on whole minutes, so every
// stamp is wholly before or wholly after it). unit <= 0 leaves d as it is;
// a deadline already on the unit stays. Units are counted from the Unix
// epoch, which is a whole minute in every time zone with a whole-minute
// offset (all zones in use today).
func DeadlineOn(d time.Time, unit time.Duration) time.Time {
	if unit <= 0 {
		return d
	}
	t := d.Truncate(unit)
	if t.Before(d) {
		t = t.Add(unit)
	}
	return t
}

// Unit is the width of a stamp of this precision read from text (the
// board's recorded time is within that much of the stamp's start).
func (p Precision) Unit() time.Duration {
	switch p {
	case PrecisionSecond:
		return time.Second
	case PrecisionMinute:
		return time.Minute
	case PrecisionHour:
		return time.Hour
	case PrecisionDay:
		return 24 * time.Hour
	}
	return 0
}

// UnreadableReason is what the player and the GM are told of a message
// whose stamp could not be read: it was not applied, and why, quoting the
// time as the board showed it.
func (s Stamp) UnreadableReason() string {
	shown := "an empty time"
	if s.Text != "" {
		shown = "“" + s.Text + "”"
	}
	return fmt.Sprintf("the bot could not read when this was made (the board showed %s: %s), so it was not applied; please send it again", shown, s.Err)
}
