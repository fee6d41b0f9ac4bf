// Command forumgm runs play-by-forum games as their Game Master. This package
// only wires the others together.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm"
	_ "github.com/forumgm/forumgm/games"
)

func main() {
	a := app()
	if err := a.Run(flagsFirst(a, os.Args)); err != nil {
		fmt.Fprintln(os.Stderr, "forumgm:", err)
		os.Exit(1)
	}
}

func app() *cli.App {
	return &cli.App{
		Name:    "forumgm",
		Usage:   "run play-by-forum games (Resistance, Protest, Nations) as their Game Master",
		Version: forumgm.Version,
		Commands: append([]*cli.Command{
			demoCommand(),
			replayCommand(),
			newCommand(),
			runCommand(),
			statusCommand(),
			auditCommand(),
			webCommand(),
		}, append(gmCommands(), signupsCommand(), simCommand(), parseCommand(), probeCommand(), profileCommand())...),
		// Errors are printed once, by main; cli.Exit codes are kept.
		ExitErrHandler: func(c *cli.Context, err error) {
			if ec, ok := err.(cli.ExitCoder); ok && err.Error() != "" {
				fmt.Fprintln(os.Stderr, "forumgm:", err)
				os.Exit(ec.ExitCode())
			} else if ok {
				os.Exit(ec.ExitCode())
			}
		},
	}
}
