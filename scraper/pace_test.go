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
	// Any second holds at most rps requests (one more for a window's two
	// edges, and the server's own timing).
	for i := range at {
		n := sort.Search(len(at), func(j int) bool { return !at[j].Before(at[i].Add(time.Second)) }) - i
		if n > rps+1 {
			t.Fatalf("%d requests in the second from request %d, limit %d a second", n, i, rps)
		}
	}
}
