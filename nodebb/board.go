package nodebb

import "github.com/forumgm/forumgm/forum"

// The client is a board port, checked here.
var _ forum.Board = (*Client)(nil)
