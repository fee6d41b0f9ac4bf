package scraper

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// Sessions of several accounts on one board share its pacer: the board
// never sees more than its rate, however many ask at once.
func TestPacerSharedByBoard(t *testing.T) {
	const rps = 40
	var served sync.WaitGroup
	served.Add(60)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer served.Done()
		fmt.Fprint(w, "<html><body>ok</body></html>")
	}))
	defer srv.Close()
	pc := NewPacer(clock.Real{}, time.Second/rps)
	// The slots the pacer grants, not the times requests reach the server:
	// on a loaded machine the way from one to the other stretches for one
	// request and not the next, which no pacer can prevent (a clean-clone
	// CI run saw 43 arrive within one second).
	var slots []time.Time
	pc.granted = func(slot time.Time) { slots = append(slots, slot) }
	prof, _ := forum.Builtin("phpbb")
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		s, err := NewSession(srv.URL+"/", prof, forum.Credentials{}, Options{Pacer: pc})
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 4; j++ { // games on the account, asking at once
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; k < 5; k++ {
					if _, err := s.Fetch(context.Background(), "index.php"); err != nil {
						t.Error(err)
					}
				}
			}()
		}
	}
	wg.Wait()
	served.Wait() // every session's requests reached the one server
	if len(slots) != 60 || pc.Requests() != 60 {
		t.Fatalf("%d slots granted, %d paced; want 60", len(slots), pc.Requests())
	}
	// Slots go in order, at least an interval apart, so any second holds
	// at most rps of them and the whole run takes its 59 intervals.
	for i := 1; i < len(slots); i++ {
		if gap := slots[i].Sub(slots[i-1]); gap < time.Second/rps {
			t.Fatalf("slot %d came %v after the one before, want at least %v", i, gap, time.Second/rps)
		}
	}
}

// lateClock wakes every sleeper a fixed latency late, as timers on a busy
// machine do.
type lateClock struct {
	*clock.Fake
	late time.Duration
}

func (c lateClock) Sleep(ctx context.Context, d time.Duration) error {
	c.Fake.Advance(d + c.late)
	return nil
}

// Waking late by less than a slot does not slow the rate: 100 requests at
// 5 ms take 100 slots, not 100 slots and 100 latencies; waking later than a
// slot gives the slot up, so two never go at once.
func TestPacerKeepsRateThroughLateWakes(t *testing.T) {
	for _, c := range []struct {
		late time.Duration
		want time.Duration // the 100th grant, after the first
	}{{time.Millisecond, 99 * 5 * time.Millisecond}, {4 * time.Millisecond, 99 * 5 * time.Millisecond}, {6 * time.Millisecond, 99 * 11 * time.Millisecond}} {
		t0 := time.Unix(1_800_000_000, 0)
		clk := lateClock{Fake: clock.NewFake(t0), late: c.late}
		p := NewPacer(clk, 5*time.Millisecond)
		var first, prev time.Time
		for i := 0; i < 100; i++ {
			if err := p.Wait(context.Background()); err != nil {
				t.Fatal(err)
			}
			now := clk.Now()
			if i == 0 {
				first = now
			} else if now.Sub(prev) <= 0 {
				t.Fatalf("late %v: grant %d at the same time as the one before", c.late, i)
			}
			prev = now
		}
		if got := prev.Sub(first); got > c.want+c.late {
			t.Errorf("late %v: 100 grants took %v, want at most %v", c.late, got, c.want+c.late)
		}
	}
}
