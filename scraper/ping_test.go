package scraper

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestPing: the backed-off moderator's cheap read (issue 22 item 3) is one
// request, never retried and never a login: a 5xx, a 429 (whose
// Retry-After still holds the board's pacer), a refused connection and
// the closed page are ErrUnavailable; any other answer, a guest page
// included, says the board answers again.
func TestPing(t *testing.T) {
	t.Parallel()
	closed, err := os.ReadFile("../parser/testdata/real/phpbb3310_closed.html")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		retryIn string
		wantErr error
	}{
		{"guest index", http.StatusOK, loginFormHTML, "", nil},
		{"503", http.StatusServiceUnavailable, "down", "", ErrUnavailable},
		{"429 with Retry-After", http.StatusTooManyRequests, "slow down", "40", ErrUnavailable},
		{"closed for maintenance", http.StatusOK, string(closed), "", ErrClosed},
		{"404 is an answer", http.StatusNotFound, "no such page", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv, posts, gets := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				if tc.retryIn != "" {
					w.Header().Set("Retry-After", tc.retryIn)
				}
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			clk := clock.NewFake(t0)
			prof, _ := forum.Builtin("phpbb")
			s, err := NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"},
				Options{Clock: clk, MinInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			err = s.Ping(context.Background())
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("Ping: %v, want %v", err, tc.wantErr)
			}
			if g, p := gets.Load(), posts.Load(); g != 1 || p != 0 {
				t.Errorf("%d GETs and %d POSTs; want one GET (no retry, no login)", g, p)
			}
			if tc.retryIn != "" {
				if held := s.Pacer().HeldUntil(); !held.Equal(t0.Add(40 * time.Second)) {
					t.Errorf("pacer held until %v; want the board's Retry-After, %v", held, t0.Add(40*time.Second))
				}
			}
		})
	}
	// A board that does not answer at all.
	srv := httptest.NewServer(http.NotFoundHandler())
	srv.Close()
	prof, _ := forum.Builtin("phpbb")
	s, err := NewSession(srv.URL+"/", prof, forum.Credentials{}, Options{Clock: clock.NewFake(t0), MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ping(context.Background()); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Ping of a board that refuses connections: %v, want ErrUnavailable", err)
	}
}
