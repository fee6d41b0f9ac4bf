package smftest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// smfTooLongSaid is SMF's refusal naming the limit (Errors.english.php
// error_long_message); one setting, max_messageLength, holds posts
// (Post.php Post2) and PMs (PersonalMessage.php MessagePost2) alike.
const smfTooLongSaid = "The message exceeds the maximum allowed length (%d characters)."

// TestTooLong lowers SMF's max_messageLength below a Resistance opening
// post (1,504 bytes for five players) and plays the start of the game
// through the moderator: SMF's own refusal is read as too long, its limit
// learned for the game, the opening goes out in parts within it, in order
// and each once, holding the whole text; the role PMs behind it go out and
// the players' proposal and votes after it are applied (the first proposal
// resolves). Then the limit is lowered again and a GM PM longer than it
// (but within the learned limit) is refused, cut under the new limit and
// delivered in order, the PMs queued behind it and to another player
// going out too.
func TestTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the start of a game in real time")
	}
	t.Parallel()
	const limit = 1200
	ctx := context.Background()
	g, err := rules.Lookup("resistance")
	if err != nil {
		t.Fatal(err)
	}
	demo := g.(rules.Demo).DemoTable(1)
	demo.Players = demo.Players[:5]
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: demo.Players, Subject: demo.Title, Opening: "The game starts below."})
	setUpBot(t, b)
	b.Setting(t, "max_messageLength", fmt.Sprint(limit))
	gc := gameconfig.GameConfig{Players: demo.Players, Options: rules.Options{"phase_hours": 3.0 / 60}, Seed: 3, Start: time.Now().UTC()}
	tl := startGame(t, b, "resistance-smf", "resistance", gc)
	db, game := tl.db, tl.g
	t0 := time.Now()

	// Seconds alone; in a CI run beside the other boards the board's own
	// start took 37 s, and the split 90 s was not enough.
	root := tl.waitSplit("the opening post", func(box []store.OutboxItem) store.OutboxItem { return box[0] }, 4*time.Minute)
	t.Logf("opening split after %.1fs: %s", time.Since(t0).Seconds(), root.LastError)
	if l := tl.row().MessageLimit; l != limit {
		t.Errorf("learned limit %d, want the board's max_messageLength %d", l, limit)
	}
	boardtest.CheckSaid(tl.t, root.LastError, fmt.Sprintf(smfTooLongSaid, limit))
	tl.checkParts(root, limit)

	// The game goes on past the split opening.
	send := &sender{b: b}
	sim := &simplayers.Table{Game: g, Seed: 3}
	first := g.Status(tl.state(g)).Phase
	tl.waitFor("the first proposal resolved", 2*time.Minute, func() bool {
		if g.Status(tl.state(g)).Phase != first {
			return tl.drained()
		}
		if _, err := sim.Act(ctx, tl.state(g), send); err != nil {
			t.Logf("a player's move failed: %v", err)
		}
		return false
	})
	accepted := 0
	var cmds []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error { cmds, err = tx.Commands(game.ID, store.CommandFilter{}); return err })
	for _, c := range cmds {
		if c.Status == store.CommandAccepted {
			accepted++
		}
	}
	if accepted < len(demo.Players) {
		t.Errorf("%d commands accepted after the split opening, want at least a vote from each of %d players", accepted, len(demo.Players))
	}
	t.Logf("phase %s → %s after %.1fs; %d commands accepted", first, g.Status(tl.state(g)).Phase, time.Since(t0).Seconds(), accepted)

	// A PM over a lowered limit, queued behind nothing in its lane.
	const lower = 1000
	b.Setting(t, "max_messageLength", fmt.Sprint(lower))
	var long strings.Builder
	for i := 1; long.Len() < lower; i++ {
		fmt.Fprintf(&long, "Line %02d of the GM's long word to Ann.\n", i)
	}
	if len(forum.SplitMessage(long.String(), limit)) != 1 || len(forum.WithMarker(markupOf("smf"), long.String(), "k")) <= lower {
		t.Fatalf("the test's PM (%d bytes) must fit the learned %d and not the board's %d", long.Len(), limit, lower)
	}
	name := strings.SplitN(tl.outbox()[0].Marker, "/", 2)[0]
	ann, ben := b.Players[0], b.Players[1]
	pm := func(to realboardtest.Account, n int, body string) store.OutboxItem {
		return store.OutboxItem{GameID: game.ID, Kind: "pm", Recipient: to.Name, RecipientName: to.Name, RecipientID: to.IDString(),
			Subject: fmt.Sprintf("[%s] From the GM %d", game.Name, n), Body: body, Marker: fmt.Sprintf("%s/toolong/%d", name, n)}
	}
	items := []store.OutboxItem{pm(ann, 1, long.String()), pm(ann, 2, "After the long one."), pm(ben, 3, "To Ben.")}
	if err := db.Tx(ctx, func(tx *store.Tx) error { return tx.Save(&store.Changes{Outbox: items}) }); err != nil {
		t.Fatal(err)
	}
	byID := func(id int64) store.OutboxItem {
		for _, it := range tl.outbox() {
			if it.ID == id {
				return it
			}
		}
		return store.OutboxItem{}
	}
	pmRoot := tl.waitSplit("the long PM", func([]store.OutboxItem) store.OutboxItem { return byID(items[0].ID) }, 60*time.Second)
	tl.waitFor("the PMs behind the long one sent", 30*time.Second, func() bool {
		return byID(items[1].ID).State == store.OutboxSent && byID(items[2].ID).State == store.OutboxSent
	})
	t.Logf("PM split: %s", pmRoot.LastError)
	if l := tl.row().MessageLimit; l != lower {
		t.Errorf("learned limit after the PM %d, want the board's new %d", l, lower)
	}
	boardtest.CheckSaid(tl.t, pmRoot.LastError, fmt.Sprintf(smfTooLongSaid, lower))
	parts := tl.checkParts(pmRoot, lower)
	if last, behind := parts[len(parts)-1], byID(items[1].ID); behind.SentAt.Before(last.SentAt) {
		t.Errorf("the PM behind the long one went out at %v, before its last part (%v)", behind.SentAt, last.SentAt)
	}
	tl.waitFor("the outbox drained", 3*time.Minute, tl.drained)
	tl.stop()
	tl.checkParts(root, limit) // again: now with the thread's later posts
	tl.checkExactlyOnce()
	t.Logf("done in %.1fs", time.Since(t0).Seconds())
}

