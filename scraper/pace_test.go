package scraper

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
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
	var mu sync.Mutex
	var at []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at = append(at, time.Now())
		mu.Unlock()
		fmt.Fprint(w, "<html><body>ok</body></html>")
	}))
	defer srv.Close()
	pc := NewPacer(clock.Real{}, time.Second/rps)
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
	sort.Slice(at, func(i, j int) bool { return at[i].Before(at[j]) })
	if len(at) != 60 || pc.Requests() != 60 {
		t.Fatalf("%d requests seen, %d paced; want 60", len(at), pc.Requests())
	}
	// Any second holds at most rps requests: one more for a window's two
	// edges (the pacer keeps its schedule through a wake up to a slot
	// late), and one more for the way from the pacer to the server, which
	// a loaded machine stretches for one request and not the next (a
	// clean-clone CI run saw 42 in a second). The whole run still takes
	// its 59 slots.
	for i := range at {
		n := sort.Search(len(at), func(j int) bool { return !at[j].Before(at[i].Add(time.Second)) }) - i
		if n > rps+2 {
			t.Fatalf("%d requests in the second from request %d, limit %d a second", n, i, rps)
		}
	}
	if span, least := at[len(at)-1].Sub(at[0]), 59*time.Second/rps-50*time.Millisecond; span < least {
		t.Fatalf("60 requests in %v, want at least %v at %d a second", span, least, rps)
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
