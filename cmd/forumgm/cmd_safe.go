package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/rules"
)

// resolveNowCommand is `forumgm resolve-now GAME [--phase ID]`: with the
// phase the GM looked at, refused once the game has left it.
func resolveNowCommand() *cli.Command {
	return &cli.Command{
		Name: "resolve-now", Usage: "resolve the current phase now (--phase: only if the game is still in that phase)", ArgsUsage: "GAME",
		Flags: []cli.Flag{dbFlag, &cli.StringFlag{Name: "phase", Usage: "the phase you mean, as 'status' or 'preview' shows it (e.g. m2-p1, round-3): refused if the game has moved on"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("resolve-now takes a game name", 2)
			}
			g := c.Args().First()
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				held, err := m.ResolvePhase(ctx, g, c.String("phase"))
				if err != nil {
					return err
				}
				if !held.IsZero() {
					rs, err := m.Report(ctx, g)
					if err != nil {
						return err
					}
					fmt.Printf("resolved; 'forumgm run' posts the update at %s, when the next phase opens (the game holds it until then)\n", rules.When(held, rs[0].Zone))
					return nil
				}
				fmt.Println("resolved; 'forumgm run' posts the update")
				return nil
			})
		},
	}
}

// previewCommand is `forumgm preview GAME [--phase ID]`: what resolving now
// would post and send, PMs included (for the GM's eyes: never paste it in
// the thread), with nothing sent or saved.
func previewCommand() *cli.Command {
	return &cli.Command{
		Name: "preview", Usage: "show the posts and PMs resolving the current phase now would make (nothing is sent or saved)", ArgsUsage: "GAME",
		Flags: []cli.Flag{dbFlag, &cli.StringFlag{Name: "phase", Usage: "only if the game is still in this phase"}},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("preview takes a game name", 2)
			}
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				p, err := m.Preview(ctx, c.Args().First(), c.String("phase"))
				if err != nil {
					return err
				}
				rs, err := m.Report(ctx, p.Game)
				if err != nil {
					return err
				}
				printPreview(os.Stdout, p, rs[0])
				return nil
			})
		},
	}
}

func printPreview(w io.Writer, p *moderator.Preview, rep moderator.GameReport) {
	fmt.Fprintf(w, "Resolving %s (%s) of %s now would make %s; nothing has been sent or saved.\n",
		p.Title, p.Phase, p.Game, rules.Plural(len(p.Messages), "message"))
	fmt.Fprintf(w, "To resolve exactly this phase: forumgm resolve-now %s --phase %s\n", p.Game, p.Phase)
	fmt.Fprintln(w, "PMs are private: do not paste them in the thread.")
	for i, it := range p.Messages {
		what := "thread post"
		if it.Kind == "pm" {
			what = fmt.Sprintf("PM to %s, subject %q", it.RecipientName, it.Subject)
		}
		if it.NotBefore.After(p.At) {
			what += ", held until " + rules.When(it.NotBefore, rep.Zone)
		}
		fmt.Fprintf(w, "\n=== %d. %s ===\n%s\n", i+1, what, p.Sent(i))
	}
}
