package poster_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// TestOneFormASecondOnAPostingLock (issue 39, item 1): a board that takes
// a form's token once, and makes one token a second for each kind of form
// and account (forumsim's posting lock). Six games of one flood-exempt
// account reply at once. The first time, their forms come in one second:
// one lands, the board refuses the others, and the poster learns it. From
// then on it fetches one form of a kind a second, each in its own second:
// six more replies at once take two requests each (the form and its
// submission), where they took about three more each round before. A
// profile that says posting_lock spares the first round's refusals.
func TestOneFormASecondOnAPostingLock(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits on the board's real seconds")
	}
	for _, said := range []bool{false, true} {
		t.Run(map[bool]string{false: "learned", true: "posting_lock in the profile"}[said], func(t *testing.T) {
			t.Parallel()
			postingLock(t, said)
		})
	}
}

func postingLock(t *testing.T, said bool) {
	sim := forumsim.New(forumsim.Options{FloodInterval: -1, NoPostReview: true})
	bot, _ := sim.AddUser("GMBot", "gm-pass", false)
	f := sim.AddForum("Games", "")
	var topics []int
	for i := range 6 {
		id, _, err := sim.AddTopic(f, bot, fmt.Sprintf("Game %d", i), "Welcome.")
		if err != nil {
			t.Fatal(err)
		}
		topics = append(topics, id)
	}
	var forms atomic.Int64 // form pages and submissions
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("mode") == "reply" {
			forms.Add(1)
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	prof.PostingLock = said
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: clock.Real{}, MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p := poster.New(s)
	p.SetFlood(0) // flood-exempt: several submissions under way
	round := func(n int) (requests int64) {
		before := forms.Load()
		var wg sync.WaitGroup
		for i, tp := range topics {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				if _, err := p.Reply(ctx, fmt.Sprint(tp), fmt.Sprintf("m.r%d.t%d", n, i), "", "Round post."); err != nil {
					t.Errorf("reply to %d: %v", tp, err)
				}
			}()
		}
		wg.Wait()
		return forms.Load() - before
	}
	first := round(1)
	second := round(2)
	for _, tp := range topics {
		if got := len(sim.Posts(tp)); got != 3 {
			t.Errorf("topic %d has %d posts, want the first and two replies", tp, got)
		}
	}
	t.Logf("requests for six replies: %d in the first round, %d in the second", first, second)
	if second > int64(2*len(topics)+1) {
		t.Errorf("%d requests for six replies once the lock was known, want about two each", second)
	}
	// The first round also fetches again the forms that came while the
	// session was still logging in (guest pages): a few.
	if said && first > int64(2*len(topics)+4) {
		t.Errorf("%d requests for the first six replies with posting_lock in the profile, want about two each", first)
	}
}
