package games

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/rules"
)

// numericOptions are every game's number options; nonNumeric the others.
// TestEveryOptionIsChecked fails when a game gains an option listed in
// neither, so a new duration cannot skip the bad-number table below.
var numericOptions = map[string][]string{
	"resistance": {"rejection_limit", "phase_hours"},
	"protest":    {"sites", "min_players", "max_players", "turn_hours", "columns", "rows"},
	"nations":    {"rounds", "round_minutes", "break_minutes"},
}

var nonNumeric = map[string][]string{
	"resistance": {"chain_spies", "missing_vote", "missing_proposal"},
	"protest":    {"layout"},
	"nations":    {"awards"},
}

// knownOptions asks a game which options it knows, from the error its
// Setup gives for an unknown one.
func knownOptions(t *testing.T, g rules.Game) []string {
	t.Helper()
	cfg := demoConfig(t, g)
	cfg.Options["no_such_option"] = 1
	_, _, err := g.Setup(cfg)
	if err == nil {
		t.Fatalf("%s: an unknown option was accepted", g.Name())
	}
	m := regexp.MustCompile(`knows: ([^)]*)\)`).FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%s: the unknown-option error does not list the known ones: %v", g.Name(), err)
	}
	return strings.Split(m[1], ", ")
}

func demoConfig(t *testing.T, g rules.Game) rules.Config {
	t.Helper()
	d, ok := g.(rules.Demo)
	if !ok {
		t.Fatalf("%s has no demo table to start from", g.Name())
	}
	tb := d.DemoTable(1)
	return rules.Config{Players: tb.Players, Options: maps.Clone(tb.Options), Setup: maps.Clone(tb.Setup),
		Seed: 1, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
}

func TestEveryOptionIsChecked(t *testing.T) {
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		listed := map[string]bool{}
		for _, o := range append(append([]string(nil), numericOptions[name]...), nonNumeric[name]...) {
			listed[o] = true
		}
		for _, o := range knownOptions(t, g) {
			if !listed[o] {
				t.Errorf("%s: option %s is in neither numericOptions nor nonNumeric of this test", name, o)
			}
		}
	}
}

// TestBadNumberOptions: YAML's .nan and .inf, absurd sizes and negative
// numbers in any number option are a setup error naming the option, never a
// panic and never a deadline centuries away.
func TestBadNumberOptions(t *testing.T) {
	bad := []any{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, -1.0, -1, 1 << 62,
		"NaN", "inf", "-Inf", "1e300", "", "abc", true}
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		if _, _, err := g.Setup(demoConfig(t, g)); err != nil {
			t.Fatalf("%s: the demo table itself is refused: %v", name, err)
		}
		for _, opt := range numericOptions[name] {
			for _, v := range bad {
				t.Run(fmt.Sprintf("%s/%s=%v", name, opt, v), func(t *testing.T) {
					cfg := demoConfig(t, g)
					if opt == "columns" || opt == "rows" {
						delete(cfg.Setup, "map") // the setup's map would override the option
					}
					cfg.Options[opt] = v
					var err error
					func() {
						defer func() {
							if r := recover(); r != nil {
								err = fmt.Errorf("panic: %v", r)
								t.Errorf("panicked: %v", r)
							}
						}()
						_, _, err = g.Setup(cfg)
					}()
					if err == nil {
						t.Fatalf("accepted")
					}
					if !strings.Contains(err.Error(), opt) {
						t.Errorf("the error does not name the option %s: %v", opt, err)
					}
				})
			}
		}
	}
}

// TestDeadlinesStayNear: the longest phase any game accepts still puts its
// first deadline within MaxSpan of the start, and one past it is refused.
func TestDeadlinesStayNear(t *testing.T) {
	spans := map[string]struct {
		opt  string
		unit time.Duration
	}{
		"resistance": {"phase_hours", time.Hour},
		"protest":    {"turn_hours", time.Hour},
		"nations":    {"round_minutes", time.Minute},
	}
	for _, name := range rules.Names() {
		sp, ok := spans[name]
		if !ok {
			t.Errorf("%s: no length-of-time option in this test", name)
			continue
		}
		g, _ := rules.Lookup(name)
		most := float64(rules.MaxSpan) / float64(sp.unit)
		for _, c := range []struct {
			v  float64
			ok bool
		}{{most, true}, {most * 1.001, false}, {float64(rules.MinSpan) / float64(sp.unit), true}, {float64(rules.MinSpan) / float64(sp.unit) / 2, false}} {
			cfg := demoConfig(t, g)
			cfg.Options[sp.opt] = c.v
			st, _, err := g.Setup(cfg)
			if (err == nil) != c.ok {
				t.Errorf("%s %s=%v: err %v, want ok=%v", name, sp.opt, c.v, err, c.ok)
				continue
			}
			if err != nil {
				continue
			}
			dl := g.Status(st).Deadline
			if dl.Before(cfg.Start) || dl.After(cfg.Start.Add(rules.MaxSpan+time.Minute)) {
				t.Errorf("%s %s=%v: deadline %v, start %v", name, sp.opt, c.v, dl, cfg.Start)
			}
		}
	}
}
