package forum

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Board is the port between the moderator and a board: one bot account's
// connection, exactly what `forumgm run` uses of it, every method required.
// forumconn.Conn is the real one (over HTTP: the scraper, the parser, the
// poster); forumtest.Board is the in-memory one the moderator's and the
// desk's tests use. Both are checked against it at compile time.
//
// It is two halves, because they have different lives: what a game's poll
// reads (BoardReader), and what the outbox sends and checks for
// (BoardSender). A sender never needs a reader's cursors, and a reader
// never waits on flood control, so the two can run apart.
//
// Reading a body (its commands, its hash) is not the board's: it is pure,
// and the game's body reader does it (parser.BodyReader).
type Board interface {
	BoardReader
	BoardSender
}

// BoardReader is what a game's poll reads from the board.
type BoardReader interface {
	// ReadThread reads the thread from the cursor to its end, page by
	// page, in forum order: it starts again on the cursor's own page (so
	// edits there are seen) and calls page after each page. An error from
	// page stops the read and is returned; so a long first read can be
	// recorded page by page, stopped, and resumed from a page's Next.
	ReadThread(ctx context.Context, thread string, cursor []byte, page func(ThreadPage) error) error
	// NewPMs returns the inbox PMs newer than the cursor, oldest first,
	// and the new cursor, from an inbox list the account's games may share
	// (Inbox.ListedAt says when it was asked for). It leaves out unread
	// the PMs whose inbox list entry shows a sender skip says is for
	// another game (their pages are not asked for; the cursor still passes
	// them); nil skips none. A sender the list does not show is never
	// skipped. Many games sharing one inbox each read only their own PMs.
	NewPMs(ctx context.Context, cursor []byte, skip func(from Author) bool) (Inbox, error)
	// Member looks an account up on the board by name: found is false
	// when there is none. The name comes back as the board writes it, with
	// the user id when the board shows one.
	Member(ctx context.Context, name string) (a Author, found bool, err error)
	// Ping tells cheaply whether the board answers at all: one request,
	// not retried, no login. A game backed off for a board it cannot read
	// pings it meanwhile, to read again as soon as it is back.
	Ping(ctx context.Context) error
	// Mark is the thread's row in the topic list of the forum holding it,
	// from a list the account's games may share (as the inbox list: asked
	// for a few seconds before at most): the change signal. ErrNoSignal
	// when the board has none; a mark with an empty Sign when the list
	// does not show the thread.
	Mark(ctx context.Context, forumID, thread string) (ThreadMark, error)
}

// ThreadPage is one page of a thread read.
type ThreadPage struct {
	// Posts are the page's posts in forum order, reused once the page
	// callback returns.
	Posts []Post
	// Next is the thread cursor after this page.
	Next []byte
	// First and Last are the ids of the posts the page covers without
	// gaps (so a post deleted between them can be told); on the thread's
	// last page Last is past every id, so a deleted last post is too.
	First, Last string
	// Number is the page's (1-based), Pages the thread's page count.
	Number, Pages int
	// Forum is the id of the forum holding the thread, as the page names
	// it ("" when it does not): its topic list is the change signal.
	Forum string
}

// ThreadMark is what a forum's topic list shows of one thread (its last
// post and replies count): the same mark at two times says no post was
// made or deleted in between, as far as the list shows (docs/polling.md).
type ThreadMark struct {
	Thread string `json:"thread"`
	Sign   string `json:"sign"` // "post 123, replies 5"; "" when the list does not show the thread
	// Listed is when the list's first page was asked for: the mark holds
	// every post made before then.
	Listed time.Time `json:"listed"`
}

// PostSign is a mark's sign where the list shows the last post's id:
// "post 123, replies 5", replies as the list writes them.
func PostSign(post, replies string) string { return "post " + post + ", replies " + replies }

// digitsOnly drops what a list may group a count's digits with.
var digitsOnly = strings.NewReplacer(",", "", ".", "", " ", "", "\u00a0", "")

// LastPost reads a PostSign: the last post's id and the replies; ok is
// false for any other sign (a list that shows no id: MyBB's).
func (m ThreadMark) LastPost() (post string, replies int, ok bool) {
	rest, found := strings.CutPrefix(m.Sign, "post ")
	if !found {
		return "", 0, false
	}
	post, count, found := strings.Cut(rest, ", replies ")
	if !found || post == "" {
		return "", 0, false
	}
	n, err := strconv.Atoi(digitsOnly.Replace(count))
	if err != nil || n < 0 {
		return "", 0, false
	}
	return post, n, true
}

// ErrNoSignal: the board's profile has no topic list (urls.topic_list),
// or the game names no forum for it; every poll reads the thread.
var ErrNoSignal = errors.New("no topic list to tell an unchanged thread by")

// Inbox is one read of the bot's new PMs.
type Inbox struct {
	PMs  []PrivateMessage // newer than the cursor, oldest first
	Next []byte           // the PM cursor after them
	// ListedAt is when the inbox list they come from was asked for: a
	// list shared by the account's games may be a little older than the
	// call, and the read is complete only up to then.
	ListedAt time.Time
}

// BoardSender is what the outbox does on the board: send, and look for
// what an interrupted send may have sent (by its marker) before any retry.
type BoardSender interface {
	// Reply posts body with the marker key in the thread and returns the
	// new post's id; SendPM sends a PM with the marker key.
	Reply(ctx context.Context, thread, body, key string) (id string, err error)
	SendPM(ctx context.Context, to Author, subject, body, key string) (id string, err error)
	// FindPost and FindSentPM look for an item already sent with this
	// marker key (FindSentPM: one queued at since, zero when unknown).
	FindPost(ctx context.Context, thread, key string) (id string, found bool, err error)
	FindSentPM(ctx context.Context, key string, since time.Time) (id string, found bool, err error)
	// Flood is what the connection has learned of the account's flood
	// control, and when the next post or PM may go.
	Flood() FloodStatus
}
