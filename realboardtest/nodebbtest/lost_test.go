//go:build linux

package nodebbtest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/realboardtest"
)

// dropper stands between the bot and the board: the first write to a path
// with the given prefix reaches the board, which takes it, but its answer
// never reaches the bot (the connection is closed instead), as when a
// network or the bot's machine fails mid-send.
type dropper struct {
	board  *url.URL
	prefix string
	mu     sync.Mutex
	drops  int // writes still to drop
	writes atomic.Int32
	// kill, when set, is done instead of waiting for the board's answer
	// to a dropped write: the board killed while the write is under way
	// (taken or not, as it happens).
	kill func()
}

func (d *dropper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, d.prefix) {
		d.writes.Add(1)
		d.mu.Lock()
		drop := d.drops > 0
		if drop {
			d.drops--
		}
		d.mu.Unlock()
		if drop {
			body, _ := io.ReadAll(r.Body)
			req, _ := http.NewRequest(r.Method, d.board.ResolveReference(r.URL).String(), strings.NewReader(string(body)))
			req.Header = r.Header.Clone()
			forward := func() {
				if resp, err := http.DefaultTransport.RoundTrip(req); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			if d.kill != nil {
				go forward()
				time.Sleep(5 * time.Millisecond)
				d.kill()
			} else {
				forward()
			}
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
	}
	httputil.NewSingleHostReverseProxy(d.board).ServeHTTP(w, r)
}

// TestLostAnswers: a reply and a chat message the board took but whose
// answer was lost are found by their markers before any retry, not sent
// again: each is on the board once, the send returns its id, and the
// sender's submission hook ran once (forum.Submitting: the one request
// that could post it). A reply under way when NodeBB is killed (SIGKILL)
// and started again is on the board once too, taken or sent again.
func TestLostAnswers(t *testing.T) {
	t.Parallel()
	// Alone on the second server: another test's restart under way
	// would be this one's too.
	b := restartBoard(t, realboardtest.NodeBBOptions{BotAdmin: true, Exclusive: true})
	ctx := context.Background()
	board, _ := url.Parse(b.URL)
	for _, c := range []struct {
		name, prefix, key string
		kill              bool
		send              func(forum.Board, context.Context) (string, error)
		count             func() int
	}{
		{name: "reply, NodeBB killed", prefix: "/api/v3/topics/" + b.ThreadIDString(), key: "lost_test/reply/0", kill: true,
			send: func(bd forum.Board, ctx context.Context) (string, error) {
				return bd.Reply(ctx, b.ThreadIDString(), "[b]Day 0[/b] is over.", "lost_test/reply/0")
			},
			count: func() int {
				return len(b.Query(t, `SELECT 1 FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'content' LIKE '%lost_test/reply/0%'`))
			}},
		{name: "reply", prefix: "/api/v3/topics/" + b.ThreadIDString(), key: "lost_test/reply/1",
			send: func(bd forum.Board, ctx context.Context) (string, error) {
				return bd.Reply(ctx, b.ThreadIDString(), "[b]Day 1[/b] is over.", "lost_test/reply/1")
			},
			count: func() int {
				return len(b.Query(t, `SELECT 1 FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'content' LIKE '%lost_test/reply/1%'`))
			}},
		{name: "chat", prefix: "/api/v3/chats/", key: "lost_test/pm/1",
			send: func(bd forum.Board, ctx context.Context) (string, error) {
				return bd.SendPM(ctx, forum.Author{Name: b.Player("Alice").Name, ID: b.Player("Alice").IDString()}, "Your role", "You are [b]resistance[/b].", "lost_test/pm/1")
			},
			count: func() int {
				return len(b.Query(t, `SELECT 1 FROM legacy_hash WHERE _key LIKE 'message:%' AND data->>'content' LIKE '%lost_test/pm/1%'`))
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &dropper{board: board, prefix: c.prefix, drops: 1}
			if c.kill {
				d.kill = func() { b.Restart(t) }
			}
			proxy := httptest.NewServer(d)
			defer proxy.Close()
			bd, _ := connect(t, b, func(fc *gameconfig.ForumConfig) { fc.URL = proxy.URL + "/" })
			var submits atomic.Int32
			sctx := forum.WithSubmit(ctx, func() (func(), error) { submits.Add(1); return nil, nil })
			t0 := time.Now()
			id, err := c.send(bd, sctx)
			if err != nil {
				t.Fatalf("send: %v", err)
			}
			if n := c.count(); n != 1 {
				t.Errorf("on the board %d times, want once", n)
			}
			if !c.kill && (d.writes.Load() != 1 || submits.Load() != 1) {
				// (Killed mid-write, the board may not have taken it:
				// then the check finds nothing and it goes again.)
				t.Errorf("%d writes reached the board, the submission hook ran %d times; want one each", d.writes.Load(), submits.Load())
			}
			t.Logf("%s: item %s once on the board in %v (%d writes reached it)", c.name, id, time.Since(t0).Round(time.Millisecond), d.writes.Load())
		})
	}
}

// TestSessionLost: the board forgets the bot's session (its sessions
// table emptied, as on a restart that lost them): the next write is
// refused 403, the bot logs in again once and the write goes through,
// once.
func TestSessionLost(t *testing.T) {
	t.Parallel()
	b := board(t, realboardtest.NodeBBOptions{BotAdmin: true})
	ctx := context.Background()
	bd, _ := connect(t, b)
	if _, err := bd.Reply(ctx, b.ThreadIDString(), "First post of the bot.", "session_test/1"); err != nil {
		t.Fatal(err)
	}
	// The bot's sessions only: the server is other tests' too.
	if n := len(b.Query(t, `DELETE FROM session WHERE sess->'passport'->>'user' = $1 RETURNING sid`, b.Bot.IDString())); n == 0 {
		t.Fatal("the bot had no session on the board to lose")
	}
	var submits atomic.Int32
	sctx := forum.WithSubmit(ctx, func() (func(), error) { submits.Add(1); return nil, nil })
	id, err := bd.Reply(sctx, b.ThreadIDString(), "Second post, after the session was lost.", "session_test/2")
	if err != nil {
		t.Fatalf("a reply after the session was lost: %v", err)
	}
	if n := len(b.Query(t, `SELECT 1 FROM legacy_hash WHERE _key = $1`, "post:"+id)); n != 1 {
		t.Errorf("post %s on the board %d times", id, n)
	}
	if submits.Load() != 2 {
		t.Errorf("the submission hook ran %d times, want 2 (refused 403, then after the login)", submits.Load())
	}
	in, err := bd.NewPMs(ctx, nil, nil)
	if err != nil || len(in.PMs) != 0 {
		t.Errorf("reading chats after the new login: %d, %v", len(in.PMs), err)
	}
}
