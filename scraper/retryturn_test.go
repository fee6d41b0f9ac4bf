package scraper

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// holdingClock is a fake clock whose sleeps of an hour or more last until
// let is closed (the retrying read's backoff); shorter ones pass at once.
type holdingClock struct {
	*clock.Fake
	asleep atomic.Int32
	let    chan struct{}
}

func (c *holdingClock) Sleep(ctx context.Context, d time.Duration) error {
	if d < time.Hour {
		return c.Fake.Sleep(ctx, d)
	}
	c.asleep.Add(1)
	select {
	case <-c.let:
		return c.Fake.Sleep(ctx, d)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestRetryingReadLetsOthersGo: a read that failed waits out its backoff
// outside the session's turn, so another request of the account (a send's
// form, another game's read) goes meanwhile instead of waiting behind it;
// the read still gets its page afterwards.
func TestRetryingReadLetsOthersGo(t *testing.T) {
	t.Parallel()
	var flaky atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/flaky" && flaky.Add(1) == 1 {
			http.Error(w, "busy", http.StatusBadGateway) // no Retry-After: the session's own backoff
			return
		}
		w.Write([]byte("<html><body><p>" + r.URL.Path + "</p></body></html>"))
	}))
	t.Cleanup(srv.Close)
	clk := &holdingClock{Fake: clock.NewFake(t0), let: make(chan struct{})}
	prof, _ := forum.Builtin("mybb")
	s, err := NewSession(srv.URL+"/", prof, forum.Credentials{}, Options{Clock: clk, MinInterval: time.Millisecond, Backoff: 2 * time.Hour, MaxWait: 4 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	read := make(chan error, 1)
	go func() {
		pg, err := s.Get(ctx, "flaky")
		if err == nil && pg.Status != http.StatusOK {
			err = fmt.Errorf("status %d", pg.Status)
		}
		read <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); clk.asleep.Load() == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the read never began its backoff")
		}
	}
	other := make(chan error, 1)
	go func() { _, err := s.Get(forum.Later(ctx), "posting.php"); other <- err }()
	select {
	case err := <-other:
		if err != nil {
			t.Fatalf("the other request: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other request waited for the retrying read's backoff")
	}
	close(clk.let)
	if err := <-read; err != nil {
		t.Fatalf("the retried read: %v", err)
	}
	if n := flaky.Load(); n != 2 {
		t.Errorf("the flaky page was asked for %d times, want 2", n)
	}
}
