package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/webdesk"
)

// The web desk's flags, shared by 'web' and 'run --http'.
func deskFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "password-env", Value: "FORUMGM_WEB_PASSWORD", Usage: "the environment variable holding the GM's desk password (12+ characters)"},
		&cli.StringFlag{Name: "password-file", Usage: "a file only its owner can read holding the desk password (instead of --password-env)"},
		&cli.StringSliceFlag{Name: "public", Usage: "serve the public read-only page of this game at /p/GAME (repeatable; off by default)"},
		&cli.BoolFlag{Name: "secure-cookies", Usage: "mark cookies Secure on plain HTTP too (behind a TLS proxy)"},
	}
}

func webCommand() *cli.Command {
	return &cli.Command{
		Name:  "web",
		Usage: "serve the GM's web desk: games, audit log, phase history, GM-only state, maps and GM controls",
		Description: `Serves the desk on --http (default 127.0.0.1:8080). The GM logs in with the
password in $FORUMGM_WEB_PASSWORD (or --password-env VAR, or --password-file
PATH, a file only its owner can read). 'forumgm run --http ADDR' serves the
same desk from the moderating process.`,
		Flags: append([]cli.Flag{dbFlag, &cli.StringFlag{Name: "http", Value: "127.0.0.1:8080", Usage: "the address to listen on"}}, deskFlags()...),
		Action: func(c *cli.Context) error {
			return withModerator(c, func(ctx context.Context, m *moderator.Moderator) error {
				wait, err := serveDesk(ctx, c, m)
				if err != nil {
					return err
				}
				return wait()
			})
		},
	}
}

// serveDesk starts the desk on --http; wait blocks until ctx ends and the
// server has shut down.
func serveDesk(ctx context.Context, c *cli.Context, m *moderator.Moderator) (wait func() error, err error) {
	secret, err := webdesk.LoadSecret(c.String("password-env"), c.String("password-file"))
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	pub := map[string]bool{}
	for _, g := range c.StringSlice("public") {
		pub[g] = true
	}
	d, err := webdesk.New(webdesk.Config{Moderator: m, Secret: secret, Public: pub, SecureCookies: c.Bool("secure-cookies"), Log: m.Log})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", c.String("http"))
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("the web desk: %v", err), 2)
	}
	srv := &http.Server{Handler: d.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 60 * time.Second}
	m.Log.Info("the GM's web desk is up", "url", "http://"+ln.Addr().String()+"/")
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	return func() error {
		select {
		case err := <-done:
			return err
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}, nil
}
