package realgames

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestSignupsFillAndPlay fills a game through sign-ups in its thread on real
// phpBB (The Resistance) and real MyBB (Nations), then plays it to its end, with
// the moderator `forumgm run` uses. No player and no user id is given: the
// bot posts the call for players, the players post [b]/in[/b] through the
// board's own reply form (one twice, one leaves with /out and comes back,
// the GM's own account is refused), and the fifth /in fills the game,
// which starts in the same thread. Its players must be exactly the five
// accounts, with the user ids the boards gave them, read from their posts
// (phpBB sends the role PMs by id: they reach each player's inbox); every
// post and PM the bot queued is on the board exactly once (read from the
// board's own database); the journal replays to the same result. Both
// boards run side by side, a few minutes of real time.
func TestSignupsFillAndPlay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fills and plays whole games in real time (a few minutes)")
	}
	for _, sg := range []signupGame{
		{kind: "resistance", engine: realboardtest.PhpBB, speed: 2, seats: 5},
		// MyBB stamps to the minute and deadlines go on whole minutes:
		// Nations' one-minute rounds suit it.
		{kind: "nations", engine: realboardtest.MyBB, seats: 4, options: rules.Options{"rounds": 2, "round_minutes": 1, "break_minutes": 0}},
	} {
		if only := os.Getenv("FORUMGM_SIGNUPS_ENGINE"); only != "" && only != sg.engine {
			continue
		}
		t.Run(sg.kind+"-on-"+sg.engine, func(t *testing.T) {
			t.Parallel()
			playSignups(t, sg)
		})
	}
}

// signupGame is a game filled by sign-ups on one real board: seats
// players of its demo table, who all sign up (min and max).
type signupGame struct {
	kind, engine string
	speed        float64
	seats        int
	options      rules.Options // the demo table's when nil
}

