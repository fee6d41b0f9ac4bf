package smftest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestWholeGames plays a whole game of each kind to its end on a real SMF
// board: the moderator runs as `forumgm run` does (real clock, real login,
// the bot's posts and PMs through SMF's forms, read back from its pages),
// and the simulated players (rules.Bot) post and PM through SMF's own
// posting and PM code. The bot is set up as a GM would: a global
// moderator with 5 posts (SMF asks members with fewer for a PM captcha)
// whose time format shows seconds, with deadlines to the second. Every
// command must count: none may be rejected as late.
func TestWholeGames(t *testing.T) {
	if testing.Short() {
		t.Skip("plays whole games on the real clock (minutes)")
	}
	t.Parallel() // top-level too: a parallel test waits for every sequential one
	for _, name := range rules.Names() {
		g, _ := rules.Lookup(name)
		d, ok := g.(rules.Demo)
		if !ok {
			continue
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			wholeGame(t, name, d, 0)
		})
	}
	if matrix.Full() {
		// The demo's Resistance has seven players (plot cards); the
		// matrix's five-player cell, which CI leaves out for its time.
		g, _ := rules.Lookup("resistance")
		t.Run("resistance-5", func(t *testing.T) {
			t.Parallel()
			wholeGame(t, "resistance", g.(rules.Demo), 5)
		})
	}
}

// sender is a simulated player's channel: posts and PMs through SMF's own
// code inside the board.
type sender struct {
	b   *realboardtest.Board
	mu  sync.Mutex
	log []string
}

func (s *sender) Post(_ context.Context, player, bbcode string) error {
	return s.do(player, "post: "+bbcode, func(a realboardtest.Account) error { _, err := s.b.PostErr(a, bbcode); return err })
}

func (s *sender) PM(_ context.Context, player, text string) error {
	return s.do(player, "PM: "+text, func(a realboardtest.Account) error { _, err := s.b.PMErr(a, s.b.Bot, "orders", text); return err })
}

func (s *sender) do(player, what string, f func(realboardtest.Account) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.b.Players {
		if strings.EqualFold(a.Name, player) {
			if err := f(a); err != nil {
				return fmt.Errorf("%s %s: %w", player, what, err)
			}
			s.log = append(s.log, player+" "+what)
			return nil
		}
	}
	return fmt.Errorf("no player %q", player)
}

func wholeGame(t *testing.T, name string, d rules.Demo, players int) {
	ctx := context.Background()
	tbl := d.DemoTable(0.5)
	if players > 0 {
		tbl.Players = tbl.Players[:players]
	}
	matrix.Cell(t, realboardtest.SMF, wholeGameFeature(name, len(tbl.Players)))
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: tbl.Players, Subject: tbl.Title, Opening: "The game starts below."})
	setUpBot(t, b)
	gc := gameconfig.GameConfig{Players: tbl.Players, Options: tbl.Options, Setup: tbl.Setup, Seed: 3, Start: time.Now().UTC()}
	// The bot's time format shows seconds (setUpBot), so its GM sets
	// deadlines to the second (deadline_unit_seconds: 1): the demo table's
	// phases of seconds, not each rounded up to a whole minute (the
	// package's time went to those minutes). Whole-minute deadlines on SMF
	// are played by TestCountsAndReminders and TestMaintenanceMode.
	second := 1.0
	tl := startGame(t, b, "smf-"+name, name, gc, func(fc *gameconfig.ForumConfig) { fc.DeadlineUnitSeconds = &second })
	db, g := tl.db, tl.g
	send := &sender{b: b}
	table := &simplayers.Table{Game: d, Seed: 3}
	t0 := time.Now()
	deadline := t0.Add(8 * time.Minute)
	var row *store.Game
	for {
		row = tl.row()
		st, err := d.Decode(row.State)
		if err != nil {
			t.Fatal(err)
		}
		if row.Status == moderator.Finished {
			if tl.drained() {
				break
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("%s not finished after %s: status %s, %+v", name, time.Since(t0).Round(time.Second), row.Status, d.Status(st))
		} else if _, err := table.Act(ctx, st, send); err != nil {
			t.Logf("a player's move failed: %v", err)
		}
		time.Sleep(700 * time.Millisecond)
	}
	st, _ := d.Decode(row.State)
	status := d.Status(st)
	t.Logf("%s finished on SMF in %s (%s): winners %v, scores %v; %d player moves", name, time.Since(t0).Round(time.Second),
		status.Phase, status.Winners, status.Scores, len(send.log))

	// Everything the bot sent is on the board exactly once.
	tl.checkExactlyOnce()
	out := tl.outbox()
	posts := b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}messages WHERE id_topic = %d AND id_member = %d", b.ThreadID, b.Bot.ID))
	pms := b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}personal_messages WHERE id_member_from = %d", b.Bot.ID))
	nPosts, nPMs := 0, 0
	for _, r := range posts {
		if strings.Contains(fmt.Sprint(r["body"]), forum.MarkerPrefix) {
			nPosts++
		}
	}
	for _, r := range pms {
		if strings.Contains(fmt.Sprint(r["body"]), forum.MarkerPrefix) {
			nPMs++
		}
	}
	var cmds []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		cmds, err = tx.Commands(g.ID, store.CommandFilter{})
		return err
	})
	for _, c := range cmds {
		if strings.Contains(c.Reason, "after its phase") {
			t.Errorf("%s's %q rejected as late (%s)", c.Player, c.Text, c.Reason)
		}
	}
	t.Logf("%d commands", len(cmds))
	if wholeGameFeature(name, len(tbl.Players)) == matrix.Resistance7 {
		// Seven players: the plot deck is dealt; the cell is the cards
		// given and played, accepted, as on phpBB.
		given, played := 0, 0
		for _, c := range cmds {
			switch {
			case c.Kind == resistance.KindGive && c.Status == store.CommandAccepted:
				given++
			case c.Kind == resistance.KindPlay && c.Status == store.CommandAccepted:
				played++
			}
		}
		if given == 0 || played == 0 {
			t.Errorf("plot cards given %d times and played %d times: want both", given, played)
		}
	}
	t.Logf("the bot posted %d times and sent %d PMs; outbox %d items", nPosts, nPMs, len(out))
	if !status.Finished || nPosts < 2 || nPMs < 1 {
		t.Errorf("status %+v, %d bot posts, %d bot PMs", status, nPosts, nPMs)
	}
}

// wholeGameFeature is the matrix row a whole game of kind with n players
// stands for (seven or more: the plot cards are dealt).
func wholeGameFeature(kind string, n int) string {
	switch kind {
	case "nations":
		return matrix.Nations
	case "protest":
		return matrix.Protest
	}
	if n >= 7 {
		return matrix.Resistance7
	}
	return matrix.Resistance5
}
