package nodebb

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
)

// TestLoginRefusedHoldsBack: a board that refuses the bot's password
// (NodeBB's 403 "invalid-login-credentials") is not asked again before
// the login backoff's wait, however many reads want a session meanwhile
// (boards lock an account after a few failures); once the wait is over it
// is tried again, and a right password then logs in.
func TestLoginRefusedHoldsBack(t *testing.T) {
	t.Parallel()
	var logins atomic.Int32
	var right atomic.Bool
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/config":
			uid := 0
			if c, err := r.Cookie("sid"); err == nil && c.Value == "ok" {
				uid = 7
			}
			fmt.Fprintf(w, `{"csrf_token":"tok","uid":%d}`, uid)
		case "/login":
			logins.Add(1)
			if !right.Load() {
				w.WriteHeader(http.StatusForbidden)
				fmt.Fprint(w, "[[error:invalid-login-credentials]]")
				return
			}
			http.SetCookie(w, &http.Cookie{Name: "sid", Value: "ok", Path: "/"})
			fmt.Fprint(w, `{"next":"/"}`)
		case "/api/topic/1":
			fmt.Fprint(w, `{"tid":1,"cid":2,"posts":[],"pagination":{"pageCount":1}}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	clk := clock.NewFake(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))
	p, _ := forum.Builtin("nodebb")
	c, err := New(srv.URL, p, forum.Credentials{Username: "GMBot", Password: "wrong"}, Options{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	read := func() error { return c.ReadThread(ctx, "1", nil, func(forum.ThreadPage) error { return nil }) }
	if err := read(); !errors.Is(err, scraper.ErrLoginRefused) {
		t.Fatalf("first read: %v, want the login refused", err)
	}
	for range 5 {
		if err := read(); !errors.Is(err, scraper.ErrLogin) || errors.Is(err, scraper.ErrLoginRefused) {
			t.Fatalf("a read within the wait: %v, want a login held back", err)
		}
	}
	if n := logins.Load(); n != 1 {
		t.Errorf("%d logins tried within the wait, want 1", n)
	}
	right.Store(true)
	clk.Advance(6 * time.Minute)
	if err := read(); err != nil {
		t.Fatalf("after the wait, with the right password: %v", err)
	}
	if n := logins.Load(); n != 2 {
		t.Errorf("%d logins in all, want 2", n)
	}
}
