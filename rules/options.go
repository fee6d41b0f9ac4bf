package rules

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Options are a game's GM-settable options by their rulings names, as read
// from YAML (values may be ints, floats, strings or bools).
type Options map[string]any

// Int reads an integer option, or def when unset.
func (o Options) Int(name string, def int) (int, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return x, nil
	case int64:
		return int(x), nil
	case float64:
		// Compared before converting: int(x) of a NaN, an infinity or a
		// float past int's range is undefined in Go.
		if x == math.Trunc(x) && math.Abs(x) <= maxWhole {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("option %s: %v is not a whole number", name, v)
}

// maxWhole is the largest whole number a float64 holds exactly (2^53); no
// option needs more, and past it YAML's 1e300 would convert to garbage.
const maxWhole = 1 << 53

// IntIn reads a whole-number option that must lie in lo..hi.
func (o Options) IntIn(name string, def, lo, hi int) (int, error) {
	n, err := o.Int(name, def)
	if err != nil {
		return 0, err
	}
	if n < lo || n > hi {
		return 0, fmt.Errorf("option %s: must be %d to %d, not %d", name, lo, hi, n)
	}
	return n, nil
}

// Float reads a number option (hours may be fractional in fast games).
func (o Options) Float(name string, def float64) (float64, error) {
	v, ok := o[name]
	if !ok || v == nil {
		return def, nil
	}
	switch x := v.(type) {
	case int:
		return float64(x), nil
	case int64:
		return float64(x), nil
	case float64:
		// YAML's .nan and .inf are float64s; no option means either.
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			return x, nil
		}
	case string:
		// ParseFloat takes "NaN" and "Inf" too; refused the same way.
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
	}
	return 0, fmt.Errorf("option %s: %v is not a finite number", name, v)
}

// The bounds on every length-of-time option (a phase, a turn, a round, a
// break): the fast demo (`--speed 8`) runs sub-second breaks on a local
// board, nothing sensible is shorter, and longer than a year is a typo — 1e300 hours overflows time.Duration and
// puts the deadline centuries in the past.
const (
	MinSpan = 100 * time.Millisecond
	MaxSpan = 366 * 24 * time.Hour
)

// Span reads a length of time given as a number of units (hours, minutes),
// checked finite and between MinSpan and MaxSpan; zeroOK also lets it be 0
// (a break that can be left out).
func (o Options) Span(name string, def float64, unit time.Duration, zeroOK bool) (float64, error) {
	f, err := o.Float(name, def)
	if err != nil {
		return 0, err
	}
	if zeroOK && f == 0 {
		return 0, nil
	}
	lo, hi := float64(MinSpan)/float64(unit), float64(MaxSpan)/float64(unit)
	if f < lo || f > hi {
		zero := ""
		if zeroOK {
			zero = "0 or "
		}
		return 0, fmt.Errorf("option %s: must be %s%s to %s %s (a tenth of a second to 366 days), not %v",
			name, zero, trimFloat(lo), trimFloat(hi), unitName(unit), f)
	}
	return f, nil
}

func trimFloat(f float64) string { return strconv.FormatFloat(f, 'g', 6, 64) }

func unitName(u time.Duration) string {
	switch u {
	case time.Hour:
		return "hours"
	case time.Minute:
		return "minutes"
	case time.Second:
		return "seconds"
	}
	return "× " + u.String()
}

// String reads a string option (lower-cased, trimmed), or def.
func (o Options) String(name, def string) string {
	v, ok := o[name]
	if !ok || v == nil {
		return def
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "on"
		}
		return "off"
	}
	return strings.ToLower(strings.TrimSpace(fmt.Sprint(v)))
}

// Check refuses option names the game does not know, so a GM's typo is an
// error and not a silently ignored setting.
func (o Options) Check(known ...string) error {
	ok := map[string]bool{}
	for _, k := range known {
		ok[k] = true
	}
	var bad []string
	for k := range o {
		if !ok[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		sort.Strings(known)
		noun := "unknown option"
		if len(bad) > 1 {
			noun = "unknown options"
		}
		return fmt.Errorf("%s %s (this game knows: %s)", noun,
			strings.Join(bad, ", "), strings.Join(known, ", "))
	}
	return nil
}
