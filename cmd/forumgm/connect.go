package main

import (
	"log/slog"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/moderator"
)

// connectForum wires a game's forum settings to a real connection, on the
// session its board and bot account share with the process's other games.
// The sessions log their own news (logins, retried reads, a board's
// Retry-After); a long first read's progress is the moderator's to log: it
// knows the page a backfill resumed on.
func connectForum(clk clock.Clock, log *slog.Logger) moderator.Connector {
	return (&forumconn.Sessions{Clock: clk, Version: forumgm.Version, Log: log}).Board
}
