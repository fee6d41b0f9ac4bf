package forumconn

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/scraper"
)

// A board read through its JSON API (a profile's api: NodeBB) is the port
// too, through its own client instead of the scraper, the parser's pages
// and the poster's forms: the same forum.Board, so the moderator does not
// tell one from the other.

// OpenAPI opens a connection of its own to an API board (the profile's
// api key names which); it logs in on first use.
func OpenAPI(base string, prof forum.Profile, creds forum.Credentials, opt scraper.Options) (forum.Board, error) {
	switch prof.API {
	case forum.APINodeBB:
		return nodebb.New(base, prof, creds, nodebb.Options{Clock: opt.Clock,
			Pacer: opt.Pacer, MinInterval: opt.MinInterval, Password: opt.Password, Log: opt.Log})
	}
	return nil, fmt.Errorf("profile %s: api %q: no such API (the one known: %s)", prof.Name, prof.API, forum.APINodeBB)
}

// notAPI refuses an API board where a connection over pages and forms
// (*Conn) is asked for.
func notAPI(site *gameconfig.Site) error {
	if site.Err == nil && site.Profile.API != "" {
		return fmt.Errorf("board %s is read through its API (%s): connect to it as the port (Sessions.Board, ConnectBoard)", site.Forum.URL, site.Profile.API)
	}
	return nil
}

// connectAPI opens a game's connection to an API board, as connect does
// for the others.
func connectAPI(site *gameconfig.Site, clk clock.Clock, version string, pc *scraper.Pacer, log *slog.Logger, listAge time.Duration) (forum.Board, error) {
	if site.Err != nil {
		return nil, site.Err
	}
	fc := site.Forum
	creds, err := fc.Credentials()
	if err != nil {
		return nil, err
	}
	if log != nil {
		log = log.With("board", fc.URL, "account", fc.Bot)
	}
	nopt := nodebb.Options{Clock: clk, UserAgent: nodebb.UserAgent(version), Pacer: pc, Log: log, ListAge: listAge,
		Password: func() (string, error) {
			c, err := fc.Credentials()
			return c.Password, err
		}}
	if fc.RequestsPerSecond > 0 {
		nopt.MinInterval = time.Duration(float64(time.Second) / fc.RequestsPerSecond)
	}
	switch site.Profile.API {
	case forum.APINodeBB:
		c, err := nodebb.New(fc.URL, site.Profile, creds, nopt)
		if err != nil {
			return nil, fmt.Errorf("board %s: %w", fc.URL, err)
		}
		if fc.FloodSeconds != nil {
			c.SetFlood(time.Duration(*fc.FloodSeconds * float64(time.Second)))
		}
		return c, nil
	}
	return nil, fmt.Errorf("board %s: profile %s: api %q: no such API (the one known: %s)", fc.URL, site.Profile.Name, site.Profile.API, forum.APINodeBB)
}
