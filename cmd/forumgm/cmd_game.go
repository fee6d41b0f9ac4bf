package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

var dbFlag = &cli.StringFlag{
	Name:    "db",
	Usage:   "the database: a SQLite file path, or postgres://user@host/db",
	EnvVars: []string{"FORUMGM_DB"},
	Value:   "forumgm.db",
}

// withModerator opens the database and hands a moderator to fn.
func withModerator(c *cli.Context, fn func(ctx context.Context, m *moderator.Moderator) error) error {
	dsn := c.String("db")
	if name := c.Command.Name; name != "new" && name != "run" && !strings.Contains(dsn, "://") {
		// Only new and run may start a database: a mistyped --db must not
		// look like a board with no games.
		if _, err := os.Stat(strings.TrimPrefix(dsn, "sqlite:")); err != nil {
			return cli.Exit(fmt.Sprintf("no database at %s: create a game with 'forumgm new GAME.yaml' first, or give --db (or FORUMGM_DB)", store.Redact(dsn)), 2)
		}
	}
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return fmt.Errorf("opening the database: %w", err)
	}
	defer db.Close()
	log := logger(c)
	m := &moderator.Moderator{DB: db, Connect: connectForum(clock.Real{}, log), Clock: clock.Real{}, Log: log}
	if c.Command.Name == "run" {
		m.Pool = &moderator.Pool{Workers: c.Int("workers"), Stagger: c.Duration("stagger")}
	}
	return fn(ctx, m)
}

func logger(c *cli.Context) *slog.Logger {
	lvl := slog.LevelInfo
	if c.Bool("quiet") {
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: lvl}))
}

func newCommand() *cli.Command {
	return &cli.Command{
		Name:      "new",
		Usage:     "create a game from a game file: secrets are drawn, the opening post and role PMs are queued",
		ArgsUsage: "GAME.yaml",
		Description: `The game file names the forum, the thread, the bot account (with password_env
or password_file, never the password), the players, options and setup. See
examples/*.game.yaml. 'forumgm run' then moderates it.

Before creating it, the board is checked as 'forumgm probe' does (nothing is
posted): a game is not created on a board where something it needs fails,
unless --force. --no-probe skips the checks (no password needed then).`,
		Flags: []cli.Flag{dbFlag,
			&cli.BoolFlag{Name: "force", Usage: "create the game even if a board check fails"},
			&cli.BoolFlag{Name: "no-probe", Usage: "do not check the board first"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("new takes one game file", 2)
			}
			gf, err := gameconfig.LoadGameFile(c.Args().First())
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if c.Bool("no-probe") {
				if env := gf.Forum.PasswordEnv; env != "" && os.Getenv(env) == "" {
					fmt.Fprintf(os.Stderr, "note: %s is not set here; 'forumgm run' will need it in its environment\n", env)
				}
				if gf.Forum.PasswordFile != "" {
					// Refuse a readable password file now, not at the first poll.
					if _, err := gf.Forum.Credentials(); err != nil {
						return cli.Exit(err.Error(), 2)
					}
				}
			} else if err := newProbe(c, gf); err != nil {
				return err
			}
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				gc, fc, ps := gf.Configs(time.Now())
				g, err := m.Create(ctx, gf.Name, gf.Game, gc, fc, ps)
				if err != nil {
					return cli.Exit(fmt.Sprintf("%s: %v", c.Args().First(), err), 2)
				}
				if gc.SigningUp() {
					fmt.Printf("created game %s (%s, seed %d), taking sign-ups: 'forumgm run' posts the call for %d to %d players and starts the game when they close ('forumgm signups %s' shows them)\n",
						g.Name, g.Kind, gc.Seed, gc.Signups.Min, gc.Signups.Max, g.Name)
					return nil
				}
				fmt.Printf("created game %s (%s, %d players, seed %d); run 'forumgm run' to moderate it\n", g.Name, g.Kind, len(ps), gc.Seed)
				return nil
			})
		},
	}
}

