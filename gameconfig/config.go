// Package gameconfig is how a game is set up and where it is played: the game
// file a GM writes, the game's rules settings, its board and bot account, and
// reading the bot's password from where the GM put it (an environment
// variable or an owner-only file). The moderator stores these with the game;
// the forum connection is opened from them.
package gameconfig

import (
	"fmt"
	"math"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/rules"
)

// GameConfig is what a game is set up from, kept with the game so its state
// can be rebuilt from the seed and the journal at any time.
type GameConfig struct {
	Players []string            `json:"players"`
	Aliases map[string][]string `json:"aliases,omitempty"`
	Options map[string]any      `json:"options,omitempty"`
	Setup   map[string]any      `json:"setup,omitempty"`
	Seed    int64               `json:"seed"`
	Start   time.Time           `json:"start"`
	// Instance tells this game's markers from an earlier game's of the
	// same name (drawn at creation).
	Instance string `json:"instance,omitempty"`
	// OpeningPost is the forum id of the bot's opening post, once it is
	// confirmed on the board (the moderator then moves Start to when it
	// went up): a thread post with a larger id belongs to the game.
	OpeningPost string `json:"opening_post,omitempty"`
	// PublicURL is the web desk's address as players reach it
	// (https://desk.example.org), set when the GM opens the game's public
	// page: posts that show a map then carry its picture, served by the
	// desk at PublicURL/p/NAME/map/TURN.png. Checked by CheckPublicURL.
	PublicURL string `json:"public_url,omitempty"`
}

// Rules turns it into the engine's config.
func (c GameConfig) Rules() rules.Config {
	return rules.Config{Players: c.Players, Aliases: c.Aliases, Options: rules.Options(c.Options), Setup: c.Setup, Seed: c.Seed, Start: c.Start}
}

// ForumConfig is where a game is played. The password itself is never kept:
// only where to find it.
type ForumConfig struct {
	URL    string `json:"url" yaml:"url"`       // board root, e.g. http://127.0.0.1:8080/
	Engine string `json:"engine" yaml:"engine"` // a built-in profile: phpbb | mybb | smf
	// Profile is a GM's profile file (docs/profiles.md), instead of or on
	// top of the engine; absolute once the game file is loaded.
	Profile string `json:"profile,omitempty" yaml:"profile"`
	Forum   string `json:"forum,omitempty" yaml:"forum"`
	Thread  string `json:"thread" yaml:"thread"`
	Bot     string `json:"bot" yaml:"bot"` // the bot account's user name
	// PasswordEnv names an environment variable holding the bot's password;
	// PasswordFile a file readable only by its owner.
	PasswordEnv  string `json:"password_env,omitempty" yaml:"password_env"`
	PasswordFile string `json:"password_file,omitempty" yaml:"password_file"`
	// PollSeconds is how often the thread and inbox are read.
	PollSeconds float64 `json:"poll_seconds,omitempty" yaml:"poll_seconds"`
	// FloodSeconds fixes the least gap between two of the bot's posts/PMs
	// (0: a flood-exempt account); unset, it is learned from the board.
	FloodSeconds *float64 `json:"flood_seconds,omitempty" yaml:"flood_seconds"`
	// DeadlineUnitSeconds: deadlines are rounded up to a multiple of this
	// (default: the board's stamp unit, a minute on phpBB and MyBB, so no
	// minute stamp straddles a deadline; 0 turns rounding off, for phases
	// of seconds as in the demo).
	DeadlineUnitSeconds *float64 `json:"deadline_unit_seconds,omitempty" yaml:"deadline_unit_seconds"`
	// RequestsPerSecond caps requests to the board (default 1).
	RequestsPerSecond float64 `json:"requests_per_second,omitempty" yaml:"requests_per_second"`
	// TimeZone is the bot account's time zone on the board (its profile
	// setting), when it differs from the engine profile's: how the board
	// shows relative times to the bot, and the zone deadlines are written in.
	TimeZone string `json:"time_zone,omitempty" yaml:"time_zone"`
	// OutageExtension: when the bot could not read the board for a while
	// (an outage), the phase's deadline moves on by that time and the
	// thread is told why (README "Outages"). On unless set to false.
	OutageExtension *bool `json:"outage_extension,omitempty" yaml:"outage_extension"`
}

// ExtendsForOutages says whether an outage moves the deadline on.
func (f ForumConfig) ExtendsForOutages() bool {
	return f.OutageExtension == nil || *f.OutageExtension
}

// BoardProfile is the engine profile the game is played with: a built-in
// one, or the GM's profile file, with the game's time zone if it sets one.
func (f ForumConfig) BoardProfile() (forum.Profile, error) {
	p, err := f.LoadProfile()
	if err != nil {
		return p, err
	}
	if f.TimeZone != "" {
		p.TimeZone = f.TimeZone
	}
	return p, nil
}

// Location is the board's time zone for the bot account: what people read
// deadlines in.
func (f ForumConfig) Location() (*time.Location, error) {
	p, err := f.BoardProfile()
	if err != nil {
		return nil, err
	}
	loc, err := p.Location()
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", p.TimeZone, err)
	}
	return loc, nil
}

