//go:build linux

package nodebbtest

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
)

// TestProbe runs `forumgm probe` (probe.ForGame, engine nodebb) on real
// NodeBB boards: a test board passes, with a test reply found again; the
// post queue, disabled chats and a locked topic are each reported as
// stopping a game, with the fix; an administrator bot skips the queue, and
// the players' queue is a warning.
func TestProbe(t *testing.T) {
	t.Parallel()
	type want map[string]probe.Status
	for _, c := range []struct {
		name     string
		opt      realboardtest.NodeBBOptions
		noChats  bool // chats turned off on the board (the whole server's setting)
		lock     bool
		postTest bool
		ok       bool
		want     want
	}{
		{name: "test board", postTest: true, ok: true,
			want: want{"login": probe.OK, "charset": probe.OK, "thread.first": probe.OK, "thread.reply": probe.OK, "post_queue": probe.OK,
				"newbie_delays": probe.Warn, "chats": probe.OK, "post_test.reply": probe.OK}},
		{name: "queue and no chats", opt: realboardtest.NodeBBOptions{PostQueue: true, Exclusive: true}, noChats: true,
			want: want{"login": probe.OK, "post_queue": probe.Fail, "chats": probe.Fail}},
		{name: "admin bot, queue on", opt: realboardtest.NodeBBOptions{BotAdmin: true, PostQueue: true}, ok: true,
			want: want{"post_queue": probe.Warn, "chats": probe.OK, "thread.reply": probe.OK}},
		{name: "locked topic", lock: true, want: want{"thread.first": probe.OK, "thread.reply": probe.Fail}},
	} {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			t.Parallel()
			var b *realboardtest.NodeBBBoard
			if c.noChats {
				// Chats are the whole server's setting: on the second
				// server, alone while it is off.
				b = restartBoard(t, c.opt)
				b.SetSetting(t, "disableChat", 1)
				t.Cleanup(func() { b.SetSetting(t, "disableChat", 0) })
			} else {
				b = board(t, c.opt)
			}
			ctx := context.Background()
			if c.lock {
				admin := user(t, b, b.Admin)
				if err := admin.API(ctx, http.MethodPut, "api/v3/topics/"+b.ThreadIDString()+"/lock", nil, nil); err != nil {
					t.Fatal(err)
				}
			}
			r, err := probe.ForGame(ctx, forumConfig(t, b), "nodebbtest", c.postTest)
			if err != nil {
				t.Fatal(err)
			}
			var text strings.Builder
			r.WriteText(&text)
			t.Log(text.String())
			got := map[string]probe.Check{}
			for _, ch := range r.Checks {
				got[ch.ID] = ch
			}
			for id, st := range c.want {
				if got[id].Status != st {
					t.Errorf("%s: %s (%s), want %s", id, got[id].Status, got[id].Detail, st)
				}
				if st == probe.Fail && got[id].Fix == "" {
					t.Errorf("%s fails with no fix", id)
				}
			}
			if r.OK != c.ok {
				t.Errorf("report OK %v, want %v", r.OK, c.ok)
			}
			if got["chats"].Status == probe.Fail && r.PMs == "" {
				t.Errorf("chats fail but the report does not say PMs cannot be used")
			}
			if got["thread.first"].Status == probe.OK && len(r.Posts) == 0 {
				t.Errorf("the topic was read but no post is reported")
			}
		})
	}
}
