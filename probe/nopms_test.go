package probe

import (
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forumsim"
)

// TestProbeNoPMs is issue 22 items 9 and 11 on a board without private
// messages (forumsim's NoPMs: every PM page answers 404). The PM checks
// fail, each saying the board answered 404 and plainly that every game
// needs PMs, and so does the report's end. With --post-test the reply goes
// through and the PM does not, and the flood check no longer claims "the
// board took the PM right after the reply": it says only what it saw.
func TestProbeNoPMs(t *testing.T) {
	t.Parallel()
	for _, exempt := range []bool{true, false} {
		b := newSimWith(t, forumsim.Options{NoPMs: true}, exempt)
		for _, postTest := range []bool{false, true} {
			r := b.probe(t, builtin("phpbb"), postTest)
			out := text(r)
			if r.OK {
				t.Fatalf("all green on a board without PMs:\n%s", out)
			}
			for _, id := range []string{"pm.inbox", "pm.sent", "form.pm"} {
				c := check(t, r, id)
				if c.Status != Fail || !c.Needed || !strings.Contains(c.Detail, "404") || !strings.Contains(c.Fix, "every game needs private messages") {
					t.Errorf("exempt %v, post test %v: %s: %+v", exempt, postTest, id, c)
				}
			}
			if !strings.Contains(r.PMs, "every game needs private messages") || !strings.Contains(out, r.PMs) {
				t.Errorf("the report does not say plainly that a game needs PMs: %q\n%s", r.PMs, out)
			}
			if !postTest {
				continue
			}
			if c := check(t, r, "post_test.reply"); c.Status != OK {
				t.Errorf("the reply on a board without PMs: %+v", c)
			}
			if c := check(t, r, "post_test.pm"); c.Status != Fail || !strings.Contains(c.Detail, "404") {
				t.Errorf("the PM on a board without PMs: %+v", c)
			}
			c := check(t, r, "flood")
			if strings.Contains(c.Detail, "took the PM") || c.Status == OK {
				t.Errorf("exempt %v: flood check claims what did not happen: %+v", exempt, c)
			}
			if !strings.Contains(c.Detail, "the test PM did not go through") {
				t.Errorf("exempt %v: flood check does not say why it cannot tell: %+v", exempt, c)
			}
		}
	}
	// A board with PMs says nothing of the sort.
	r := newSim(t, forumsim.Theme{}, true).probe(t, builtin("phpbb"), true)
	if r.PMs != "" || strings.Contains(text(r), "every game needs private messages") {
		t.Errorf("a board whose PMs work: %q", r.PMs)
	}
	if c := check(t, r, "flood"); !strings.Contains(c.Detail, "took the PM right after the reply") {
		t.Errorf("flood on a board whose PM went through: %+v", c)
	}
}
