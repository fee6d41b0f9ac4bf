package moderator

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// enqueue queues messages as a step would: "post" or a player's name.
func (r *nationsRig) enqueue(msgs ...[2]string) []string {
	r.t.Helper()
	var items []store.OutboxItem
	var markers []string
	for i, m := range msgs {
		it := store.OutboxItem{GameID: r.id, Kind: "post", Body: m[1], Subject: "[n1] test", Marker: fmt.Sprintf("n1/test/%d-%d", r.clk.Now().Unix(), i)}
		if m[0] != "post" {
			it.Kind, it.Recipient, it.RecipientName = "pm", m[0], m[0]
		}
		items = append(items, it)
		markers = append(markers, it.Marker)
	}
	if err := r.db.Tx(r.ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: items}) }); err != nil {
		r.t.Fatal(err)
	}
	return markers
}

// item is the outbox item with this marker.
func (r *nationsRig) item(marker string) store.OutboxItem {
	r.t.Helper()
	var out store.OutboxItem
	r.db.View(r.ctx, func(tx *store.Tx) error {
		items, err := tx.Outbox(r.id)
		for _, it := range items {
			if it.Marker == marker {
				out = it
			}
		}
		return err
	})
	if out.ID == 0 {
		r.t.Fatalf("no outbox item %s", marker)
	}
	return out
}

// sentWith counts what went out to the thread or a player carrying marker.
func (r *nationsRig) sentWith(to, marker string) int {
	bodies := r.ff.SentTo()[to]
	if to == "post" {
		bodies = r.ff.BotPosts()
	}
	n := 0
	for _, b := range bodies {
		if strings.Contains(b, "forumgm·"+marker+"<") {
			n++
		}
	}
	return n
}

// One message's trouble holds up only its own lane: a PM to Alice the board
// refuses (for good, or every time), and the vote result post and Bob's PM
// behind it still go out at once; Alice's later PM keeps its place behind
// hers unless hers is given up.
func TestTroubleHoldsUpOnlyItsLane(t *testing.T) {
	for _, tc := range []struct {
		name      string
		err       error
		permanent bool
	}{
		{"refused for good", fmt.Errorf("%w: the board says: The requested users to be added do not exist.", forum.ErrPermanent), true},
		{"fails every time", errors.New("PM to Alice: not confirmed after 6 attempts: no confirmation (HTTP 200)"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newNations(t, storetest.SQLite(t))
			r.ff.FailPM = map[string]error{"Alice": tc.err}
			mk := r.enqueue([2]string{"Alice", "Your receipt"}, [2]string{"post", "Vote result: Bob leads"},
				[2]string{"Bob", "Your result"}, [2]string{"Alice", "Your result"})
			err := r.m.Tick(r.ctx, r.id)
			if tc.permanent != (err == nil) {
				t.Errorf("tick: %v", err)
			}
			if r.sentWith("post", mk[1]) != 1 || r.sentWith("Bob", mk[2]) != 1 {
				t.Fatalf("the post and Bob's PM behind Alice's did not go out: %v", r.ff)
			}
			if tc.permanent {
				// The board refuses every PM to her (no such account): each
				// is given up for the GM at its first refusal.
				if a, b := r.item(mk[0]).State, r.item(mk[3]).State; a != store.OutboxFailed || b != store.OutboxFailed || r.ff.PMCalls["Alice"] != 2 {
					t.Errorf("Alice's refused PMs: %s, %s after %d tries", a, b, r.ff.PMCalls["Alice"])
				}
				return
			}
			if r.sentWith("Alice", mk[3]) != 0 {
				t.Fatal("Alice's second PM overtook her first")
			}
			// Backing off: not tried again on the very next ticks.
			for range 2 {
				r.clk.Advance(10 * time.Second)
				r.m.Tick(r.ctx, r.id)
			}
			if n := r.ff.PMCalls["Alice"]; n != 1 {
				t.Errorf("Alice's PM tried %d times within its backoff, want 1", n)
			}
			r.ff.Lock()
			r.ff.FailPM = nil
			r.ff.Unlock()
			r.clk.Advance(time.Minute)
			r.tick()
			if r.sentWith("Alice", mk[0]) != 1 || r.sentWith("Alice", mk[3]) != 1 {
				t.Fatalf("Alice's PMs once the board takes them: %d, %d", r.sentWith("Alice", mk[0]), r.sentWith("Alice", mk[3]))
			}
			pms := strings.Join(r.ff.SentTo()["Alice"], "\n")
			if strings.Index(pms, mk[0]) > strings.Index(pms, mk[3]) {
				t.Error("Alice's PMs went out of order")
			}
		})
	}
}

