package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/moderator"
)

// The GM's own words (docs/gm-words.md): `flavor` and `say`.

// readText reads the GM's text from a file ("-": standard input).
func readText(path string) (string, error) {
	if path == "" {
		return "", cli.Exit("give the text with --file FILE (- reads standard input)", 2)
	}
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(io.LimitReader(os.Stdin, 1<<20))
	} else {
		b, err = os.ReadFile(path)
	}
	if err != nil {
		return "", cli.Exit(fmt.Sprintf("reading the text: %v", err), 2)
	}
	return string(b), nil
}

// flavorCommand is `forumgm flavor GAME --phase ID --file TEXT [--to
// PLAYER]`: the flavor that opens the phase's update (or the player's
// private results); `--clear` withdraws it, `--list` shows what is written.
func flavorCommand() *cli.Command {
	return &cli.Command{
		Name:      "flavor",
		Usage:     "write the flavor that opens a phase's update (--to: a player's private results); replaceable until the phase resolves",
		ArgsUsage: "GAME",
		Flags: []cli.Flag{dbFlag,
			&cli.StringFlag{Name: "phase", Usage: "the phase whose update it opens, as 'status' shows it (e.g. m2-p1, round-3): refused once the game has left it"},
			&cli.StringFlag{Name: "file", Usage: "the flavor's text, the GM's BBCode (- reads standard input)"},
			&cli.StringFlag{Name: "to", Usage: "a player: the flavor opens their private results, by PM"},
			&cli.BoolFlag{Name: "clear", Usage: "withdraw the flavor written for the phase (and --to)"},
			&cli.BoolFlag{Name: "list", Usage: "show the flavor written (for --phase, or every phase); it may be private"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("flavor takes a game name", 2)
			}
			g := c.Args().First()
			if c.Bool("list") {
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					fl, err := m.Flavors(ctx, g, c.String("phase"))
					if err != nil {
						return err
					}
					if len(fl) == 0 {
						fmt.Println("no flavor written")
					}
					for _, f := range fl {
						to := "the thread's update"
						if f.To != "" {
							to = f.To + "'s private results"
						}
						fmt.Printf("=== %s, %s ===\n%s\n\n", f.Phase, to, f.Text)
					}
					return nil
				})
			}
			if c.String("phase") == "" {
				return cli.Exit("flavor needs --phase ID (the phase whose update it opens, as 'forumgm status' shows it)", 2)
			}
			text := ""
			if c.Bool("clear") {
				if c.String("file") != "" {
					return cli.Exit("flavor --clear takes no --file", 2)
				}
			} else {
				var err error
				if text, err = readText(c.String("file")); err != nil {
					return err
				}
				if strings.TrimSpace(text) == "" {
					return cli.Exit("the flavor is empty (--clear withdraws one)", 2)
				}
			}
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				who, err := m.SetFlavor(ctx, g, c.String("phase"), c.String("to"), text)
				if err != nil {
					return err
				}
				what := "the update of " + c.String("phase")
				if who != "" {
					what = who + "'s private results of " + c.String("phase")
				}
				if text == "" {
					fmt.Printf("flavor for %s withdrawn\n", what)
					return nil
				}
				fmt.Printf("flavor saved: it opens %s ('forumgm preview %s' shows it; write it again to replace it)\n", what, g)
				return nil
			})
		},
	}
}

// sayCommand is `forumgm say GAME --file TEXT [--to PLAYER]`: the GM's
// announcement in the thread, or a note to a player by PM.
func sayCommand() *cli.Command {
	return &cli.Command{
		Name:      "say",
		Usage:     "post the GM's announcement in the thread (--to: a note to a player by PM), through the outbox",
		ArgsUsage: "GAME",
		Flags: []cli.Flag{dbFlag,
			&cli.StringFlag{Name: "file", Usage: "the text, the GM's BBCode (- reads standard input)"},
			&cli.StringFlag{Name: "to", Usage: "a player: send it to them by PM instead"},
			&cli.StringFlag{Name: "subject", Usage: "the PM's subject (default: GAME: a note from the GM)"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("say takes a game name", 2)
			}
			if c.String("subject") != "" && c.String("to") == "" {
				return cli.Exit("say --subject is for a PM (--to PLAYER)", 2)
			}
			text, err := readText(c.String("file"))
			if err != nil {
				return err
			}
			g := c.Args().First()
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				who, err := m.Say(ctx, g, c.String("to"), c.String("subject"), text)
				if err != nil {
					return err
				}
				if who != "" {
					fmt.Printf("note to %s queued; 'forumgm run' sends it by PM\n", who)
				} else {
					fmt.Println("announcement queued; 'forumgm run' posts it in the thread")
				}
				return nil
			})
		},
	}
}

// printGMWords lists the GM's own texts in the audit log, as the GM's.
func printGMWords(ctx context.Context, m *moderator.Moderator, g string) error {
	ws, err := m.GMWords(ctx, g)
	if err != nil || len(ws) == 0 {
		return err
	}
	fmt.Println("\nTHE GM'S OWN WORDS")
	for _, w := range ws {
		first, _, _ := strings.Cut(w.Text, "\n")
		if r := []rune(first); len(r) > 70 {
			first = string(r[:67]) + "..."
		}
		fmt.Printf("  %s  %-6s %-8s to %-12s %q\n", w.At.Local().Format("2006-01-02 15:04:05"), w.Kind, w.Phase, w.To, first)
	}
	return nil
}
