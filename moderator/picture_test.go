package moderator

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

var update = flag.Bool("update", false, "rewrite the golden posts in testdata/golden")

// TestMapPictureInPosts: with public_url set, the opening post and every
// Protest turn post carry the picture of that turn's public map (after the
// text map, before the deadline), each turn's once; Nations' round reports
// carry the chart of the points so far with its key, and its opening none
// (a chart of nothing). Without public_url no post has a picture and the
// posts keep their text map and scores, and so with public_url on a forum
// set to pictures: false (a board that shows [img] as text). The posts are compared with
// testdata/golden/GAME-picture.txt and GAME-text.txt (-update rewrites them).
func TestMapPictureInPosts(t *testing.T) {
	games := []struct {
		kind    string
		gc      gameconfig.GameConfig
		orders  [][2]string // PMs before the first turn resolves
		pics    []string    // the pictures the posts show, each once
		details []string    // more the picture posts must say
	}{
		{kind: "protest", gc: gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob", "Sue"}, Seed: 5,
			Options: map[string]any{"turn_hours": 1, "sites": 3},
			Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}},
			orders: [][2]string{{"Pia", "PROTEST C2"}, {"Quin", "PROTEST B3"}},
			pics:   []string{"0.png", "1.png", "2.png"}},
		{kind: "nations", gc: gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob"}, Seed: 5,
			Options: map[string]any{"rounds": 3, "round_minutes": 60, "break_minutes": 30}},
			orders:  [][2]string{{"Pia", "INVADE Quin"}, {"Quin", "PROSPER"}, {"Rob", "DEFEND Pia"}},
			pics:    []string{"1.png", "2.png"},
			details: []string{"[b]Victory points after round 1 of 3[/b]", "Lines: [color=#0072b2]blue[/color] Pia ("}},
	}
	for _, gm := range games {
		off := false
		for _, v := range []struct {
			public   string
			pictures *bool
		}{{"https://desk.example.org", nil}, {"", nil}, {"https://desk.example.org", &off}} {
			// forum: pictures: false (a board that shows [img] as text):
			// the posts are those without public_url.
			public := v.public
			if v.pictures != nil {
				public = ""
			}
			t.Run(fmt.Sprintf("%s/public_url=%s/pictures=%v", gm.kind, v.public, v.pictures == nil), func(t *testing.T) {
				storetest.Each(t, func(t *testing.T, db *store.DB) {
					ctx := context.Background()
					clk := clock.NewFake(start)
					ff := forumtest.New(clk)
					m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
					gc := gm.gc
					gc.Start, gc.PublicURL = start, v.public
					fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "mybb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", Pictures: v.pictures}
					var ps []store.Player
					for _, p := range gc.Players {
						ps = append(ps, store.Player{Slot: p, ForumName: p})
					}
					name := gm.kind[:2] + "1"
					g := simtest.Start(t, m, name, gm.kind, gc, fc, ps)
					tick := g.Tick
					tick()
					for _, o := range gm.orders {
						ff.PM(ctx, o[0], o[1])
					}
					tick()
					for range 2 {
						if _, err := m.ResolveNow(ctx, name); err != nil {
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
					golden := filepath.Join("testdata", "golden", gm.kind+"-text.txt")
					if public == "" {
						if pics != 0 {
							t.Errorf("%d pictures without public_url or with pictures: false", pics)
						}
					} else {
						golden = filepath.Join("testdata", "golden", gm.kind+"-picture.txt")
						for _, want := range gm.pics {
							if n := strings.Count(got, "[img]https://desk.example.org/p/"+name+"/map/"+want+"[/img]"); n != 1 {
								t.Errorf("%s: %d times, want once", want, n)
							}
						}
						if pics != len(gm.pics) {
							t.Errorf("%d pictures, want %d (%v)", pics, len(gm.pics), gm.pics)
						}
						for _, d := range gm.details {
							if !strings.Contains(got, d) {
								t.Errorf("the posts do not say %q", d)
							}
						}
					}
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
}

// imgAsText finds the game's picture shown as its raw tag, however the
// board linked its address, and nothing else.
func TestImgAsText(t *testing.T) {
	const prefix = "https://desk.example.org/p/pr1/map/"
	for _, tc := range []struct {
		name, body string
		want       bool
	}{
		{"the tag as text", "The map:<br>[img]https://desk.example.org/p/pr1/map/0.png[/img]", true},
		{"linked (phpBB's magic URLs)", `[img]<a href="https://desk.example.org/p/pr1/map/0.png" class="postlink">https://desk.example.org/p/pr1/map/0.png</a>[/img]`, true},
		{"MyBB's [Image: …], its text cut", `[Image: <a class="mycode_url" href="https://desk.example.org/p/pr1/map/0.png">https://desk.example.org/p/pr1/ma…0.png</a>]`, true},
		{"upper case, escaped", "[IMG]HTTPS://desk.example.org/p/pr1/map/1.png?a=1&amp;b=2[/IMG]", true},
		{"shown", `<img src="https://desk.example.org/p/pr1/map/0.png" class="postimage" alt="Image">`, false},
		{"shown, linked too", `<a href="https://desk.example.org/p/pr1/map/0.png"><IMG class="x" SRC='https://desk.example.org/p/pr1/map/0.png'></a>`, false},
		{"another game's", "[img]https://desk.example.org/p/pr12/map/0.png[/img]", false},
		{"another picture (the probe's)", "[img]https://probe.example/test.png[/img]", false},
		{"the game's page alone", `<a href="https://desk.example.org/p/pr1">the game's page</a>`, false},
	} {
		if got := imgAsText(tc.body, prefix); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestPicturesShownAsText: on a board that shows [img] as text (its admin
// turned it off; the GM did not say pictures: false), the opening post
// carries the map's picture, the bot reads it back shown as text, and
// from then on posts carry the text map alone; the report names the post.
func TestPicturesShownAsText(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(start)
		ff := forumtest.New(clk)
		ff.NoImg = true
		m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
		gc := gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob", "Sue"}, Seed: 5, Start: start, PublicURL: "https://desk.example.org",
			Options: map[string]any{"turn_hours": 1, "sites": 3},
			Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: forumtest.Bot, PasswordEnv: "X"}
		var ps []store.Player
		for _, p := range gc.Players {
			ps = append(ps, store.Player{Slot: p, ForumName: p})
		}
		g := simtest.Start(t, m, "pr1", "protest", gc, fc, ps)
		g.Tick() // the opening post, with the picture
		g.Tick() // read back: shown as text
		rs, err := m.Report(ctx, "pr1")
		if err != nil {
			t.Fatal(err)
		}
		var opening string
		for _, it := range simtest.Outbox(t, db, g.ID) {
			if it.Kind == "post" {
				opening = it.ForumID
				break
			}
		}
		if len(rs) != 1 || opening == "" || rs[0].PicturesAsText != opening {
			t.Fatalf("report after the opening post was read: %+v; want pictures_as_text %q", rs, opening)
		}
		for range 2 {
			if _, err := m.ResolveNow(ctx, "pr1"); err != nil {
				t.Fatal(err)
			}
			g.Tick()
		}
		var posts []string
		for _, it := range simtest.Outbox(t, db, g.ID) {
			if it.Kind == "post" {
				posts = append(posts, it.Body)
			}
		}
		if len(posts) != 3 {
			t.Fatalf("%d posts, want the opening and two turns", len(posts))
		}
		if !strings.Contains(posts[0], "[img]https://desk.example.org/p/pr1/map/0.png[/img]") {
			t.Errorf("the opening post, sent before the board was read, has no picture:\n%s", posts[0])
		}
		for i, p := range posts[1:] {
			if strings.Contains(strings.ToLower(p), "[img]") {
				t.Errorf("turn %d's post carries a picture after the board showed one as text:\n%s", i+1, p)
			}
			if want := fmt.Sprintf("The map after turn %d[/b] (", i+1); !strings.Contains(p, want) {
				t.Errorf("turn %d's post lacks its text map %q:\n%s", i+1, want, p)
			}
		}
	})
}
