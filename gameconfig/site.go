package gameconfig

import (
	"fmt"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// Site is the board a game is played on, resolved from its forum settings
// once, when the game is loaded, and held with it: nothing about the board
// is looked up again (no profile file is read) while a step runs. The
// moderator, the forum connection and the desk all take the board from it.
type Site struct {
	// Forum is the settings it was resolved from.
	Forum ForumConfig
	// Profile is the board's: the GM's profile file, or the engine's
	// built-in profile, with the game's time_zone when it sets one.
	Profile forum.Profile
	// Account is the board and bot account the game shares a session, an
	// inbox and a poll cycle with other games on.
	Account forum.Account
	// Zone is the board's time zone for the bot account: the zone every
	// time a player or GM reads is written in.
	Zone *time.Location
	// DeadlineUnit is what deadlines are rounded up to (see deadlineUnit).
	DeadlineUnit time.Duration
	// MaxMessageBytes is the longest post or PM the board takes, as its
	// profile says (0: none known); longer messages are queued in parts.
	MaxMessageBytes int
	// MaxPMBytes is the longest PM, where the profile says PMs take less
	// than posts (0: MaxMessageBytes).
	MaxPMBytes int
	// Reader reads the board's post and PM bodies (nil when Err is set).
	Reader *parser.BodyReader
	// Err, when set, is why the board's profile could not be loaded (a
	// profile file gone since the game was created, which checked it): the
	// game's times are then written in UTC and its deadlines put on the
	// minute (or deadline_unit_seconds), and the board cannot be read.
	Err error
}

// Site resolves the forum settings into the board they name, reading the
// GM's profile file if they name one.
func (f ForumConfig) Site() (*Site, error) { return f.SiteWith(parser.NewBodyReader) }

// SiteWith is Site with the body reader of the board's profile from
// compile (parser.NewBodyReader, or a cache of it: many games on one
// board share one).
func (f ForumConfig) SiteWith(compile func(forum.Profile) (*parser.BodyReader, error)) (*Site, error) {
	p, err := f.profile()
	if err != nil {
		return nil, err
	}
	if f.TimeZone != "" {
		p.TimeZone = f.TimeZone
	}
	loc, err := p.Location()
	if err != nil {
		return nil, fmt.Errorf("time zone %q: %w", p.TimeZone, err)
	}
	r, err := compile(p)
	if err != nil {
		return nil, err
	}
	return &Site{Forum: f, Profile: p, Account: f.Account(), Zone: loc, DeadlineUnit: f.deadlineUnit(p.DeadlineUnit()),
		MaxMessageBytes: p.MaxMessageBytes, MaxPMBytes: p.MaxPMBytes, Reader: r}, nil
}

// UnknownSite is the site of settings whose profile could not be loaded
// (err, from Site): see Site.Err.
func (f ForumConfig) UnknownSite(err error) *Site {
	return &Site{Forum: f, Account: f.Account(), Zone: time.UTC, DeadlineUnit: f.deadlineUnit(time.Minute), Err: err}
}

// Account is the board and bot account the settings name.
func (f ForumConfig) Account() forum.Account { return forum.AccountOf(f.URL, f.Bot) }

// deadlineUnit is what deadlines are rounded up to on the game's board:
// the board's stamp unit (a minute where the board stamps to the minute),
// unless the settings set one (deadline_unit_seconds; 0: none).
func (f ForumConfig) deadlineUnit(board time.Duration) time.Duration {
	if set := f.DeadlineUnitSeconds; set != nil {
		return max(time.Duration(*set*float64(time.Second)), 0)
	}
	return board
}

// profile is the board's profile: the GM's profile file when the settings
// name one, else the built-in profile of their engine.
func (f ForumConfig) profile() (forum.Profile, error) {
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
func (s *Site) ThreadURL() string {
	if s.Err == nil {
		if u, err := forum.Resolve(s.Forum.URL, s.Profile.ThreadPageURL(s.Forum.Thread, 1)); err == nil {
			return u
		}
	}
	return s.Forum.URL + " (thread " + s.Forum.Thread + ")"
}

// PostURL is a thread post's address on the board, "" when the profile
// has no post link.
func (s *Site) PostURL(id string) string {
	if s.Err != nil || s.Profile.URLs.Post == "" || id == "" {
		return ""
	}
	u, err := forum.Resolve(s.Forum.URL, forum.Expand(s.Profile.URLs.Post, map[string]string{"post": id}))
	if err != nil {
		return ""
	}
	return u
}
