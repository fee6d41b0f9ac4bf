package scraper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestFormWaitFollowsTheBoardsClock: the board's clock runs ahead of ours
// by offset. Each form is stamped with the board's second when it was made,
// within its fetch; the wait before submitting must always bring the
// board's clock past that second (phpBB refuses a token used in it), and
// once a few forms have placed the board's clock it is the rest of that
// second, not a flat one.
func TestFormWaitFollowsTheBoardsClock(t *testing.T) {
	for _, offset := range []time.Duration{0, 300 * time.Millisecond, -1700 * time.Millisecond, 42 * time.Hour} {
		t.Run(fmt.Sprint(offset), func(t *testing.T) {
			prof, _ := forum.Builtin("phpbb")
			clk := clock.NewFake(time.Date(2026, 12, 2, 10, 0, 0, 123e6, time.UTC))
			s := &Session{Profile: prof, opt: Options{Clock: clk}}
			rng := rand.New(rand.NewPCG(1, uint64(offset)))
			var waited time.Duration
			const forms = 40
			for i := range forms {
				clk.Advance(time.Duration(rng.IntN(3000)) * time.Millisecond)
				sent := clk.Now()
				clk.Advance(time.Duration(rng.IntN(30)) * time.Millisecond) // to the board
				made := clk.Now().Add(offset).Unix()
				clk.Advance(time.Duration(rng.IntN(30)) * time.Millisecond) // back
				pg := &Page{Sent: sent, Received: clk.Now()}
				before := clk.Now()
				if err := s.FormWait(context.Background(), pg, map[string][]string{"creation_time": {fmt.Sprint(made)}}); err != nil {
					t.Fatal(err)
				}
				w := clk.Now().Sub(before)
				if board := clk.Now().Add(offset).Unix(); board <= made {
					t.Fatalf("form %d: submitted at the board's second %d, the form's (waited %v)", i, board, w)
				}
				if w > time.Second {
					t.Errorf("form %d: waited %v, more than the flat second", i, w)
				}
				if i >= forms/2 {
					waited += w
				}
			}
			if avg := waited / (forms / 2); avg > 700*time.Millisecond {
				t.Errorf("once the board's clock is placed, forms wait %v on average; want about half a second", avg)
			}
		})
	}
}

// Without the form's time (a profile without form_time_field, a form
// without the field), the flat form_wait_seconds.
func TestFormWaitFlat(t *testing.T) {
	prof, _ := forum.Builtin("phpbb")
	clk := clock.NewFake(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC))
	s := &Session{Profile: prof, opt: Options{Clock: clk}}
	if err := s.FormWait(context.Background(), &Page{}, map[string][]string{"sid": {"x"}}); err != nil || clk.Now().Second() != 1 {
		t.Errorf("no creation_time: waited until %v (%v), want the flat second", clk.Now(), err)
	}
	mybb, _ := forum.Builtin("mybb")
	s.Profile = mybb
	before := clk.Now()
	if err := s.FormWait(context.Background(), &Page{}, map[string][]string{"creation_time": {"1"}}); err != nil || !clk.Now().Equal(before) {
		t.Errorf("MyBB waited %v (%v), want none", clk.Now().Sub(before), err)
	}
}
