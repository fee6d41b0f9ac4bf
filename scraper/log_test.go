package scraper_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/scraper"
)

// TestSessionLogsThroughSlog: a session's events (a read retried after a
// 5xx, a login, a Retry-After holding the board's requests) go to its
// slog.Logger as records with their facts as
// attributes, never with the password.
func TestSessionLogsThroughSlog(t *testing.T) {
	clk := clock.NewFake(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	sim := forumsim.New(forumsim.Options{Clock: clk})
	bot, _ := sim.AddUser("GMBot", "gm-pass-4321", false)
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Game", "Vote with [b]VOTE: name[/b].")
	if err != nil {
		t.Fatal(err)
	}
	if err := sim.AddFault(forumsim.FaultRule{Kind: forumsim.Fault5xx, Method: "GET", Path: "viewtopic.php", Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := sim.AddFault(forumsim.FaultRule{Kind: forumsim.Fault429, Method: "GET", Path: "mode=login", Count: 1, RetryAfter: 45 * time.Second}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	var logs bytes.Buffer
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass-4321"},
		scraper.Options{Clock: clk, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := s.Fetch(context.Background(), fmt.Sprintf("viewtopic.php?t=%d", topic))
		done <- err
	}()
	// The retry waits on the fake clock: move it until the fetch is done.
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			got := logs.String()
			for _, want := range []string{`msg="forum: retrying a read"`, "url=", "error=", `msg="forum: not logged in; logging in"`, `page="viewtopic.php`, `msg="forum: logged in" user=GMBot`,
				`msg="forum: the board asked us to wait; no request to it before then" status=429 retry_after=45s until=2026-11-30T10:`} {
				if !strings.Contains(got, want) {
					t.Errorf("the session's log lacks %q:\n%s", want, got)
				}
			}
			if strings.Contains(got, "gm-pass-4321") {
				t.Errorf("the password is in the log:\n%s", got)
			}
			return
		case <-time.After(10 * time.Millisecond):
			clk.Advance(time.Second)
		}
	}
}
