package realboardtest_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// TestProbeRealBoards: `forumgm probe` on real phpBB and MyBB boards with
// their built-in profiles prints an all-green checklist, reading the
// players' posts (authors, ids, times, segments) and a player's PM; with
// PostTest the bot's reply and its PM to itself are confirmed by their
// markers (the PM waits out the board's flood interval where it has one).
func TestProbeRealBoards(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("real boards, and the post test waits out their flood intervals")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, engine, realboardtest.Options{})
			var posts []realboardtest.Reply
			for i, p := range b.Players {
				posts = append(posts, realboardtest.Reply{As: p, Text: "I vote [b]VOTE: " + b.Players[(i+1)%len(b.Players)].Name + "[/b], [quote]not [b]this[/b][/quote]"})
			}
			b.Posts(t, posts)
			b.PM(t, b.Players[0], b.Bot, "orders", "INVADE Bob")
			prof, _ := forum.Builtin(engine)
			run := func(postTest bool) *probe.Report {
				r, err := probe.Run(context.Background(), probe.Config{URL: b.URL, Profile: prof, Thread: b.ThreadIDString(),
					Creds: forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password}, PostTest: postTest,
					Scraper: scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond}})
				if err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				r.WriteText(&out)
				t.Logf("probe (post test %v):\n%s", postTest, out.String())
				if !r.OK {
					t.Fatalf("not all green on real %s:\n%s", engine, out.String())
				}
				for _, c := range r.Checks {
					if c.Needed && c.Status != probe.OK {
						t.Errorf("%s: %s", c.ID, c.Status)
					}
				}
				return r
			}
			r := run(false)
			if len(r.Posts) != 4 {
				t.Fatalf("posts: %+v", r.Posts)
			}
			for i, p := range r.Posts[1:] {
				want := "VOTE: " + b.Players[(i+1)%len(b.Players)].Name
				if p.Author != b.Players[i].Name || p.AuthorID != b.Players[i].IDString() || p.Time == "" || len(p.Segments) != 1 || p.Segments[0] != want {
					t.Errorf("post %d: %+v, want by %s with [%s]", i+1, p, b.Players[i].Name, want)
				}
			}
			for _, c := range r.Checks {
				if c.ID == "pm.inbox" && !strings.Contains(c.Detail, "from "+b.Players[0].Name) {
					t.Errorf("the player's PM was not read back: %+v", c)
				}
			}
			if engine == realboardtest.MyBB {
				// The bot's opening post was made a moment ago: MyBB's
				// flood limit would have the post test wait out 60 s
				// (TestFlood covers that wait); exempt the bot as a GM
				// would.
				b.ExemptBot(t)
			}
			r = run(true)
			found := 0
			for _, c := range r.Checks {
				if (c.ID == "post_test.reply" || c.ID == "post_test.pm") && c.Status == probe.OK && strings.Contains(c.Detail, "marker") {
					found++
				}
			}
			if found != 2 {
				t.Errorf("post test not confirmed: %+v", r.Checks)
			}
			// Both boards show [img] as installed: the test reply's
			// picture is one (pictures_test in realgames and smftest: off).
			for _, c := range r.Checks {
				if c.ID == "pictures" && (c.Status != probe.OK || !strings.Contains(c.Detail, "shows [img] as a picture")) {
					t.Errorf("pictures on a default %s board: %+v", engine, c)
				}
			}
		})
	}
}
