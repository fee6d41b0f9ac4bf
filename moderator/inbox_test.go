package moderator

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/store"
)

// TestFailingInboxHoldsOnlyWhatAPMCouldPrecede (issue 22 item 7, ruling
// 23): while the PM inbox cannot be read, the thread is still read and its
// commands applied, except the one that would close the phase ("everyone
// has acted"): a PM not yet read may have come before it, and would then
// have counted in the phase it closes. That post waits, with the posts
// after it, until the inbox is read; then the PM closes the phase, in its
// place, and the held post counts in the next one. Nothing is rejected as
// late.
func TestFailingInboxHoldsOnlyWhatAPMCouldPrecede(t *testing.T) {
	r := newRig(t, "laps-test", "phpbb", false, []string{"Alice", "Bob"}, nil)
	r.tick()
	r.ff.InboxErr = errors.New(`GET ucp.php?i=pm&folder=inbox: the forum answered 404 Not Found`)
	r.at(time.Minute)
	alice := r.post("Alice", "[b]DONE[/b]")
	r.at(70 * time.Second)
	r.ff.PM(r.ctx, "Bob", "DONE") // not read while the inbox fails
	bobPM := r.ff.LastID()
	r.at(80 * time.Second)
	bobPost := r.post("Bob", "[b]DONE[/b]")
	r.at(90 * time.Second)
	r.tick()
	r.tick()
	if cs := r.commands(); len(cs) != 1 || cs[0].Player != "Alice" || cs[0].Status != store.CommandAccepted {
		t.Fatalf("with the inbox failing, want Alice's thread command applied and Bob's held: %+v", cs)
	}
	g, st, _ := r.game()
	if s := st.(*lapsState); s.Phase != 1 {
		t.Fatalf("phase %d: the phase closed at a post a PM not yet read may precede", s.Phase)
	}
	if g.Phase != "phase-1" {
		t.Errorf("stored phase %q", g.Phase)
	}

	r.ff.InboxErr = nil
	r.at(2 * time.Minute)
	r.tick()
	_, st, _ = r.game()
	s := st.(*lapsState)
	if got, want := strings.Join(s.Log["1"], " "), "Alice@"+alice+" Bob@"+bobPM; got != want {
		t.Errorf("phase 1 counted %q, want %q (the PM in its place, closing the phase)", got, want)
	}
	if got, want := strings.Join(s.Log["2"], " "), "Bob@"+bobPost; got != want {
		t.Errorf("phase 2 counted %q, want %q (the held post, after the PM)", got, want)
	}
	for _, c := range r.commands() {
		if c.Status != store.CommandAccepted {
			t.Errorf("%s's %q: %s (%s)", c.Player, c.Text, c.Status, c.Reason)
		}
	}
}
