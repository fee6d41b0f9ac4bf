package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

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
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "engine", Value: "phpbb", Usage: "built-in engine profile: " + strings.Join(forum.BuiltinNames(), ", ")},
			&cli.StringFlag{Name: "profile", Usage: "a profile YAML file (overrides its base engine)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("usage: forumgm parse --engine "+strings.Join(forum.BuiltinNames(), "|")+" [--profile FILE] PAGE.html", 2)
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
			x, err := parser.New(prof)
			if err != nil {
				return err
			}
			page, err := os.ReadFile(c.Args().First())
			if err != nil {
				return err
			}
			rep, err := x.MakeReport(page)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(c.App.Writer)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			return enc.Encode(rep)
		},
	}
}
