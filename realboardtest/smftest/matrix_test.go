package smftest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestSignups: a Nations game filled by sign-ups in its SMF thread, as
// realgames' TestSignupsFillAndPlay on phpBB and MyBB: no players in the
// game file; the players post /in and /out one post at a time through
// SMF's own posting code (a second /in refused, the GM's /in refused, an
// /in inside a quote not counted beside the poster's own, one player out
// and back in), the game starts when the fourth seat fills, with the
// players' SMF user ids read from their posts, and its one-minute round
// plays to the end with their PMs. About two minutes.
func TestSignups(t *testing.T) {
	if testing.Short() {
		t.Skip("fills and plays a game on the real clock")
	}
	t.Parallel()
	matrix.Cell(t, realboardtest.SMF, matrix.Signups)
	seats := []string{"Ann", "Ben", "Cat", "Dan"}
	const host = "TheHost"
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: append(append([]string(nil), seats...), host),
		Subject: "Sign-ups: Nations", Opening: "A new game of Nations. The bot takes the sign-ups below."})
	setUpBot(t, b)
	su := gameconfig.Signups{Min: len(seats), Max: len(seats), Close: "10m", GM: gameconfig.Names{host}}
	gc := gameconfig.GameConfig{Options: rules.Options{"rounds": 1, "round_minutes": 1, "break_minutes": 0}, Seed: 3, Start: time.Now().UTC(), Signups: &su}
	second := 1.0
	tl := startGameWith(t, b, "smf-signups", "nations", gc, nil, func(fc *gameconfig.ForumConfig) { fc.DeadlineUnitSeconds = &second })
	// A bot's first post on a board (its login, the board's first pages)
	// took over a minute in a clean-clone CI run beside the other boards:
	// the waits for a first post are minutes.
	tl.waitFor("the call for players on the board", 3*time.Minute, func() bool {
		box := tl.outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	ctx := context.Background()
	commands := func() []store.CommandRow {
		var cs []store.CommandRow
		tl.db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(tl.g.ID, store.CommandFilter{})
			return err
		})
		return cs
	}
	send := &sender{b: b}
	post := func(who, text string) {
		t.Helper()
		if err := send.Post(ctx, who, text); err != nil {
			t.Fatal(err)
		}
	}
	post(seats[0], "[b]/in[/b]")
	post(host, "I'd play too: [b]/in[/b]")
	post(seats[0], "Just to be sure: [b]/in[/b]")
	post(seats[1], "[b]/in[/b]")
	post(seats[2], "[quote][b]/in[/b][/quote] me too, [b]/in[/b]")
	post(seats[1], "Sorry, busy: [b]/out[/b]")
	post(seats[3], "[b]/IN![/b]")
	tl.waitFor("the answers", 2*time.Minute, func() bool { return len(commands()) >= 3+len(seats) })
	post(seats[1], "Free after all: [b]/in[/b]")
	tl.waitFor("the game to start", 2*time.Minute, func() bool { return tl.row().Status != moderator.Signups })
	if st := tl.row().Status; st != moderator.Running {
		t.Fatalf("after %d /in: %s", len(seats), st)
	}

	var players []store.Player
	tl.db.View(ctx, func(tx *store.Tx) error { var err error; players, err = tx.Players(tl.g.ID); return err })
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
	cs := commands()
	var comeback []string
	reasons := map[string]bool{}
	for _, c := range cs {
		if c.Player == seats[1] && c.Status == store.CommandAccepted {
			comeback = append(comeback, c.Kind)
		}
		if c.Status == store.CommandRejected {
			reasons[c.Player+": "+c.Reason] = true
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

	// The round: everyone prospers, by PM, once the opening is up.
	tl.waitFor("the opening post on the board", 3*time.Minute, func() bool {
		for _, it := range tl.outbox() {
			if it.Kind == "post" && strings.Contains(it.Marker, "/setup/") {
				return it.State == store.OutboxSent
			}
		}
		return false
	})
	for _, p := range seats {
		if err := send.PM(ctx, p, "PROSPER"); err != nil {
			t.Fatal(err)
		}
	}
	tl.waitFor("the game's end and its messages sent", 3*time.Minute, func() bool {
		return tl.row().Status == moderator.Finished && tl.drained()
	})
	prospered := 0
	for _, c := range commands() {
		if c.Kind == "prosper" && c.Status == store.CommandAccepted {
			prospered++
		}
	}
	if prospered != len(seats) {
		t.Errorf("%d PROSPER orders accepted, want %d", prospered, len(seats))
	}
	tl.stop()
	tl.checkExactlyOnce()
}

// TestStoppedAcrossDeadline: the bot is stopped 20 s before a Nations
// round's deadline and started again 20 s after it, as on phpBB and MyBB
// in realgames' TestTiming. A PM sent while it was stopped, 10 s before
// the deadline, counts in the round (SMF's PM pages show the bot seconds:
// setUpBot's time format); one sent 5 s after the deadline, also while it
// was stopped, lands in round 2; round 1 resolves (after the restart). About a minute and a half.
func TestStoppedAcrossDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a round on the real clock")
	}
	t.Parallel()
	matrix.Cell(t, realboardtest.SMF, matrix.StoppedAcrossDeadline)
	names := []string{"Alice", "Bob", "Carol"}
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: names, Subject: "Nations, stopped"})
	setUpBot(t, b)
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: time.Now().UTC(),
		Options: rules.Options{"rounds": 2, "round_minutes": 1, "break_minutes": 0}}
	second := 1.0
	tl := startGame(t, b, "smf-stopped", "nations", gc, func(fc *gameconfig.ForumConfig) { fc.DeadlineUnitSeconds = &second })
	tl.waitFor("the opening post on the board", 3*time.Minute, func() bool {
		box := tl.outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	eng, _ := rules.Lookup("nations")
	st := eng.Status(tl.state(eng))
	deadline, phase := st.Deadline, st.Phase
	if time.Until(deadline) < 30*time.Second {
		t.Fatalf("the round closes in %v: too soon to stop the bot 20 s before it", time.Until(deadline))
	}
	ctx := context.Background()
	send := &sender{b: b}
	commands := func() []store.CommandRow {
		var cs []store.CommandRow
		tl.db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(tl.g.ID, store.CommandFilter{})
			return err
		})
		return cs
	}
	of := func(who string) *store.CommandRow {
		for _, c := range commands() {
			if c.Player == who {
				return &c
			}
		}
		return nil
	}
	if err := send.PM(ctx, "Alice", "PROSPER"); err != nil {
		t.Fatal(err)
	}
	tl.waitFor("Alice's order read", time.Minute, func() bool { return of("Alice") != nil })

	time.Sleep(time.Until(deadline.Add(-20 * time.Second)))
	tl.stop()
	time.Sleep(time.Until(deadline.Add(-10 * time.Second)))
	if err := send.PM(ctx, "Bob", "DEFEND"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Until(deadline.Add(5 * time.Second)))
	if err := send.PM(ctx, "Carol", "PROSPER"); err != nil {
		t.Fatal(err)
	}
	if of("Bob") != nil || eng.Status(tl.state(eng)).Phase != phase {
		t.Fatal("the bot read or resolved while stopped")
	}
	time.Sleep(time.Until(deadline.Add(20 * time.Second)))
	tl.run()
	tl.waitFor("round 1 resolved, both PMs read and the messages sent", 2*time.Minute, func() bool {
		return eng.Status(tl.state(eng)).Phase != phase && of("Bob") != nil && of("Carol") != nil && tl.drained()
	})
	if c := of("Bob"); c.Status != store.CommandAccepted || c.Phase != phase {
		t.Errorf("Bob's DEFEND, sent 10 s before the deadline while the bot was stopped: %+v; want accepted in %s", c, phase)
	}
	if c := of("Carol"); c.Status != store.CommandAccepted || c.Phase == phase {
		t.Errorf("Carol's PROSPER, sent 5 s after the deadline while the bot was stopped: %+v; want accepted in round 2", c)
	}

	tl.stop()
	tl.checkExactlyOnce()
}
