package scraper_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/scraper"
)

// seenRequest is one request the local forum got, on its clock.
type seenRequest struct {
	at          time.Time
	method, uri string
}

// TestLoginPost429OnForumsim is issue 22 item 6, on the local forum's own
// fault kinds: the login POST answered 429 with Retry-After (in seconds,
// and as an HTTP date). The login fails as the board being away
// (ErrUnavailable), not as a wrong password (no ErrLogin, no lockout: the
// next attempt is not held back by the bot itself); the board's pacer
// holds every request until the Retry-After has passed, the next login's
// included; and that login goes through.
func TestLoginPost429OnForumsim(t *testing.T) {
	for _, kind := range []forumsim.FaultKind{forumsim.Fault429, forumsim.Fault429Date} {
		t.Run(string(kind), func(t *testing.T) {
			clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
			sim := forumsim.New(forumsim.Options{Clock: clk})
			if _, err := sim.AddUser("GMBot", "gm-pass", false); err != nil {
				t.Fatal(err)
			}
			if err := sim.SetFaults(1, forumsim.FaultRule{Kind: kind, Method: http.MethodPost, Path: "mode=login", Count: 1, RetryAfter: 45 * time.Second}); err != nil {
				t.Fatal(err)
			}
			var mu sync.Mutex
			var seen []seenRequest
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				seen = append(seen, seenRequest{clk.Now(), r.Method, r.URL.RequestURI()})
				mu.Unlock()
				sim.ServeHTTP(w, r)
			}))
			t.Cleanup(srv.Close)
			prof, _ := forum.Builtin("phpbb")
			s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
				scraper.Options{Clock: clk, UserAgent: scraper.UserAgent("test")})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			err = s.Login(ctx)
			if !errors.Is(err, scraper.ErrUnavailable) || errors.Is(err, scraper.ErrLogin) || !strings.Contains(err.Error(), "429") {
				t.Fatalf("login answered 429: %v; want ErrUnavailable naming the 429, not a login failure", err)
			}
			mu.Lock()
			var refusedAt time.Time
			for _, r := range seen {
				if r.method == http.MethodPost {
					refusedAt = r.at
				}
			}
			mu.Unlock()
			if refusedAt.IsZero() {
				t.Fatal("no login POST reached the board")
			}
			if held := s.Pacer().HeldUntil(); !held.Equal(refusedAt.Add(45 * time.Second)) {
				t.Errorf("the board's pacer is held until %v; want the Retry-After's end, %v", held, refusedAt.Add(45*time.Second))
			}
			// The next poll's login: it waits the 45 s out (on the fake clock),
			// then logs in; the bot's own lockout never held it back.
			if err := s.Login(ctx); err != nil {
				t.Fatalf("the login after the Retry-After: %v", err)
			}
			pg, err := s.Fetch(ctx, prof.URLs.Index)
			if err != nil || !s.Parser.LoggedIn(pg.Doc) {
				t.Fatalf("after the login the index is not a member's page: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			posts := 0
			for _, r := range seen {
				if r.method == http.MethodPost {
					posts++
				}
				if r.at.After(refusedAt) && r.at.Before(refusedAt.Add(45*time.Second)) {
					t.Errorf("%s %s at +%v, inside the 45 s Retry-After", r.method, r.uri, r.at.Sub(refusedAt))
				}
			}
			if posts != 2 {
				t.Errorf("%d login POSTs; want the refused one and the one after the wait", posts)
			}
			if st := sim.Faults(); st.ByKind[kind] != 1 {
				t.Errorf("faults injected: %v; want one %s", st.ByKind, kind)
			}
		})
	}
}
