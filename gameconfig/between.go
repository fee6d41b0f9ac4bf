package gameconfig

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// Between deadlines (docs/between-deadlines.md): the game file's `counts:`
// and `reminders:` blocks. Every key is optional; durations are written as
// for `extend` (30m, 6h, 2d), and the defaults suit the phase's length.

// Bounds of the settings: beyond them a value is a mistake in the file.
const (
	MaxCountGap    = 24 * time.Hour
	MaxCountEvery  = 7 * 24 * time.Hour
	MaxReminder    = 14 * 24 * time.Hour
	MaxReminders   = 10
	MaxProd        = 30 * 24 * time.Hour
	DefaultGap     = 30 * time.Minute
	DefaultProd    = 48 * time.Hour
	firstReminder  = 24 * time.Hour // at most this long before the deadline, by default
	secondReminder = 2 * time.Hour
)

// Counts is the `counts:` block: counts of the open phase in the thread.
type Counts struct {
	// Requests: players may ask for a count with a bold VOTECOUNT or COUNT
	// (default true).
	Requests *bool `json:"requests,omitempty" yaml:"requests"`
	// Gap is the least time between two counts posted on request (default
	// 30 minutes, or a tenth of the phase when that is shorter); a request
	// sooner is answered by the next count, when the gap has passed.
	Gap string `json:"gap,omitempty" yaml:"gap"`
	// Every posts a count this often while a phase is open, when it has
	// changed since the last (default: none).
	Every string `json:"every,omitempty" yaml:"every"`
}

// Reminders is the `reminders:` block: PMs before the deadline, a thread
// post naming who is missing, prods to silent players.
type Reminders struct {
	// Before: how long before each deadline the players who still have
	// something to do get a PM saying what and by when. Default: halfway
	// through the phase, but at most 24 hours before the deadline, and in
	// its last twelfth, at most 2 hours and at least a minute before. []
	// or off: none.
	Before *Offsets `json:"before,omitempty" yaml:"before"`
	// Thread also posts, at each of those times, who is still missing.
	Thread bool `json:"thread,omitempty" yaml:"thread"`
	// Prod PMs a player the game has not heard from (no post in the
	// thread, no PM to the bot) for this long (default 48h; off: never).
	Prod string `json:"prod,omitempty" yaml:"prod"`
}

// Offsets are the reminders' times before the deadline.
type Offsets []string

// UnmarshalYAML takes a list, or off / none for no reminders.
func (o *Offsets) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && isOff(n.Value) {
		*o = Offsets{}
		return nil
	}
	var l []string
	if err := n.Decode(&l); err != nil {
		return fmt.Errorf("reminders: before: a list of durations like [24h, 2h], or off")
	}
	*o = l
	return nil
}

func isOff(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "off", "none", "no", "false":
		return true
	}
	return false
}

// Check refuses settings that cannot work, naming the key.
func (c *Counts) Check() error {
	if c == nil {
		return nil
	}
	if _, err := between("counts", "gap", c.Gap, 0, MaxCountGap); err != nil {
		return err
	}
	_, err := between("counts", "every", c.Every, time.Second, MaxCountEvery)
	return err
}

// OnRequest says whether players may ask for counts.
func (c *Counts) OnRequest() bool { return c == nil || c.Requests == nil || *c.Requests }

// GapFor is the least time between counts on request in a phase lasting
// length (0: unknown, the default is then 30 minutes).
func (c *Counts) GapFor(length time.Duration) time.Duration {
	if c != nil && strings.TrimSpace(c.Gap) != "" {
		g, _ := between("counts", "gap", c.Gap, 0, MaxCountGap)
		return g
	}
	if length > 0 && length/10 < DefaultGap {
		return length / 10
	}
	return DefaultGap
}

// EveryTime is how often a count is posted unasked (0: never).
func (c *Counts) EveryTime() time.Duration {
	if c == nil {
		return 0
	}
	e, _ := between("counts", "every", c.Every, time.Second, MaxCountEvery)
	return e
}

