package realgames

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestMyBBRefusals: every refusal MyBB 1.8 shows a bot that posts and
// sends PMs, on the real board, each read as the kind phpBB's pages are:
// a closed thread, no permission, a banned account, an unknown recipient,
// one who takes no PMs or whose box is full are refusals for good, with
// the board's words; a spoiled form key (a session that ended) is sent
// again on a fresh form; the same PM or reply a second time ("You have
// already submitted...") is the board saying it has it, never resent.
// One board, its cases one after another (each on its own account or
// thread).
func TestMyBBRefusals(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{
		Players: []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Gina"}})
	b.ExemptBot(t) // no flood between the cases' sends
	thread := b.ThreadIDString()
	pm := func(to string, key string) func(ctx context.Context, c *forumconn.Conn, rec *boardtest.Recorder) error {
		return func(ctx context.Context, c *forumconn.Conn, rec *boardtest.Recorder) error {
			a := forum.Author{Name: to}
			if to != "Nobody" {
				a.ID = b.Player(to).IDString()
			}
			_, err := c.SendPM(ctx, a, "A role", "You are [b]Town[/b].", key)
			return err
		}
	}
	cases := []boardtest.RefusalCase{
		{Name: "thread-closed", As: "Gina", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}threads SET closed='1' WHERE tid=%d", b.ThreadID))
		}, Send: func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			_, err := c.Reply(ctx, thread, "Day 2 begins.", "refusal.closed")
			return err
		}, Want: "rejected", Words: "closed by a moderator", Max: 1},
		{Name: "no-permission", As: "Carol", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}threads SET closed='0' WHERE tid=%d", b.ThreadID))
			b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET usergroup=5 WHERE uid=%d", b.Player("Carol").ID)) // awaiting activation
		}, Send: func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			_, err := c.Reply(ctx, thread, "A post.", "refusal.noperm")
			return err
		}, Want: "rejected", Words: "You do not have permission", Max: 1},
		{Name: "pm-no-permission", As: "Carol", Send: pm("Alice", "refusal.pmnoperm"),
			Want: "rejected", Words: "You do not have permission", Max: 1},
		{Name: "banned", As: "Dave", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET usergroup=7 WHERE uid=%d", b.Player("Dave").ID))
			b.Query(t, fmt.Sprintf("INSERT INTO {prefix}banned (uid, gid, oldgroup, oldadditionalgroups, olddisplaygroup, admin, dateline, bantime, lifted, reason) VALUES (%d, 7, 2, '', 0, 1, %d, '---', 0, 'test')",
				b.Player("Dave").ID, time.Now().Unix()))
		}, Send: func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			_, err := c.Reply(ctx, thread, "A post.", "refusal.banned")
			return err
		}, Want: "rejected", Words: "banned", Max: 1},
		{Name: "pm-unknown-recipient", Send: pm("Nobody", "refusal.nobody"),
			Want: "rejected", Words: "not registered usernames", Max: 2},
		{Name: "pm-recipient-pms-off", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET receivepms=0 WHERE uid=%d", b.Player("Erin").ID))
		}, Send: pm("Erin", "refusal.pmsoff"), Want: "rejected", Words: "Erin", Max: 2},
		{Name: "stale-post-key", Send: func(ctx context.Context, c *forumconn.Conn, rec *boardtest.Recorder) error {
			rec.Spoil(func(name, _ string) bool { return name == "my_post_key" })
			_, err := c.Reply(ctx, thread, "After a stale key.", "refusal.stale")
			return err
		}, Want: "sent", Max: 4},
		{Name: "pm-duplicate", Setup: func(t *testing.T, b *realboardtest.Board) {
			c := boardtest.Connect(t, b, b.Bot)
			if _, err := c.SendPM(context.Background(), forum.Author{Name: "Frank", ID: b.Player("Frank").IDString()},
				"A role", "You are [b]Town[/b].", "refusal.dup"); err != nil {
				t.Fatal(err)
			}
			// The bot's copy gone (MyBB keeps none past the bot's pmquota):
			// nothing in the sent folder shows the PM went.
			b.Query(t, fmt.Sprintf("DELETE FROM {prefix}privatemessages WHERE uid=%d AND folder=2", b.Bot.ID))
		}, Send: pm("Frank", "refusal.dup"), Want: "said sent", Words: "already submitted", Max: 4},
		{Name: "reply-duplicate", Setup: func(t *testing.T, b *realboardtest.Board) {
			// A post between, so the bot's reply is a post of its own (MyBB
			// merges a member's second post in a row into the first, and
			// its duplicate check compares whole posts).
			b.Post(t, b.Player("Alice"), "Between the bot's posts.")
			if _, err := boardtest.Connect(t, b, b.Bot).Reply(context.Background(), thread, "Day 2 begins.", "refusal.dupreply"); err != nil {
				t.Fatal(err)
			}
		}, Send: func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			// The same reply again (as after a lost answer): the board's
			// duplicate page; the marker check finds the first.
			_, err := c.Reply(ctx, thread, "Day 2 begins.", "refusal.dupreply")
			return err
		}, Want: "sent", Max: 3},
		{Name: "flood-post", As: "Alice", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Post(t, b.Player("Alice"), "A post a moment ago.")
			b.Post(t, b.Player("Bob"), "No merge.")
		}, Send: func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			_, err := c.Reply(ctx, thread, "Too soon.", "refusal.floodpost")
			return err
		}, Want: "flood", Words: "flood", Max: 2},
		{Name: "flood-pm", As: "Bob", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.PM(t, b.Player("Bob"), b.Player("Alice"), "Hi", "A PM a moment ago.")
		}, Send: pm("Alice", "refusal.floodpm"), Want: "flood", Words: "flood", Max: 2},
	}
	for _, tc := range cases {
		boardtest.CheckRefusal(t, b, tc)
	}
	// Each message the board took is there once.
	if n := len(queryRows(t, b, "SELECT pmid FROM {prefix}privatemessages WHERE message LIKE '%refusal.dup%' AND folder=1")); n != 1 {
		t.Errorf("the duplicate PM is in Frank's inbox %d times, want once", n)
	}
	for _, key := range []string{"refusal.stale", "refusal.dupreply"} {
		if n := len(queryRows(t, b, "SELECT pid FROM {prefix}posts WHERE message LIKE '%"+key+"%'")); n != 1 {
			t.Errorf("reply %s is on the board %d times, want once", key, n)
		}
	}
}
