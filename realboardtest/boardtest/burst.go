//go:build linux

package boardtest

import (
	"context"
	"fmt"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
)

// BurstResult is what a burst cost: requests per landed send, the
// requests of each post and PM, and the flood refusals.
type BurstResult struct {
	PerLanded  float64
	Posts, PMs []int
	Refusals   int
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
	for i := range sends {
		between(i)
		key := fmt.Sprintf("burst.t/%d", i)
		before := c.Session.Requests()
		_, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
			n := c.Session.Requests()
			var err error
			if i%2 == 0 {
				_, err = c.Reply(ctx, b.ThreadIDString(), fmt.Sprintf("Update %d.", i), key)
			} else {
				p := b.Players[(i/2)%len(b.Players)]
				_, err = c.SendPM(ctx, forum.Author{Name: p.Name, ID: p.IDString()}, "Receipt", fmt.Sprintf("Receipt %d.", i), key)
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
	res.PerLanded = float64(c.Session.Requests()-n0) / sends
	return res
}
