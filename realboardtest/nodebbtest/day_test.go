//go:build linux

package nodebbtest

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/webdesk"
)

// TestGMsDay is boardtest.GMsDay's day on NodeBB (its steps each a subtest
// and a cell of the engine matrix): one Protest game with the moderator as
// `forumgm run` runs it and the web desk serving its public page.
//   - schedule-zone: deadlines on a schedule written in another zone
//     (Asia/Kolkata, two days off): turn 1 closes at the schedule's slot,
//     and the opening, as a player reads it, states it in UTC;
//   - replacement: the GM replaces a player; the replacement post is in
//     the topic and the new player's chatted orders count for the seat;
//   - resolve-now-preview: the preview of turn 1 queues nothing,
//     resolve-now queues exactly what it showed, and again is refused as
//     stale;
//   - pictures: the opening and turn 1's post show the desk's maps as
//     pictures in the topic as NodeBB renders it, served as PNGs;
//   - vote-log: the desk's public vote log lists the topic's commands, each
//     linking its post on the board, and the chatted ones only as a number.
//
// Every post and chat of the bot's is on the board once. Seconds, not
// minutes: nothing waits for a deadline.
func TestGMsDay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := board(t, realboardtest.NodeBBOptions{Players: []string{"Pia", "Quin", "Rob", "Sue", "Una", "Tom"}, BotAdmin: true, Subject: "Protest, a GM's day"})
	seat := func(n string) string { return b.Player(n).Name }
	names := []string{seat("Pia"), seat("Quin"), seat("Rob"), seat("Sue"), seat("Una")}

	const zone = "Asia/Kolkata"
	kolkata, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	slot := now.Add(50*time.Hour + 15*time.Minute).In(kolkata)
	none := gameconfig.Offsets{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	srv.Listener.Close()
	srv.Listener = ln
	public := "http://" + ln.Addr().String()
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: now, PublicURL: public,
		Options:   map[string]any{"turn_hours": 1, "sites": 3},
		Setup:     map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}},
		Deadlines: &gameconfig.Deadlines{At: slot.Format("15:04"), Zone: zone, Minimum: "48h"},
		Reminders: &gameconfig.Reminders{Before: &none, Prod: "off"}}
	zero := 0.0
	fc := forumConfig(t, b)
	fc.FloodSeconds = &zero
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "nodebbtest"}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board,
		Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))}
	var ps []store.Player
	for _, n := range names {
		ps = append(ps, store.Player{Slot: n, ForumName: n, ForumUserID: b.Player(n).IDString()})
	}
	g, err := m.Create(ctx, "day-nodebb", "protest", gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); m.Run(runCtx) }()
	stop := sync.OnceFunc(func() { cancel(); wg.Wait() })
	t.Cleanup(func() { stop(); db.Close() })
	desk, err := webdesk.New(webdesk.Config{Moderator: m, Secret: "a desk password for the test"})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = desk.Handler()
	srv.Start()
	t.Cleanup(srv.Close)

	eng, _ := rules.Lookup("protest")
	status := func() rules.Status {
		var r *store.Game
		db.View(ctx, func(tx *store.Tx) error { var err error; r, err = tx.GameByID(g.ID); return err })
		st, err := eng.Decode(r.State)
		if err != nil {
			t.Fatal(err)
		}
		return eng.Status(st)
	}
	outbox := func() []store.OutboxItem {
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { var err error; out, err = tx.Outbox(g.ID); return err })
		return out
	}
	drained := func() bool {
		for _, it := range outbox() {
			if it.State.Unsent() {
				return false
			}
		}
		return true
	}
	commands := func() []store.CommandRow {
		var cs []store.CommandRow
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(g.ID, store.CommandFilter{})
			return err
		})
		return cs
	}
	accepted := func(text string) int {
		n := 0
		for _, c := range commands() {
			if c.Status == store.CommandAccepted && strings.Contains(c.Text, text) {
				n++
			}
		}
		return n
	}
	// The topic as NodeBB renders it for a player (its posts' HTML).
	reader, _ := connect(t, b)
	topic := func() *goquery.Document {
		var html strings.Builder
		if err := reader.ReadThread(ctx, b.ThreadIDString(), nil, func(pg forum.ThreadPage) error {
			for _, p := range pg.Posts {
				html.WriteString("<div>" + p.BodyHTML + "</div>")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(html.String()))
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	waitFor(t, "the opening post on the board", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})

	t.Run("schedule-zone", func(t *testing.T) {
		matrix.Cell(t, realboardtest.NodeBB, matrix.Schedule)
		st := status()
		if want := slot.Truncate(time.Minute); st.Phase != "turn-1" || !st.Deadline.Equal(want) {
			t.Fatalf("the first turn: %s until %v, want turn-1 until the Kolkata slot %v", st.Phase, st.Deadline, want)
		}
		if want := rules.WhenUTC(st.Deadline, time.UTC); !strings.Contains(topic().Text(), want) {
			t.Errorf("the opening as a player reads it does not state the deadline %q", want)
		}
	})

	post := func(who, bbcode string) int {
		t.Helper()
		id, err := user(t, b, b.Player(who)).Post(ctx, nodebb.Markdown(bbcode))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	chat := func(who, text string) {
		t.Helper()
		if _, err := user(t, b, b.Player(who)).Chat(ctx, b.Bot, text); err != nil {
			t.Fatal(err)
		}
	}
	post("Sue", "[b]NAME: Sea Dogs[/b] at your service")
	rob := post("Rob", "We're in. [b]NAME: Red Rovers[/b]")
	chat("Pia", "A 1 B2\nPROTEST C2")
	chat("Quin", "A 2 D3")
	waitFor(t, "the first orders and names applied", time.Minute, func() bool {
		return accepted("Sea Dogs")+accepted("Red Rovers")+accepted("B2")+accepted("PROTEST C2")+accepted("D3") == 5
	})

	t.Run("replacement", func(t *testing.T) {
		matrix.Cell(t, realboardtest.NodeBB, matrix.Replacement)
		tom := b.Player("Tom")
		// The receipts sent first: the replacement re-addresses the seat's
		// PMs still pending or sending (store's retargetOutbox), and one
		// the board had already taken for the old player is then found by
		// its marker in his room, recorded as the new one's (seen here once
		// under load; not NodeBB's).
		waitFor(t, "the receipts sent", time.Minute, drained)
		if _, _, err := m.Replace(ctx, g.Name, seat("Quin"), tom.Name, tom.IDString()); err != nil {
			t.Fatal(err)
		}
		waitFor(t, "the replacement post on the board", time.Minute, func() bool {
			return strings.Contains(topic().Text(), tom.Name+" replaces "+seat("Quin"))
		})
		chat("Tom", "A 1 E4")
		waitFor(t, "Tom's scan applied", time.Minute, func() bool { return accepted("E4") == 1 })
	})

	var pv *moderator.Preview
	t.Run("resolve-now-preview", func(t *testing.T) {
		matrix.Cell(t, realboardtest.NodeBB, matrix.ResolveNow)
		waitFor(t, "the outbox sent", time.Minute, drained)
		before := outbox()
		p, err := m.Preview(ctx, g.Name, "turn-1")
		if err != nil {
			t.Fatal(err)
		}
		if after := outbox(); len(after) != len(before) || status().Phase != "turn-1" {
			t.Fatalf("the preview queued %d messages or resolved the turn", len(after)-len(before))
		}
		if _, err := m.ResolvePhase(ctx, g.Name, p.Phase); err != nil {
			t.Fatal(err)
		}
		queued := outbox()[len(before):]
		if len(queued) != len(p.Messages) {
			t.Fatalf("the resolution queued %d messages, the preview showed %d", len(queued), len(p.Messages))
		}
		for i, it := range queued {
			if pm := p.Messages[i]; it.Kind != pm.Kind || it.RecipientName != pm.RecipientName || it.Body != pm.Body || it.Marker != pm.Marker {
				t.Errorf("message %d: the resolution queued\n%+v\nthe preview showed\n%+v", i+1, it, pm)
			}
		}
		if _, err := m.ResolvePhase(ctx, g.Name, p.Phase); err == nil || !strings.Contains(err.Error(), "the current phase is turn-2") {
			t.Errorf("a stale resolve-now --phase turn-1: %v", err)
		}
		pv = p
	})
	if pv == nil {
		t.Fatal("turn 1 did not resolve")
	}
	waitFor(t, "turn 1's post and results on the board", time.Minute, drained)

	t.Run("pictures", func(t *testing.T) {
		matrix.Cell(t, realboardtest.NodeBB, matrix.Pictures)
		var srcs []string
		topic().Find("img").Each(func(_ int, s *goquery.Selection) {
			if src, ok := s.Attr("src"); ok && strings.HasPrefix(src, public) {
				srcs = append(srcs, src)
			}
		})
		want := []string{fmt.Sprintf("%s/p/%s/map/0.png", public, g.Name), fmt.Sprintf("%s/p/%s/map/1.png", public, g.Name)}
		if strings.Join(srcs, " ") != strings.Join(want, " ") {
			t.Fatalf("the topic shows the desk's pictures %v, want %v", srcs, want)
		}
		for _, src := range srcs {
			resp, err := http.Get(src)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/png" {
				t.Fatalf("%s: %s %s", src, resp.Status, resp.Header.Get("Content-Type"))
			}
			if _, err := png.Decode(bytes.NewReader(body)); err != nil {
				t.Errorf("%s: %v", src, err)
			}
		}
	})

	t.Run("vote-log", func(t *testing.T) {
		matrix.Cell(t, realboardtest.NodeBB, matrix.VoteLog)
		resp, err := http.Get(public + "/p/" + g.Name + "/log")
		if err != nil {
			t.Fatal(err)
		}
		page, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the vote log: %s", resp.Status)
		}
		doc, err := goquery.NewDocumentFromReader(bytes.NewReader(page))
		if err != nil {
			t.Fatal(err)
		}
		turn1 := doc.Find("#log-turn-1")
		if turn1.Length() != 1 {
			t.Fatalf("no turn 1 in the vote log:\n%s", page)
		}
		text := turn1.Text()
		for _, want := range []string{"Red Rovers", "Sea Dogs", "4 commands by PM (private)"} {
			if !strings.Contains(text, want) {
				t.Errorf("turn 1's vote log lacks %q:\n%s", want, text)
			}
		}
		for _, never := range []string{"PROTEST C2", "A 2 D3", "A 1 E4"} {
			if bytes.Contains(page, []byte(never)) {
				t.Errorf("the public vote log shows %q, a chatted order", never)
			}
		}
		var links []string
		turn1.Find("td.when a").Each(func(_ int, s *goquery.Selection) { links = append(links, s.AttrOr("href", "")) })
		found := false
		for _, l := range links {
			found = found || strings.HasPrefix(l, b.URL) && strings.Contains(l, strconv.Itoa(rob))
		}
		if !found {
			t.Errorf("no link to Rob's post %d on the board among %v", rob, links)
		}
	})

	stop()
	posts, pms := checkExactlyOnce(t, b, outbox())
	t.Logf("a GM's day on NodeBB; bot: %d posts, %d chats, each once", posts, pms)
}
