package rules

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Describer is a game that describes how it is set up: its players and
// options with their bounds, for a form (the desk's new-game form). The
// bounds are the ones the game's Setup checks; each game's tests hold the
// two together.
type Describer interface {
	Game
	Describe() Description
}

// Description is a game as a GM sets it up.
type Description struct {
	Title string // "The Resistance"
	// Summary is a sentence on what the game is.
	Summary string
	// MinPlayers and MaxPlayers bound the players (0: no bound; options
	// may narrow them: Setup has the last word).
	MinPlayers, MaxPlayers int
	Options                []OptionSpec
}

// OptionKind is what an option's value is.
type OptionKind string

// The kinds of options.
const (
	WholeOption   OptionKind = "whole"   // a whole number in Min..Max
	HoursOption   OptionKind = "hours"   // a length of time in hours (MinSpan..MaxSpan)
	MinutesOption OptionKind = "minutes" // a length of time in minutes
	ChoiceOption  OptionKind = "choice"  // one of Choices
	TitlesOption  OptionKind = "titles"  // a title (text) for each of Keys; "" drops that one
)

// OptionSpec describes one option.
type OptionSpec struct {
	Name    string // as in the game file
	Label   string // for people: "Rejected proposals before the spies win"
	Help    string // a sentence more
	Kind    OptionKind
	Default string // as a game file would write it
	// Min and Max bound a whole number (a span's bounds are MinSpan and
	// MaxSpan, see Bounds).
	Min, Max int
	// ZeroOK lets a span be 0 (a break that can be left out).
	ZeroOK  bool
	Choices []string // ChoiceOption
	// Keys are TitlesOption's entries, and KeyDefaults their titles.
	Keys        []string
	KeyDefaults []string
}

// Bounds are the least and the most a number option may be, in its unit.
func (o OptionSpec) Bounds() (lo, hi float64) {
	switch o.Kind {
	case HoursOption:
		lo, hi = float64(MinSpan)/float64(time.Hour), float64(MaxSpan)/float64(time.Hour)
	case MinutesOption:
		lo, hi = float64(MinSpan)/float64(time.Minute), float64(MaxSpan)/float64(time.Minute)
	default:
		lo, hi = float64(o.Min), float64(o.Max)
	}
	if o.ZeroOK {
		lo = 0
	}
	return lo, hi
}

// Read checks an option as written in a form, with the very checks the
// game's Setup makes (Options.IntIn, Options.Span), and returns it as a
// game file keeps it: an int, a float64 or a string; nil when raw is
// empty (the default). A TitlesOption is read with ReadTitles.
func (o OptionSpec) Read(raw string) (any, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, nil
	}
	opts := Options{o.Name: raw}
	switch o.Kind {
	case WholeOption:
		return opts.IntIn(o.Name, 0, o.Min, o.Max)
	case HoursOption:
		return opts.Span(o.Name, 0, time.Hour, o.ZeroOK)
	case MinutesOption:
		return opts.Span(o.Name, 0, time.Minute, o.ZeroOK)
	case ChoiceOption:
		v := opts.String(o.Name, "")
		if !slices.Contains(o.Choices, v) {
			return nil, fmt.Errorf("option %s must be %s, not %q", o.Name, orList(o.Choices), raw)
		}
		return v, nil
	}
	return nil, fmt.Errorf("option %s: not a single value", o.Name)
}

// ReadTitles reads a TitlesOption from one title per key (by key): nil
// when every title is its default, else a map of every key to its title
// ("" drops that one).
func (o OptionSpec) ReadTitles(titles map[string]string) map[string]any {
	out := map[string]any{}
	changed := false
	for i, k := range o.Keys {
		t, ok := titles[k]
		if !ok {
			t = o.KeyDefaults[i]
		}
		t = strings.TrimSpace(t)
		if t != o.KeyDefaults[i] {
			changed = true
		}
		out[k] = t
	}
	if !changed {
		return nil
	}
	return out
}

func orList(xs []string) string {
	switch len(xs) {
	case 0:
		return "nothing"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
