package poster

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
)

// MyBB counts PMs' flood apart from posts' (pm_flood_apart): a PM the
// board takes right after a post proves no exemption, and a post right
// after that is still waited for, not tried (it would be refused).
func TestFloodLanesApart(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if _, err := r.p.Reply(ctx, "9", "g1.lane.1", "", "Day 1."); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(time.Second)
	if _, err := r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin", ID: fmt.Sprint(r.unal)}, "g1.lane.2", "Role", "Town."); err != nil {
		t.Fatal(err)
	}
	if st := r.p.Flood(); st.State != forum.FloodUnknown {
		t.Fatalf("a PM taken a second after a post taught %v; MyBB counts them apart", st)
	}
	// The next post: refused by the board (MyBB's 60 s), so learned.
	r.clk.Advance(time.Second)
	_, err := r.p.Reply(ctx, "9", "g1.lane.3", "", "Day 1 again.")
	var fe *forum.FloodError
	if !errors.As(err, &fe) || r.p.Flood().State != forum.FloodLimited {
		t.Fatalf("a post 2 s after a post: %v (%v), want a flood refusal learned", err, r.p.Flood())
	}
	// A PM now waits for its own lane's slot: the last PM's, not the
	// post's refusal.
	n := r.s.Requests()
	if _, err := r.p.SendPM(ctx, forum.Author{Name: "Ünal Şahin", ID: fmt.Sprint(r.unal)}, "g1.lane.4", "Role", "Again."); !errors.As(err, &fe) || r.s.Requests() != n {
		t.Fatalf("a PM 2 s after a PM, the account limited: %v after %d requests; want a flood wait without asking the board", err, r.s.Requests()-n)
	}
}

// assume_flood spaces an account not known yet from its first message,
// by flood_seconds and a second (the board's whole seconds).
func TestAssumeFlood(t *testing.T) {
	prof, _ := forum.Builtin("smf")
	prof.AssumeFlood = true
	s, err := scraper.NewSession("http://127.0.0.1:9/", prof, forum.Credentials{Username: "GMBot", Password: "x"}, scraper.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st := New(s).Flood(); st.State != forum.FloodLimited || st.Interval != 6*time.Second {
		t.Errorf("assume_flood: %v, want 6 s between messages", st)
	}
	prof.AssumeFlood = false
	s, _ = scraper.NewSession("http://127.0.0.1:9/", prof, forum.Credentials{Username: "GMBot", Password: "x"}, scraper.Options{})
	if st := New(s).Flood(); st.State != forum.FloodUnknown {
		t.Errorf("without assume_flood: %v, want unknown", st)
	}
}
