package scraper

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestClosedBoard: a board its admin closed for maintenance answers every
// page with its closed page (saved from a real phpBB 3.3.10 and MyBB
// 1.8.37, HTTP 200; SMF 2.1.4, HTTP 503). A thread read is then ErrClosed
// (an ErrUnavailable: away for now), never "no posts" (ErrNotFound), at
// the first answer (no retries of a 503 that stays), and the bot does not
// try to log in on it, let alone count a failed login.
func TestClosedBoard(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		engine, page string
		status       int
	}{
		{"phpbb", "../parser/testdata/real/phpbb3310_closed.html", http.StatusOK},
		{"mybb", "../parser/testdata/real/mybb1837_closed.html", http.StatusOK},
		{"smf", "../parser/testdata/real/smf214_closed.html", http.StatusServiceUnavailable},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			page, err := os.ReadFile(c.page)
			if err != nil {
				t.Fatal(err)
			}
			srv, posts, gets := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(c.status)
				w.Write(page)
			})
			prof, _ := forum.Builtin(c.engine)
			s, err := NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"},
				Options{Clock: clock.NewFake(t0), MinInterval: time.Millisecond, Retries: 2})
			if err != nil {
				t.Fatal(err)
			}
			_, err = (&Scraper{Session: s}).ReadThread(context.Background(), "2", Cursor{}, func(forum.Post) error { return nil })
			if !errors.Is(err, ErrClosed) || !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrNotFound) {
				t.Errorf("thread read on a closed board: %v; want ErrClosed (and ErrUnavailable), not ErrNotFound", err)
			}
			if n := gets.Load(); n != 1 {
				t.Errorf("%d GETs for one read of a closed board, want 1", n)
			}
			if err := s.Login(context.Background()); !errors.Is(err, ErrClosed) || errors.Is(err, ErrLoginRefused) {
				t.Errorf("login on a closed board: %v; want ErrClosed, not a refusal", err)
			}
			if n := posts.Load(); n != 0 {
				t.Errorf("%d login POSTs to a closed board", n)
			}
		})
	}
}

// countingServer serves answer for the test's length, counting the POSTs
// and the other requests it gets.
func countingServer(t *testing.T, answer http.HandlerFunc) (srv *httptest.Server, posts, gets *atomic.Int32) {
	posts, gets = new(atomic.Int32), new(atomic.Int32)
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			posts.Add(1)
		} else {
			gets.Add(1)
		}
		answer(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, posts, gets
}