func playSignups(t *testing.T, sg signupGame) {
	matrix.Cell(t, sg.engine, matrix.Signups)
	ctx := context.Background()
	engine := sg.engine
	eng, _ := rules.Lookup(sg.kind)
	demo := eng.(rules.Demo).DemoTable(max(sg.speed, 1))
	if sg.options != nil {
		demo.Options = sg.options
	}
	seats := demo.Players[:sg.seats]
	const host = "TheHost"
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: append(append([]string(nil), seats...), host), Subject: "Sign-ups: " + demo.Title,
		Opening: "A new game of The Resistance. The bot takes the sign-ups below."})
	b.ExemptBot(t)
	switch engine {
	case realboardtest.PhpBB:
		b.Setting(t, "flood_interval", "2")
	case realboardtest.MyBB:
		b.Setting(t, "postfloodsecs", "2")
		b.Setting(t, "pmfloodsecs", "2")
	}
	su := gameconfig.Signups{Min: len(seats), Max: len(seats), Close: "10m", GM: gameconfig.Names{host}}
	gc := gameconfig.GameConfig{Options: demo.Options, Seed: 3, Start: time.Now().UTC(), Signups: &su}
	zero := 0.0
	tb := setupPlayers(t, b, sg.kind, gc, &zero, nil)
	ps := newPlayers(t, b, 3*time.Second)
	ctx, cancel := context.WithCancel(ctx)
	t.Cleanup(func() { cancel(); ps.close() })
	t0 := time.Now()

	waitFor(t, "the call for players on the board", time.Minute, func() bool {
		box := tb.outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	// One post at a time, each on the board before the next: the order is
	// the story (players' queues run side by side, and the game would fill
	// before a second /in or the /out were read). No player posts twice in
	// a row: MyBB would merge the two posts into one.
	post := func(who, text string) {
		t.Helper()
		if err := ps.send(ctx, ps.conns[who], move{text: text}); err != nil {
			t.Fatal(err)
		}
	}
	post(seats[0], "[b]/in[/b]")
	post(host, "I'd play too: [b]/in[/b]")
	post(seats[0], "Just to be sure: [b]/in[/b]")
	post(seats[1], "[b]/in[/b]")
	post(seats[2], "[quote][b]/in[/b][/quote] me too, [b]/in[/b]")
	post(seats[1], "Sorry, busy: [b]/out[/b]")
	for _, p := range seats[3:] {
		post(p, "[b]/IN![/b]")
	}
	waitFor(t, "the answers", 2*time.Minute, func() bool { return len(tb.commands(store.CommandFilter{})) >= 3+len(seats) })
	post(seats[1], "Free after all: [b]/in[/b]")
	waitFor(t, "the game to start", 3*time.Minute, func() bool { return tb.row().Status != moderator.Signups })
	signedUp := time.Since(t0)

	row := tb.row()
	if row.Status != moderator.Running {
		t.Fatalf("after %d /in: %s", len(seats), row.Status)
	}
	// The players play once they can read the game's opening post (an
	// order posted before it belongs to the sign-ups, not the game).
	waitFor(t, "the opening post on the board", time.Minute, func() bool {
		for _, it := range tb.outbox() {
			if it.Kind == "post" && strings.Contains(it.Marker, "/setup/") {
				return it.State == store.OutboxSent
			}
		}
		return false
	})
	var cfg gameconfig.GameConfig
	if err := json.Unmarshal(row.Config, &cfg); err != nil {
		t.Fatal(err)
	}
	var players []store.Player
	tb.db.View(ctx, func(tx *store.Tx) error { var err error; players, err = tx.Players(tb.g.ID); return err })
	ids := map[string]string{}
	for _, a := range b.Players {
		ids[a.Name] = a.IDString()
	}
	if len(players) != len(seats) {
		t.Fatalf("players %+v", players)
	}
	for _, p := range players {
		if p.ForumName == host || ids[p.ForumName] == "" || p.ForumUserID != ids[p.ForumName] {
			t.Errorf("player %+v: want one of %v with the board's user id", p, seats)
		}
	}
	cs := tb.commands(store.CommandFilter{})
	reasons := map[string]bool{}
	for _, c := range cs {
		if c.Status == store.CommandRejected {
			reasons[c.Player+": "+c.Reason] = true
		}
	}
	// The one who left came back: his /in, /out and /in were all taken, in
	// that order (the game did not fill before his /out was read).
	var comeback []string
	for _, c := range cs {
		if c.Player == seats[1] && c.Status == store.CommandAccepted {
			comeback = append(comeback, c.Kind)
		}
	}
	if strings.Join(comeback, " ") != "in out in" {
		t.Errorf("%s's sign-up commands taken: %v, want in, out, in", seats[1], comeback)
	}
	for _, want := range []string{host + ": the GM runs the game", seats[0] + ": already signed up"} {
		found := false
		for r := range reasons {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no rejection %q among %v", want, reasons)
		}
	}

	sim := &simplayers.Table{Game: eng, Seed: 3}
	// Eight minutes: a CI run's loaded machine took more than five for a
	// game whose missions went to their fourth and fifth proposals.
	end := time.Now().Add(8 * time.Minute)
	moves := 0
	for {
		row := tb.row()
		if row.Status == moderator.Finished {
			if tb.drained() {
				break
			}
		} else {
			if time.Now().After(end) {
				for _, c := range tb.commands(store.CommandFilter{}) {
					t.Logf("command %d %s %s %s %q %s: %s", c.ID, c.Phase, c.Player, c.Channel, c.Text, c.Status, c.Reason)
				}
				t.Fatalf("the game did not finish in time (status %s, phase %s)", row.Status, row.Phase)
			}
			sent, err := sim.Act(ctx, tb.state(), ps)
			if err != nil {
				t.Errorf("simulated players: %v", err)
			}
			moves += len(sent)
		}
		if time.Now().After(end.Add(time.Minute)) {
			t.Fatal("the outbox did not drain within a minute after the game ended")
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, err := range ps.close() {
		t.Errorf("a player's move failed on the board: %v", err)
	}
	tb.stop()
	final := eng.Status(tb.state())
	if !final.Finished {
		t.Fatalf("not finished: %+v", final)
	}
	var j []journal.Entry
	tb.db.View(ctx, func(tx *store.Tx) error { var err error; j, err = tx.Journal(tb.g.ID); return err })
	replayed, err := journal.Replay(eng, cfg.Rules(), j, journal.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if got := eng.Status(replayed); strings.Join(got.Winners, ",") != strings.Join(final.Winners, ",") {
		t.Errorf("the journal replays to winners %v, the game says %v", got.Winners, final.Winners)
	}
	posts, pms := tb.checkExactlyOnce()
	t.Logf("%s by sign-ups on %s: signed up in %.0fs, finished in %.0fs; winners %v; %d player moves; bot: %d posts, %d PMs, each once",
		sg.kind, engine, signedUp.Seconds(), time.Since(t0).Seconds(), final.Winners, moves, posts, pms)
}
