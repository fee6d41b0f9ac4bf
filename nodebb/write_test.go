package nodebb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

// TestLostReplyCheckedThroughARestart: a reply the board took but whose
// answer was lost (the connection cut, as when NodeBB is killed mid-write)
// is checked for by its marker before any resubmission; while the board is
// still coming back (502s) the check is asked again, not given up, and it
// finds the post: the send returns its id, and the reply was submitted
// once. A board that stays away leaves it unconfirmed (never sent blind).
func TestLostReplyCheckedThroughARestart(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		down  int // topic reads answered 502 after the lost answer
		found bool
	}{
		{"back after two 502s", 2, true},
		{"away for good", 1000, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex
			var posts []apiPost
			writes, reads, down := 0, 0, c.down
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				if fakeSession(w, r, 7) {
					return
				}
				switch {
				case r.URL.Path == "/api/v3/topics/4" && r.Method == http.MethodPost:
					writes++
					var in struct{ Content string }
					json.NewDecoder(r.Body).Decode(&in)
					posts = append(posts, apiPost{PID: "41", UID: "7", Content: "<p>" + in.Content + "</p>"})
					conn, _, _ := w.(http.Hijacker).Hijack()
					conn.Close() // taken, its answer lost
				case r.URL.Path == "/api/topic/4":
					reads++
					if down > 0 {
						down--
						w.WriteHeader(http.StatusBadGateway)
						return
					}
					page := r.URL.Query().Get("page")
					b, _ := json.Marshal(map[string]any{"tid": 4, "cid": 2, "pagination": map[string]int{"pageCount": 1},
						"posts": map[bool][]apiPost{true: posts, false: {}}[page == "1"]})
					w.Write(b)
				default:
					http.NotFound(w, r)
				}
			}))
			defer srv.Close()
			clk := clock.NewFake(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))
			stop := make(chan struct{})
			defer close(stop)
			go func() { // the fake clock's sleeps pass at once
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					select {
					case <-stop:
						return
					case <-tick.C:
						clk.Advance(time.Second)
					}
				}
			}()
			p, _ := forum.Builtin("nodebb")
			bd, err := New(srv.URL, p, forum.Credentials{Username: "GMBot", Password: "pw"}, Options{Clock: clk})
			if err != nil {
				t.Fatal(err)
			}
			id, err := bd.Reply(context.Background(), "4", "Day 0 is over.", "write_test/1")
			mu.Lock()
			defer mu.Unlock()
			if writes != 1 {
				t.Errorf("the reply was submitted %d times, want once", writes)
			}
			if c.found {
				if err != nil || id != "41" {
					t.Errorf("send: %q, %v; want post 41", id, err)
				}
				return
			}
			if err == nil || !errors.Is(err, forum.ErrUnconfirmed) {
				t.Errorf("send on a board that stays away: %q, %v; want it unconfirmed", id, err)
			}
			if reads != checkTries {
				t.Errorf("%d marker checks on a board that stays away, want %d", reads, checkTries)
			}
		})
	}
}

// TestFloodRefusalKeepsBoardsWords: a reply and a chat room NodeBB refuses
// for flood ("You can only post once every 10 seconds") come back as a
// flood wait that carries the board's words, so the log and the GM see
// what the board said, not only when the next try is.
func TestFloodRefusalKeepsBoardsWords(t *testing.T) {
	t.Parallel()
	const said = "You can only post once every 10 seconds."
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fakeSession(w, r, 7) {
			return
		}
		switch {
		case r.URL.Path == "/api/v3/users/9/chat": // no room yet
			fmt.Fprint(w, `{"status":{"code":"ok"},"response":{"roomId":null}}`)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusBadRequest)
			b, _ := json.Marshal(map[string]any{"status": map[string]string{"code": "bad-request", "message": said}, "response": map[string]any{}})
			w.Write(b)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	p, _ := forum.Builtin("nodebb")
	for _, c := range []struct {
		name string
		send func(*Client) error
	}{
		{"reply", func(bd *Client) error {
			_, err := bd.Reply(context.Background(), "4", "Day 0 is over.", "flood_test/1")
			return err
		}},
		{"chat", func(bd *Client) error {
			_, err := bd.SendPM(context.Background(), forum.Author{Name: "Alice", ID: "9"}, "Receipt", "Taken.", "flood_test/2")
			return err
		}},
	} {
		bd, err := New(srv.URL, p, forum.Credentials{Username: "GMBot", Password: "pw"}, Options{Clock: clock.NewFake(time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC))})
		if err != nil {
			t.Fatal(err)
		}
		err = c.send(bd)
		var fe *forum.FloodError
		if !errors.As(err, &fe) || fe.Said != said || !strings.Contains(err.Error(), said) {
			t.Errorf("%s refused for flood: %v; want a flood wait with the board's words", c.name, err)
		}
	}
}

// fakeSession answers a fake NodeBB's session requests, the config (its
// CSRF token, the bot's uid) and the login, and says whether r was one.
func fakeSession(w http.ResponseWriter, r *http.Request, uid int) bool {
	switch r.URL.Path {
	case "/api/config":
		fmt.Fprintf(w, `{"csrf_token":"tok","uid":%d}`, uid)
	case "/login":
		fmt.Fprint(w, `{"next":"/"}`)
	default:
		return false
	}
	return true
}
