package smftest

import (
	"context"
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// sessionID: SMF's session check is a hidden field of a random name whose
// value is the session id (32 of PHP's 0-9a-v).
var sessionID = regexp.MustCompile(`^[0-9a-v]{26,}$`)

// TestSMFRefusals: every refusal SMF 2.1 shows a bot that posts and sends
// PMs, on the real board, each read as the kind phpBB's pages are: a
// locked topic, no permission to reply or to send PMs, a ban from posting
// (SMF takes the permission away: "not permitted to post replies"), an
// unknown recipient are refusals for good, with the board's words; a
// session that ended is sent again on a fresh form; a post too soon after
// the last (flood control as on MySQL) waits. One board, its cases one
// after another (each on its own account).
func TestSMFRefusals(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{
		Players: []string{"Alice", "Bob", "Carol", "Dave"}})
	// 5 posts: no PM captcha; a plain member, so every limit applies.
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	thread := b.ThreadIDString()
	reply := func(key string) func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
		return func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			_, err := c.Reply(ctx, thread, "Day 2 begins.", key)
			return err
		}
	}
	pm := func(to string, key string) func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
		return func(ctx context.Context, c *forumconn.Conn, _ *boardtest.Recorder) error {
			a := forum.Author{Name: to}
			if to != "Nobody" {
				a.ID = b.Player(to).IDString()
			}
			_, err := c.SendPM(ctx, a, "A role", "You are [b]Town[/b].", key)
			return err
		}
	}
	cases := []boardtest.RefusalCase{
		{Name: "pm-unknown-recipient", Send: pm("Nobody", "refusal.nobody"),
			Want: "rejected", Words: "Unable to find member", Max: 2},
		{Name: "stale-session", Send: func(ctx context.Context, c *forumconn.Conn, rec *boardtest.Recorder) error {
			rec.Spoil(func(name, value string) bool { return name != "message" && sessionID.MatchString(value) })
			_, err := c.Reply(ctx, thread, "After a stale session.", "refusal.stale")
			return err
		}, Want: "sent", Max: 5},
		{Name: "banned", As: "Dave", Setup: func(t *testing.T, b *realboardtest.Board) {
			now := time.Now().Unix()
			b.Query(t, fmt.Sprintf("INSERT INTO {prefix}ban_groups (name, ban_time, expire_time, cannot_access, cannot_register, cannot_post, cannot_login, reason, notes) VALUES ('rb', %d, NULL, 0, 0, 1, 0, 'test', '')", now))
			b.Query(t, fmt.Sprintf("INSERT INTO {prefix}ban_items (id_ban_group, id_member) SELECT MAX(id_ban_group), %d FROM {prefix}ban_groups", b.Player("Dave").ID))
			b.Setting(t, "banLastUpdated", fmt.Sprint(now))
		}, Send: reply("refusal.banned"), Want: "rejected", Words: "not permitted to post replies", Max: 1},
		{Name: "topic-locked", As: "Alice", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}topics SET locked = 1 WHERE id_topic = %d", b.ThreadID))
		}, Send: reply("refusal.locked"), Want: "rejected", Words: "This topic is locked", Max: 1},
		{Name: "no-permission", As: "Bob", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, fmt.Sprintf("UPDATE {prefix}topics SET locked = 0 WHERE id_topic = %d", b.ThreadID))
			b.Query(t, "DELETE FROM {prefix}board_permissions WHERE id_group = 0 AND permission IN ('post_reply_any', 'post_reply_own')")
		}, Send: reply("refusal.noperm"), Want: "rejected", Words: "not permitted to post replies", Max: 1},
		{Name: "pm-no-permission", As: "Carol", Setup: func(t *testing.T, b *realboardtest.Board) {
			b.Query(t, "DELETE FROM {prefix}permissions WHERE id_group = 0 AND permission = 'pm_send'")
		}, Send: pm("Alice", "refusal.pmnoperm"), Want: "rejected", Words: "not allowed to send personal messages", Max: 1},
		{Name: "flood-post", Setup: func(t *testing.T, b *realboardtest.Board) {
			// As on MySQL: a post from the bot's address a moment ago. Last:
			// logins are then flood-controlled too.
			b.SMFFloodControl(t)
			time.Sleep(3 * time.Second) // the last login's 2 s gone, or the bot's own is refused as too quick
			b.Query(t, "INSERT INTO {prefix}board_permissions (id_group, id_profile, permission) VALUES (0, 1, 'post_reply_any')")
			b.Query(t, "DELETE FROM {prefix}log_floodcontrol WHERE ip = '127.0.0.1' AND log_type = 'post'")
			b.Query(t, "INSERT INTO {prefix}log_floodcontrol (ip, log_time, log_type) VALUES ('127.0.0.1', EXTRACT(EPOCH FROM now())::int + 10, 'post')")
		}, Send: reply("refusal.flood"), Want: "flood", Words: "flood", Max: 2},
	}
	for _, tc := range cases {
		boardtest.CheckRefusal(t, b, tc)
	}
	if n := len(b.Query(t, "SELECT id_msg FROM {prefix}messages WHERE body LIKE '%refusal.stale%'")); n != 1 {
		t.Errorf("the reply after a stale session is on the board %d times, want once", n)
	}
}
