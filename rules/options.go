package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
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
		if x == float64(int(x)) {
			return int(x), nil
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(x)); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("option %s: %v is not a whole number", name, v)
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
		return x, nil
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, nil
		}
	}
	return 0, fmt.Errorf("option %s: %v is not a number", name, v)
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