// A receipt longer than the board takes (its limit below the profile's):
// refused once, the limit learned from the board's words and kept for the
// game, the receipt sent in parts in its place, each once and in order; a
// long message queued behind it is cut before it is tried; the vote result
// in between still goes out.
func TestTooLongLearnsTheBoardsLimit(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	r.ff.MaxLen = 2000
	var lines []string
	for i := range 150 {
		lines = append(lines, fmt.Sprintf("line %03d: “INVADE Bob” — accepted", i))
	}
	long := strings.Join(lines, "\n")
	mk := r.enqueue([2]string{"Alice", long}, [2]string{"post", "Vote result: Bob leads"}, [2]string{"Bob", long})
	r.tick()
	if r.ff.LongRefusals != 1 {
		t.Errorf("%d refusals as too long, want 1 (the limit learned from the first)", r.ff.LongRefusals)
	}
	_, g := r.state()
	if g.MessageLimit != 2000 {
		t.Errorf("learned limit %d, want 2000", g.MessageLimit)
	}
	if r.sentWith("post", mk[1]) != 1 {
		t.Error("the vote result did not go out")
	}
	for i, who := range []string{"Alice", "", "Bob"} {
		if who == "" {
			continue
		}
		if st := r.item(mk[i]).State; st != store.OutboxSplit {
			t.Errorf("%s's long PM is %s, want split", who, st)
		}
		pms := r.ff.SentTo()[who]
		var got []string
		parts := 0
		for _, pm := range pms {
			if !strings.Contains(pm, mk[i]+".p") {
				continue
			}
			parts++
			if len(pm) > 2600 { // rendered HTML of at most 2000 bytes of BBCode
				t.Errorf("a part of %d bytes", len(pm))
			}
			for _, l := range strings.Split(pm, "<br>") {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "line ") {
					got = append(got, l)
				}
			}
		}
		if parts < 3 || len(got) != len(lines) || got[0] != lines[0] || got[len(got)-1] != lines[len(lines)-1] {
			t.Errorf("%s: %d parts, %d lines (first %q)", who, parts, len(got), got[:min(1, len(got))])
		}
		for j := 1; j < len(got); j++ {
			if got[j] <= got[j-1] {
				t.Errorf("%s: line %q after %q", who, got[j], got[j-1])
			}
		}
	}
	before := len(r.ff.SentTo()["Alice"])
	r.clk.Advance(time.Minute)
	r.tick()
	if n := len(r.ff.SentTo()["Alice"]); n != before {
		t.Errorf("%d PMs to Alice after another tick, %d before: resent", n, before)
	}
}

// A GM's profile file that gives the board's max_message_bytes (below the
// engine's) has a long receipt queued in parts under it before its first
// send: the board refuses none of them, there is nothing to learn, and
// every line is answered once (issue 19: only the built-in profile's limit
// or a learned one was used, so the first send was refused). One whose PMs
// take less than its posts (max_pm_bytes: NodeBB's chats) has the receipt
// in parts under the PM limit, while the thread's posts stay whole.
func TestProfileFileMessageLimit(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"max_message_bytes", "short-posts.profile.yaml"},
		{"max_pm_bytes", "short-pms.profile.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			profile, err := filepath.Abs(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			r := newNationsOn(t, storetest.SQLite(t), func(fc *gameconfig.ForumConfig) { fc.Engine, fc.Profile = "", profile })
			r.ff.MaxLen = 2000
			var lines []string
			for i := range 150 {
				lines = append(lines, fmt.Sprintf("line %03d of my very long letter", i))
			}
			r.clk.Advance(time.Minute)
			r.ff.PMSubject("Alice", "orders", strings.Join(lines, "\n"))
			r.tick()
			if r.ff.LongRefusals != 0 {
				t.Errorf("%d sends refused as too long, want none", r.ff.LongRefusals)
			}
			if _, g := r.state(); g.MessageLimit != 0 {
				t.Errorf("a limit of %d learned, want none (the profile's was known)", g.MessageLimit)
			}
			var box []store.OutboxItem
			r.db.View(r.ctx, func(tx *store.Tx) error { var err error; box, err = tx.Outbox(r.id); return err })
			parts := 0
			for _, it := range box {
				if it.State != store.OutboxSent {
					t.Errorf("%s is %s: %s", it.Marker, it.State, it.LastError)
				}
				if !strings.Contains(it.Body, "(part ") {
					continue
				}
				if it.Kind != forum.KindPM {
					t.Errorf("post %s went out in parts", it.Marker)
				}
				parts++
				if n := forum.MessageSize(forum.WithMarker(phpBBMarkup(), it.Body, it.Marker)); n > 2000 {
					t.Errorf("%s: %d bytes with its marker, over the profile's 2000", it.Marker, n)
				}
			}
			answered := strings.Join(r.ff.SentTo()["Alice"], "\n")
			for _, l := range lines {
				if strings.Count(answered, l) != 1 {
					t.Errorf("%q answered %d times in Alice's PMs, want once", l, strings.Count(answered, l))
				}
			}
			if parts < 2 {
				t.Errorf("the receipt was queued in %d parts, want several", parts)
			}
		})
	}
}