// LoadProfile is the board's profile: the GM's profile file when the game
// names one, else the built-in profile of its engine.
func (f ForumConfig) LoadProfile() (forum.Profile, error) {
	if f.Profile != "" {
		return forum.LoadProfile(f.Profile)
	}
	p, ok := forum.Builtin(f.Engine)
	if !ok {
		return forum.Profile{}, fmt.Errorf("forum engine %q: one of %s, or a profile file (profile: FILE)", f.Engine, strings.Join(forum.BuiltinNames(), ", "))
	}
	return p, nil
}

// ThreadURL is the game thread's address, as a person would open it.
func (f ForumConfig) ThreadURL() string {
	if p, err := f.LoadProfile(); err == nil {
		if u, err := forum.Resolve(f.URL, p.ThreadPageURL(f.Thread, 1)); err == nil {
			return u
		}
	}
	return f.URL + " (thread " + f.Thread + ")"
}

// Check refuses forum numbers that are not finite or out of any sane range
// (YAML's .nan and .inf, 1e300): each would become an undefined
// time.Duration in the poller or the flood wait.
func (f ForumConfig) Check() error {
	if err := checkNumber("poll_seconds", f.PollSeconds, 0.05, 86400, true); err != nil {
		return err
	}
	if f.FloodSeconds != nil {
		if err := checkNumber("flood_seconds", *f.FloodSeconds, 0, 3600, true); err != nil {
			return err
		}
	}
	return checkNumber("requests_per_second", f.RequestsPerSecond, 0.001, 1000, true)
}

// checkNumber: v must be finite and in lo..hi (or 0, the default, when zeroOK).
func checkNumber(name string, v, lo, hi float64, zeroOK bool) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("forum %s: %v is not a finite number", name, v)
	}
	if (zeroOK && v == 0) || (v >= lo && v <= hi) {
		return nil
	}
	return fmt.Errorf("forum %s: must be %v to %v, not %v", name, lo, hi, v)
}

// Poll is the polling interval.
func (f ForumConfig) Poll() time.Duration {
	if f.PollSeconds <= 0 {
		return 30 * time.Second
	}
	return time.Duration(f.PollSeconds * float64(time.Second))
}

// Credentials reads the bot's password from where the GM put it: an
// environment variable, or a file that only its owner can read (a password
// file anyone can read is refused rather than used).
func (f ForumConfig) Credentials() (forum.Credentials, error) {
	c := forum.Credentials{Username: f.Bot}
	switch {
	case f.PasswordEnv != "":
		v, ok := os.LookupEnv(f.PasswordEnv)
		if !ok || v == "" {
			return c, fmt.Errorf("the bot's password: environment variable %s is not set", f.PasswordEnv)
		}
		if strings.TrimSpace(v) == "" {
			return c, fmt.Errorf("the bot's password: environment variable %s holds only white space", f.PasswordEnv)
		}
		c.Password = v
	case f.PasswordFile != "":
		fi, err := os.Stat(f.PasswordFile)
		if err != nil {
			return c, fmt.Errorf("the bot's password file: %w", err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			return c, fmt.Errorf("the bot's password file %s can be read by others (mode %v); chmod 600 it", f.PasswordFile, fi.Mode().Perm())
		}
		b, err := os.ReadFile(f.PasswordFile)
		if err != nil {
			return c, fmt.Errorf("the bot's password file: %w", err)
		}
		c.Password = strings.TrimRight(string(b), "\r\n")
		// An empty file is a mistake (a truncated copy, a forgotten
		// echo), not a password: logging in with "" would only lock the
		// account out after a few tries.
		if strings.TrimSpace(c.Password) == "" {
			return c, fmt.Errorf("the bot's password file %s is empty", f.PasswordFile)
		}
	default:
		return c, fmt.Errorf("no password_env or password_file for the bot account %q", f.Bot)
	}
	return c, nil
}

// CheckPublicURL checks the web desk's public address and returns it
// without a trailing slash: an absolute http or https URL with no user,
// query or fragment, and nothing that would end a BBCode tag early, since
// it goes into [url] and [img] tags of the bot's posts.
func CheckPublicURL(raw string) (string, error) {
	bad := func(why string) (string, error) {
		return "", fmt.Errorf("public_url %q: %s", raw, why)
	}
	if strings.ContainsAny(raw, "[]\"'<> \t\r\n") {
		return bad("brackets, quotes and spaces are not allowed")
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return bad(err.Error())
	case u.Scheme != "http" && u.Scheme != "https":
		return bad("must start with http:// or https://")
	case u.Host == "":
		return bad("has no host")
	case u.User != nil:
		return bad("must not hold a user or password")
	case u.RawQuery != "" || u.Fragment != "" || strings.ContainsAny(raw, "?#"):
		return bad("must not have a query or fragment")
	}
	return strings.TrimRight(raw, "/"), nil
}
