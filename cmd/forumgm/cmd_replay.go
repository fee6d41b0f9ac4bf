package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/replay"
	"github.com/forumgm/forumgm/scenario"
)

func replayCommand() *cli.Command {
	return &cli.Command{
		Name:      "replay",
		Usage:     "dry-run a game from a scenario file, without a forum",
		ArgsUsage: "SCENARIO.yaml",
		Description: `Plays the scenario's posts, PMs and deadlines through the same parser and
rules as a live game and prints every post and PM the bot would send.
Exit status 2 when the scenario file is malformed.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object with the outcome instead of the transcript"},
			&cli.StringFlag{Name: "map-out", Usage: "write the map or chart pictures of each turn into `DIR` (" + mapGames() + ")"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("replay takes one scenario file", 2)
			}
			sc, err := scenario.Load(c.Args().First())
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			opt := replay.Options{Progress: progress(os.Stderr, time.Now)}
			if dir := c.String("map-out"); dir != "" {
				pics, err := mapWriter(sc.Game, dir)
				if err != nil {
					return cli.Exit(err.Error(), 2)
				}
				opt.AfterResolve = pics
			}
			res, err := replay.Run(sc, opt)
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if c.Bool("json") {
				enc := json.NewEncoder(os.Stdout)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				return enc.Encode(res.JSON())
			}
			fmt.Print(res.Text())
			return nil
		},
	}
}
