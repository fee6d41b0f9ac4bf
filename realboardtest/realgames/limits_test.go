package realgames

import (
	"context"
	"fmt"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestMyBBBurstRequests measures requests per landed send on the real
// MyBB: a bot account that is not flood-exempt (its status unknown to the
// poster, as at a game's start) sends six messages at once, posts and PMs
// in turn, each retried when the poster says its slot comes (as the
// moderator's next drain would). MyBB counts its flood interval apart for
// posts and for PMs (postfloodsecs, pmfloodsecs; lowered here from 60 s to
// 5 s to keep the test short: the same refusal, sooner over). Alice posts
// between the bot's posts, or MyBB would merge them (and not flood-check
// a post it merges).
func TestMyBBBurstRequests(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	b.Setting(t, "postfloodsecs", "5")
	b.Setting(t, "pmfloodsecs", "5")
	// The GM's profile states the board's limit (flood_seconds 5).
	res := boardtest.Burst(t, b, func(p *forum.Profile) { p.FloodSeconds = 5 }, func(i int) {
		if i%2 == 0 {
			b.Post(t, b.Player("Alice"), fmt.Sprintf("Between the bot's posts %d.", i))
		}
	})
	t.Logf("MyBB: %.2f requests per landed send (posts %v, PMs %v), %d flood refusals; %d confirmed later in %d requests", res.PerLanded, res.Posts, res.PMs, res.Refusals, res.Later, res.Confirm)
	// Each send: the form and the submission (a post's answer names it).
	// MyBB's answer to a PM names no id: the three PMs are confirmed
	// after the burst in one listing of the sent folder. The one send the
	// board refused for flood (the poster learns from it the account is
	// not exempt; a post or a PM, by the machine's pace) one more: its
	// second submission goes on the form the refusal came with.
	res.Check(t, 2, 2, 1)
	if res.Later != 3 || res.Confirm > 1 {
		t.Errorf("%d PMs confirmed later, in %d requests; want the 3, in one listing", res.Later, res.Confirm)
	}
}

// TestMyBBBotMerge: MyBB appends a member's post to their last one in the
// thread when no one posted between (postmergemins, 60; admins excluded by
// default, postmergeuignore), and does not flood-check it: the bot's two
// updates in a row, as a plain member, are one post on the board. Each
// still goes out once, in two requests, confirmed by its own marker in
// that post (both replies name the one post).
func TestMyBBBotMerge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{Players: []string{"Alice"}})
	// The bot's opening post was a moment ago: a short flood interval,
	// stated in the GM's profile too.
	b.Setting(t, "postfloodsecs", "3")
	b.Post(t, b.Player("Alice"), "Before the bot's updates.")
	c, _ := boardtest.ConnectRecorded(t, b, b.Bot, func(p *forum.Profile) { p.FloodSeconds = 3 })
	first, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Reply(ctx, b.ThreadIDString(), "Round 1 results.", "merge.t/1")
	})
	if err != nil {
		t.Fatal(err)
	}
	// The poster, having learned the account's flood, waits for the
	// slot (MyBB would have merged it at once, unchecked: waiting costs
	// no request).
	n := c.Session.Requests()
	second, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Reply(ctx, b.ThreadIDString(), "Round 2 begins.", "merge.t/2")
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := c.Session.Requests() - n; n > 2 {
		t.Errorf("the second update took %d requests, want the form and the submission", n)
	}
	if second != first {
		t.Fatalf("MyBB made the second update post %s of its own, not merged into %s: revisit docs/flood-and-long-messages.md", second, first)
	}
	for _, key := range []string{"merge.t/1", "merge.t/2"} {
		if id, ok, err := c.FindPost(ctx, b.ThreadIDString(), key); err != nil || !ok || id != first {
			t.Errorf("marker %s: found %v in %s (%v), want post %s", key, ok, id, err, first)
		}
	}
	if m := markersIn(threadRows(t, b)); m["merge.t/1"] != 1 || m["merge.t/2"] != 1 {
		t.Errorf("markers on the board: %v, want each once", m)
	}
}

// TestPhpBBBurstRequests measures requests per landed send on the real
// phpBB, as TestMyBBBurstRequests on MyBB: a bot that is not flood-exempt
// sends six messages, posts and PMs in turn. phpBB's answer names the new
// post (its redirect) and the new PM (its success page refreshes to it),
// so every send is its form and its submission, with nothing to confirm
// later; phpBB's one flood interval for posts and PMs (flood_interval,
// lowered from 15 s to 3 s to keep the test short) may refuse one.
func TestPhpBBBurstRequests(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	b.Setting(t, "flood_interval", "3")
	res := boardtest.Burst(t, b, func(p *forum.Profile) { p.FloodSeconds = 3 }, func(int) {})
	t.Logf("phpBB: %.2f requests per landed send (posts %v, PMs %v), %d flood refusals; %d confirmed later in %d requests", res.PerLanded, res.Posts, res.PMs, res.Refusals, res.Later, res.Confirm)
	res.Check(t, 2, 2, 1)
	if res.Later != 0 || res.Confirm != 0 {
		t.Errorf("%d sends confirmed later, in %d requests; want none: phpBB's answers name every message", res.Later, res.Confirm)
	}
}
