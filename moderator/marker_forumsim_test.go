package moderator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestMarkerMarkupOnABoardWithoutSize (issue 22 item 10): on a board whose
// BBCode has no [size] (forumsim NoSize, as FluxBB 1.5), a GM's profile
// file with `marker_markup: "{marker}"` keeps the tag from showing raw
// under every bot post and PM, and the plain markers still confirm each
// message once. A bot post written before, in the old markup the board
// shows raw, is still found by its marker.
func TestMarkerMarkupOnABoardWithoutSize(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true, NoSize: true},
		"GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
	prof := filepath.Join(t.TempDir(), "nosize.profile.yaml")
	if err := os.WriteFile(prof, []byte("base: phpbb\nname: phpbb-without-size\nmarker_markup: \"{marker}\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fc := th.Forum(t, "FORUMGM_MARKUP_TEST_PW")
	fc.Engine, fc.Profile = "", prof
	m := simModerator(db, clk, 0)
	g := simtest.Start(t, m, "nosize", "nations", th.Nations(start, 2, 10, 1), fc, th.Roster())
	g.Tick()
	must := simtest.Must(t)
	must(th.Sim.SendPM(th.Players["Alice"], []int{th.Bot}, "orders", "PROSPER"))
	for range 3 {
		clk.Advance(time.Minute)
		g.Tick()
	}
	box := simtest.Outbox(t, db, g.ID)
	pms := 0
	for _, it := range box {
		if it.Kind == forum.KindPM {
			pms++
		}
	}
	if len(box) < 2 || pms == 0 {
		t.Fatalf("%d outbox items, %d PMs: want the opening post and a receipt", len(box), pms)
	}
	shown := map[string]int{}
	look := func(what, html string) {
		if strings.Contains(html, "[size") || strings.Contains(html, "[/size]") {
			t.Errorf("%s shows the markup raw: %q", what, html)
		}
		for _, k := range forum.Markers(html) {
			shown[k]++
		}
	}
	for _, p := range th.BotPosts() {
		look("a bot post", p.HTML)
	}
	for _, pm := range th.Sim.Sent(th.Bot) {
		look("a bot PM", pm.HTML)
	}
	for _, it := range box {
		if it.State != store.OutboxSent || shown[it.Marker] != 1 {
			t.Errorf("%s: %s, on the board %d times (%s); want sent, once", it.Marker, it.State, shown[it.Marker], it.LastError)
		}
	}

	// A bot post in the old markup, on this board shown raw.
	old := "nosize.old/round-0/1"
	if _, err := th.Sim.Post(th.Topic, th.Bot, "An earlier version's post.\n\n[size=85]forumgm·"+old+"[/size]"); err != nil {
		t.Fatal(err)
	}
	site, err := fc.Site()
	if err != nil {
		t.Fatal(err)
	}
	c, err := forumconn.Connect(site, clk, "test")
	if err != nil {
		t.Fatal(err)
	}
	if id, ok, err := c.FindPost(ctx, fc.Thread, old); err != nil || !ok || id == "" {
		t.Errorf("the old markup's marker is not found: %q %v %v", id, ok, err)
	}
}
