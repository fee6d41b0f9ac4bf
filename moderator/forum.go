package moderator

import (
	"context"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
)

// Forum is a game's connection to its board: the port forum.Board, all of
// it and nothing else (reading in read.go, sending in send.go). cmd/ wires
// the real one (forumconn, on the sessions the games of one account
// share); the moderator's tests use forumtest.Board, the end-to-end tests
// forumconn against forumsim or a real board.
type Forum = forum.Board

// Connector opens the connection to a game's board.
type Connector func(ctx context.Context, site *gameconfig.Site) (Forum, error)
