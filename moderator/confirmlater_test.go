package moderator

import (
	"context"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum/forumtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestConfirmLater: on a board whose success names no id (SMF; MyBB's
// PMs), a send ends with the board's answer and its marker is looked for
// in the next drain: the receipts' PMs together (one sent-folder listing
// for all of them on a real board), a post among the thread's posts the
// next read recorded, with no request of its own. The opening post is
// confirmed at once: its id starts the clock. A message the board said it
// took but does not show is taken: not sent again, the GM told.
func TestConfirmLater(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(start)
		ff := forumtest.New(clk)
		ff.NoIDs = true
		m := &Moderator{DB: db, Clock: clk, Connect: func(context.Context, *gameconfig.Site) (Forum, error) { return ff, nil }}
		gc := gameconfig.GameConfig{Players: []string{"Pia", "Quin", "Rob"}, Seed: 5, Start: start,
			Options: map[string]any{"rounds": 3, "round_minutes": 60, "break_minutes": 30}}
		fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: forumtest.Bot, PasswordEnv: "X"}
		g, err := m.Create(ctx, "n1", "nations", gc, fc, nil)
		if err != nil {
			t.Fatal(err)
		}
		tick := func() {
			t.Helper()
			if err := m.Tick(ctx, g.ID); err != nil {
				t.Fatal(err)
			}
		}
		outbox := func() []store.OutboxItem {
			var out []store.OutboxItem
			db.View(ctx, func(tx *store.Tx) (err error) { out, err = tx.Outbox(g.ID); return err })
			return out
		}
		tick()
		if box := outbox(); len(box) != 1 || box[0].State != store.OutboxSent || box[0].ForumID == "" {
			t.Fatalf("the opening post: %+v; want sent with its id at once", box)
		}
		ff.PM(ctx, "Pia", "INVADE Quin")
		ff.PM(ctx, "Quin", "PROSPER")
		tick() // reads the orders, sends the receipts
		var receipts []store.OutboxItem
		for _, it := range outbox() {
			if it.Kind == "pm" {
				receipts = append(receipts, it)
			}
		}
		if len(receipts) != 2 {
			t.Fatalf("receipts: %+v", receipts)
		}
		for _, it := range receipts {
			if it.State != store.OutboxSent || it.ForumID != "" || it.LastError != store.ConfirmLaterNote {
				t.Errorf("receipt %s right after its send: %s %q %q; want sent, to be confirmed", it.Marker, it.State, it.ForumID, it.LastError)
			}
		}
		finds := ff.SentFinds
		// The daemon's sender, with nothing left to send: it confirms.
		if err := m.Send(ctx, g.ID, fc.Account()); err != nil {
			t.Fatal(err)
		}
		if n := ff.SentFinds - finds; n != 2 {
			t.Errorf("%d sent-folder checks for 2 receipts; want one each, together", n)
		}
		for _, it := range outbox() {
			if it.Kind == "pm" && (it.State != store.OutboxSent || it.ForumID == "" || it.LastError != "") {
				t.Errorf("receipt %s a drain later: %s %q %q; want sent with its id", it.Marker, it.State, it.ForumID, it.LastError)
			}
		}

		// Round 1's report: a post, confirmed by the next read.
		if _, err := m.ResolveNow(ctx, "n1"); err != nil {
			t.Fatal(err)
		}
		tick()
		posts := 0
		for _, it := range outbox() {
			if it.Kind == "post" && it.ForumID == "" {
				posts++
			}
		}
		if posts == 0 {
			t.Fatal("no post waits to be confirmed after round 1's report")
		}
		finds = ff.Finds
		tick()
		tick()
		for _, it := range outbox() {
			if it.Kind == "post" && it.State != store.OutboxPending && (it.State != store.OutboxSent || it.ForumID == "") { // (pending: round 2's opening, after the break)
				t.Errorf("post %s after a read: %s %q %q; want sent with its id", it.Marker, it.State, it.ForumID, it.LastError)
			}
		}
		if ff.Finds != finds {
			t.Errorf("looked in the thread %d times for posts the reads had recorded", ff.Finds-finds)
		}

		// The board says it took a PM it then does not show.
		ff.Drop = true
		ff.PM(ctx, "Rob", "DEFEND Pia")
		tick()
		tick()
		taken := 0
		for _, it := range outbox() {
			if it.State == store.OutboxTaken && it.Recipient == "Rob" && strings.Contains(it.LastError, "not on the board") {
				taken++
			}
		}
		if taken != 1 {
			t.Errorf("%d taken receipts to Rob; want his dropped receipt taken", taken)
		}
		if n := len(ff.SentTo()["Rob"]); n != 0 {
			t.Errorf("the dropped receipt sent again: %d on the board", n)
		}
		rs, err := m.Report(ctx, "n1")
		if err != nil || len(rs) != 1 || rs[0].Taken != 1 {
			t.Errorf("report: %v %+v; want one taken message", err, rs)
		}
	})
}
