package webdesk

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/demo"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
)

// TestDeskSaysPicturesOff: a Protest game with public_url on a board whose
// admin turned [img] off. The opening post carries the map's picture; the
// bot reads it back shown as text, so turn 1's post goes with the text map
// alone, and the desk's games list tells the GM why and what to do, naming
// the post. In Chromium the warning is seen as the GM sees it (with
// FORUMGM_SCREENSHOTS=DIR: pictures-off.png).
func TestDeskSaysPicturesOff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a game on the local forum")
	}
	const base = "https://desk.example.org"
	p := startGameWith(t, "protest", "desk-noimg", func(gc *gameconfig.GameConfig) { gc.PublicURL = base },
		func(b *demo.Board) { b.Sim.SetNoImg(true) })
	p.play(t, 1, false)
	var posts []store.OutboxItem
	p.DB.View(context.Background(), func(tx *store.Tx) error {
		items, err := tx.Outbox(p.id)
		for _, it := range items {
			if it.Kind == forum.KindPost && it.State == store.OutboxSent {
				posts = append(posts, it)
			}
		}
		return err
	})
	if len(posts) < 2 {
		t.Fatalf("%d posts sent, want the opening and turn 1's", len(posts))
	}
	if !strings.Contains(posts[0].Body, "[img]"+base+"/p/desk-noimg/map/0.png[/img]") {
		t.Fatalf("the opening post carries no picture of the map:\n%s", posts[0].Body)
	}
	for _, it := range posts[1:] {
		if strings.Contains(it.Body, "[img]") {
			t.Errorf("a post after the board showed [img] as text still carries one:\n%s", it.Body)
		}
	}
	r := newRig(t, p)
	r.login(t)
	_, page := r.get(t, "/")
	want := regexp.MustCompile(`Pictures off: the board showed the map's \[img\] as text in post ` + regexp.QuoteMeta(posts[0].ForumID) + `;`)
	if !want.MatchString(page) {
		t.Fatalf("the games list does not say pictures are off in post %s:\n%s", posts[0].ForumID, page)
	}

	b := newBrowser(t, time.Minute) // skips without Chromium: the warning was checked in the HTML above
	r.loginBrowser(t, b)
	b.open(r.srv.URL+"/", ".card")
	// Shown, not only present: visible, in the warning's colour, and not
	// clipped by the card (the whole sentence on screen).
	if seen := eval[string](b, `(() => {
		const w = Array.from(document.querySelectorAll(".card .warn")).find(e => e.textContent.includes("Pictures off"));
		if (!w) return "no warning";
		const r = w.getBoundingClientRect(), card = w.closest(".card").getBoundingClientRect();
		if (r.width === 0 || r.height === 0) return "not visible";
		if (r.right > card.right + 1 || r.bottom > card.bottom + 1) return "clipped by its card";
		if (getComputedStyle(w).color === getComputedStyle(w.closest(".card")).color) return "in the card's own colour";
		return "";
	})()`); seen != "" {
		t.Errorf("the pictures warning in Chromium: %s", seen)
	}
	b.shot("pictures-off")
}
