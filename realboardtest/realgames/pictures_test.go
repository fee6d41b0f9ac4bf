package realgames

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/webdesk"
)

// TestPictureInRealThread: a Nations game on real phpBB with public_url
// set to the web desk's address. Round 1's report, as phpBB shows it to a
// player reading the thread, holds an <img> of the desk's chart for round
// 1, and that address, fetched as the player's browser fetches it, answers
// image/png: the chart the game draws. The opening shows no picture (a
// chart of nothing). About 20 s of real time (a phpBB board, the opening
// and one report).
func TestPictureInRealThread(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.PhpBB, matrix.Pictures)
	if testing.Short() {
		t.Skip("plays a round on a real board")
	}
	ctx := context.Background()
	names := []string{"Ann", "Ben"}
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: names, Subject: "Nations, pictured"})
	b.ExemptBot(t)

	// The desk's address is known before the game is created: public_url
	// names it in the game's config.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener.Close()
	srv.Listener = ln
	public := "http://" + ln.Addr().String()

	zero := 0.0
	gc := gameconfig.GameConfig{Players: names, Seed: 7, Start: time.Now().UTC(), PublicURL: public,
		Options: map[string]any{"rounds": 2, "round_minutes": 600, "break_minutes": 0}}
	tb := setup(t, b, "nations", gc, &zero)
	desk, err := webdesk.New(webdesk.Config{Moderator: tb.m, Secret: "a desk password for the test"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = desk.Handler()
	srv.Start()
	t.Cleanup(srv.Close)

	tb.opened()
	if _, err := tb.m.ResolveNow(ctx, tb.g.Name); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "round 1's report on the board", 60*time.Second, func() bool {
		return tb.drained() && strings.Contains(strings.Join(bodies(threadRows(t, b)), "\n"), "Round 1 of 2: results")
	})

	// The thread as a player reads it.
	c := boardtest.Connect(t, b, b.Players[0])
	pg, err := c.Session.Fetch(ctx, fmt.Sprintf("viewtopic.php?t=%d", b.ThreadID))
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%s/p/%s/map/1.png", public, tb.g.Name)
	var srcs []string
	pg.Doc.Find(".postbody .content img").Each(func(_ int, s *goquery.Selection) {
		if src, ok := s.Attr("src"); ok && strings.HasPrefix(src, public) {
			srcs = append(srcs, src)
		}
	})
	if len(srcs) != 1 || srcs[0] != want {
		t.Fatalf("the thread shows the desk's pictures %v, want just %s", srcs, want)
	}
	if !strings.Contains(pg.Doc.Find(".postbody .content").Text(), "Victory points after round 1 of 2") {
		t.Error("the report does not say what its picture shows")
	}

	// The picture as the browser fetches it: no desk session, no cookie.
	resp, err := http.Get(srcs[0])
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("%s: %s %s", srcs[0], resp.Status, resp.Header.Get("Content-Type"))
	}
	pics, err := nations.Game{}.Draw(tb.state(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(pics[1].Data) {
		t.Errorf("%s is not the game's chart after round 1", srcs[0])
	}
}

func bodies(rows []boardRow) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Body
	}
	return out
}
