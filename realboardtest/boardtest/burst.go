//go:build linux

package boardtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
)

// BurstResult is what a burst cost: requests per landed send, the
// requests of each post and PM, and the flood refusals.
type BurstResult struct {
	PerLanded  float64
	Posts, PMs []int
	Refusals   int
	// Later is how many sends the board took without naming an id,
	// their markers looked for after the burst (forum.ConfirmLater, as
	// `forumgm run` sends); Confirm the requests that took: one read of
	// the thread's last page for the posts (a game's next read), one
	// listing of the sent folder for the PMs.
	Later, Confirm int
}

// Check wants each post within post requests and each PM within pm, but
// for one send (the board refused it once, for a reason that passes) one
// more, and at most refusals flood refusals. Which send the board
// refuses depends on the machine's pace (whether its interval had passed
// since the board's setup, or since the last PM).
func (r BurstResult) Check(t *testing.T, post, pm, refusals int) {
	t.Helper()
	over := 0
	for _, c := range []struct {
		kind string
		ns   []int
		max  int
	}{{"post", r.Posts, post}, {"PM", r.PMs, pm}} {
		for _, n := range c.ns {
			if n > c.max+1 {
				t.Errorf("a %s took %d requests, want at most %d (%d when refused once)", c.kind, n, c.max, c.max+1)
			}
			if n > c.max {
				over++
			}
		}
	}
	if over > 1 {
		t.Errorf("%d sends took one request more than their kind's, want at most one (refused once)", over)
	}
	if r.Refusals > refusals {
		t.Errorf("%d flood refusals, want at most %d", r.Refusals, refusals)
	}
}

// Burst sends six messages as the bot, posts and PMs in turn, each
// retried once the poster's flood wait says its slot has come; between(i)
// runs before send i. It returns the bot session's requests per landed
// send, each send's requests and the flood refusals the board gave.
func Burst(t *testing.T, b *realboardtest.Board, edit func(*forum.Profile), between func(i int)) BurstResult {
	t.Helper()
	ctx := context.Background()
	var edits []func(*forum.Profile)
	if edit != nil {
		edits = append(edits, edit)
	}
	c, _ := ConnectRecorded(t, b, b.Bot, edits...)
	if err := c.Session.Login(ctx); err != nil {
		t.Fatal(err)
	}
	n0 := c.Session.Requests()
	var res BurstResult
	const sends = 6
	var laterPosts, laterPMs []string
	for i := range sends {
		between(i)
		key := fmt.Sprintf("burst.t/%d", i)
		before := c.Session.Requests()
		_, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
			n := c.Session.Requests()
			var err error
			later := forum.ConfirmLater(ctx) // as `forumgm run` sends
			if i%2 == 0 {
				_, err = c.Reply(later, b.ThreadIDString(), fmt.Sprintf("Update %d.", i), key)
			} else {
				p := b.Players[(i/2)%len(b.Players)]
				_, err = c.SendPM(later, forum.Author{Name: p.Name, ID: p.IDString()}, "Receipt", fmt.Sprintf("Receipt %d.", i), key)
			}
			if errors.Is(err, forum.ErrConfirmLater) {
				if i%2 == 0 {
					laterPosts = append(laterPosts, key)
				} else {
					laterPMs = append(laterPMs, key)
				}
				return "", nil
			}
			if err != nil && c.Session.Requests() > n {
				res.Refusals++ // the board was asked and said not yet
			}
			return "", err
		})
		if err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		n := c.Session.Requests() - before
		t.Logf("send %d: %d requests (%v)", i, n, c.Flood())
		if i%2 == 0 {
			res.Posts = append(res.Posts, n)
		} else {
			res.PMs = append(res.PMs, n)
		}
	}
	res.Later = len(laterPosts) + len(laterPMs)
	before := c.Session.Requests()
	confirmLater(t, c, b, laterPosts, laterPMs)
	res.Confirm = c.Session.Requests() - before
	res.PerLanded = float64(c.Session.Requests()-n0) / sends
	return res
}

// confirmLater finds the markers of the sends the board took without an
// id as `forumgm run` does in its next drain: the posts on one read of
// the thread's last page, the PMs in one listing of the sent folder that
// all their checks join.
func confirmLater(t *testing.T, c *forumconn.Conn, b *realboardtest.Board, posts, pms []string) {
	t.Helper()
	ctx := context.Background()
	if len(posts) > 0 {
		pg, err := c.Session.FetchAs(ctx, forum.Expand(c.Session.Profile.URLs.LastPage, map[string]string{"topic": b.ThreadIDString()}), forum.PageThread)
		if err != nil {
			t.Fatal(err)
		}
		th := c.Session.Parser.Thread(pg.Doc)
		for _, key := range posts {
			found := false
			for _, p := range th.Posts {
				found = found || forum.HasMarker(p.BodyHTML, key)
			}
			if !found {
				t.Errorf("post %s, taken by the board, is not on the thread's last page", key)
			}
		}
	}
	var wg sync.WaitGroup
	for _, key := range pms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok, err := c.FindSentPM(ctx, key, time.Time{}); err != nil || !ok {
				t.Errorf("PM %s, taken by the board, not in the sent folder: %v", key, err)
			}
		}()
	}
	wg.Wait()
}