// newProbe checks the game's board before `new` creates the game: a
// failed check refuses it unless --force.
func newProbe(c *cli.Context, gf *gameconfig.GameFile) error {
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	r, err := probeBoard(ctx, gf.Forum, false)
	if err != nil {
		return cli.Exit(fmt.Sprintf("%s: cannot check the board: %v (--no-probe skips the check)", c.Args().First(), err), 2)
	}
	if r.OK {
		fmt.Println("board checked: everything a game needs works ('forumgm probe' shows the details)")
		return nil
	}
	r.WriteText(os.Stderr)
	if c.Bool("force") {
		fmt.Fprintln(os.Stderr, "creating the game anyway (--force)")
		return nil
	}
	var names []string
	for _, f := range r.Failed() {
		names = append(names, f.Title)
	}
	why := ""
	if r.PMs != "" {
		why = " (" + probe.NeedPMs + ")"
	}
	return cli.Exit(fmt.Sprintf("%s: not created: the board check failed (%s)%s; fix it (see above), or --force to create the game anyway", c.Args().First(), strings.Join(names, ", "), why), 1)
}

func runCommand() *cli.Command {
	return &cli.Command{
		Name:  "run",
		Usage: "moderate every running game until interrupted (SIGINT/SIGTERM stop it cleanly)",
		Description: `Polls each game's thread and the bot's inbox, applies commands, resolves phases at their deadlines and sends the results exactly once.

On a SQLite file only one run may work the database (a second is refused). On
PostgreSQL several may, on one host or many: each game is leased by one run at a
time (renewed every third of --lease), runs share the games evenly, and a run
that dies loses its games to the others within one lease period.`,
		Flags: append([]cli.Flag{dbFlag, &cli.BoolFlag{Name: "quiet", Usage: "log only warnings"},
			&cli.DurationFlag{Name: "lease", Value: moderator.DefaultLease, Usage: "how long a game stays with this run after each renewal; a run that dies loses its games to the others within this time"},
			&cli.StringFlag{Name: "http", Usage: "also serve the GM's web desk on this address (see 'forumgm web')"},
			&cli.IntFlag{Name: "workers", Value: 8, Usage: "games worked at once in this process (the rest wait their turn)"},
			&cli.DurationFlag{Name: "stagger", Value: 10 * time.Millisecond, Usage: "the gap between two games' first polls at start-up (1,000 games start within 10s)"}}, deskFlags()...),
		Action: func(c *cli.Context) error {
			if c.Duration("lease") < 3*time.Second {
				return cli.Exit("--lease must be at least 3s (it is renewed every third of it)", 2)
			}
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				release, err := m.DB.LockDaemon(ctx)
				if err != nil {
					return err
				}
				defer release()
				// The file lock makes this the only run on a SQLite file:
				// it may take every game at once, even from a run killed a
				// moment ago whose leases have not run out.
				m.Alone = m.DB.Driver() != "postgres"
				m.Lease = c.Duration("lease")
				if c.String("http") != "" {
					dctx, stopDesk := context.WithCancel(ctx)
					wait, err := serveDesk(dctx, c, m)
					if err != nil {
						stopDesk()
						return err
					}
					defer func() { stopDesk(); wait() }()
				}
				m.Log.Info("forumgm is running; Ctrl-C stops it")
				err = m.Run(ctx)
				m.Log.Info("stopped")
				return err
			})
		},
	}
}

func statusCommand() *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show games: phase, deadline, who has acted and who has not",
		ArgsUsage: "[GAME]",
		Flags: []cli.Flag{dbFlag, &cli.BoolFlag{Name: "json",
			Usage: "print the games' reports as JSON (snake_case fields, e.g. forum_health, thread_read, step_error)"}},
		Action: func(c *cli.Context) error {
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				rs, err := m.Report(ctx, c.Args().First())
				if err != nil {
					return err
				}
				if c.Bool("json") {
					return printJSON(rs)
				}
				if len(rs) == 0 {
					fmt.Println("no games yet: create one with 'forumgm new GAME.yaml'")
				}
				for _, r := range rs {
					printReport(r)
				}
				return nil
			})
		},
	}
}

