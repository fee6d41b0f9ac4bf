package moderator

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden posts in testdata/golden")

// TestMapPictureInPosts: with public_url set, the opening post and every
// Protest turn post carry the picture of that turn's public map (after the
// text map, before the deadline), each turn's once; without it, none does.
// The posts are compared with testdata/golden/protest-picture.txt.
func TestMapPictureInPosts(t *testing.T) {
	for _, public := range []string{"https://desk.example.org", ""} {
		t.Run("public_url="+public, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				clk := clock.NewFake(start)
				ff := &fakeForum{clk: clk}
				m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, gameconfig.ForumConfig) (Forum, error) { return ff, nil }}
				gc := gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob", "Sue"}, Seed: 5, Start: start, PublicURL: public,
					Options: map[string]any{"turn_hours": 1, "sites": 3},
					Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}}
				fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "mybb", Thread: "1", Bot: "GMbot", PasswordEnv: "X"}
				var ps []store.Player
				for _, p := range gc.Players {
					ps = append(ps, store.Player{Slot: p, ForumName: p})
				}
				g := simtest.Start(t, m, "pr1", "protest", gc, fc, ps)
				tick := g.Tick
				tick()
				ff.PM(ctx, "Pia", "PROTEST C2")
				ff.PM(ctx, "Quin", "PROTEST B3")
				tick()
				for range 2 {
					if _, err := m.ResolveNow(ctx, "pr1"); err != nil {
						t.Fatal(err)
					}
					tick()
					tick() // a second poll adds nothing
				}
				var posts []string
				db.View(ctx, func(tx *store.Tx) error {
					items, err := tx.Outbox(g.ID)
					for _, it := range items {
						if it.Kind == "post" {
							posts = append(posts, it.Body)
						}
					}
					return err
				})
				got := strings.Join(posts, "\n\n======== next post ========\n\n") + "\n"
				pics := strings.Count(got, "[img]")
				if public == "" {
					if pics != 0 {
						t.Errorf("%d pictures without public_url", pics)
					}
					return
				}
				for turn, want := range []string{"/p/pr1/map/0.png", "/p/pr1/map/1.png", "/p/pr1/map/2.png"} {
					if n := strings.Count(got, "[img]https://desk.example.org"+want+"[/img]"); n != 1 {
						t.Errorf("turn %d: its picture %d times, want once", turn, n)
					}
				}
				if pics != 3 {
					t.Errorf("%d pictures, want 3 (the start and two turns)", pics)
				}
				golden := filepath.Join("testdata", "golden", "protest-picture.txt")
				if *update {
					os.MkdirAll(filepath.Dir(golden), 0o755)
					if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run with -update to write it)", err)
				}
				if got != string(want) {
					t.Errorf("the posts differ from %s:\n%s", golden, got)
				}
			})
		})
	}
}
