package moderator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestBoardLimitLearnedOnForumsim: a board whose max_post_chars (20,000) is
// below what the phpBB profile assumes (60,000). A 3,000-line PM's receipt,
// cut for 60,000, is refused in phpBB's words; the bot learns 20,000 from
// them, sends the receipt in parts under it, each once, and the round's
// report and Bob's PMs queued behind it go out too. Nothing fails.
func TestBoardLimitLearnedOnForumsim(t *testing.T) {
	db := storetest.SQLite(t)
	ctx := context.Background()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true, MaxPostChars: 20000}, "GMBot", "s3cret", true, []string{"Alice", "Bob"}, "Nations starts here.")
	sim, bot, bob := th.Sim, th.Bot, th.Players["Bob"]
	g := th.LongLetterGame(t, simModerator(db, clk, 0), clk, "limit", "FORUMGM_LIMIT_TEST_PW", start)

	var out []store.OutboxItem
	var row *store.Game
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		if out, err = tx.Outbox(g.ID); err != nil {
			return err
		}
		row, err = tx.GameByID(g.ID)
		return err
	})
	if row.MessageLimit != 20000 {
		t.Errorf("learned limit %d, want the board's 20000", row.MessageLimit)
	}
	split := 0
	for _, it := range out {
		switch it.State {
		case store.OutboxSent:
		case store.OutboxSplit:
			split++
		default:
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
		}
	}
	if split == 0 {
		t.Error("nothing was re-split under the learned limit")
	}
	var receipt strings.Builder
	parts, gotBob := 0, 0
	for _, pm := range sim.Sent(bot) {
		if len([]rune(pm.Source)) > 20000 {
			t.Errorf("a PM of %d characters reached the board", len(pm.Source))
		}
		switch {
		case pm.To[0] == bob:
			gotBob++
		case strings.Contains(pm.Source, "(part "):
			parts++
			receipt.WriteString(pm.Source)
		}
	}
	if parts < 4 {
		t.Fatalf("the receipt went out in %d parts, want at least 4 under 20,000", parts)
	}
	for _, n := range []int{1, 1500, 2999, 3000} {
		if c := strings.Count(receipt.String(), fmt.Sprintf("line %d of my", n)); c != 1 {
			t.Errorf("the receipt's parts answer line %d %d times, want 1", n, c)
		}
	}
	botPosts := len(th.BotPosts())
	if botPosts < 3 {
		t.Errorf("behind the receipt: %d bot posts in the thread (Bob got %d PMs)", botPosts, gotBob)
	}
}
