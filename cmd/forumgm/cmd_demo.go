package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/demo"
)

func demoCommand() *cli.Command {
	return &cli.Command{
		Name:  "demo",
		Usage: "play a full demo game on a local forum with simulated players (about a minute)",
		Description: `Starts a local phpBB-like forum on 127.0.0.1, signs up simulated players, creates
a game and lets them play it through the forum's own forms while forumgm moderates
it to the end. Open the printed thread URL in a browser to read it as players would.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "game", Value: demo.DefaultGame, Usage: "the game to play: " + strings.Join(demo.Games(), ", ")},
			&cli.Float64Flag{Name: "speed", Value: 1, Usage: "phase speed: 0.5 is half as fast, 2 twice"},
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:0", Usage: "where the forum listens (port 0: any free port)"},
			&cli.StringFlag{Name: "db", Usage: "keep the game in this database (default: a temporary SQLite file)"},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "the game's seed"},
			&cli.BoolFlag{Name: "keep", Usage: "keep the forum up after the game, until Ctrl-C"},
			&cli.BoolFlag{Name: "verbose", Usage: "also print every player move"},
		},
		Action: func(c *cli.Context) error {
			if c.Float64("speed") <= 0 {
				return cli.Exit("--speed must be above 0 (1 is about a minute; 0.5 half as fast)", 2)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			res, err := demo.Run(ctx, demo.Config{
				Game: c.String("game"), Speed: c.Float64("speed"), Addr: c.String("addr"), DSN: c.String("db"),
				Seed: c.Int64("seed"), Keep: c.Bool("keep"), Verbose: c.Bool("verbose"), Out: os.Stdout,
			})
			if err != nil {
				if ctx.Err() != nil {
					fmt.Println("\ninterrupted")
					return nil
				}
				return err
			}
			if res.DB != nil { // the game kept in --db
				return res.DB.Close()
			}
			return nil
		},
	}
}
