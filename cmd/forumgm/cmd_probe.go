package main

import (
	"context"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/probe"
)

func probeCommand() *cli.Command {
	return &cli.Command{
		Name:      "probe",
		Usage:     "check a board before a game: login, thread, PM folders, reply and PM forms (nothing is posted unless --post-test)",
		ArgsUsage: "[GAME.yaml]",
		Description: `Reads the board, thread and bot account from the game file, or from the flags
(which also override the game file's). Prints a checklist: each item ok, or
the profile key that failed, what the page held instead and what to do.
Exit status 0 when everything a game needs works, 1 when something fails,
2 when the probe could not start (bad arguments, no password).`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "url", Usage: "the board root, e.g. https://example.org/forum/"},
			&cli.StringFlag{Name: "engine", Usage: "a built-in profile: " + strings.Join(forum.BuiltinNames(), ", ")},
			&cli.StringFlag{Name: "profile", Usage: "a profile file (docs/profiles.md)"},
			&cli.StringFlag{Name: "thread", Usage: "the game thread's topic id"},
			&cli.StringFlag{Name: "bot", Usage: "the bot account's user name"},
			&cli.StringFlag{Name: "password-env", Usage: "environment variable holding the bot's password"},
			&cli.StringFlag{Name: "password-file", Usage: "file holding the bot's password (only its owner may read it)"},
			&cli.Float64Flag{Name: "requests-per-second", Usage: "pace of requests to the board (default: the game file's, else 1)"},
			&cli.BoolFlag{Name: "post-test", Usage: "also post one reply in the thread and send one PM to the bot itself, and confirm both"},
			&cli.BoolFlag{Name: "json", Usage: "print the report as JSON"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 1 {
				return cli.Exit("probe takes at most one game file", 2)
			}
			var fc gameconfig.ForumConfig
			if c.NArg() == 1 {
				gf, err := gameconfig.LoadGameFile(c.Args().First())
				if err != nil {
					return cli.Exit(err.Error(), 2)
				}
				fc = gf.Forum
			}
			for flag, dst := range map[string]*string{"url": &fc.URL, "engine": &fc.Engine, "thread": &fc.Thread, "bot": &fc.Bot} {
				if c.IsSet(flag) {
					*dst = c.String(flag)
				}
			}
			if c.IsSet("engine") && !c.IsSet("profile") {
				fc.Profile = ""
			}
			if c.IsSet("profile") {
				fc.Profile = c.String("profile")
			}
			if c.IsSet("password-env") || c.IsSet("password-file") {
				fc.PasswordEnv, fc.PasswordFile = c.String("password-env"), c.String("password-file")
			}
			if c.IsSet("requests-per-second") {
				fc.RequestsPerSecond = c.Float64("requests-per-second")
			}
			if fc.Engine == "" && fc.Profile == "" {
				fc.Engine = "phpbb"
			}
			if fc.URL == "" || fc.Thread == "" || fc.Bot == "" {
				return cli.Exit("probe needs a game file, or --url, --thread and --bot (with --password-env or --password-file)", 2)
			}
			ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer stop()
			r, err := probeBoard(ctx, fc, c.Bool("post-test"))
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if c.Bool("json") {
				if err := printJSON(r); err != nil {
					return err
				}
			} else {
				r.WriteText(os.Stdout)
			}
			if !r.OK {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

// probeBoard runs the probe on a game's board. The error is for a probe
// that could not start (no password, a bad profile or URL).
func probeBoard(ctx context.Context, fc gameconfig.ForumConfig, postTest bool) (*probe.Report, error) {
	return probe.ForGame(ctx, fc, forumgm.Version, postTest)
}