func printReport(r moderator.GameReport) {
	fmt.Printf("%s (%s) — %s\n", r.Name, r.Game, r.Status)
	if r.Error != "" {
		fmt.Printf("  error:    %s\n", r.Error)
		return
	}
	fmt.Printf("  thread:   %s\n", r.Thread)
	if l := r.Signups; l != nil && (l.Open || r.Status == moderator.Cancelled) {
		// No game yet: the sign-ups are all there is to show of it.
		printSignups(l, "  ")
	} else {
		printPhase(r)
	}
	fmt.Printf("  outbox:   %d sent, %d waiting, %d failed\n", r.Sent, r.Pending, r.Failed)
	if r.Taken > 0 {
		fmt.Printf("  NOT CONFIRMED: %s the board said it took, but whose markers are not on the board: never sent again by themselves; look on the board ('forumgm audit --outbox'), then 'forumgm retry' any that is missing\n", rules.Plural(r.Taken, "message"))
	}
	if r.PicturesAsText != "" {
		fmt.Printf("  pictures: OFF: the board showed the map's [img] as text in post %s; posts carry the text map alone (ask the board's admin to allow [img] in the thread's forum, or set forum: pictures: false)\n", r.PicturesAsText)
	}
	fmt.Printf("  flood:    %s\n", r.Flood)
	fmt.Printf("  forum:    %s\n", r.HealthText())
	if r.ThreadRead != nil {
		fmt.Printf("  read:     %s\n", r.ThreadRead)
	}
	if e := r.StepError; e != nil {
		fmt.Printf("  failing:  %s (%d failed %s since %s)\n", e.Error, e.Failures, map[bool]string{true: "step", false: "steps"}[e.Failures == 1], rules.When(e.Since, r.Zone))
	}
	printActivity(r)
}

// printPhase is a game's phase, deadline, who has acted and the results.
func printPhase(r moderator.GameReport) {
	st := r.Rules
	fmt.Printf("  phase:    %s %s\n", st.Phase, st.Title)
	switch {
	case st.Deadline.IsZero() || st.Finished:
	case r.Status == moderator.Paused:
		fmt.Printf("  deadline: %s, and it moves on by the pause when the game resumes\n", r.DeadlineText)
	default:
		fmt.Printf("  deadline: %s (%s)\n", r.DeadlineText, rules.Until(time.Until(st.Deadline)))
	}
	if !st.Finished {
		fmt.Printf("  acted:    %s\n", list(st.Acted))
		fmt.Printf("  waiting:  %s\n", list(st.Waiting))
	}
	if len(st.Out) > 0 {
		fmt.Printf("  out:      %s\n", list(st.Out))
	}
	if len(st.Scores) > 0 {
		names := make([]string, 0, len(st.Scores))
		for n := range st.Scores {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool {
			if st.Scores[names[i]] != st.Scores[names[j]] {
				return st.Scores[names[i]] > st.Scores[names[j]]
			}
			return names[i] < names[j]
		})
		var parts []string
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %d", n, st.Scores[n]))
		}
		fmt.Printf("  scores:   %s\n", strings.Join(parts, ", "))
	}
	if st.Finished {
		fmt.Printf("  winners:  %s\n", list(st.Winners))
	}
}

// printActivity shows each player's activity in the current phase: posts
// in the thread, accepted commands, when last heard from.
func printActivity(r moderator.GameReport) {
	if len(r.Activity) == 0 {
		return
	}
	fmt.Println("  activity: this phase's posts and actions, and when last heard from")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	for _, a := range r.Activity {
		heard := "never"
		if !a.LastHeard.IsZero() {
			heard = rules.When(a.LastHeard, r.Zone) + " (" + strings.TrimPrefix(rules.Until(time.Since(a.LastHeard)), "in ") + " ago)"
		}
		fmt.Fprintf(w, "    %s\t%s\t%s\t%s\n", a.Player, rules.Plural(a.Posts, "post"), rules.Plural(a.Actions, "action"), heard)
	}
	w.Flush()
}

func list(xs []string) string {
	if len(xs) == 0 {
		return "—"
	}
	return strings.Join(xs, ", ")
}

func printJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:      "audit",
		Usage:     "every post and PM the bot read, and every command in it with its status and reason",
		ArgsUsage: "GAME",
		Flags: []cli.Flag{dbFlag,
			&cli.StringFlag{Name: "player", Usage: "only this player's messages and commands"},
			&cli.StringFlag{Name: "phase", Usage: "only commands of this phase (as 'status' names it)"},
			&cli.BoolFlag{Name: "json", Usage: "print the messages and commands as JSON (named as in status --json)"},
			&cli.BoolFlag{Name: "outbox", Usage: "also list what the bot sent or will send"},
			&cli.BoolFlag{Name: "csv", Usage: "print the commands as CSV for a spreadsheet: phase, time, player, channel, command, status, reason, link to the post"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("audit takes a game name", 2)
			}
			if c.Bool("csv") && (c.Bool("json") || c.Bool("outbox")) {
				return cli.Exit("audit --csv prints the commands only: not with --json or --outbox", 2)
			}
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				if c.Bool("csv") {
					lines, zone, err := m.CommandLines(ctx, c.Args().First(), gamelog.Filter{Player: c.String("player"), Phase: c.String("phase")})
					if err != nil {
						return err
					}
					return gamelog.WriteCSV(os.Stdout, lines, zone)
				}
				rows, out, err := m.Audit(ctx, c.Args().First(), gamelog.Filter{Player: c.String("player"), Phase: c.String("phase")})
				if err != nil {
					return err
				}
				if c.Bool("json") {
					if rows == nil {
						rows = []gamelog.AuditRow{}
					}
					v := map[string]any{"messages": rows}
					if v["gm_words"], err = m.GMWords(ctx, c.Args().First()); err != nil {
						return err
					}
					if c.Bool("outbox") {
						v["outbox"] = out
					}
					return printJSON(v)
				}
				if len(rows) == 0 && (c.String("player") != "" || c.String("phase") != "") {
					fmt.Println("no messages match (players are named as on the forum; phases as 'forumgm status' shows them)")
				}
				printAudit(rows)
				if err := printGMWords(ctx, m, c.Args().First()); err != nil {
					return err
				}
				if c.Bool("outbox") {
					fmt.Println("\nOUTBOX")
					for _, it := range out {
						to := "thread"
						if it.Kind == forum.KindPM {
							to = "PM to " + it.RecipientName
						}
						held := ""
						if it.State != store.OutboxSent && it.NotBefore.After(time.Now()) {
							held = " held until " + it.NotBefore.Local().Format("15:04:05")
						}
						fmt.Printf("  #%d %-7s %-20s %s (attempts %d)%s %s\n", it.ID, it.State, to, it.Marker, it.Attempts, held, it.LastError)
					}
				}
				return nil
			})
		},
	}
}

func printAudit(rows []gamelog.AuditRow) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		msg := r.Message
		flags := ""
		if msg.Deleted {
			flags += " [DELETED]"
		}
		if msg.Edits > 0 {
			flags += fmt.Sprintf(" [EDITED %d×]", msg.Edits)
		}
		fmt.Fprintf(w, "%s\t%s %s\tby %s\t%s%s\n", msg.WhenText(time.UTC, "2006-01-02 15:04:05"), msg.Kind, msg.ForumID, msg.AuthorName, msg.Status, flags)
		for _, cmd := range r.Commands {
			reason := ""
			if cmd.Reason != "" {
				reason = " — " + cmd.Reason
			}
			fmt.Fprintf(w, "\t  cmd %d\t%s\t%s %q%s\n", cmd.ID, cmd.Phase, strings.ToUpper(string(cmd.Status)), cmd.Text, reason)
		}
	}
	w.Flush()
}

