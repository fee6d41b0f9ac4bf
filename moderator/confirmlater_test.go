package moderator

import (
	"context"
	"strings"
	"testing"
	"time"

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
		finds := ff.SentFinds
		tick() // reads the orders, sends the receipts, then confirms them
		receipts := 0
		for _, it := range outbox() {
			if it.Kind == "pm" {
				receipts++
				if it.State != store.OutboxSent || it.ForumID == "" || it.LastError != "" {
					t.Errorf("receipt %s after the drain: %s %q %q; want sent with its id", it.Marker, it.State, it.ForumID, it.LastError)
				}
			}
		}
		if n := ff.SentFinds - finds; receipts != 2 || n != 2 {
			t.Errorf("%d receipts, %d sent-folder checks; want 2 and one each, together after the sends", receipts, n)
		}

		// A check that fails is made again later, by the daemon's
		// sender too when nothing is left to send.
		ff.PM(ctx, "Rob", "DEFEND Pia")
		ff.FindFail = 1
		tick()
		var rob store.OutboxItem
		for _, it := range outbox() {
			if it.Kind == "pm" && it.Recipient == "Rob" {
				rob = it
			}
		}
		if rob.State != store.OutboxSent || rob.ForumID != "" || rob.LastError != store.ConfirmLaterNote {
			t.Fatalf("Rob's receipt after a failed check: %s %q %q; want sent, still to confirm", rob.State, rob.ForumID, rob.LastError)
		}
		clk.Advance(takenRecheck + time.Second)
		if err := m.Send(ctx, g.ID, fc.Account()); err != nil {
			t.Fatal(err)
		}
		for _, it := range outbox() {
			if it.ID == rob.ID && (it.State != store.OutboxSent || it.ForumID == "") {
				t.Errorf("Rob's receipt after the sender's drain: %s %q %q; want sent with its id", it.State, it.ForumID, it.LastError)
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
		ff.PM(ctx, "Pia", "INVADE Rob")
		tick()
		tick()
		taken := 0
		for _, it := range outbox() {
			if it.State == store.OutboxTaken && it.Recipient == "Pia" && strings.Contains(it.LastError, "not on the board") {
				taken++
			}
		}
		if taken != 1 {
			t.Errorf("%d taken receipts to Pia; want her dropped receipt taken", taken)
		}
		if n := len(ff.SentTo()["Pia"]); n != 1 {
			t.Errorf("Pia's receipts on the board: %d; want the first alone, the dropped one not sent again", n)
		}
		rs, err := m.Report(ctx, "n1")
		if err != nil || len(rs) != 1 || rs[0].Taken != 1 {
			t.Errorf("report: %v %+v; want one taken message", err, rs)
		}
	})
}
