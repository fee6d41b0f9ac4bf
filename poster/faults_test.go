package poster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// TestLostConfirmationOnCutPage (issue 11, item 5): the board takes the
// reply but its answer is lost, and the marker check then reads a last
// page cut short before the new post. The absence there proves nothing:
// the poster must not resubmit; a later call, on a whole page, finds the
// post. Exactly one post carries the marker.
func TestLostConfirmationOnCutPage(t *testing.T) {
	tests := []struct {
		name    string
		lost    forumsim.FaultKind
		cut     forumsim.FaultKind
		noEnd   bool // the profile without page_end: a closed cut fools it
		wantMax int  // posts carrying the marker
	}{
		{"lost answer, closed cut", forumsim.FaultLost, forumsim.FaultTruncate, false, 1},
		{"reset, closed cut", forumsim.FaultLostReset, forumsim.FaultTruncate, false, 1},
		{"lost answer, raw cut", forumsim.FaultLost, forumsim.FaultCut, false, 1},
		{"raw cut, no page_end: </html> still tells", forumsim.FaultLost, forumsim.FaultCut, true, 1},
		// The control: trusting a closed cut (what the bot did before)
		// posts twice, so this test can see a duplicate.
		{"closed cut, no page_end (control)", forumsim.FaultLost, forumsim.FaultTruncate, true, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t)
			ctx := context.Background()
			p := b.p
			if tc.noEnd {
				prof := b.s.Profile
				prof.Selectors.PageEnd = ""
				s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
					scraper.Options{Clock: b.clk, Transport: b.rt})
				if err != nil {
					t.Fatal(err)
				}
				p = poster.New(s)
			}
			must := func(err error) {
				t.Helper()
				if err != nil {
					t.Fatal(err)
				}
			}
			must(b.sim.AddFault(forumsim.FaultRule{Kind: tc.lost, Method: "POST", Path: "mode=reply", Count: 1}))
			// Every read of the topic comes cut short, until the board heals.
			must(b.sim.AddFault(forumsim.FaultRule{Kind: tc.cut, Method: "GET", Path: "viewtopic.php"}))
			key := "m1.day-1.vote"
			// Patiently resubmits after flood refusals, as a caller that
			// trusts the poster's "not posted" would.
			id, err := poster.Patiently(ctx, b.clk, func() (string, error) {
				return p.Reply(ctx, b.topicStr, key, "", "The vote is over.")
			})
			if n := marked(b, key); n != tc.wantMax {
				t.Fatalf("%d posts carry the marker, want %d (Reply = %q, %v)", n, tc.wantMax, id, err)
			}
			if tc.wantMax > 1 {
				return
			}
			if err == nil || !errors.Is(err, poster.ErrIncomplete) || !strings.Contains(err.Error(), "could not check") {
				t.Fatalf("Reply on cut pages = %q, %v; want a could-not-check ErrIncomplete", id, err)
			}
			if st := b.sim.Faults(); st.ByKind[tc.lost] != 1 || st.ByKind[tc.cut] != 3 {
				t.Errorf("faults %v: want the answer lost once and three cut reads", st.ByKind)
			}
			// The moderator's check on its next pass: still cut, still
			// unknown, never "not there".
			if got, ok, err := p.PostWithMarker(ctx, b.topicStr, key); ok || !errors.Is(err, poster.ErrIncomplete) {
				t.Errorf("check on a cut page = %q, %v, %v; want ErrIncomplete", got, ok, err)
			}
			// Later, the board whole again: the check finds the post.
			b.sim.ClearFaults()
			got, ok, err := p.PostWithMarker(ctx, b.topicStr, key)
			all := b.sim.Posts(b.topic)
			if err != nil || !ok || atoi(got) != all[len(all)-1].ID {
				t.Errorf("check on the whole page = %q, %v, %v; want post %d", got, ok, err, all[len(all)-1].ID)
			}
			if n := marked(b, key); n != 1 || b.rt.posts != 1 {
				t.Errorf("%d posts carry the marker, %d submissions; want 1 and 1", n, b.rt.posts)
			}
		})
	}
}

// marked counts the topic's posts whose source carries key's marker line.
func marked(b *board, key string) int {
	n := 0
	for _, p := range b.sim.Posts(b.topic) {
		if strings.Contains(p.Source, forum.MarkerLine(b.s.Profile.MarkerMarkup, key)) {
			n++
		}
	}
	return n
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestLostPMConfirmationOnCutPages: the same for a PM, whose marker check
// reads the key in the subjects of the outbox's and sent folder's lists
// (cut: the outbox list alone, or every folder list). Exactly one PM
// reaches the recipient.
func TestLostPMConfirmationOnCutPages(t *testing.T) {
	for _, cut := range []string{"folder=outbox", "folder="} {
		t.Run(cut, func(t *testing.T) {
			b := newBoard(t)
			ctx := context.Background()
			for _, r := range []forumsim.FaultRule{
				{Kind: forumsim.FaultLost, Method: "POST", Path: "mode=compose", Count: 1},
				{Kind: forumsim.FaultTruncate, Method: "GET", Path: cut},
			} {
				if err := b.sim.AddFault(r); err != nil {
					t.Fatal(err)
				}
			}
			to := forum.Author{Name: "Alice", ID: fmt.Sprint(b.alice)}
			key := "m1.role.alice"
			id, err := poster.Patiently(ctx, b.clk, func() (string, error) {
				return b.p.SendPM(ctx, to, key, "Your role", "You are [b]Town[/b].")
			})
			if n := len(b.sim.Inbox(b.alice)); n != 1 {
				t.Fatalf("Alice has %d PMs, want 1 (SendPM = %q, %v)", n, id, err)
			}
			t.Logf("SendPM = %q, %v", id, err)
			// A cut that spares the marker confirms the PM; else it is unknown.
			if !errors.Is(err, poster.ErrIncomplete) && (err != nil || id != fmt.Sprint(b.sim.Inbox(b.alice)[0].ID)) {
				t.Fatalf("SendPM on cut pages = %q, %v; want ErrIncomplete or the PM", id, err)
			}
			if b.sim.Faults().ByKind[forumsim.FaultTruncate] == 0 {
				t.Fatal("no page was cut")
			}
			b.sim.ClearFaults()
			got, ok, err := b.p.SentPMWithMarker(ctx, key, time.Time{})
			if err != nil || !ok || got != fmt.Sprint(b.sim.Inbox(b.alice)[0].ID) {
				t.Errorf("check on whole pages = %q, %v, %v", got, ok, err)
			}
		})
	}
}
