//go:build linux

package boardtest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
)

// CheckMarkerMarkup (issue 22 item 10): the bot's reply and PM, posted
// through the poster with the engine's marker markup (its profile's
// marker_markup), show the marker in small print as the engine renders it:
// no tag left raw, and a font size below the text's (a percentage under
// 100, an em under 1, a smaller keyword; MyBB takes a number as points, so
// phpBB's [size=85] is 50pt there, and SMF takes no percentage at all).
func CheckMarkerMarkup(t *testing.T, b *realboardtest.Board, c *forumconn.Conn) {
	t.Helper()
	ctx := context.Background()
	key := "markup.t0k/1/" + b.Engine
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Reply(ctx, b.ThreadIDString(), "Round 1 is open.", key)
	})
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	pg, err := c.Session.Fetch(ctx, forum.Expand(c.Session.Profile.URLs.LastPage, map[string]string{"topic": b.ThreadIDString()}))
	if err != nil {
		t.Fatal(err)
	}
	var body string
	for _, p := range c.Session.Parser.Thread(pg.Doc).Posts {
		if p.ID == id {
			body = p.BodyHTML
		}
	}
	if body == "" {
		t.Fatalf("post %s is not on the thread's last page", id)
	}
	checkSmallPrint(t, b.Engine+" post "+id, body, key)

	alice := b.Player("Alice")
	pmKey := "markup.t0k/pm/" + b.Engine
	if _, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "[game] your role", "You are resistance.", pmKey)
	}); err != nil {
		t.Fatalf("PM: %v", err)
	}
	box, err := Connect(t, b, alice).NewPMs(ctx, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pm string
	for _, m := range box.PMs {
		if forum.HasMarker(m.BodyHTML, pmKey) {
			pm = m.BodyHTML
		}
	}
	if pm == "" {
		t.Fatalf("Alice has no PM with %s (%d PMs)", pmKey, len(box.PMs))
	}
	checkSmallPrint(t, b.Engine+" PM", pm, pmKey)
	// The body reader leaves the marker line out of a PM's lines.
	if lines := Reader(t, b).Lines(pm); len(lines) != 1 || lines[0] != "You are resistance." {
		t.Errorf("%s: the PM's lines %q, want only its text", b.Engine, lines)
	}
}

// checkSmallPrint checks that the marker of key in a rendered body is in
// small print and that no BBCode tag shows raw.
func checkSmallPrint(t *testing.T, what, body, key string) {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	text := doc.Text()
	if !forum.HasMarker(text, key) {
		t.Fatalf("%s: no marker %s in %q", what, key, body)
	}
	if strings.Contains(text, "[size") || strings.Contains(text, "[/size]") {
		t.Errorf("%s shows the marker's markup raw: %q", what, text)
	}
	var style string
	doc.Find("[style]").Each(func(_ int, s *goquery.Selection) {
		if strings.Contains(s.Text(), forum.MarkerPrefix+key) && strings.Contains(s.AttrOr("style", ""), "font-size") {
			style = s.AttrOr("style", "")
		}
	})
	if !smallFont(style) {
		t.Errorf("%s: the marker is not in small print (style %q): %q", what, style, body)
	}
}

// smallFont says whether a style's font-size is smaller than the text's.
func smallFont(style string) bool {
	_, v, ok := strings.Cut(style, "font-size:")
	if !ok {
		return false
	}
	v = strings.TrimSpace(strings.SplitN(v, ";", 2)[0])
	switch v {
	case "xx-small", "x-small", "small", "smaller":
		return true
	}
	for unit, below := range map[string]float64{"%": 100, "em": 1} {
		if n, ok := strings.CutSuffix(v, unit); ok {
			f, err := strconv.ParseFloat(n, 64)
			return err == nil && f > 0 && f < below
		}
	}
	return false // points and pixels: not relative to the text
}
