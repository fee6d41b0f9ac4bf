package forumconn_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestLongPMReceiptOnForumsim: a 3,000-line PM gets a receipt longer than
// phpBB's 60,000 characters. It goes out in parts the board takes, each
// once, and the round report queued behind it reaches every player.
func TestLongPMReceiptOnForumsim(t *testing.T) {
	db := storetest.SQLite(t)
	t0 := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "s3cret", true, []string{"Alice", "Bob"}, "Nations starts here.")
	sim, bot, alice, bob := th.Sim, th.Bot, th.Players["Alice"], th.Players["Bob"]
	m := &moderator.Moderator{DB: db, Clock: clk, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return forumconn.Connect(site, clk, "test")
	}}
	g := th.LongLetterGame(t, m, clk, "long", "FORUMGM_SIM_PW", t0)

	out := simtest.Outbox(t, db, g.ID)
	for _, it := range out {
		if it.State != "sent" {
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
		}
	}
	var toAlice []forumsim.PM
	gotBob := 0
	for _, pm := range sim.Sent(bot) {
		switch pm.To[0] {
		case alice:
			toAlice = append(toAlice, pm)
		case bob:
			gotBob++
		}
	}
	var receipt strings.Builder
	parts := 0
	for _, pm := range toAlice {
		if len(pm.Source) > 60000 {
			t.Errorf("a PM of %d characters reached the board", len(pm.Source))
		}
		if strings.Contains(pm.Source, "(part ") {
			parts++
			receipt.WriteString(pm.Source)
		}
	}
	if parts < 2 {
		t.Fatalf("the receipt went out in %d parts; PMs to Alice: %d", parts, len(toAlice))
	}
	for _, n := range []int{1, 1500, 3000} {
		if !strings.Contains(receipt.String(), fmt.Sprintf("line %d of my", n)) {
			t.Errorf("the receipt's parts do not answer line %d", n)
		}
	}
	// What was queued behind the receipt went out too: the round's result
	// in the thread.
	botPosts := len(th.BotPosts())
	if botPosts < 3 || len(out) < parts+2 {
		t.Errorf("behind the receipt: %d bot posts in the thread, %d outbox items (Bob got %d PMs)", botPosts, len(out), gotBob)
	}
}
