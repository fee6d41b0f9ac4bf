package gameconfig

import (
	"fmt"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/forumgm/forumgm/rules"
)

// Bounds of the sign-up settings: every length of time is a tenth of a
// second to 366 days (as everywhere in a game file), an extension at most a
// week, and a table of at most MaxSeats (no game here seats more).
const (
	MinSignupLength       = 100 * time.Millisecond
	MaxSignupLength       = 366 * 24 * time.Hour
	MaxSignupExtension    = 7 * 24 * time.Hour
	DefaultSignupExtended = 24 * time.Hour
	MaxSeats              = 50
)

// Signups is the game file's `signups:` block, instead of `players:`
// (docs/signups.md): the bot posts a call for players in the game thread,
// players post /in or /out, and the game starts in the same thread with
// those who are in once it is full, or at the closing time if enough are
// in. It is the GM's setting only, kept with the game (GameConfig.Signups);
// where the sign-ups stand (the list, the closing time as extended) is the
// game's state while they run. The web desk's new-game form fills it too.
type Signups struct {
	// Min and Max players: the game starts as soon as Max are in, or at
	// the closing time with at least Min.
	Min int `json:"min" yaml:"min"`
	Max int `json:"max" yaml:"max"`
	// Close is when sign-ups close: a length of time from the call
	// ("48h", "2d", "90m"), or a time: RFC 3339 ("2026-03-01T20:00:00Z",
	// "2026-03-01T20:00:00-05:00") or "2026-03-01 20:00", in the board's
	// zone unless a zone name follows ("2026-03-01 20:00 Europe/London").
	Close string `json:"close" yaml:"close"`
	// Extension: with fewer than Min in at the closing time, sign-ups stay
	// open this much longer, once; then the game is cancelled if still
	// short. "0" cancels at once. Default 24h, at most 7d.
	Extension string `json:"extension,omitempty" yaml:"extension"`
	// GM names the GM's forum accounts (one name or a list): they run the
	// game and cannot sign up for it (the bot's own account never can).
	GM Names `json:"gm,omitempty" yaml:"gm"`
	// About is a line or two the call for players starts with (BBCode, the
	// GM's own words); default: which game it is.
	About string `json:"about,omitempty" yaml:"about"`
}

// Names is a list of names a GM may write as one name or as a list.
type Names []string

// UnmarshalYAML accepts "Ann" and [Ann, Ben].
func (n *Names) UnmarshalYAML(v *yaml.Node) error {
	if v.Kind == yaml.ScalarNode {
		*n = Names{v.Value}
		return nil
	}
	var list []string
	if err := v.Decode(&list); err != nil {
		return err
	}
	*n = list
	return nil
}

// Check refuses settings that cannot work for game g with these options and
// fixed setup, on a board that shows times in board, as of now: Min and Max
// must be seats the game can be set up with (it is set up once with each,
// from made-up names, as a dry run: a fixed setup naming players fails it),
// the closing time must be valid and in the future, the extension in range.
func (s *Signups) Check(g rules.Game, options, setup map[string]any, board *time.Location, now time.Time) error {
	if s == nil {
		return nil
	}
	switch {
	case s.Min < 1 || s.Max < 1:
		return fmt.Errorf("signups: min and max are the least and most players (both at least 1), not %d and %d", s.Min, s.Max)
	case s.Min > s.Max:
		return fmt.Errorf("signups: min %d is more than max %d", s.Min, s.Max)
	case s.Max > MaxSeats:
		return fmt.Errorf("signups: max %d: at most %d players", s.Max, MaxSeats)
	}
	for _, n := range []int{s.Min, s.Max} {
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf("Seat%d", i+1)
		}
		if _, _, err := g.Setup(rules.Config{Players: names, Options: rules.Options(options), Setup: setup, Seed: 1, Start: now}); err != nil {
			return fmt.Errorf("signups: %s cannot be set up with %d players (min %d, max %d): %v", g.Name(), n, s.Min, s.Max, err)
		}
	}
	close, err := s.Closing(now, board)
	if err != nil {
		return err
	}
	if !close.After(now) {
		return fmt.Errorf("signups: close %s is not in the future (%s)", s.Close, rules.WhenUTC(close, board))
	}
	if close.Sub(now) > MaxSignupLength {
		return fmt.Errorf("signups: close %s is more than 366 days away", s.Close)
	}
	if _, err := s.extension(); err != nil {
		return err
	}
	for _, n := range s.GM {
		if rules.NormName(n) == "" {
			return fmt.Errorf("signups: gm %q has no letters or digits", n)
		}
	}
	return nil
}

// Closing is when sign-ups called at from close, on a board showing times
// in board (nil: UTC).
func (s *Signups) Closing(from time.Time, board *time.Location) (time.Time, error) {
	if board == nil {
		board = time.UTC
	}
	text := strings.TrimSpace(s.Close)
	if text == "" {
		return time.Time{}, fmt.Errorf("signups: close is missing: a length of time from the call (48h, 2d) or a time (2026-03-01 20:00)")
	}
	if t, err := time.Parse(time.RFC3339, text); err == nil {
		return t.UTC(), nil
	}
	if wall, zone, ok := strings.Cut(text, " "); ok && len(wall) == len("2006-01-02") {
		clock, zoneName, _ := strings.Cut(strings.TrimSpace(zone), " ")
		loc := board
		if zoneName = strings.TrimSpace(zoneName); zoneName != "" {
			l, err := time.LoadLocation(zoneName)
			if err != nil || zoneName == "Local" {
				return time.Time{}, fmt.Errorf("signups: close %q: %q is not a time zone name like Europe/London", s.Close, zoneName)
			}
			loc = l
		}
		t, err := time.ParseInLocation("2006-01-02 15:04", wall+" "+clock, loc)
		if err != nil {
			return time.Time{}, fmt.Errorf("signups: close %q: write a time as 2026-03-01 20:00 (in the board's zone, or a zone name after it)", s.Close)
		}
		return t.UTC(), nil
	}
	d, err := ParseDuration(text)
	if err != nil {
		return time.Time{}, fmt.Errorf("signups: close %q: a length of time from the call (48h, 2d, 90m) or a time (2026-03-01 20:00, or RFC 3339)", s.Close)
	}
	if d < MinSignupLength || d > MaxSignupLength {
		return time.Time{}, fmt.Errorf("signups: close %s: a length from the call must be 0.1s to 366d", s.Close)
	}
	return from.Add(d).UTC(), nil
}

// ExtensionTime is how long sign-ups short of Min at the closing time stay
// open, once (0: the game is cancelled at once).
func (s *Signups) ExtensionTime() time.Duration {
	d, _ := s.extension()
	return d
}

func (s *Signups) extension() (time.Duration, error) {
	if strings.TrimSpace(s.Extension) == "" {
		return DefaultSignupExtended, nil
	}
	d, err := ParseDuration(s.Extension)
	if err != nil {
		return 0, fmt.Errorf("signups: extension: %v", err)
	}
	if d < 0 || d > MaxSignupExtension {
		return 0, fmt.Errorf("signups: extension %s: must be 0 (cancel at once) to 7d", s.Extension)
	}
	return d, nil
}
