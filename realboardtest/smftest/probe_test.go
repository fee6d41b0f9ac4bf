package smftest

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// TestProbeSMF: `forumgm probe` on a real SMF 2.1.4 board with the
// built-in smf profile. While the bot has fewer than 5 posts SMF puts a
// captcha in its PM form, and the probe fails form.pm showing it; with 5
// posts (as a GM would set the bot up) the checklist is all green, reading
// the players' posts and a player's PM, and with PostTest the bot's reply
// and its PM to itself are confirmed by their markers.
func TestProbeSMF(t *testing.T) {
	if testing.Short() {
		t.Skip("real board, and the post test posts and PMs through it")
	}
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{})
	var posts []realboardtest.Reply
	for i, p := range b.Players {
		posts = append(posts, realboardtest.Reply{As: p, Text: "I vote [b]VOTE: " + b.Players[(i+1)%len(b.Players)].Name + "[/b], [quote]not [b]this[/b][/quote]"})
	}
	b.Posts(t, posts)
	b.PM(t, b.Players[0], b.Bot, "orders", "INVADE Bob")
	prof, ok := forum.Builtin(realboardtest.SMF)
	if !ok {
		t.Fatal("no built-in smf profile")
	}
	run := func(postTest bool) (*probe.Report, string) {
		r, err := probe.Run(context.Background(), probe.Config{URL: b.URL, Profile: prof, Thread: b.ThreadIDString(),
			Creds: forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password}, PostTest: postTest,
			Scraper: scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		r.WriteText(&out)
		t.Logf("probe (post test %v):\n%s", postTest, out.String())
		return r, out.String()
	}
	check := func(r *probe.Report, id string) probe.Check {
		for _, c := range r.Checks {
			if c.ID == id {
				return c
			}
		}
		t.Fatalf("no check %s in %+v", id, r.Checks)
		return probe.Check{}
	}

	// The bot has only its opening post: SMF (pm_spam_settings 10,5,20)
	// asks it for a captcha, which the probe must report, naming the
	// profile's captcha selector, not pass.
	r, out := run(false)
	pm := check(r, "form.pm")
	if r.OK || pm.Status != probe.Fail || !strings.Contains(pm.Detail, "captcha") || pm.Key != fmt.Sprintf("selectors.captcha %q", prof.Selectors.Captcha) || !strings.Contains(pm.Found, "_vv[") {
		t.Errorf("bot with 1 post: want form.pm failing on the profile's captcha selector, got OK=%v %+v\n%s", r.OK, pm, out)
	}
	for _, c := range r.Checks {
		if c.Needed && c.ID != "form.pm" && c.Status != probe.OK {
			t.Errorf("bot with 1 post: %s is %s (only form.pm should fail): %s", c.ID, c.Status, c.Detail)
		}
	}

	// With 5 posts the captcha is gone: all green.
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	green := func(postTest bool) *probe.Report {
		r, out := run(postTest)
		if !r.OK {
			t.Fatalf("not all green on real SMF (post test %v):\n%s", postTest, out)
		}
		for _, c := range r.Checks {
			if c.Needed && c.Status != probe.OK {
				t.Errorf("%s: %s", c.ID, c.Status)
			}
		}
		return r
	}
	r = green(false)
	if len(r.Posts) != 4 {
		t.Fatalf("posts: %+v", r.Posts)
	}
	if p := r.Posts[0]; p.ID != strconv.Itoa(b.OpeningPostID) || p.Author != b.Bot.Name {
		t.Errorf("opening post: %+v", p)
	}
	for i, p := range r.Posts[1:] {
		want := "VOTE: " + b.Players[(i+1)%len(b.Players)].Name
		if p.Author != b.Players[i].Name || p.AuthorID != b.Players[i].IDString() || p.Time == "" || len(p.Segments) != 1 || p.Segments[0] != want {
			t.Errorf("post %d: %+v, want by %s with [%s]", i+1, p, b.Players[i].Name, want)
		}
	}
	if c := check(r, "pm.inbox"); !strings.Contains(c.Detail, "from "+b.Players[0].Name) {
		t.Errorf("the player's PM was not read back: %+v", c)
	}

	r = green(true)
	for _, id := range []string{"post_test.reply", "post_test.pm"} {
		if c := check(r, id); c.Status != probe.OK || !strings.Contains(c.Detail, "marker") {
			t.Errorf("post test not confirmed by its marker: %+v", c)
		}
	}
	// SMF shows [img] as installed: the test reply's picture is one.
	if c := check(r, "pictures"); c.Status != probe.OK || !strings.Contains(c.Detail, "shows [img] as a picture") {
		t.Errorf("pictures on a default SMF board: %+v", c)
	}
	if n := countPosts(t, b, "forumgm probe:"); n != 1 {
		t.Errorf("the test reply is on the board %d times, want once", n)
	}
}
