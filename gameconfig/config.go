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
	"runtime"
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
	// OpeningFound: the opening post was found on the board by its marker
	// (its send's answer lost) before the bot had read it, so when it
	// went up is known only at the earliest (the read before); the clock
	// starts again at the post's own stamp when a read records it.
	OpeningFound bool `json:"opening_found,omitempty"`
	// PublicURL is the web desk's address as players reach it
	// (https://desk.example.org), set when the GM opens the game's public
	// page: posts that show a map then carry its picture, served by the
	// desk at PublicURL/p/NAME/map/TURN.png. Checked by CheckPublicURL.
	PublicURL string `json:"public_url,omitempty"`
	// PicturesAsText is the bot's post (its forum id) in which the board
	// showed a picture it sent as the raw [img] tag (set by the
	// moderator when it reads the post back): the thread's forum does not
	// render [img], so later posts carry the text map alone, as with
	// forum: pictures: false.
	PicturesAsText string `json:"pictures_as_text,omitempty"`
	// Deadlines is the game file's deadlines block (nil: the game's own
	// lengths of time, no grace, no time for replacements).
	Deadlines *Deadlines `json:"deadlines,omitempty"`
	// GracePhase is the phase that has had its grace period (set by the
	// moderator when it gives one): once per phase, and while it lasts the
	// phase closes as soon as everyone has acted.
	GracePhase string `json:"grace_phase,omitempty"`
	// Counts and Reminders are the game file's blocks (nil: the defaults,
	// docs/between-deadlines.md).
	Counts    *Counts    `json:"counts,omitempty"`
	Reminders *Reminders `json:"reminders,omitempty"`
	// Between is what the moderator has done between deadlines in the
	// current phase (its counts, its reminders, its prods), saved with the
	// step that did it, so nothing is said twice across restarts.
	Between *BetweenState `json:"between,omitempty"`
	// Signups is the game file's signups block: the game was (or is being)
	// filled by sign-ups in its thread. While Players is empty the game is
	// in sign-ups; the moderator sets Players (in sign-up order) and Start
	// when they close and the game starts.
	Signups *Signups `json:"signups,omitempty"`
	// Style is the game's house style, its shared file read in
	// (docs/gm-words.md; nil: none).
	Style *Style `json:"style,omitempty"`
}

// SigningUp says whether the game is still taking sign-ups (it has no
// players yet).
func (c GameConfig) SigningUp() bool { return c.Signups != nil && len(c.Players) == 0 }

// Rules turns it into the engine's config.
func (c GameConfig) Rules() rules.Config {
	return rules.Config{Players: c.Players, Aliases: c.Aliases, Options: rules.Options(c.Options), Setup: c.Setup, Seed: c.Seed, Start: c.Start}
}

// ForumOff as a game's forum turns the change signal off: every poll
// reads the thread.
const ForumOff = "off"

// ForumConfig is where a game is played. The password itself is never kept:
// only where to find it.
type ForumConfig struct {
	URL    string `json:"url" yaml:"url"`       // board root, e.g. http://127.0.0.1:8080/
	Engine string `json:"engine" yaml:"engine"` // a built-in profile: phpbb | mybb | smf
	// Profile is a GM's profile file (docs/profiles.md), instead of or on
	// top of the engine; absolute once the game file is loaded.
	Profile string `json:"profile,omitempty" yaml:"profile,omitempty"`
	// Forum is the id of the forum (board) holding the thread: its topic
	// list is the change signal (docs/polling.md). Unset: the forum the
	// thread's pages name, where the profile reads it
	// (selectors.thread_forum); ForumOff: no change signal.
	Forum  string `json:"forum,omitempty" yaml:"forum,omitempty"`
	Thread string `json:"thread" yaml:"thread"`
	Bot    string `json:"bot" yaml:"bot"` // the bot account's user name
	// PasswordEnv names an environment variable holding the bot's password;
	// PasswordFile a file readable only by its owner.
	PasswordEnv  string `json:"password_env,omitempty" yaml:"password_env,omitempty"`
	PasswordFile string `json:"password_file,omitempty" yaml:"password_file,omitempty"`
	// PollSeconds is how often the thread and inbox are read.
	PollSeconds float64 `json:"poll_seconds,omitempty" yaml:"poll_seconds,omitempty"`
	// PollMinSeconds and PollMaxSeconds are how far the poll may follow
	// the game (docs/polling.md): faster as a deadline nears, down to the
	// min; slower while nothing happens, up to the max; always
	// poll_seconds halved or doubled. Unset: poll_seconds.
	PollMinSeconds float64 `json:"poll_min_seconds,omitempty" yaml:"poll_min_seconds,omitempty"`
	PollMaxSeconds float64 `json:"poll_max_seconds,omitempty" yaml:"poll_max_seconds,omitempty"`
	// FullReadSeconds: where the board's topic list tells an unchanged
	// thread (the change signal, see Forum), the thread is still read at
	// least this often, for its edits and deletions [10 × poll_seconds, at
	// least 300].
	FullReadSeconds float64 `json:"full_read_seconds,omitempty" yaml:"full_read_seconds,omitempty"`
	// FloodSeconds fixes the least gap between two of the bot's posts/PMs
	// (0: a flood-exempt account); unset, it is learned from the board.
	FloodSeconds *float64 `json:"flood_seconds,omitempty" yaml:"flood_seconds,omitempty"`
	// DeadlineUnitSeconds: deadlines are rounded up to a multiple of this
	// (default: the board's stamp unit, a minute on phpBB and MyBB, so no
	// minute stamp straddles a deadline; 0 turns rounding off, for phases
	// of seconds as in the demo).
	DeadlineUnitSeconds *float64 `json:"deadline_unit_seconds,omitempty" yaml:"deadline_unit_seconds,omitempty"`
	// LateSeconds is how long after forumgm stopped waiting for a post or
	// PM (its request timed out, or a clean stop let it end) the board may
	// still take it: a slow proxy in between, a board that finishes a
	// submission whose client hung up [5]. Until then, a missing marker
	// proves nothing, and no one sends the message again
	// (docs/exactly-once.md).
	LateSeconds *float64 `json:"late_seconds,omitempty" yaml:"late_seconds,omitempty"`
	// RequestsPerSecond caps requests to the board (default 1).
	RequestsPerSecond float64 `json:"requests_per_second,omitempty" yaml:"requests_per_second,omitempty"`
	// TimeZone is the bot account's time zone on the board (its profile
	// setting), when it differs from the engine profile's: how the board
	// shows relative times to the bot, and the zone deadlines are written in.
	TimeZone string `json:"time_zone,omitempty" yaml:"time_zone,omitempty"`
	// OutageExtension: when the bot could not read the board for a while
	// (an outage), the phase's deadline moves on by that time and the
	// thread is told why (README "Outages"). On unless set to false.
	OutageExtension *bool `json:"outage_extension,omitempty" yaml:"outage_extension,omitempty"`
	// Pictures false: the board shows [img] as text in the thread's forum
	// (an admin's setting: MyBB's "Allow [img] Code", SMF's disabled BBC
	// tags, phpBB's "Allow [img] BBCode tag"; `forumgm probe --post-test`
	// says so). Posts then keep the text map and scores and carry no
	// picture, even with the game's public_url. On unless set to false.
	Pictures *bool `json:"pictures,omitempty" yaml:"pictures,omitempty"`
}

