package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/gameconfig"
)

// TestConnectForumPings: the connection `forumgm run` gives the moderator
// checks the board cheaply for a backed-off game (issue 22 item 3, Ping on
// the port): one GET a check.
func TestConnectForumPings(t *testing.T) {
	var gets, fail atomic.Int32
	fail.Store(1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gets.Add(1)
		if fail.Load() > 0 {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Write([]byte(`<html><body><p>index</p></body></html>`))
	}))
	t.Cleanup(srv.Close)
	t.Setenv("FORUMGM_TEST_CONNECT_PW", "pw")
	fc := gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "FORUMGM_TEST_CONNECT_PW", RequestsPerSecond: 1000}
	site, err := fc.Site()
	if err != nil {
		t.Fatal(err)
	}
	p, err := connectForum(clock.Real{}, nil)(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Ping(context.Background()); err == nil {
		t.Error("Ping of a board answering 502: nil")
	}
	fail.Store(0)
	if err := p.Ping(context.Background()); err != nil {
		t.Errorf("Ping of a board that answers: %v", err)
	}
	if n := gets.Load(); n != 2 {
		t.Errorf("%d requests for two pings", n)
	}
}
