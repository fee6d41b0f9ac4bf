package smftest

import (
	"fmt"
	"testing"

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
	t.Logf("SMF: %.2f requests per landed send (posts %v, PMs %v), %d flood refusals", res.PerLanded, res.Posts, res.PMs, res.Refusals)
	res.Check(t, 3, 3, 0)
}
