//go:build linux

package boardtest

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/scraper"
	"github.com/forumgm/forumgm/store"
)

// PicturesOff is issue 38's "a board that does not render images", on a
// real board whose admin turned [img] off for the thread's forum (turnOff;
// setting names what the probe must name):
//
//   - `forumgm probe --post-test` warns that the board shows [img] as text
//     there, naming the setting and forum: pictures: false;
//   - with pictures: false the probe is content (no warning);
//   - a Protest game with public_url whose GM did not say pictures: false
//     sends its opening post with the map's [img], reads it back shown as
//     text, and from then on posts the text map alone: turn 1's post has
//     no [img], `forumgm status` names the post, and the thread, as a
//     player reads it, shows the maps as text and no picture of the desk.
//     (Posts under pictures: false: moderator's TestMapPictureInPosts.)
//
// A cell of the matrix (pictures); about 20 s.
func PicturesOff(t *testing.T, engine string, prepare, turnOff func(t *testing.T, b *realboardtest.Board), setting string) {
	matrix.Cell(t, engine, matrix.Pictures)
	eng, ok := dayEngines[engine]
	if !ok {
		t.Fatalf("no GM's day for %s", engine)
	}
	names := []string{"Ann", "Ben", "Cat", "Dan"} // Protest takes four to eight
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: names, Subject: "Protest, no pictures here"})
	prepare(t, b)
	turnOff(t, b)

	prof, _ := forum.Builtin(engine)
	off := false
	run := func(postTest bool, pictures *bool) probe.Check {
		t.Helper()
		r, err := probe.Run(context.Background(), probe.Config{URL: b.URL, Profile: prof, Thread: b.ThreadIDString(),
			Creds: forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password}, PostTest: postTest, Pictures: pictures,
			Scraper: scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		r.WriteText(&out)
		for _, c := range r.Checks {
			if c.ID == "pictures" {
				return c
			}
		}
		t.Fatalf("the probe has no pictures check:\n%s", out.String())
		return probe.Check{}
	}
	if c := run(true, nil); c.Status != probe.Warn || !strings.Contains(c.Detail, "shows [img] as text") ||
		!strings.Contains(c.Fix, "pictures: false") || !strings.Contains(c.Fix, setting) {
		t.Errorf("the probe with [img] off: %+v; want a warning naming %q and pictures: false", c, setting)
	}
	if c := run(false, &off); c.Status != probe.OK {
		t.Errorf("the probe with pictures: false: %+v; want ok", c)
	}

	d := startProtest(t, b, eng, gameconfig.GameConfig{Players: names, Seed: 5, Start: time.Now().UTC(),
		Options: map[string]any{"turn_hours": 1, "sites": 3},
		Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}})
	var opening string
	waitFor(t, "the opening post on the board", 60*time.Second, func() bool {
		box := d.Outbox()
		if len(box) > 0 && box[0].State == store.OutboxSent {
			opening = box[0].ForumID
			return true
		}
		return false
	})
	report := func() moderator.GameReport {
		rs, err := d.M.Report(context.Background(), d.Game.Name)
		if err != nil || len(rs) != 1 {
			t.Fatalf("report: %v %+v", err, rs)
		}
		return rs[0]
	}
	waitFor(t, "the opening post read back, its picture shown as text", 60*time.Second, func() bool { return report().PicturesAsText != "" })
	if got := report().PicturesAsText; got != opening {
		t.Errorf("pictures shown as text in post %s; want the opening post, %s", got, opening)
	}
	if _, err := d.M.ResolveNow(context.Background(), d.Game.Name); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "turn 1's post on the board", 60*time.Second, func() bool { return d.Status().Phase == "turn-2" && d.Drained() })

	// The game's posts as sent (the probe's test reply above, with its
	// [img], is no game post): the opening post's picture, sent before
	// the board was read, and none after.
	for i, it := range d.Outbox() {
		pic := strings.Contains(strings.ToLower(it.Body), "[img]")
		if i == 0 && !strings.Contains(it.Body, "[img]"+d.Public+"/p/") {
			t.Errorf("the opening post, sent before the board was read, has no picture of the desk:\n%s", it.Body)
		}
		if i > 0 && (pic || strings.Contains(it.Body, d.Public+"/p/"+d.Game.Name+"/map/")) {
			t.Errorf("the game's %s %s carries a picture after the board showed one as text:\n%s", it.Kind, it.Marker, it.Body)
		}
	}
	page := d.page(t, Connect(t, b, b.Player("Ann")))
	page.Find("img").Each(func(_ int, s *goquery.Selection) {
		if strings.HasPrefix(s.AttrOr("src", ""), d.Public) {
			t.Errorf("the thread shows the desk's picture %s", s.AttrOr("src", ""))
		}
	})
	text := page.Text()
	for _, want := range []string{"The map at the start (", "The map after turn 1 ("} {
		if !strings.Contains(text, want) {
			t.Errorf("the thread as a player reads it lacks the text map %q", want)
		}
	}
	d.stop()
	d.CheckExactlyOnce(t)
}
