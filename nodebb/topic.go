package nodebb

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// apiPost is a post in /api/topic/TID's JSON.
type apiPost struct {
	PID       json.Number `json:"pid"`
	UID       json.Number `json:"uid"`
	Index     int         `json:"index"`
	Timestamp int64       `json:"timestamp"`
	Edited    int64       `json:"edited"`
	EditedISO string      `json:"editedISO"`
	Deleted   flag        `json:"deleted"`
	Content   string      `json:"content"`
	User      struct {
		Username string `json:"username"`
	} `json:"user"`
}

// flag is NodeBB's 0/1 or false/true.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	s := string(b)
	*f = flag(s == "true" || (s != "false" && s != "0" && s != "null" && s != `"0"` && s != `""`))
	return nil
}

type apiTopic struct {
	TID        json.Number `json:"tid"`
	CID        json.Number `json:"cid"`
	Deleted    flag        `json:"deleted"`
	Locked     flag        `json:"locked"`
	Posts      []apiPost   `json:"posts"`
	Pagination struct {
		PageCount   int `json:"pageCount"`
		CurrentPage int `json:"currentPage"`
	} `json:"pagination"`
	// Category is the topic's category: its post queue setting (NodeBB
	// queues where both the board's and the category's are on; the
	// category's is the board's when it never set one).
	Category struct {
		PostQueue *flag `json:"postQueue"`
	} `json:"category"`
	Privileges struct {
		Reply      bool `json:"topics:reply"`
		Read       bool `json:"topics:read"`
		AdminOrMod bool `json:"isAdminOrMod"`
	} `json:"privileges"`
}

// topicPage reads page n (1-based) of a topic.
func (c *Client) topicPage(ctx context.Context, thread string, n int) (apiTopic, time.Time, error) {
	var t apiTopic
	at := c.opt.Clock.Now()
	err := c.getJSON(ctx, "api/topic/"+url.PathEscape(thread)+"?page="+strconv.Itoa(n), &t)
	if err == nil && t.Pagination.PageCount < 1 {
		t.Pagination.PageCount = 1
	}
	return t, at, err
}

type threadCursor struct {
	Page int `json:"page"`
}

// ReadThread reads the topic page by page from the cursor's page to its
// end (forum.BoardReader). A deleted post (NodeBB keeps it, marked) is
// left out, so the moderator tells it as gone; the page's First and Last
// still cover it.
func (c *Client) ReadThread(ctx context.Context, thread string, cursor []byte, page func(forum.ThreadPage) error) error {
	var cur threadCursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return fmt.Errorf("thread cursor: %w", err)
		}
	}
	n := max(cur.Page, 1)
	for {
		t, _, err := c.topicPage(ctx, thread, n)
		if err != nil {
			return err
		}
		pages := t.Pagination.PageCount
		if n > pages && n > 1 {
			// Posts were deleted since: the cursor's page is past the end.
			n = pages
			continue
		}
		slices.SortFunc(t.Posts, func(a, b apiPost) int { return a.Index - b.Index })
		pg := forum.ThreadPage{Number: n, Pages: pages, Forum: t.CID.String()}
		for _, p := range t.Posts {
			if pg.First == "" {
				pg.First = p.PID.String()
			}
			pg.Last = p.PID.String()
			if p.Deleted {
				continue
			}
			pg.Posts = append(pg.Posts, c.post(p, n))
		}
		if n >= pages && pg.First != "" {
			// The read reached the end: a deleted last post is inside it too.
			pg.Last = strconv.FormatInt(math.MaxInt64, 10)
		}
		pg.Next, _ = json.Marshal(threadCursor{Page: n})
		if err := page(pg); err != nil {
			return err
		}
		if n >= pages {
			return nil
		}
		n++
	}
}

