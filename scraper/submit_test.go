package scraper

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestSubmittingRunsJustBeforeAPost: the sender's hook (forum.WithSubmit)
// runs for a POST, after the pacer's wait, just before the request is
// written; not for a GET. A hook that fails means the POST is never made
// (ErrNotSent).
func TestSubmittingRunsJustBeforeAPost(t *testing.T) {
	srv, posts, _ := countingServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html><body>ok</body></html>"))
	})
	prof, _ := forum.Builtin("phpbb")
	s, err := NewSession(srv.URL+"/", prof, forum.Credentials{}, Options{Clock: clock.Real{}, MinInterval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var hooked []time.Time
	var madeBefore []int32 // POSTs the server had when the hook ran
	var endedWith []int32  // POSTs the server had answered when the request ended
	ctx := forum.WithSubmit(context.Background(), func() (func(), error) {
		hooked = append(hooked, time.Now())
		madeBefore = append(madeBefore, posts.Load())
		return func() { endedWith = append(endedWith, posts.Load()) }, nil
	})
	if _, err := s.Get(ctx, "index.php"); err != nil {
		t.Fatal(err)
	}
	if len(hooked) != 0 {
		t.Fatalf("the hook ran for a GET")
	}
	asked := time.Now()
	if _, err := s.PostForm(ctx, srv.URL+"/posting.php", url.Values{"message": {"hi"}}, ""); err != nil {
		t.Fatal(err)
	}
	if len(hooked) != 1 || madeBefore[0] != 0 || posts.Load() != 1 {
		t.Fatalf("hook ran %d times (POSTs made before it: %v), %d POSTs made; want once, before the one POST", len(hooked), madeBefore, posts.Load())
	}
	if len(endedWith) != 1 || endedWith[0] != 1 {
		t.Errorf("the hook's end ran with %v POSTs answered; want once, after the POST", endedWith)
	}
	if waited := hooked[0].Sub(asked); waited < 250*time.Millisecond {
		t.Errorf("the hook ran %s after the POST was asked for: before the pacer's 300 ms", waited)
	}

	refuse := forum.WithSubmit(context.Background(), func() (func(), error) { return nil, errors.New("the lease is lost") })
	_, err = s.PostForm(refuse, srv.URL+"/posting.php", url.Values{"message": {"again"}}, "")
	if !errors.Is(err, ErrNotSent) {
		t.Errorf("a POST whose hook failed: %v, want ErrNotSent", err)
	}
	if n := posts.Load(); n != 1 {
		t.Errorf("%d POSTs made; the refused one must not be", n)
	}
}