// ExtendsForOutages says whether an outage moves the deadline on.
func (f ForumConfig) ExtendsForOutages() bool {
	return f.OutageExtension == nil || *f.OutageExtension
}

// ShowsPictures says whether posts may carry [img] pictures on the board.
func (f ForumConfig) ShowsPictures() bool {
	return f.Pictures == nil || *f.Pictures
}

// Check refuses forum numbers that are not finite or out of any sane range
// (YAML's .nan and .inf, 1e300): each would become an undefined
// time.Duration in the poller or the flood wait.
func (f ForumConfig) Check() error {
	for _, n := range []struct {
		name string
		v    float64
	}{{"poll_seconds", f.PollSeconds}, {"poll_min_seconds", f.PollMinSeconds}, {"poll_max_seconds", f.PollMaxSeconds}} {
		if err := checkNumber(n.name, n.v, 0.05, 86400, true); err != nil {
			return err
		}
	}
	if err := checkNumber("full_read_seconds", f.FullReadSeconds, 1, 7*86400, true); err != nil {
		return err
	}
	poll := f.Poll().Seconds()
	if f.PollMinSeconds > poll {
		return fmt.Errorf("forum poll_min_seconds: %v is more than poll_seconds (%v)", f.PollMinSeconds, poll)
	}
	if f.PollMaxSeconds != 0 && f.PollMaxSeconds < poll {
		return fmt.Errorf("forum poll_max_seconds: %v is less than poll_seconds (%v)", f.PollMaxSeconds, poll)
	}
	if f.FloodSeconds != nil {
		if err := checkNumber("flood_seconds", *f.FloodSeconds, 0, 3600, true); err != nil {
			return err
		}
	}
	if f.LateSeconds != nil {
		if err := checkNumber("late_seconds", *f.LateSeconds, 0, 600, true); err != nil {
			return err
		}
	}
	if f.DeadlineUnitSeconds != nil {
		if err := checkNumber("deadline_unit_seconds", *f.DeadlineUnitSeconds, 0, 86400, true); err != nil {
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

// DefaultLate is how late a board may take a submission after forumgm
// stopped waiting for it, unless late_seconds says otherwise.
const DefaultLate = 5 * time.Second

// Late is how long after forumgm stopped waiting for a submission the
// board may still take it (late_seconds).
func (f ForumConfig) Late() time.Duration {
	if f.LateSeconds == nil {
		return DefaultLate
	}
	return time.Duration(*f.LateSeconds * float64(time.Second))
}

// Poll is the polling interval.
func (f ForumConfig) Poll() time.Duration {
	if f.PollSeconds <= 0 {
		return 30 * time.Second
	}
	return time.Duration(f.PollSeconds * float64(time.Second))
}

// PollBounds are the shortest and longest poll periods (poll_min_seconds,
// poll_max_seconds; each poll_seconds when unset).
func (f ForumConfig) PollBounds() (lo, hi time.Duration) {
	lo, hi = f.Poll(), f.Poll()
	if f.PollMinSeconds > 0 {
		lo = min(lo, time.Duration(f.PollMinSeconds*float64(time.Second)))
	}
	if f.PollMaxSeconds > 0 {
		hi = max(hi, time.Duration(f.PollMaxSeconds*float64(time.Second)))
	}
	return lo, hi
}

// FullRead is how often, at least, the thread is read in full where the
// change signal would let polls skip it.
func (f ForumConfig) FullRead() time.Duration {
	if f.FullReadSeconds > 0 {
		return time.Duration(f.FullReadSeconds * float64(time.Second))
	}
	return max(10*f.Poll(), 5*time.Minute)
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
		if othersMayRead(fi) {
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

// othersMayRead: the file's mode lets its group or others read it. Windows
// keeps who may read a file in its ACL, which Go's file modes do not show
// (every writable file reads as 0666), so there the GM's folder permissions
// are what keeps it private, and the file is not refused for its mode.
func othersMayRead(fi os.FileInfo) bool {
	return runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0
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
