package main

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signups"
)

// signupsCommand is `forumgm signups GAME [close | remove NAME]`: the
// sign-up list of a game filled in its thread, and the GM's two controls on
// it (docs/signups.md).
func signupsCommand() *cli.Command {
	return &cli.Command{
		Name:      "signups",
		Usage:     "a game's sign-ups: who is in and when they close; 'close' starts the game now, 'remove NAME' takes someone off",
		ArgsUsage: "GAME [close | remove NAME]",
		Description: `With only GAME: the numbered list of who has signed up (name and forum user id,
as read from their posts) and when sign-ups close; after they closed, who
signed up and when the game started.

close: close sign-ups now and start the game with those in (at least the
game file's min). remove NAME: take NAME off the list (the exact name, or a
unique prefix of at least three letters); the thread is told. To cancel the
game during sign-ups, 'forumgm end GAME'. 'forumgm run' posts what they say.`,
		Flags: []cli.Flag{dbFlag, &cli.BoolFlag{Name: "json", Usage: "print the list as JSON"}},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 {
				return cli.Exit("signups takes a game name, then optionally close or remove NAME", 2)
			}
			g := args[0]
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				switch {
				case len(args) == 1:
					l, err := m.Signups(ctx, g)
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return printJSON(l)
					}
					printSignups(l, "")
					return nil
				case len(args) == 2 && args[1] == "close":
					if err := m.CloseSignups(ctx, g); err != nil {
						return err
					}
					fmt.Printf("sign-ups of %s are closed and the game has started; 'forumgm run' posts it and sends the roles\n", g)
					return nil
				case len(args) == 3 && args[1] == "remove":
					gone, err := m.RemoveSignup(ctx, g, args[2])
					if err != nil {
						return err
					}
					fmt.Printf("%s is off the sign-ups of %s; 'forumgm run' tells the thread\n", gone, g)
					return nil
				}
				return cli.Exit("signups GAME, signups GAME close, or signups GAME remove NAME", 2)
			})
		},
	}
}

// printSignups writes a sign-up list, each line after indent.
func printSignups(l *signups.List, indent string) {
	seats := fmt.Sprintf("%d to %d players", l.Min, l.Max)
	if l.Min == l.Max {
		seats = rules.Plural(l.Max, "player")
	}
	switch {
	case l.Open:
		ext := ""
		if l.Extended {
			ext = ", extended once"
		}
		fmt.Printf("%ssign-ups: %d in (%s); close %s (%s%s), or when %d are in\n", indent, len(l.In), seats, l.CloseText, rules.Until(time.Until(l.Close)), ext, l.Max)
	case l.Status == moderator.Cancelled:
		fmt.Printf("%ssign-ups: cancelled with %d in (%s)\n", indent, len(l.In), seats)
	default:
		fmt.Printf("%ssign-ups: closed with %d in (%s); the game started %s\n", indent, len(l.In), seats, l.CloseText)
	}
	for i, e := range l.In {
		id := ""
		if e.ID != "" {
			id = " (forum user id " + e.ID + ")"
		}
		fmt.Printf("%s  %d. %s%s\n", indent, i+1, e.Name, id)
	}
}