// waitSplit waits until the item pick chooses is refused as too long,
// split, and all its parts sent; it returns the item.
func (tl *smfTable) waitSplit(what string, pick func([]store.OutboxItem) store.OutboxItem, limit time.Duration) store.OutboxItem {
	tl.t.Helper()
	var root store.OutboxItem
	tl.waitFor(what+" refused as too long and all its parts sent", limit, func() bool {
		box := tl.outbox()
		root = pick(box)
		if root.State == store.OutboxFailed || root.State == store.OutboxSent {
			tl.t.Fatalf("%s is %s (%s); want it refused as too long and split", what, root.State, root.LastError)
		}
		parts := boardtest.PartsOf(box, root.ID)
		if root.State != store.OutboxSplit || len(parts) == 0 {
			return false
		}
		for _, p := range parts {
			if p.State != store.OutboxSent {
				return false
			}
		}
		return true
	})
	return root
}

// boardRows: the thread's messages, or a member's received PMs.
func (tl *smfTable) boardRows(it store.OutboxItem) []boardtest.Row {
	q := fmt.Sprintf("SELECT id_msg AS id, id_member AS author, body FROM {prefix}messages WHERE id_topic = %d", tl.b.ThreadID)
	if it.Kind != "post" {
		q = fmt.Sprintf("SELECT pm.id_pm AS id, pm.id_member_from AS author, pm.body FROM {prefix}personal_messages pm JOIN {prefix}pm_recipients r ON r.id_pm = pm.id_pm WHERE r.id_member = %s", it.RecipientID)
	}
	var out []boardtest.Row
	for _, r := range tl.b.Query(tl.t, q) {
		var row boardtest.Row
		fmt.Sscan(fmt.Sprint(r["id"]), &row.ID)
		fmt.Sscan(fmt.Sprint(r["author"]), &row.Author)
		row.Body = fmt.Sprint(r["body"])
		out = append(out, row)
	}
	return out
}

// checkParts checks the parts of a split item (boardtest.CheckParts).
func (tl *smfTable) checkParts(root store.OutboxItem, limit int) []store.OutboxItem {
	tl.t.Helper()
	return boardtest.CheckParts(tl.t, tl.outbox(), root, limit, tl.boardRows(root), tl.b.Bot.ID)
}
