package scraper

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestRateFollowsTheBoard: a session's rate is its pacer's while the
// board answers faster than the pacer's interval, and what the board's
// answers allow when they take longer (one request at a time): the send
// depth follows it (Profile.Depth), so a slow board is not handed more
// submissions than it answers.
func TestRateFollowsTheBoard(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		interval time.Duration
		answer   time.Duration
		lo, hi   float64
	}{
		{"fast board", 50 * time.Millisecond, 0, 20, 20},
		{"slow board", 10 * time.Millisecond, 100 * time.Millisecond, 6, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				time.Sleep(tc.answer)
				w.Write([]byte("<html><body>hello</body></html>"))
			}))
			t.Cleanup(srv.Close)
			prof, _ := forum.Builtin("phpbb")
			s, err := NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"},
				Options{Clock: clock.Real{}, MinInterval: tc.interval})
			if err != nil {
				t.Fatal(err)
			}
			if r := s.Rate(); r != float64(time.Second)/float64(tc.interval) {
				t.Errorf("before any request: rate %v, want the pacer's", r)
			}
			for i := 0; i < 5; i++ {
				if err := s.Ping(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if r := s.Rate(); r < tc.lo || r > tc.hi {
				t.Errorf("rate %v requests a second, want %v to %v", r, tc.lo, tc.hi)
			}
		})
	}
}
