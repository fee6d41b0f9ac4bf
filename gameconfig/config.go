// Package gameconfig is how a game is set up and where it is played: the game
// file a GM writes, the game's rules settings, its board and bot account, and
// reading the bot's password from where the GM put it (an environment
// variable or an owner-only file). The moderator stores these with the game;
// the forum connection is opened from them.
package gameconfig

import (
	"fmt"
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
}

// Rules turns it into the engine's config.
func (c GameConfig) Rules() rules.Config {
	return rules.Config{Players: c.Players, Aliases: c.Aliases, Options: rules.Options(c.Options), Setup: c.Setup, Seed: c.Seed, Start: c.Start}
}

// ForumConfig is where a game is played. The password itself is never kept:
// only where to find it.
type ForumConfig struct {
	URL     string `json:"url" yaml:"url"`       // board root, e.g. http://127.0.0.1:8080/
	Engine  string `json:"engine" yaml:"engine"` // phpbb | mybb | smf
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
	// FloodSeconds is the least gap between two of the bot's posts/PMs
	// (default: the engine's flood limit; 0 for a flood-exempt account).
	FloodSeconds *float64 `json:"flood_seconds,omitempty" yaml:"flood_seconds"`
	// RequestsPerSecond caps requests to the board (default 1).
	RequestsPerSecond float64 `json:"requests_per_second,omitempty" yaml:"requests_per_second"`
}

// ThreadURL is the game thread's address, as a person would open it.
func (f ForumConfig) ThreadURL() string {
	if p, ok := forum.Builtin(f.Engine); ok {
		if u, err := forum.Resolve(f.URL, p.ThreadPageURL(f.Thread, 1)); err == nil {
			return u
		}
	}
	return f.URL + " (thread " + f.Thread + ")"
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
	default:
		return c, fmt.Errorf("no password_env or password_file for the bot account %q", f.Bot)
	}
	return c, nil
}
