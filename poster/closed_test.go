package poster_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// TestClosedBoardIsNoRefusal: while its admin has the board closed (the
// real closed pages of phpBB 3.3.10 and MyBB 1.8.37, HTTP 200, where the
// reply and PM forms would be), a reply or PM is the board being away
// (scraper.ErrClosed), never a refusal that would fail the message for
// good (ErrRejected), and nothing is submitted.
func TestClosedBoardIsNoRefusal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ engine, page string }{
		{"phpbb", "../parser/testdata/real/phpbb3310_closed.html"},
		{"mybb", "../parser/testdata/real/mybb1837_closed.html"},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			page, err := os.ReadFile(c.page)
			if err != nil {
				t.Fatal(err)
			}
			var posts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost {
					posts.Add(1)
				}
				w.Write(page)
			}))
			t.Cleanup(srv.Close)
			prof, _ := forum.Builtin(c.engine)
			s, err := scraper.NewSession(srv.URL+"/", prof, forum.Credentials{Username: "GMBot", Password: "pw"},
				scraper.Options{MinInterval: time.Millisecond, Retries: 1, Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			p := poster.New(s)
			ctx := context.Background()
			_, rerr := p.Reply(ctx, "2", "m1.day-1.vote", "", "The vote is over.")
			_, perr := p.SendPM(ctx, forum.Author{Name: "Alice", ID: "3"}, "m1.role.alice", "Your role", "You are Town.")
			for what, err := range map[string]error{"reply": rerr, "PM": perr} {
				if !errors.Is(err, scraper.ErrClosed) || errors.Is(err, poster.ErrRejected) {
					t.Errorf("%s on a closed board: %v; want scraper.ErrClosed, not ErrRejected", what, err)
				}
			}
			if n := posts.Load(); n != 0 {
				t.Errorf("%d submissions to a closed board", n)
			}
		})
	}
}
