package games

import (
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/rules"
)

// TestDescriptionsAreSetup holds each game's Describe (what the desk's
// new-game form is built from) to its Setup: every option Setup knows is
// described and no other; a number at its bounds passes the bounds check
// and one past them is refused by Setup, naming the option; every choice
// and default is accepted; and for a range of typed values the form's
// Read accepts exactly what Setup accepts.
func TestDescriptionsAreSetup(t *testing.T) {
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		d, ok := g.(rules.Describer)
		if !ok {
			t.Errorf("%s does not describe its options (rules.Describer): the desk cannot offer a form for it", name)
			continue
		}
		desc := d.Describe()
		if desc.Title == "" || desc.Summary == "" {
			t.Errorf("%s: a description without a title or summary", name)
		}
		var described []string
		for _, o := range desc.Options {
			described = append(described, o.Name)
			if o.Label == "" {
				t.Errorf("%s: option %s has no label", name, o.Name)
			}
		}
		known := knownOptions(t, g)
		sort.Strings(described)
		sort.Strings(known)
		if !slices.Equal(described, known) {
			t.Errorf("%s: described options %v, Setup knows %v", name, described, known)
		}
		setup := func(opt string, v any) error {
			cfg := demoConfig(t, g)
			if opt == "columns" || opt == "rows" || opt == "layout" {
				delete(cfg.Setup, "map") // the setup's map would override the option
			}
			if opt == "min_players" || opt == "max_players" {
				// Either bound may move past the table's size; the check
				// under test is the option's own.
				cfg.Options["min_players"], cfg.Options["max_players"] = 1, 100
			}
			cfg.Options[opt] = v
			_, _, err := g.Setup(cfg)
			return err
		}
		refusesOption := func(err error, opt string) bool {
			return err != nil && strings.Contains(err.Error(), opt)
		}
		// boundsError: Setup refused a value as such (not as clashing
		// with another option or the map).
		boundsError := func(err error) bool {
			return err != nil && (strings.Contains(err.Error(), "must be") || strings.Contains(err.Error(), "not a whole number") ||
				strings.Contains(err.Error(), "not a finite number") || strings.Contains(err.Error(), "unknown"))
		}
		for _, o := range desc.Options {
			t.Run(name+"/"+o.Name, func(t *testing.T) {
				if o.Kind == rules.TitlesOption {
					if len(o.Keys) == 0 || len(o.Keys) != len(o.KeyDefaults) {
						t.Fatalf("titles option without keys and their defaults: %+v", o)
					}
					if err := setup(o.Name, o.ReadTitles(map[string]string{o.Keys[0]: "Top Nation", o.Keys[1]: ""})); err != nil {
						t.Errorf("titles from the form refused: %v", err)
					}
					if o.ReadTitles(map[string]string{}) != nil {
						t.Error("titles left as they are are not the default")
					}
					return
				}
				def, err := o.Read(o.Default)
				if err != nil || def == nil {
					t.Fatalf("the default %q does not read: %v", o.Default, err)
				}
				if err := setup(o.Name, def); err != nil {
					t.Errorf("the default %q refused by Setup: %v", o.Default, err)
				}
				switch o.Kind {
				case rules.ChoiceOption:
					for _, c := range o.Choices {
						if err := setup(o.Name, c); err != nil {
							t.Errorf("choice %q refused by Setup: %v", c, err)
						}
					}
					if _, err := o.Read("no-such-choice"); err == nil {
						t.Error("Read took a value that is no choice")
					}
					if err := setup(o.Name, "no-such-choice"); !refusesOption(err, o.Name) {
						t.Errorf("Setup took a value that is no choice: %v", err)
					}
				default:
					lo, hi := o.Bounds()
					for _, c := range []struct {
						v  float64
						ok bool
					}{{lo, true}, {hi, true}, {hi + 1, false}, {lo - 1, false}} {
						if lo == 0 && c.v == -1 && o.Kind != rules.WholeOption {
							c.v = -0.5
						}
						raw := strconv.FormatFloat(c.v, 'f', -1, 64)
						v, rerr := o.Read(raw)
						if (rerr == nil) != c.ok {
							t.Errorf("Read(%s): %v, want ok=%v", raw, rerr, c.ok)
						}
						err := setup(o.Name, c.v)
						if c.ok && refusesOption(err, o.Name) && boundsError(err) {
							t.Errorf("%s at its bound %v refused by Setup's bounds: %v", o.Name, c.v, err)
						}
						if !c.ok && !refusesOption(err, o.Name) {
							t.Errorf("%s=%v past its bound: Setup says %v", o.Name, c.v, err)
						}
						if c.ok && rerr == nil && err == nil {
							if err := setup(o.Name, v); err != nil {
								t.Errorf("the value Read gives for %s (%v) is refused by Setup: %v", raw, v, err)
							}
						}
					}
				}
				// Read and Setup agree on what a person may type: what Read
				// refuses Setup refuses, and what Setup refuses as such
				// (not for clashing with another option) Read refuses.
				for _, raw := range []string{"0", "1", "2", "5", "7.5", "48", "-3", "abc", "1e300", "NaN", "inf", "10000000", " 12 "} {
					_, rerr := o.Read(raw)
					serr := setup(o.Name, raw)
					switch {
					case rerr != nil && !refusesOption(serr, o.Name):
						t.Errorf("%q: Read refuses (%v), Setup says %v", raw, rerr, serr)
					case rerr == nil && refusesOption(serr, o.Name) && boundsError(serr):
						t.Errorf("%q: Read takes it, Setup refuses it: %v", raw, serr)
					}
				}
			})
		}
		if desc.MinPlayers < 1 || (desc.MaxPlayers != 0 && desc.MaxPlayers < desc.MinPlayers) {
			t.Errorf("%s: players %d to %d", name, desc.MinPlayers, desc.MaxPlayers)
		}
	}
}