func gmCommands() []*cli.Command {
	game := func(c *cli.Context, n int, usage string) (string, error) {
		if c.NArg() != n {
			return "", cli.Exit(usage, 2)
		}
		return c.Args().First(), nil
	}
	simple := func(name, usage string, fn func(ctx context.Context, m *moderator.Moderator, g string) (string, error)) *cli.Command {
		return &cli.Command{
			Name: name, Usage: usage, ArgsUsage: "GAME", Flags: []cli.Flag{dbFlag},
			Action: func(c *cli.Context) error {
				g, err := game(c, 1, name+" takes a game name")
				if err != nil {
					return err
				}
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					msg, err := fn(ctx, m, g)
					if err == nil {
						fmt.Println(msg)
					}
					return err
				})
			},
		}
	}
	return []*cli.Command{
		{
			Name: "extend", Usage: "move the current deadline (e.g. 24h, 90m, -1h)", ArgsUsage: "GAME DURATION", Flags: []cli.Flag{dbFlag},
			Action: func(c *cli.Context) error {
				g, err := game(c, 2, "extend takes a game and a duration like 24h")
				if err != nil {
					return err
				}
				d, err := gameconfig.ParseDuration(c.Args().Get(1))
				if err != nil {
					return cli.Exit(err.Error(), 2)
				}
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					if _, err := m.Extend(ctx, g, d); err != nil {
						return err
					}
					rs, err := m.Report(ctx, g)
					if err != nil {
						return err
					}
					fmt.Printf("deadline of %s is now %s (%s); 'forumgm run' announces it in the thread\n", g, rs[0].DeadlineText, rules.Until(time.Until(rs[0].Rules.Deadline)))
					return nil
				})
			},
		},
		resolveNowCommand(),
		previewCommand(),
		flavorCommand(),
		sayCommand(),
		simple("count", "post a count of the current phase in the thread now (who has voted or sent orders; what the game's count shows)", func(ctx context.Context, m *moderator.Moderator, g string) (string, error) {
			n, err := m.Count(ctx, g)
			return fmt.Sprintf("count %d of the phase queued; 'forumgm run' posts it", n), err
		}),
		simple("pause", "stop the clock (commands are still read)", func(ctx context.Context, m *moderator.Moderator, g string) (string, error) {
			return "paused", m.Pause(ctx, g)
		}),
		simple("resume", "restart the clock; the deadline moves by the pause", func(ctx context.Context, m *moderator.Moderator, g string) (string, error) {
			return "resumed", m.Resume(ctx, g)
		}),
		simple("end", "end the game now: final standings and reveals are posted", func(ctx context.Context, m *moderator.Moderator, g string) (string, error) {
			return "ended; 'forumgm run' posts the final update", m.End(ctx, g)
		}),
		{
			Name: "replace", Usage: "give a player's slot to a new forum account (old names still match)", ArgsUsage: "GAME OLD NEW",
			Flags: []cli.Flag{dbFlag, &cli.StringFlag{Name: "id", Usage: "the new account's forum user id, if known"}},
			Action: func(c *cli.Context) error {
				g, err := game(c, 3, "replace takes a game, the old and the new name")
				if err != nil {
					return err
				}
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					slot, left, err := m.Replace(ctx, g, c.Args().Get(1), c.Args().Get(2), c.String("id"))
					if err == nil {
						fmt.Printf("%s now plays in %s's slot, replacing %s; messages not yet sent to the slot go to %s\n", c.Args().Get(2), slot, left, c.Args().Get(2))
					}
					return err
				})
			},
		},
		{
			Name: "retry", Usage: "send a game's failed messages again, and those the board said it took whose markers are not on it (all, or one by its marker from 'audit --outbox')", ArgsUsage: "GAME [MARKER]",
			Flags: []cli.Flag{dbFlag},
			Action: func(c *cli.Context) error {
				if c.NArg() < 1 || c.NArg() > 2 {
					return cli.Exit("retry takes a game and, optionally, a message's marker", 2)
				}
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					n, err := m.Retry(ctx, c.Args().Get(0), c.Args().Get(1))
					if err == nil {
						fmt.Printf("%s will be sent again by 'forumgm run' (each is first looked for on the forum)\n", rules.Plural(n, "message"))
					}
					return err
				})
			},
		},
		{
			Name: "void", Usage: "void an accepted command of the current phase (ids from 'forumgm audit')", ArgsUsage: "GAME COMMAND-ID",
			Flags: []cli.Flag{dbFlag, &cli.StringFlag{Name: "reason", Usage: "why, for the audit log"}},
			Action: func(c *cli.Context) error {
				g, err := game(c, 2, "void takes a game and a command id")
				if err != nil {
					return err
				}
				id, err := strconv.ParseInt(c.Args().Get(1), 10, 64)
				if err != nil {
					return cli.Exit(fmt.Sprintf("%q is not a command id: use the number after \"cmd\" in 'forumgm audit %s'", c.Args().Get(1), g), 2)
				}
				return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
					err := m.Void(ctx, g, id, c.String("reason"))
					if err == nil {
						fmt.Printf("command %d voided\n", id)
					}
					return err
				})
			},
		},
	}
}
