package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// parseCommand is `forumgm parse`: parse one saved forum page (a thread
// page, the PM inbox or one PM) and print what the bot would read from it,
// so a GM can check a profile against their board before a game.
func parseCommand() *cli.Command {
	return &cli.Command{
		Name:      "parse",
		Usage:     "parse a saved forum page (thread, PM inbox or PM) and print posts and command segments as JSON",
		ArgsUsage: "PAGE.html",
		Description: `Prints as JSON what the bot reads from the page. What the live reader would
do differently is said on stderr too: a page cut short ("incomplete": the bot
refuses such a page and reads it again later) and a post or PM nested too
deep to read ("unreadable": no command is read from it). Relative times
("Today, 17:35", "9 hours ago") need the time the page was fetched:
--fetched-at 2026-11-30T18:00:00Z, or a wall time such as "2026-11-30 18:00"
in the profile's time_zone.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engine", Value: "phpbb", Usage: "built-in engine profile: " + strings.Join(forum.BuiltinNames(), ", ")},
			&cli.StringFlag{Name: "profile", Usage: "a profile YAML file (overrides its base engine)"},
			&cli.StringFlag{Name: "fetched-at", Usage: "when the page was saved, to read its relative times: RFC 3339, or YYYY-MM-DD HH:MM[:SS] in the profile's time_zone"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: forumgm parse --engine "+strings.Join(forum.BuiltinNames(), "|")+" [--profile FILE] [--fetched-at TIME] PAGE.html", 2)
			}
			var prof forum.Profile
			if path := c.String("profile"); path != "" {
				p, err := forum.LoadProfile(path)
				if err != nil {
					return err
				}
				prof = p
			} else {
				p, ok := forum.Builtin(c.String("engine"))
				if !ok {
					return cli.Exit(fmt.Sprintf("unknown engine %q (want one of %s)", c.String("engine"), strings.Join(forum.BuiltinNames(), ", ")), 2)
				}
				prof = p
			}
			var fetch parser.Fetch
			if v := c.String("fetched-at"); v != "" {
				at, err := fetchedAt(v, prof)
				if err != nil {
					return cli.Exit(err.Error(), 2)
				}
				fetch = parser.At(at)
			}
			x, err := parser.New(prof)
			if err != nil {
				return err
			}
			page, err := os.ReadFile(c.Args().First())
			if err != nil {
				return err
			}
			rep, err := x.MakeReportAt(page, fetch)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(rep); err != nil {
				return err
			}
			for _, n := range parseNotes(rep, prof) {
				fmt.Fprintln(c.App.ErrWriter, "forumgm parse: "+n)
			}
			return nil
		},
	}
}

// fetchedAt reads --fetched-at: RFC 3339 (its own offset), or a wall time
// in the profile's time zone, as the board showed it to the bot.
func fetchedAt(v string, prof forum.Profile) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	loc, err := prof.Location()
	if err != nil {
		return time.Time{}, err
	}
	for _, l := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.ParseInLocation(l, v, loc); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--fetched-at %q: want an RFC 3339 time (2026-11-30T18:00:00Z) or YYYY-MM-DD HH:MM[:SS] in the profile's time zone (%s)", v, loc)
}

// parseNotes say in words what the live reader would do with the page
// that its JSON only flags.
func parseNotes(rep parser.Report, prof forum.Profile) []string {
	var notes []string
	if rep.Incomplete {
		m, key := prof.MarksOf(map[string]forum.PageKind{"thread": forum.PageThread, "pm": forum.PagePM, "inbox": forum.PagePMFolder}[rep.Kind])
		end := strings.TrimSpace(m.PageEnd)
		why := "no closing </html> near its end"
		if end != "" {
			why += fmt.Sprintf(", or no %s (the profile's %s footer)", end, key.PageEnd)
		}
		notes = append(notes, fmt.Sprintf("the page is incomplete (%s): the bot would refuse it and read it again later; if the page is whole, check page_end", why))
	}
	relative := 0
	note := func(what, id, reason, timeErr string) {
		if reason != "" {
			notes = append(notes, fmt.Sprintf("%s %s is unreadable, and the bot would record it so: %s", what, id, reason))
		}
		if strings.Contains(timeErr, parser.ErrNoFetchTime.Error()) {
			relative++
		}
	}
	for _, p := range rep.Posts {
		note("post", p.ID, p.Unreadable, p.TimeErr)
	}
	for _, m := range rep.Messages {
		note("PM", m.ID, "", m.TimeErr)
	}
	if rep.PM != nil {
		note("PM", rep.PM.ID, rep.PM.Unreadable, rep.PM.TimeErr)
	}
	if relative > 0 {
		notes = append(notes, fmt.Sprintf("%d relative time(s) (\"Today, 17:35\", \"9 hours ago\") not read: give --fetched-at TIME, when the page was saved", relative))
	}
	return notes
}
