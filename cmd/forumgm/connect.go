package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
)

// connectForum wires a game's forum settings to a real connection, on the
// session its board and bot account share with the process's other games.
// A long first read of a thread reports its progress in the log.
func connectForum(clk clock.Clock, log *slog.Logger) moderator.Connector {
	sessions := &forumconn.Sessions{Clock: clk, Version: forumgm.Version}
	return func(ctx context.Context, fc gameconfig.ForumConfig) (moderator.Forum, error) {
		c, err := sessions.Connect(fc)
		if err != nil {
			return nil, err
		}
		c.Scraper.Progress = func(read, pages int) {
			if read > 2 { // a backfill, not an ordinary poll of the last page or two
				log.Info("reading the thread", "thread", fc.Thread, "page", fmt.Sprintf("%d of %d", read, pages))
			}
		}
		return c, nil
	}
}
