// Package forumconn is one bot account on one board: it puts the scraper,
// the parser and the poster behind the small interface the moderator needs.
package forumconn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// Conn is a logged-in (on demand) bot account on a board.
type Conn struct {
	Session *scraper.Session
	Scraper *scraper.Scraper
	Poster  *poster.Poster
	parser  *parser.Parser
	acct    *account // what the games on this account share
}

// Open prepares a connection; it logs in on first use.
func Open(base string, prof forum.Profile, creds forum.Credentials, opt scraper.Options) (*Conn, error) {
	s, err := scraper.NewSession(base, prof, creds, opt)
	if err != nil {
		return nil, err
	}
	px, err := parser.New(prof)
	if err != nil {
		return nil, err
	}
	return newAccount(s, px).conn(), nil
}

// Profile finds a built-in profile, or loads a GM's profile file.
func Profile(engine, file string) (forum.Profile, error) {
	if file != "" {
		return forum.LoadProfile(file)
	}
	p, ok := forum.Builtin(engine)
	if !ok {
		return forum.Profile{}, fmt.Errorf("no profile for forum engine %q (known: %v)", engine, forum.BuiltinNames())
	}
	return p, nil
}

// ReadThread reads new posts after the cursor (see moderator.Forum for the contract).
func (c *Conn) ReadThread(ctx context.Context, thread string, cursor []byte, visit func(forum.Post) error) ([]byte, string, string, error) {
	var cur scraper.Cursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return nil, "", "", fmt.Errorf("thread cursor: %w", err)
		}
	}
	res, err := c.Scraper.ReadThread(ctx, thread, cur, visit)
	if err != nil {
		return nil, "", "", err
	}
	next, _ := json.Marshal(res.Cursor)
	last := res.To
	if res.ToEnd && res.From != "" {
		// The read reached the end: a deleted last post is inside it too.
		last = strconv.FormatInt(math.MaxInt64, 10)
	}
	return next, res.From, last, nil
}

// ReadThreadPages is ReadThread recorded page by page, so a long first
// read is never held whole and can stop and resume: page is called after
// each page with its posts, the cursor after it, the post ids the page
// covers (last is past every id on the thread's last page, as ReadThread's),
// the page's number and the thread's page count (posts is reused once page
// returns). An error from page stops the read and is returned.
func (c *Conn) ReadThreadPages(ctx context.Context, thread string, cursor []byte,
	page func(posts []forum.Post, next []byte, first, last string, n, pages int) error) error {
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
		first, last, n := "", "", res.Cursor.Page
		if len(posts) > 0 {
			first, last = posts[0].ID, posts[len(posts)-1].ID
		}
		if res.ToEnd && first != "" {
			last = strconv.FormatInt(math.MaxInt64, 10)
		}
		err := page(posts, next, first, last, n, res.Pages)
		posts = posts[:0]
		return err
	})
	return err
}

type pmCursor struct {
	Last string `json:"last"`
}

// NewPMs returns inbox PMs newer than the cursor, oldest first, from a
// list asked for after the call.
func (c *Conn) NewPMs(ctx context.Context, cursor []byte) ([]forum.PrivateMessage, []byte, error) {
	pms, next, _, err := c.newPMs(ctx, cursor, c.Session.Clock().Now())
	return pms, next, err
}

// NewPMsListed is NewPMs from the account's latest inbox list when it is
// recent enough (Sessions.InboxAge), shared by its games, with the time it
// was asked for (moderator.InboxLister).
func (c *Conn) NewPMsListed(ctx context.Context, cursor []byte) ([]forum.PrivateMessage, []byte, time.Time, error) {
	return c.newPMs(ctx, cursor, c.Session.Clock().Now().Add(-c.acct.inboxAge))
}

func (c *Conn) newPMs(ctx context.Context, cursor []byte, notBefore time.Time) ([]forum.PrivateMessage, []byte, time.Time, error) {
	var cur pmCursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return nil, nil, time.Time{}, fmt.Errorf("PM cursor: %w", err)
		}
	}
	heads, listedAt, err := c.acct.inboxList(ctx, notBefore)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	sort.Slice(heads, func(i, j int) bool { return scraper.CompareIDs(heads[i].ID, heads[j].ID) < 0 })
	var out []forum.PrivateMessage
	for _, h := range heads {
		if cur.Last != "" && scraper.CompareIDs(h.ID, cur.Last) <= 0 {
			continue
		}
		pm, err := c.acct.readPM(ctx, h.ID)
		if err != nil {
			// A partial read must not look complete: a phase could resolve
			// without the PMs still unread. All of them again next poll.
			return nil, nil, time.Time{}, fmt.Errorf("reading PM %s: %w", h.ID, err)
		}
		out = append(out, pm)
		cur.Last = h.ID
	}
	b, _ := json.Marshal(cur)
	return out, b, listedAt, nil
}

// Segments reads a post's commands; Lines a PM's. A marker line (what the
// poster puts under every message it sends) is never a command.
func (c *Conn) Segments(body string) []string { return dropMarkers(c.parser.Segments(body)) }
func (c *Conn) Lines(body string) []string    { return dropMarkers(c.parser.Lines(body)) }

// Hash is the scraper's body hash (quote headers left out).
func (c *Conn) Hash(body string) string { return scraper.BodyHash(body) }

func dropMarkers(segs []string) []string {
	out := segs[:0]
	for _, s := range segs {
		if !strings.HasPrefix(strings.TrimSpace(s), forum.MarkerPrefix) {
			out = append(out, s)
		}
	}
	return out
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

// Connect opens a connection of its own for one game's forum settings
// (probes, one-off commands); `forumgm run` shares them through Sessions.
func Connect(fc gameconfig.ForumConfig, clk clock.Clock, version string) (*Conn, error) {
	return connect(fc, clk, version, nil)
}

// Member looks an account up on the board by name (see moderator.Forum).
func (c *Conn) Member(ctx context.Context, name string) (forum.Author, bool, error) {
	return c.Scraper.Member(ctx, name)
}
