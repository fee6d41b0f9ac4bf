package smftest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestSMFBurstRequests measures requests per landed send on the real SMF:
// a bot account that is a plain member (its flood status unknown to the
// poster, as at a game's start) sends six messages at once, posts and PMs
// in turn, each retried when the poster says its slot comes. SMF's flood
// control as on MySQL (SMFFloodControl): spamWaitTime 5 s per address,
// posts and PMs counted apart; the GM's profile says so (assume_flood), so
// the bot waits for its slots and is never refused. Each send is the form,
// the submission and the marker check (SMF's answer names no message).
func TestSMFBurstRequests(t *testing.T) {
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob"}})
	// 5 posts: no PM captcha; a plain member, so every limit applies.
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	b.SMFFloodControl(t)
	res := boardtest.Burst(t, b, func(p *forum.Profile) { p.AssumeFlood = true }, func(int) {})
	t.Logf("SMF: %.2f requests per landed send (posts %v, PMs %v), %d flood refusals; %d confirmed later in %d requests", res.PerLanded, res.Posts, res.PMs, res.Refusals, res.Later, res.Confirm)
	// Each send: the form and the submission. SMF's answers name no id,
	// so every one is confirmed after the burst: the posts on one read
	// of the thread (a game's next read), the PMs in one listing.
	res.Check(t, 2, 2, 0)
	if res.Later != 6 || res.Confirm > 2 {
		t.Errorf("%d sends confirmed later, in %d requests; want all 6, in a read and a listing", res.Later, res.Confirm)
	}
}

// TestSMFPMQuota: SMF caps the PMs a member who is not a moderator sends
// in an hour (pm_spam_settings' third number, 20; 2 here). The PM over it
// is refused with the board's words on the PM form's page, is no failure
// but a wait until the first of the two is an hour old; the next PM waits
// the same without asking the board; a post goes at once.
func TestSMFPMQuota(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}})
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	b.Setting(t, "pm_spam_settings", "10,0,2")
	alice := b.Player("Alice")
	to := forum.Author{Name: alice.Name, ID: alice.IDString()}
	c := boardtest.Connect(t, b, b.Bot)
	var first time.Time
	for i := range 2 {
		if _, err := c.SendPM(ctx, to, "Role", "You are Town.", fmt.Sprintf("quota.t/%d", i)); err != nil {
			t.Fatalf("PM %d: %v", i, err)
		}
		if i == 0 {
			first = time.Now()
		}
	}
	n := c.Session.Requests()
	_, err := c.SendPM(ctx, to, "Role", "You are Town.", "quota.t/2")
	var fe *forum.FloodError
	if !errors.As(err, &fe) || !fe.PMsOnly || !strings.Contains(fe.Said, "personal messages per hour") {
		t.Fatalf("the third PM: %v; want a wait for the board's PMs an hour, in its words", err)
	}
	if d := fe.Until.Sub(first); d < time.Hour-time.Minute || d > time.Hour+time.Minute {
		t.Errorf("the third PM waits until %v, %v after the first; want an hour", fe.Until, d)
	}
	t.Logf("%d requests: %v", c.Session.Requests()-n, err)
	n = c.Session.Requests()
	if _, err := c.SendPM(ctx, to, "Role", "You are Town.", "quota.t/3"); !errors.As(err, &fe) || c.Session.Requests() != n {
		t.Errorf("the fourth PM: %v after %d requests; want the same wait without asking the board", err, c.Session.Requests()-n)
	}
	if _, err := c.Reply(ctx, b.ThreadIDString(), "Day 1 begins.", "quota.t/post"); err != nil {
		t.Errorf("a post while PMs wait: %v", err)
	}
}
