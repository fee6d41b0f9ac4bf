package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/forum"
)

// profileCommand is `forumgm profile`: help for writing a board profile.
func profileCommand() *cli.Command {
	return &cli.Command{
		Name:  "profile",
		Usage: "help for profile files: show a built-in profile, or what a profile file amounts to",
		Subcommands: []*cli.Command{{
			Name:      "show",
			Usage:     "print a built-in profile (" + strings.Join(forum.BuiltinNames(), ", ") + ") or a profile file with what its base fills in, in the profile-file format",
			ArgsUsage: "ENGINE|PROFILE.yaml",
			Description: `A profile file with 'base: ENGINE' starts from the built-in profile and
overrides only the keys it names: 'forumgm profile show ENGINE' prints every
key it inherits, 'forumgm profile show FILE' the whole profile a file amounts
to. What is printed loads back as a profile file (docs/profiles.md).`,
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return cli.Exit("usage: forumgm profile show "+strings.Join(forum.BuiltinNames(), "|")+"|PROFILE.yaml", 2)
				}
				arg := c.Args().First()
				p, ok := forum.Builtin(arg)
				if !ok {
					if _, err := os.Stat(arg); err != nil {
						return cli.Exit(fmt.Sprintf("%q is no built-in engine (%s) nor a profile file", arg, strings.Join(forum.BuiltinNames(), ", ")), 2)
					}
					var err error
					if p, err = forum.LoadProfile(arg); err != nil {
						return cli.Exit(err.Error(), 2)
					}
				}
				text, err := forum.ProfileFileText(p)
				if err != nil {
					return err
				}
				_, err = c.App.Writer.Write(text)
				return err
			},
		}},
	}
}
