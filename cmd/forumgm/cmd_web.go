package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/webdesk"
)

// The web desk's flags, shared by 'web' and 'run --http'.
func deskFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "password-env", Value: "FORUMGM_WEB_PASSWORD", Usage: "the environment variable holding the GM's desk password (12+ characters)"},
		&cli.StringFlag{Name: "password-file", Usage: "a file only its owner can read holding the desk password (instead of --password-env)"},
		&cli.StringSliceFlag{Name: "public", Usage: "serve the public read-only page of this game at /p/GAME (repeatable; off by default)"},
		&cli.BoolFlag{Name: "secure-cookies", Usage: "mark cookies Secure on plain HTTP too (behind a TLS proxy)"},
		&cli.StringSliceFlag{Name: "trusted-proxy", Usage: "a reverse proxy in front of the desk (an address or a network such as 10.0.0.0/8; repeatable): the client address it reports in X-Forwarded-For is believed for the login's slowdown and the log; without it every visitor behind the proxy counts as one"},
		&cli.StringFlag{Name: "game-dir", Value: ".", Usage: "where the desk writes the game files of the games created on it (\"\": nowhere, download only)"},
	}
}

// trustedProxies reads --trusted-proxy: addresses (one host each) or
// networks in CIDR notation.
func trustedProxies(vals []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range vals {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			if p, err := netip.ParsePrefix(f); err == nil {
				out = append(out, p.Masked())
				continue
			}
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("--trusted-proxy %q: want an IP address or a network such as 10.0.0.0/8", f)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
		}
	}
	return out, nil
}

func webCommand() *cli.Command {
	return &cli.Command{
		Name:  "web",
		Usage: "serve the GM's web desk: games, audit log, phase history, GM view, maps, GM controls and new games",
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
	proxies, err := trustedProxies(c.StringSlice("trusted-proxy"))
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	probeGame := func(ctx context.Context, fc gameconfig.ForumConfig) (*probe.Report, error) {
		return probeBoard(ctx, fc, false)
	}
	d, err := webdesk.New(webdesk.Config{Moderator: m, Secret: secret, Public: pub, SecureCookies: c.Bool("secure-cookies"),
		TrustedProxies: proxies, Log: m.Log, Probe: probeGame, GameDir: c.String("game-dir")})
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
