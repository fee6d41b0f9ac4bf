package moderator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestWholeGameOnAClassicBoard (issue 44, points 2 to 7): a whole
// two-round Nations game on the classic board issue 44 met, in
// ISO-8859-1, read through examples/legacy-rows.profile.yaml: posts as
// three sibling rows with no container, members known by name only (no
// user id on any page: PMs addressed by name), PM pages without a logout
// link, one message box for the board's errors and successes, a sent
// folder of one page, and a 48-byte subject column that answers a longer
// subject with HTTP 500. A player edits a post: the board notes it as text
// in the body, the bot records the edit and the note is no command. Every
// order is accepted. With max_subject_bytes every post and PM is on the
// board exactly once; without it every PM's subject overflows the column,
// and each is refused once with the board's words, never sent again.
func TestWholeGameOnAClassicBoard(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{48, 0} {
		t.Run(fmt.Sprintf("max_subject_bytes %d", limit), func(t *testing.T) {
			t.Parallel()
			classicGame(t, limit)
		})
	}
}

func classicGame(t *testing.T, limit int) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true,
		Charset: forumsim.CharsetLatin1, Layout: forumsim.LayoutRows, SubjectBytes: 48},
		"GMBot", "gm-pass", true, []string{"Zoë", "Łukasz", "Ann"}, "Nations — the game starts here…")
	ex, err := os.ReadFile(filepath.Join("..", "examples", "legacy-rows.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "classic.profile.yaml")
	if err := os.WriteFile(prof, append(ex, []byte(fmt.Sprintf("max_subject_bytes: %d\n", limit))...), 0o644); err != nil {
		t.Fatal(err)
	}
	fc := th.Forum(t, "FORUMGM_CLASSIC_TEST_PW")
	fc.Engine, fc.Profile = "", prof
	// No ids: the players as the board knows them, by name.
	var roster []store.Player
	for _, p := range th.Names {
		roster = append(roster, store.Player{Slot: p, ForumName: p})
	}
	m := simModerator(db, clk, 0)
	g := simtest.Start(t, m, "classic", "nations", th.Nations(start, 2, 10, 1), fc, roster)
	g.Tick()
	must := simtest.Must(t)
	// Chatter, edited after the next post: the board appends its note.
	chat := must(th.Sim.Post(th.Topic, th.Players["Ann"], "Good luck all! [b]PROSPER[/b] is my plan."))
	must(th.Sim.Post(th.Topic, th.Players["Zoë"], "We will see."))
	clk.Advance(time.Minute)
	g.Tick() // read as first posted
	if err := th.Sim.Edit(chat, th.Players["Ann"], "Good luck all! [b]PROSPER, always[/b] is my plan.", ""); err != nil {
		t.Fatal(err)
	}
	orders := map[string]string{"Zoë": "INVADE Łukasz", "Łukasz": "INVADE Zoë", "Ann": "PROSPER"}
	for round := 1; round <= 2; round++ {
		for _, p := range th.Names {
			must(th.Sim.SendPM(th.Players[p], []int{th.Bot}, fmt.Sprintf("Ordres — round %d", round), orders[p]))
		}
		for range 12 {
			clk.Advance(time.Minute)
			g.Tick()
		}
	}
	for range 5 {
		clk.Advance(time.Minute)
		g.Tick()
	}
	if r := reportOf(t, m, "classic"); r.Status != store.GameFinished {
		t.Errorf("the game is %s, want finished", r.Status)
	}
	var cmds []store.CommandRow
	var msgs []store.Message
	if err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		if cmds, err = tx.Commands(g.ID, store.CommandFilter{}); err != nil {
			return err
		}
		msgs, err = tx.Messages(g.ID)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	accepted := map[string]int{}
	for _, c := range cmds {
		if strings.Contains(c.Text, "Edited") {
			t.Errorf("the edit note read as a command: %s's %q", c.Player, c.Text)
		}
		if c.Status == store.CommandAccepted {
			accepted[c.Player+": "+c.Text]++
		}
	}
	for p, o := range orders {
		if accepted[p+": "+o] != 2 {
			t.Errorf("%s's %q accepted %d times, want in both rounds (%v)", p, o, accepted[p+": "+o], accepted)
		}
	}
	edited := false
	for _, msg := range msgs {
		if msg.Kind == forum.KindPost && msg.ForumID == fmt.Sprint(chat) {
			edited = msg.Edits > 0 && strings.Contains(msg.BodyHTML, "[Edited on ") && strings.Join(msg.Commands, "|") == "PROSPER, always"
			if !edited {
				t.Errorf("Ann's edited post: %d edits, commands %q, body %q", msg.Edits, msg.Commands, msg.BodyHTML)
			}
		}
		if msg.AuthorID != "" && msg.AuthorID != msg.AuthorName {
			t.Errorf("%s %s by %q has the id %q, want the name", msg.Kind, msg.ForumID, msg.AuthorName, msg.AuthorID)
		}
	}
	if !edited {
		t.Error("Ann's edited post was not read as edited")
	}
	box := simtest.Outbox(t, db, g.ID)
	if len(box) < 8 {
		t.Fatalf("%d outbox items: want the posts and PMs of two rounds", len(box))
	}
	pms := 0
	for _, it := range box {
		switch {
		case limit == 0 && it.Kind == forum.KindPM:
			pms++
			// Refused once, with the board's words; never sent again.
			if it.State != store.OutboxFailed || it.Attempts != 1 || th.OnBoard(it) != 0 || !strings.Contains(it.LastError, "HTTP 500") || !strings.Contains(it.LastError, "Data too long for column 'privmsgs_subject'") {
				t.Errorf("%s (%s): %s after %d attempts, on the board %d times (%s); want failed after 1 with the board's words", it.Marker, it.Kind, it.State, it.Attempts, th.OnBoard(it), it.LastError)
			}
		case it.State != store.OutboxSent || th.OnBoard(it) != 1:
			t.Errorf("%s (%s): %s, on the board %d times (%s); want sent, once", it.Marker, it.Kind, it.State, th.OnBoard(it), it.LastError)
		}
	}
	if limit == 0 && pms == 0 {
		t.Error("no PM went out")
	}
	for _, p := range th.Names {
		for _, pm := range th.Sim.Inbox(th.Players[p]) {
			if n := len([]rune(pm.Subject)); pm.FromID == th.Bot && n > limit {
				t.Errorf("%s's PM subject %q is %d bytes, over the board's %d", p, pm.Subject, n, limit)
			}
		}
	}
}
