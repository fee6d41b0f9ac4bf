package forumconn_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scraper"
	"github.com/forumgm/forumgm/store"
)

// TestGameOnRenamedTheme: a phpBB board whose style renames the post
// container and the author link. The built-in profile finds no posts
// there; the documented example profile file (docs/profiles.md) reads the
// thread, and a short Nations game runs on it to the end: civilisations
// picked in the thread, orders by PM, every update posted once.
func TestGameOnRenamedTheme(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, Theme: forumsim.RenamedTheme, FloodInterval: -1, NoPostReview: true}, "GM Bot", "s3cret", true, []string{"Alice", "Bob"}, "Sign-ups closed.")
	sim, topic, bot, alice, bob := th.Sim, th.Topic, th.Bot, th.Players["Alice"], th.Players["Bob"]
	zero := 0.0
	fc := th.Forum(t, "FORUMGM_THEME_PW")
	fc.URL, fc.FloodSeconds, fc.RequestsPerSecond = th.URL+"/", &zero, 1000

	// The built-in profile: the thread holds no post it recognises.
	c, err := forumconn.Connect(siteOf(t, fc), clk, "test")
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ReadThread(ctx, fc.Thread, nil, func(forum.ThreadPage) error { return nil }); !errors.Is(err, scraper.ErrNotFound) {
		t.Fatalf("the built-in profile read the renamed theme: %v", err)
	}

	// The example profile file reads it.
	fc.Engine, fc.Profile = "", filepath.Join("..", "examples", "renamed-theme.profile.yaml")
	db, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := &moderator.Moderator{DB: db, Clock: clk, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return forumconn.Connect(site, clk, "test")
	}}
	g := simtest.Start(t, m, "themed", "nations", th.Nations(t0, 1, 30, 5), fc, th.Roster())
	tick := g.Tick
	tick() // the opening post
	sim.Post(topic, alice, "We rise! [b]CIV: Fire[/b]")
	sim.Post(topic, bob, "[quote=Alice][b]CIV: Fire[/b][/quote] Not me: [b]CIV: Earth[/b]")
	sim.SendPM(alice, []int{bot}, "orders", "INVADE Bob")
	sim.SendPM(bob, []int{bot}, "orders", "PROSPER")
	tick()
	clk.Advance(31 * time.Minute) // the round closes: the game ends
	for i := 0; i < 3; i++ {
		tick()
		clk.Advance(time.Minute)
	}

	var row *store.Game
	db.View(ctx, func(tx *store.Tx) error { row, err = tx.GameByID(g.ID); return err })
	eng, _ := rules.Lookup("nations")
	st, _ := eng.Decode(row.State)
	if status := eng.Status(st); !status.Finished || len(status.Scores) != 2 {
		t.Errorf("the game did not finish: %+v", status)
	}
	var botPosts []string
	for _, p := range sim.Posts(topic) {
		if p.AuthorID == bot && len(poster.FindMarkers(p.HTML)) == 1 {
			botPosts = append(botPosts, p.Source)
		}
	}
	if all := strings.Join(botPosts, "\n"); len(botPosts) < 2 || !strings.Contains(all, "Fire") || !strings.Contains(all, "Earth") {
		t.Errorf("the bot's posts (%d) do not show both civilisations:\n%s", len(botPosts), all)
	}
	var out []store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error { out, err = tx.Outbox(g.ID); return err })
	for _, it := range out {
		if it.State != store.OutboxSent {
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
		}
	}
}
