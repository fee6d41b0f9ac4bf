package webdesk

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestDeskSignups: a game taking sign-ups in its thread shows the numbered
// list on its page with the two controls of `forumgm signups`: remove NAME
// (asked first, then the player is off the list and the thread told) and
// close (the game starts with those in, and the page no longer offers
// them).
func TestDeskSignups(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clock.NewFake(start)
	ff := forumtest.New(clk)
	db := storetest.SQLite(t)
	m := &moderator.Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (moderator.Forum, error) { return ff, nil }}
	su := gameconfig.Signups{Min: 5, Max: 7, Close: "2h"}
	gc := gameconfig.GameConfig{Options: map[string]any{"phase_hours": 1.0}, Seed: 5, Start: start, Signups: &su}
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: forumtest.Bot, PasswordEnv: "X"}
	g, err := m.Create(ctx, "su-desk", "resistance", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	tick := func() {
		t.Helper()
		clk.Advance(time.Minute)
		if err := m.Tick(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
	}
	tick()
	for _, p := range []string{"Ann", "Ben", "Cat", "Dan", "Eve", "Fay"} {
		ff.Post(ctx, p, "[b]/in[/b]")
	}
	tick()

	d, err := New(Config{Moderator: m, Secret: testSecret, Now: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(d.Handler())
	t.Cleanup(srv.Close)
	r := &rig{played: &played{M: m, Name: "su-desk", DB: db}, srv: srv, c: client(), now: clk.Now()}
	csrf := r.login(t)
	resp, body := r.get(t, "/game/su-desk")
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="signups"`) || !strings.Contains(body, "6 in, 5 to 7 players") ||
		!strings.Contains(body, `id="c-close-signups"`) || !strings.Contains(body, "<bdi>Fay</bdi>") {
		t.Fatalf("the page of a game in sign-ups: %s\n%s", resp.Status, body)
	}

	_, confirm := r.post(t, "/game/su-desk/do/remove-signup", url.Values{"csrf": {csrf}, "name": {"Fay"}})
	if !strings.Contains(confirm, "Take Fay off the sign-ups of su-desk?") {
		t.Fatalf("remove's question:\n%s", confirm)
	}
	if l, _ := m.Signups(ctx, "su-desk"); len(l.In) != 6 {
		t.Fatalf("asked only, and the list changed: %+v", l.In)
	}
	resp, _ = r.post(t, "/game/su-desk/do/remove-signup", url.Values{"csrf": {csrf}, "name": {"Fay"}, "confirm": {"yes"}})
	if l, _ := m.Signups(ctx, "su-desk"); resp.StatusCode != http.StatusSeeOther || len(l.In) != 5 || l.In[4].Name != "Eve" {
		t.Fatalf("removed: %s, %+v", resp.Status, l)
	}
	tick()
	if posts := ff.BotPosts(); !strings.Contains(posts[len(posts)-1], "Fay") {
		t.Errorf("the thread was not told Fay is off:\n%s", posts[len(posts)-1])
	}
	resp, _ = r.post(t, "/game/su-desk/do/remove-signup", url.Values{"csrf": {csrf}, "name": {"Zed"}, "confirm": {"yes"}})
	if _, page := r.get(t, "/game/su-desk"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(page, "Zed") {
		t.Errorf("removing someone not signed up: %s, and the page says nothing of it", resp.Status)
	}

	resp, _ = r.post(t, "/game/su-desk/do/close-signups", url.Values{"csrf": {csrf}, "confirm": {"yes"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("close: %s", resp.Status)
	}
	tick()
	rep := r.report(t)
	if rep.Status != moderator.Running || rep.Rules.Phase == "signups" {
		t.Fatalf("after close: %s, phase %s", rep.Status, rep.Rules.Phase)
	}
	if _, body = r.get(t, "/game/su-desk"); strings.Contains(body, `id="c-close-signups"`) || !strings.Contains(body, "Sign-ups are over") {
		t.Errorf("the page after close still offers the sign-up controls:\n%s", body)
	}
}