func (c *Client) post(p apiPost, page int) forum.Post {
	at := time.UnixMilli(p.Timestamp).UTC()
	fp := forum.Post{ID: p.PID.String(), Author: forum.Author{Name: p.User.Username, ID: p.UID.String()},
		Time: at, Stamp: forum.ExactStamp(at, at.Format(time.RFC3339Nano)), BodyHTML: p.Content, Page: page}
	if p.Edited > 0 {
		fp.Edited = true
		fp.EditNotice = "edited " + time.UnixMilli(p.Edited).UTC().Format(time.RFC3339)
	}
	return fp
}

// Mark is the topic's last post and replies count (forum.BoardReader): one
// small request (/api/v3/topics/TID), no posts rendered. forumID is not
// needed: the topic answers for itself.
func (c *Client) Mark(ctx context.Context, forumID, thread string) (forum.ThreadMark, error) {
	var t struct {
		PostCount int         `json:"postcount"`
		TeaserPID json.Number `json:"teaserPid"`
		Deleted   flag        `json:"deleted"`
	}
	at := c.opt.Clock.Now()
	if err := c.getJSON(ctx, "api/v3/topics/"+url.PathEscape(thread), &t); err != nil {
		return forum.ThreadMark{}, err
	}
	m := forum.ThreadMark{Thread: thread, Listed: at}
	if !t.Deleted {
		m.Sign = forum.PostSign(t.TeaserPID.String(), strconv.Itoa(max(t.PostCount-1, 0)))
	}
	return m, nil
}

// Reply posts body (BBCode, written as Markdown) with the marker key in the
// topic, through the write API (forum.BoardSender).
func (c *Client) Reply(ctx context.Context, thread, body, key string) (string, error) {
	if !forum.ValidMarkerKey(key) {
		return "", fmt.Errorf("%w: invalid marker key %q", forum.ErrPermanent, key)
	}
	content := Markdown(body) + "\n\n" + markerLine(key)
	return c.write(forum.Later(ctx), "reply", "api/v3/topics/"+url.PathEscape(thread), map[string]string{"content": content}, false,
		func(ctx context.Context) (string, bool, error) { return c.FindPost(ctx, thread, key) },
		func(raw json.RawMessage) (string, error) {
			var p struct {
				PID json.Number `json:"pid"`
			}
			err := json.Unmarshal(raw, &p)
			return p.PID.String(), err
		})
}

// scanPages is how many pages back from a topic's end FindPost looks.
const scanPages = 4

// FindPost looks for the bot's post with this marker key in the topic's
// last pages (forum.BoardSender); a deleted one counts (it was sent).
func (c *Client) FindPost(ctx context.Context, thread, key string) (string, bool, error) {
	_, uid, err := c.session(ctx)
	if err != nil {
		return "", false, err
	}
	t, _, err := c.topicPage(ctx, thread, 1<<20) // past the end: no posts, the page count
	if err != nil {
		return "", false, err
	}
	pages := t.Pagination.PageCount
	for n := pages; n >= 1 && n > pages-scanPages; n-- {
		t, _, err := c.topicPage(ctx, thread, n)
		if err != nil {
			return "", false, err
		}
		for _, p := range t.Posts {
			if p.UID.String() == uid && forum.HasMarker(p.Content, key) {
				return p.PID.String(), true, nil
			}
		}
	}
	return "", false, nil
}

// Member looks an account up by name (forum.BoardReader).
func (c *Client) Member(ctx context.Context, name string) (forum.Author, bool, error) {
	var u struct {
		UID      json.Number `json:"uid"`
		Username string      `json:"username"`
	}
	err := c.getJSON(ctx, "api/user/username/"+url.PathEscape(name), &u)
	if err != nil {
		if isNotFound(err) {
			return forum.Author{}, false, nil
		}
		return forum.Author{}, false, err
	}
	if u.UID.String() == "" || u.UID.String() == "0" {
		return forum.Author{}, false, nil
	}
	return forum.Author{Name: u.Username, ID: u.UID.String()}, true, nil
}
