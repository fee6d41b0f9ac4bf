// Package forumconn is one bot account on one board: it puts the scraper,
// the parser and the poster behind the port the moderator uses
// (forum.Board).
package forumconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// The real board is the port's real implementation, checked here.
var _ forum.Board = (*Conn)(nil)

// Conn is a logged-in (on demand) bot account on a board.
type Conn struct {
	Session *scraper.Session
	Scraper *scraper.Scraper
	Poster  *poster.Poster
	acct    *account // what the games on this account share
}

// Open prepares a connection; it logs in on first use.
func Open(base string, prof forum.Profile, creds forum.Credentials, opt scraper.Options) (*Conn, error) {
	s, err := scraper.NewSession(base, prof, creds, opt)
	if err != nil {
		return nil, err
	}
	return newAccount(s).conn(), nil
}

// ReadThread reads the thread page by page from the cursor (forum.BoardReader).
func (c *Conn) ReadThread(ctx context.Context, thread string, cursor []byte, page func(forum.ThreadPage) error) error {
	var cur scraper.Cursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return fmt.Errorf("thread cursor: %w", err)
		}
	}
	var posts []forum.Post
	_, err := c.Scraper.ReadThreadPages(ctx, thread, cur, func(p forum.Post) error {
		posts = append(posts, p)
		return nil
	}, func(res scraper.Result) error {
		next, _ := json.Marshal(res.Cursor)
		pg := forum.ThreadPage{Posts: posts, Next: next, Number: res.Cursor.Page, Pages: res.Pages, Forum: res.Forum}
		if len(posts) > 0 {
			pg.First, pg.Last = posts[0].ID, posts[len(posts)-1].ID
		}
		if res.ToEnd && pg.First != "" {
			// The read reached the end: a deleted last post is inside it too.
			pg.Last = strconv.FormatInt(math.MaxInt64, 10)
		}
		err := page(pg)
		posts = posts[:0]
		return err
	})
	return err
}

type pmCursor struct {
	Last string `json:"last"`
}

// NewPMs returns the inbox PMs newer than the cursor, oldest first
// (forum.BoardReader), without those whose list entry skip refuses (nil:
// none): from the account's latest inbox list when it is recent enough
// (Sessions.InboxAge: one list serves the games polling within it), else
// from a list asked for after the call (always, for a connection of its
// own), with the time the list was asked for.
func (c *Conn) NewPMs(ctx context.Context, cursor []byte, skip func(from forum.Author) bool) (forum.Inbox, error) {
	var cur pmCursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return forum.Inbox{}, fmt.Errorf("PM cursor: %w", err)
		}
	}
	heads, listedAt, err := c.acct.inboxList(ctx, c.Session.Clock().Now().Add(-c.acct.inboxAge))
	if err != nil {
		return forum.Inbox{}, err
	}
	if cur.Last != "" {
		// The first PM after the cursor (the list is oldest first).
		i, _ := slices.BinarySearchFunc(heads, cur.Last, func(h forum.PMHeader, last string) int {
			if scraper.CompareIDs(h.ID, last) <= 0 {
				return -1
			}
			return 1
		})
		heads = heads[i:]
	}
	var out []forum.PrivateMessage
	for _, h := range heads {
		if cur.Last != "" && scraper.CompareIDs(h.ID, cur.Last) <= 0 {
			continue // a list showing a PM twice (MyBB)
		}
		if skip != nil && h.From.Name != "" && skip(h.From) {
			cur.Last = h.ID
			continue
		}
		pm, err := c.acct.readPM(ctx, h.ID)
		if err != nil {
			// A partial read must not look complete: a phase could resolve
			// without the PMs still unread. All of them again next poll.
			return forum.Inbox{}, fmt.Errorf("reading PM %s: %w", h.ID, err)
		}
		out = append(out, pm)
		cur.Last = h.ID
	}
	b, _ := json.Marshal(cur)
	return forum.Inbox{PMs: out, Next: b, ListedAt: listedAt}, nil
}

// Reply posts in the thread with the marker key.
func (c *Conn) Reply(ctx context.Context, thread, body, key string) (string, error) {
	id, err := c.Poster.Reply(ctx, thread, key, "", body)
	return id, permanent(err)
}

// SendPM sends a PM with the marker key.
func (c *Conn) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	id, err := c.Poster.SendPM(ctx, to, key, subject, body)
	return id, permanent(err)
}

// permanent marks the board's final refusals (forum.ErrPermanent).
func permanent(err error) error {
	if errors.Is(err, poster.ErrRejected) {
		return fmt.Errorf("%w: %w", forum.ErrPermanent, err)
	}
	return err
}

// Flood is what the poster has learned of the account's flood control.
func (c *Conn) Flood() forum.FloodStatus { return c.Poster.Flood() }

// FindPost looks for a post already made with this marker key.
func (c *Conn) FindPost(ctx context.Context, thread, key string) (string, bool, error) {
	return c.Poster.PostWithMarker(ctx, thread, key)
}

// FindSentPM looks for a PM already sent with this marker key, queued at
// since (zero: unknown).
func (c *Conn) FindSentPM(ctx context.Context, key string, since time.Time) (string, bool, error) {
	return c.Poster.SentPMWithMarker(ctx, key, since)
}

// Connect opens a connection of its own to a game's board (probes,
// one-off commands); `forumgm run` shares them through Sessions.
func Connect(site *gameconfig.Site, clk clock.Clock, version string) (*Conn, error) {
	if err := notAPI(site); err != nil {
		return nil, err
	}
	return connect(site, clk, version, nil, nil)
}

// ConnectBoard opens a connection of its own to a game's board as the
// port, whatever the board: Connect's, or an API board's client.
func ConnectBoard(site *gameconfig.Site, clk clock.Clock, version string) (forum.Board, error) {
	if site.Err == nil && site.Profile.API != "" {
		return connectAPI(site, clk, version, nil, nil, 0)
	}
	c, err := Connect(site, clk, version)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Ping checks that the board answers, with one request (forum.BoardReader).
func (c *Conn) Ping(ctx context.Context) error { return c.Session.Ping(ctx) }

// Member looks an account up on the board by name (forum.BoardReader).
func (c *Conn) Member(ctx context.Context, name string) (forum.Author, bool, error) {
	return c.Scraper.Member(ctx, name)
}
