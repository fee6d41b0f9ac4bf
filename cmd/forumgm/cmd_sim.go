package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/forumsim"
)

// simCommand runs the simulated phpBB board with a seeded demo thread, for
// a person to browse or for the bot to play against.
func simCommand() *cli.Command {
	return &cli.Command{
		Name:  "sim",
		Usage: "run a local phpBB-like forum with a seeded demo game thread",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "addr", Value: "127.0.0.1:8080", Usage: "listen address (loopback by default)"},
			&cli.StringFlag{Name: "bold", Value: "strong", Usage: "how [b] renders: strong (phpBB 3.2.2+) or span (3.0-3.2.1)"},
			&cli.IntFlag{Name: "posts-per-page", Value: 10, Usage: "posts per topic page"},
			&cli.DurationFlag{Name: "flood", Value: 15 * time.Second, Usage: "flood interval between posts/PMs (0 turns it off)"},
			&cli.StringFlag{Name: "password", Usage: "one password for every seeded user (default: random per user)"},
			&cli.GenericFlag{Name: "fault", Value: &faultSpecs{}, Usage: "inject a fault, repeatable: kind[,rate=0.1][,count=N][,skip=N][,method=POST][,path=mode=reply][,status=502][,retry=30s][,delay=2s]; kinds: 5xx 429 429-date slow slow-apply reset truncate cut lost lost-reset expire-session expire-token flood"},
			&cli.Int64Flag{Name: "fault-seed", Value: 1, Usage: "seed of the random fault draws (same seed, same requests: same faults)"},
			&cli.DurationFlag{Name: "down-for", Usage: "take the board down (HTTP 503, board disabled) for this long"},
			&cli.DurationFlag{Name: "down-after", Usage: "with --down-for: how long after the start the downtime begins"},
			&cli.StringFlag{Name: "theme", Value: "prosilver", Usage: "the board's style: prosilver, or renamed (posts div.topic-entry, authors span.poster-name: needs examples/renamed-theme.profile.yaml)"},
			&cli.BoolFlag{Name: "no-pms", Usage: "a board without private messages: every PM page answers 404 (no game can run on it: try probe and new)"},
			&cli.StringFlag{Name: "charset", Usage: "serve the board in a legacy charset, as a PHP board set to it works: ISO-8859-1 or windows-1252 (pages declared and sent in it, forms read as its bytes, &#NNNN; references kept)"},
			&cli.BoolFlag{Name: "charset-in-meta", Usage: "with --charset: declare it in the pages' <meta> only, not in their Content-Type"},
			&cli.StringFlag{Name: "layout", Usage: "the pages' layout: rows serves a classic board (each post three table rows with no element around it, members by name only, edit notes as text in the body, PM pages without a logout link, one message box for errors and successes: needs examples/legacy-rows.profile.yaml)"},
			&cli.IntFlag{Name: "subject-bytes", Usage: "the board's subject column in bytes: a longer post or PM subject is answered with HTTP 500, the database's error (the profile's max_subject_bytes keeps the bot under it)"},
			&cli.BoolFlag{Name: "no-img", Usage: "a board whose admin turned [img] off: the tag shows as typed in posts (a game with public_url then sends the text map alone, and says so in status and on the desk)"},
			&cli.BoolFlag{Name: "no-size", Usage: "a board whose BBCode has no [size] (as FluxBB's): the tag shows as typed (a profile's marker_markup: \"{marker}\" keeps it from under the bot's posts)"},
		},
		Action: func(c *cli.Context) error {
			bold, err := bbcode.ParseBoldStyle(c.String("bold"))
			if err != nil {
				return cli.Exit(err.Error(), 2)
			}
			theme, ok := forumsim.Themes[c.String("theme")]
			if !ok {
				return cli.Exit(fmt.Sprintf("--theme %q: prosilver or renamed", c.String("theme")), 2)
			}
			if l := c.String("layout"); l != "" && l != forumsim.LayoutRows {
				return cli.Exit(fmt.Sprintf("--layout %q: %s, or none for prosilver's", l, forumsim.LayoutRows), 2)
			}
			switch c.String("charset") {
			case "", forumsim.CharsetLatin1, forumsim.CharsetCP1252:
			default:
				return cli.Exit(fmt.Sprintf("--charset %q: %s or %s", c.String("charset"), forumsim.CharsetLatin1, forumsim.CharsetCP1252), 2)
			}
			flood := c.Duration("flood")
			if flood <= 0 {
				flood = -1 // Options treats 0 as "default 15 s"
			}
			var rules []forumsim.FaultRule
			for _, spec := range *c.Generic("fault").(*faultSpecs) {
				r, err := forumsim.ParseFaultRule(spec)
				if err != nil {
					return cli.Exit("--fault: "+err.Error(), 2)
				}
				rules = append(rules, r)
			}
			s := forumsim.New(forumsim.Options{Bold: bold, PostsPerPage: c.Int("posts-per-page"), FloodInterval: flood, Theme: theme, NoPMs: c.Bool("no-pms"), NoSize: c.Bool("no-size"), NoImg: c.Bool("no-img"),
				Charset: c.String("charset"), CharsetInMeta: c.Bool("charset-in-meta"), Layout: c.String("layout"), SubjectBytes: c.Int("subject-bytes")})
			if err := s.SetFaults(c.Int64("fault-seed"), rules...); err != nil {
				return cli.Exit(err.Error(), 2)
			}
			if d := c.Duration("down-for"); d > 0 {
				// The seeding below goes through the in-process API, so a
				// board down from the start still gets its demo thread.
				// Down from the start it is down at once, before the
				// banner says so (a timer of 0 could still be pending).
				if after := c.Duration("down-after"); after > 0 {
					defer time.AfterFunc(after, func() { s.DownFor(d) }).Stop()
				} else {
					s.DownFor(d)
				}
			}
			var pw func(string) string
			if p := c.String("password"); p != "" {
				pw = func(string) string { return p }
			}
			demo, err := forumsim.SeedDemo(s, pw)
			if err != nil {
				return err
			}
			base, stop, err := s.Start(c.String("addr"))
			if err != nil {
				return err
			}
			out := c.App.Writer
			if out == nil {
				out = os.Stdout
			}
			fmt.Fprintf(out, "forumgm sim: phpBB-like board at %s\n", base)
			fmt.Fprintf(out, "demo thread: %sviewtopic.php?t=%d\n", base, demo.TopicID)
			fmt.Fprintln(out, "users (id, name, password):")
			for _, u := range demo.Users {
				note := ""
				if u.Exempt {
					note = "  (flood-exempt)"
				}
				fmt.Fprintf(out, "  %d  %-16s %s%s\n", u.ID, u.Name, u.Password, note)
			}
			for _, r := range rules {
				fmt.Fprintf(out, "fault: %s\n", describeFault(r))
			}
			if d := c.Duration("down-for"); d > 0 {
				fmt.Fprintf(out, "down for %s, %s after the start\n", d, c.Duration("down-after"))
			}
			fmt.Fprintln(out, "press Ctrl-C to stop")
			ctx, cancel := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
			defer cancel()
			<-ctx.Done()
			sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer scancel()
			return stop(sctx)
		},
	}
}

// describeFault is one --fault rule as the startup banner shows it.
func describeFault(r forumsim.FaultRule) string {
	s := string(r.Kind)
	if r.Rate > 0 {
		s += fmt.Sprintf(" rate %g", r.Rate)
	}
	if r.Count > 0 {
		s += fmt.Sprintf(" count %d", r.Count)
	}
	if r.Method != "" || r.Path != "" {
		s += fmt.Sprintf(" on %s %q", r.Method, r.Path)
	}
	return s
}

// faultSpecs collects repeated --fault values whole: a rule's own commas
// must not split it, as cli.StringSliceFlag would.
type faultSpecs []string

func (f *faultSpecs) Set(v string) error {
	*f = append(*f, v)
	return nil
}

func (f *faultSpecs) String() string { return strings.Join(*f, " ") }