// A send whose confirmation could not be checked stays unconfirmed and is
// checked again on later ticks, however many; never failed; confirmed once
// a check answers; on the board once.
func TestUnconfirmedIsCheckedAgainNeverFailed(t *testing.T) {
	for _, tc := range []struct {
		name               string
		unconfirm, lose    int
		findFail, maxTries int
		ticks              int // before the check answers
	}{
		{"success page, the sent-folder check failed", 1, 0, 0, 20, 1},
		{"success page, the check fails past the attempt limit", 1, 0, 12, 3, 13},
		{"answer lost, then the check fails", 0, 1, 1, 20, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newNations(t, storetest.SQLite(t))
			r.m.MaxAttempts = tc.maxTries
			r.ff.Lock()
			r.ff.Unconfirm, r.ff.Lose, r.ff.FindFail = tc.unconfirm, tc.lose, tc.findFail
			r.ff.Unlock()
			mks := r.enqueue([2]string{"Alice", "Your role: Fire"}, [2]string{"Bob", "Your role: Water"})
			mk := mks[0]
			for i := range tc.ticks {
				r.m.Tick(r.ctx, r.id)
				it := r.item(mk)
				if want := store.OutboxUnconfirmed; it.State != want && !(i == 0 && tc.lose > 0 && it.State == store.OutboxSending) {
					t.Fatalf("after tick %d: %s (%s), want %s", i+1, it.State, it.LastError, want)
				}
				if r.sentWith("Bob", mks[1]) != 1 {
					t.Fatal("Bob's PM was held up")
				}
				r.clk.Advance(20 * time.Second)
			}
			r.tick()
			if it := r.item(mk); it.State != store.OutboxSent || it.ForumID == "" {
				t.Fatalf("after the check answered: %s %q (%s)", it.State, it.ForumID, it.LastError)
			}
			if n := r.sentWith("Alice", mk); n != 1 {
				t.Errorf("on the board %d times, want 1", n)
			}
		})
	}
}

// Two messages failing one after the other end a drain (the forum itself
// may be failing), but they wait out their backoff while the message
// behind them goes on the next tick.
func TestTwoTroublesThenTheRestGoesNext(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	fail := errors.New("no confirmation (HTTP 200)")
	r.ff.FailPM = map[string]error{"Alice": fail, "Carol": fail}
	mk := r.enqueue([2]string{"Alice", "a"}, [2]string{"Carol", "c"}, [2]string{"Bob", "b"})
	if err := r.m.Tick(r.ctx, r.id); err == nil {
		t.Error("the first tick's trouble was not reported")
	}
	if r.sentWith("Bob", mk[2]) != 0 {
		t.Error("the drain went on after two troubles in a row")
	}
	r.clk.Advance(10 * time.Second)
	r.m.Tick(r.ctx, r.id)
	if r.sentWith("Bob", mk[2]) != 1 || r.ff.PMCalls["Alice"] != 1 || r.ff.PMCalls["Carol"] != 1 {
		t.Errorf("next tick: Bob's PM sent %d times, Alice's tried %d, Carol's %d; want 1, 1, 1",
			r.sentWith("Bob", mk[2]), r.ff.PMCalls["Alice"], r.ff.PMCalls["Carol"])
	}
}

// A send the board cannot show (a full sent folder: forum.ErrNoProof) stays
// unconfirmed and is never resent, however many ticks pass (its back-off
// included); it holds up only its own lane: not a failing forum, so two of
// them do not end the drain, and the game's other messages go on.
func TestNoProofHoldsOnlyItsLane(t *testing.T) {
	r := newNations(t, storetest.SQLite(t))
	r.ff.Lock()
	r.ff.Unconfirm = 2
	r.ff.NoProof = map[string]bool{"Alice": true, "Carol": true}
	r.ff.Unlock()
	mk := r.enqueue([2]string{"Alice", "a"}, [2]string{"Carol", "c"}, [2]string{"Bob", "b"}, [2]string{"Alice", "a2"})
	for i := 0; i < 8; i++ {
		if err := r.m.Tick(r.ctx, r.id); err != nil && i > 0 {
			t.Errorf("tick %d failed: %v", i+1, err)
		}
		// The first tick's two unconfirmed sends end its drain, as any
		// two troubles do; from the next on only their checks wait.
		if i > 0 && r.sentWith("Bob", mk[2]) != 1 {
			t.Fatalf("tick %d: Bob's PM was held up behind the unprovable ones", i+1)
		}
		r.clk.Advance(time.Minute)
	}
	for _, k := range mk[:2] {
		if it := r.item(k); it.State != store.OutboxUnconfirmed || !strings.Contains(it.LastError, "full") {
			t.Errorf("%s: %s (%s); want unconfirmed, saying why", k, it.State, it.LastError)
		}
	}
	if r.ff.PMCalls["Alice"] != 1 || r.ff.PMCalls["Carol"] != 1 {
		t.Errorf("sent to Alice %d times, Carol %d; want once each, never resent", r.ff.PMCalls["Alice"], r.ff.PMCalls["Carol"])
	}
	if it := r.item(mk[3]); it.State != store.OutboxPending {
		t.Errorf("Alice's second PM: %s; want pending behind her first (her lane's order)", it.State)
	}
}

// phpBBMarkup is the marker markup of the fake board (phpBB's).
func phpBBMarkup() string {
	p, _ := forum.Builtin("phpbb")
	return p.MarkerMarkup
}
