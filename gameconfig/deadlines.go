package gameconfig

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/schedule"
)

// Caps on the deadline settings: a grace period or a replacement's time
// longer than a week is a mistake in the game file, not a setting.
const (
	MaxGrace                = 7 * 24 * time.Hour
	MaxReplacementExtension = 7 * 24 * time.Hour
)

// Deadlines is the game file's `deadlines:` block (docs/schedules.md):
// when phases close besides the game's own lengths of time, how long a
// phase still missing actions waits at its deadline, and how much time a
// replacement player brings. Every field is optional; durations are
// written as for `extend` (24h, 90m, 2d).
type Deadlines struct {
	// At, with Zone and Days, is the schedule: a phase of one of Phases
	// closes at the first At on one of Days (none: every day) in Zone
	// (none: the board's zone) that is at least Minimum after it opened
	// (default: half the shortest gap between two slots).
	At      string   `json:"at,omitempty" yaml:"at"`
	Zone    string   `json:"zone,omitempty" yaml:"zone"`
	Days    []string `json:"days,omitempty" yaml:"days"`
	Minimum string   `json:"minimum,omitempty" yaml:"minimum"`
	// Phases are the kinds of phase the schedule sets (rules.KindsOf;
	// default the game's main kinds); the others keep the game's lengths.
	Phases []string `json:"phases,omitempty" yaml:"phases"`
	// Grace: a phase still waiting for someone at its deadline stays open
	// up to this long, and closes as soon as everyone has acted.
	Grace string `json:"grace,omitempty" yaml:"grace"`
	// ReplacementExtension: `replace` leaves the replacement at least this
	// long before the current phase closes, moving the deadline if need be.
	ReplacementExtension string `json:"replacement_extension,omitempty" yaml:"replacement_extension"`
}

// Check refuses settings that cannot work for game g, whose board shows
// times in board.
func (d *Deadlines) Check(g rules.Game, board *time.Location) error {
	if d == nil {
		return nil
	}
	if d.At == "" && (d.Zone != "" || len(d.Days) > 0 || d.Minimum != "" || len(d.Phases) > 0) {
		return fmt.Errorf("deadlines: zone, days, minimum and phases belong to a schedule, which needs at (a clock time like 21:00)")
	}
	if _, err := d.Schedule(board); err != nil {
		return err
	}
	all, _ := rules.KindsOf(g)
	for _, k := range d.Phases {
		if !slices.Contains(all, k) {
			return fmt.Errorf("deadlines: phases: %s has no %q phases (it has %s)", g.Name(), k, strings.Join(all, ", "))
		}
	}
	if _, err := span("grace", d.Grace, MaxGrace); err != nil {
		return err
	}
	_, err := span("replacement_extension", d.ReplacementExtension, MaxReplacementExtension)
	return err
}

// Schedule is the schedule the block sets (nil: none), its zone the
// board's when the block names none.
func (d *Deadlines) Schedule(board *time.Location) (*schedule.Schedule, error) {
	if d == nil || d.At == "" {
		return nil, nil
	}
	loc := board
	if d.Zone != "" {
		var err error
		if loc, err = time.LoadLocation(d.Zone); err != nil || d.Zone == "Local" {
			return nil, fmt.Errorf("deadlines: zone %q: not a time zone name like Europe/London or America/New_York", d.Zone)
		}
	}
	var min *time.Duration
	if d.Minimum != "" {
		m, err := span("minimum", d.Minimum, schedule.MaxMinimum)
		if err != nil {
			return nil, err
		}
		min = &m
	}
	s, err := schedule.New(d.At, loc, d.Days, min)
	if err != nil {
		return nil, fmt.Errorf("deadlines: %v", err)
	}
	return &s, nil
}

// Scheduled says whether the schedule (if any) sets the deadline of a
// phase of kind.
func (d *Deadlines) Scheduled(g rules.Game, kind string) bool {
	if d == nil || d.At == "" || kind == "" {
		return false
	}
	phases := d.Phases
	if len(phases) == 0 {
		_, phases = rules.KindsOf(g)
	}
	return slices.Contains(phases, kind)
}

// GraceTime is the grace period (0: none).
func (d *Deadlines) GraceTime() time.Duration {
	if d == nil {
		return 0
	}
	g, _ := span("grace", d.Grace, MaxGrace)
	return g
}

// ReplacementTime is the time a replacement brings (0: none).
func (d *Deadlines) ReplacementTime() time.Duration {
	if d == nil {
		return 0
	}
	r, _ := span("replacement_extension", d.ReplacementExtension, MaxReplacementExtension)
	return r
}

// span reads a duration setting: empty is 0; it must be 0 to max.
func span(name, s string, max time.Duration) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("deadlines: %s: %v", name, err)
	}
	if d < 0 || d > max {
		return 0, fmt.Errorf("deadlines: %s %s: must be 0 to %s", name, s, durationText(max))
	}
	return d, nil
}

func durationText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return d.String()
}
