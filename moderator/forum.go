package moderator

import (
	"context"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
)

// Forum is what the moderator needs from one game's forum connection (the
// scraper, the parser and the poster behind one logged-in bot account).
// cmd/ wires the real one; tests may use the same against forumsim.
type Forum interface {
	// ReadThread visits, in forum order, every post after the cursor, plus the
	// posts on the cursor's own page again (so edits are seen), and returns
	// the new cursor and the ids of the first and last post the read covered
	// without gaps (so deletions inside that range can be told).
	ReadThread(ctx context.Context, thread string, cursor []byte, visit func(forum.Post) error) (next []byte, first, last string, err error)
	// NewPMs returns the PMs in the bot's inbox newer than the cursor, oldest
	// first, and the new cursor.
	NewPMs(ctx context.Context, cursor []byte) ([]forum.PrivateMessage, []byte, error)
	// Segments reads the commands of a post body: bold outside quotes,
	// spoilers and code, minus struck text. Lines reads a PM body's lines.
	Segments(bodyHTML string) []string
	Lines(bodyHTML string) []string
	// Hash is how a body is compared between reads to tell an edit: stable
	// under whitespace and under parts a board re-renders with no edit (a
	// quote header's "5 minutes ago").
	Hash(bodyHTML string) string
	// Reply posts body with the marker key in the thread and returns the new
	// post's id. SendPM sends a PM with the marker key.
	Reply(ctx context.Context, thread, body, key string) (string, error)
	SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error)
	// FindPost / FindSentPM look for an item already sent with this marker
	// key: the check before any retry of an uncertain send.
	FindPost(ctx context.Context, thread, key string) (id string, found bool, err error)
	FindSentPM(ctx context.Context, key string, since time.Time) (id string, found bool, err error)
	// Member looks an account up on the board by name: found is false when
	// there is none. The name comes back as the board writes it, with the
	// user id when the board shows one.
	Member(ctx context.Context, name string) (a forum.Author, found bool, err error)
}

// InboxLister is what a Forum shared by the games of one bot account may
// offer: the inbox PMs newer than the cursor from a list possibly asked for
// a little before the call (one list serves all the account's games), and
// when that list was asked for. The read's PMs are then known complete up
// to listedAt only, so deadlines after it wait for a later read.
type InboxLister interface {
	NewPMsListed(ctx context.Context, cursor []byte) (pms []forum.PrivateMessage, next []byte, listedAt time.Time, err error)
}

// Connector opens the forum connection of a game.
type Connector func(ctx context.Context, fc gameconfig.ForumConfig) (Forum, error)
