package main

import (
	"context"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/moderator"
)

// connectForum wires a game's forum settings to a real connection.
func connectForum(clk clock.Clock) moderator.Connector {
	return func(ctx context.Context, fc moderator.ForumConfig) (moderator.Forum, error) {
		return forumconn.Connect(fc, clk, forumgm.Version)
	}
}
