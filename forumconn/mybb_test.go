package forumconn_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scraper/fakemybb"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/pgtest"
	"github.com/forumgm/forumgm/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func bold(s string) string {
	return `<span style="font-weight: bold;" class="mycode_b">` + s + `</span>`
}

// TestNationsOnMyBB plays a short Nations game on a MyBB 1.8 board through
// the real scraper, parser, moderator and poster (MyBB's 60-second flood
// limit honoured on a fake clock): civilisations picked in the thread,
// orders by PM, receipts and round reports back, on SQLite and PostgreSQL.
func TestNationsOnMyBB(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		t0 := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
		clk := clock.NewFake(t0)
		board := fakemybb.New(clk)
		bot := board.AddUser("GMBot", "s3cret")
		alice := board.AddUser("Alice", "a")
		bob := board.AddUser("Bjørn", "b")
		board.AddPost(bot, "", "Nations starts here.") // the GM opened the thread
		srv := httptest.NewServer(board)
		defer srv.Close()
		t.Setenv("FORUMGM_MYBB_PW", "s3cret")

		m := &moderator.Moderator{DB: db, Clock: clk, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
			return forumconn.Connect(site, clk, "test")
		}}
		gc := gameconfig.GameConfig{Players: []string{"Alice", "Bjørn"}, Options: map[string]any{"rounds": 2, "round_minutes": 30, "break_minutes": 5}, Seed: 4, Start: t0}
		fc := gameconfig.ForumConfig{URL: srv.URL + "/forum/", Engine: "mybb", Thread: "9", Bot: "GMBot", PasswordEnv: "FORUMGM_MYBB_PW"}
		g, err := m.Create(ctx, "mybb-nations", "nations", gc, fc, []store.Player{{Slot: "Alice", ForumName: "Alice"}, {Slot: "Bjørn", ForumName: "Bjørn"}})
		if err != nil {
			t.Fatal(err)
		}
		tick := func() {
			t.Helper()
			if err := m.Tick(ctx, g.ID); err != nil {
				t.Fatal(err)
			}
		}
		tick() // the opening post
		board.AddPost(alice, "", "We rise! "+bold("CIV: Fire"))
		board.AddPost(bob, "", `<blockquote class="mycode_quote"><cite>Alice wrote:</cite>`+bold("CIV: Fire")+`</blockquote>Not me: `+bold("CIV: Earth"))
		board.SendPM(alice, bot, "orders", "INVADE bjørn")
		board.SendPM(bob, bot, "orders", "DEFEND Alice<br />\nhello there")
		tick()
		clk.Advance(31 * time.Minute) // round 1 closes
		tick()
		clk.Advance(6 * time.Minute) // round 2 opens: the report goes out
		board.SendPM(alice, bot, "orders", "PROSPER")
		tick()
		clk.Advance(31 * time.Minute) // round 2 closes: the game ends
		for i := 0; i < 5; i++ {
			tick()
			clk.Advance(2 * time.Minute) // room for MyBB's flood waits
		}

		var row *store.Game
		db.View(ctx, func(tx *store.Tx) error { row, err = tx.GameByID(g.ID); return err })
		eng, _ := rules.Lookup("nations")
		st, _ := eng.Decode(row.State)
		status := eng.Status(st)
		// Round 1: Bjørn (Earth) guessed Alice (Fire): steals 12+2 = 14.
		// Round 2: Alice prospers uninvaded (+22), Bjørn idle.
		if !status.Finished || status.Scores["Alice"] != 108 || status.Scores["Bjørn"] != 114 {
			t.Errorf("status %+v; want finished, Alice 86+22=108, Bjørn 114", status)
		}
		var bodies []string
		for _, p := range board.Posts() {
			if len(poster.FindMarkers(p.Message)) == 1 {
				bodies = append(bodies, p.Message)
			}
		}
		if len(bodies) < 3 {
			t.Fatalf("bot posts on the board: %d", len(bodies))
		}
		all := strings.Join(bodies, "\n")
		for _, want := range []string{"Earth", "Fire", "114"} {
			if !strings.Contains(all, want) {
				t.Errorf("the bot's posts do not mention %q", want)
			}
		}
		var receipts []string
		for _, pm := range board.PMs() {
			if pm.From == bot {
				receipts = append(receipts, pm.Message)
			}
		}
		if len(receipts) < 3 || !strings.Contains(strings.Join(receipts, "\n"), "not an order") {
			t.Errorf("receipts by PM: %q", receipts)
		}
		var out []store.OutboxItem
		db.View(ctx, func(tx *store.Tx) error { out, err = tx.Outbox(g.ID); return err })
		for _, it := range out {
			if it.State != "sent" {
				t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
			}
		}
	})
}