// Check refuses settings that cannot work, naming the key.
func (r *Reminders) Check() error {
	if r == nil {
		return nil
	}
	if r.Before != nil {
		if len(*r.Before) > MaxReminders {
			return fmt.Errorf("reminders: before: at most %d times, not %d", MaxReminders, len(*r.Before))
		}
		seen := map[time.Duration]bool{}
		for _, s := range *r.Before {
			d, err := between("reminders", "before", s, time.Second, MaxReminder)
			if err != nil {
				return err
			}
			if d == 0 {
				return fmt.Errorf("reminders: before: %q: a reminder at the deadline is too late", s)
			}
			if seen[d] {
				return fmt.Errorf("reminders: before: %s is there twice", s)
			}
			seen[d] = true
		}
	}
	if isOff(r.Prod) {
		return nil
	}
	_, err := between("reminders", "prod", r.Prod, time.Second, MaxProd)
	return err
}

// BeforeFor is when, before the deadline of a phase lasting length, the
// reminders go: the game file's times or the default, the earliest
// first. A reminder that would come before the phase opened is left out
// by the moderator.
func (r *Reminders) BeforeFor(length time.Duration) []time.Duration {
	var out []time.Duration
	if r != nil && r.Before != nil {
		for _, s := range *r.Before {
			if d, err := between("reminders", "before", s, time.Second, MaxReminder); err == nil && d > 0 {
				out = append(out, d)
			}
		}
	} else if length > 0 {
		out = []time.Duration{min(length/2, firstReminder)}
		if last := min(length/12, secondReminder); last >= time.Minute {
			// Seconds before the deadline is too late to be of use.
			out = append(out, last)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return slices.Compact(out)
}

// ProdAfter is how long a player may be silent before a prod (0: never).
func (r *Reminders) ProdAfter() time.Duration {
	if r == nil || strings.TrimSpace(r.Prod) == "" {
		return DefaultProd
	}
	if isOff(r.Prod) {
		return 0
	}
	p, _ := between("reminders", "prod", r.Prod, time.Second, MaxProd)
	return p
}

// InThread says whether reminders are also posted in the thread.
func (r *Reminders) InThread() bool { return r != nil && r.Thread }

// between reads a duration setting of block: empty is 0; else it must be
// lo to hi.
func between(block, name, s string, lo, hi time.Duration) (time.Duration, error) {
	if strings.TrimSpace(s) == "" {
		return 0, nil
	}
	d, err := ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%s: %s: %v", block, name, err)
	}
	if d < lo || d > hi {
		from := durationText(lo)
		if lo == 0 {
			from = "0"
		}
		return 0, fmt.Errorf("%s: %s %s: must be %s to %s", block, name, s, from, durationText(hi))
	}
	return d, nil
}

// BetweenState is what the moderator has done between deadlines: in the
// current phase (its counts, whether a request waits for the next one, the
// reminder times it has handled) and in the game (each player's last
// prod). It is kept with the game's settings and saved with the step that
// changed it, in the same transaction as what that step queued, so a
// restart neither repeats nor forgets any of it.
type BetweenState struct {
	Phase string `json:"phase"`
	// Counts is how many counts the phase has had; CountAt when the last
	// went out; CountSum a digest of its body (a scheduled count goes out
	// only when it has changed).
	Counts   int       `json:"counts,omitempty"`
	CountAt  time.Time `json:"count_at,omitzero"`
	CountSum string    `json:"count_sum,omitempty"`
	// CountKey is the last count's outbox marker: the gap runs from when
	// it went on the board (a count that waited in the outbox behind
	// other messages must not be followed sooner than the gap there).
	CountKey string `json:"count_key,omitempty"`
	// Checked is when a count on the GM's schedule was last due (posted
	// or, unchanged, not).
	Checked time.Time `json:"checked,omitzero"`
	// Asked: a player's request came inside the gap and waits for the
	// next count.
	Asked bool `json:"asked,omitempty"`
	// Reminded is how many of the phase's reminder times are handled (the
	// earliest first).
	Reminded int `json:"reminded,omitempty"`
	// Prodded is when each player (by slot) was last prodded, in any phase.
	Prodded map[string]time.Time `json:"prodded,omitempty"`
}

// For is the state for phase: b's own when it is b's phase, else a fresh
// one keeping the prods.
func (b *BetweenState) For(phase string) *BetweenState {
	if b != nil && b.Phase == phase {
		c := *b
		c.Prodded = maps.Clone(b.Prodded)
		return &c
	}
	n := &BetweenState{Phase: phase}
	if b != nil {
		n.Prodded = maps.Clone(b.Prodded)
	}
	return n
}
