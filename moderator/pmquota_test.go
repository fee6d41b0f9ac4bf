package moderator

import (
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// The board's cap on PMs an hour (SMF's pm_posts_per_hour: a
// forum.FloodError for PMs only) holds the PM, not the game: the vote
// result post behind it goes out at once, the PM stays pending (no
// attempt counted), is not tried again before the board's time, and goes
// out once then.
func TestPMQuotaHoldsOnlyPMs(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	until := r.clk.Now().Add(time.Hour)
	r.ff.FailPM = map[string]error{"Alice": &forum.FloodError{Until: until, PMsOnly: true,
		Said: "You have exceeded the limit of 20 personal messages per hour."}}
	mk := r.enqueue([2]string{"Alice", "Your receipt"}, [2]string{"post", "Vote result: Bob leads"})
	if err := r.m.Tick(r.ctx, r.id); err != nil {
		t.Errorf("tick: %v", err)
	}
	if r.sentWith("post", mk[1]) != 1 {
		t.Fatalf("the post behind a PM over the board's cap did not go out: %v", r.ff)
	}
	if it := r.item(mk[0]); it.State != store.OutboxPending || it.Attempts != 0 {
		t.Errorf("the PM over the cap: %s after %d attempts, want pending, none", it.State, it.Attempts)
	}
	r.clk.Advance(10 * time.Minute)
	r.m.Tick(r.ctx, r.id)
	if n := r.ff.PMCalls["Alice"]; n != 1 {
		t.Errorf("the PM tried %d times before the board's time, want 1", n)
	}
	r.ff.Lock()
	r.ff.FailPM = nil
	r.ff.Unlock()
	r.clk.Set(until.Add(time.Second))
	r.tick()
	if r.sentWith("Alice", mk[0]) != 1 {
		t.Errorf("the PM once its time came: sent %d times", r.sentWith("Alice", mk[0]))
	}
}
