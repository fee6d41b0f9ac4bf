package moderator

import (
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

// TestPMNotProvenAbsentIsNotResent (issue 22 item 8): a GM's profile points
// the PM form at the board's e-mail form and the sent folder at a page
// that is no sent folder (the index). Each "PM" then goes out as an e-mail
// the bot cannot see, and the page it reads as its sent folder never shows
// it. Such a page proves nothing (it lacks selectors.sent_folder), so each
// message is sent once and stays unconfirmed (or taken, when the board's
// answer reads as its success page), with the reason, over many ticks past
// every back-off: never resent, never marked failed. Whether the
// profile's error selector reads the board's "The email has been sent." as
// a message box (phpBB's) or not (a from-scratch profile's) changes
// nothing.
func TestPMNotProvenAbsentIsNotResent(t *testing.T) {
	for _, tc := range []struct{ name, extra string }{
		{"the answer in a message box", ""},
		{"the answer not in a message box", "selectors:\n  error: div.error\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := storetest.SQLite(t)
			clk := clock.NewFake(start)
			th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true},
				"GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
			prof := filepath.Join(t.TempDir(), "email.profile.yaml")
			text := "base: phpbb\nname: phpbb-pm-form-is-the-email-form\n" +
				"urls:\n  sent: index.php\n  outbox: \"\"\n  sent_page: \"\"\n" +
				"forms:\n  pm:\n    page: memberlist.php?mode=email&u={user}\n    selector: form#post\n    extra: {submit: Send email}\n" + tc.extra
			if err := os.WriteFile(prof, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			fc := th.Forum(t, "FORUMGM_PMPROOF_TEST_PW")
			fc.Engine, fc.Profile = "", prof
			m := simModerator(db, clk, 0)
			g := simtest.Start(t, m, "email", "nations", th.Nations(start, 2, 30, 5), fc, th.Roster())
			g.Tick()
			simtest.Must(t)(th.Sim.SendPM(th.Players["Alice"], []int{th.Bot}, "orders", "PROSPER"))
			for range 40 { // 20 minutes, a tick every 30 s: past every back-off
				clk.Advance(30 * time.Second)
				m.Tick(t.Context(), g.ID) // the unconfirmed PM makes a tick report trouble
			}
			var pms []store.OutboxItem
			for _, it := range simtest.Outbox(t, db, g.ID) {
				if it.Kind == forum.KindPM {
					pms = append(pms, it)
				}
			}
			if len(pms) == 0 {
				t.Fatal("no PM was queued (Alice's receipt)")
			}
			sent := map[string]int{}
			for _, em := range th.Sim.Emails() {
				for _, k := range forum.Markers(em.Body) {
					sent[k]++
				}
			}
			for _, it := range pms {
				if sent[it.Marker] != 1 {
					t.Errorf("%s went out %d times, want once", it.Marker, sent[it.Marker])
				}
				// Taken when the board's answer reads as its success
				// page (never checked again), else unconfirmed (checked
				// on every tick, never proven absent): neither is resent.
				if (it.State != store.OutboxUnconfirmed && it.State != store.OutboxTaken) || !strings.Contains(it.LastError, "selectors.sent_folder") {
					t.Errorf("%s is %s (%s); want unconfirmed or taken, saying the page is no sent folder", it.Marker, it.State, it.LastError)
				}
				t.Logf("%s: %s (%s)", it.Marker, it.State, it.LastError)
			}
			if len(th.Sim.Sent(th.Bot)) != 0 {
				t.Errorf("the board's sent folder holds %d PMs; the e-mail form sends none", len(th.Sim.Sent(th.Bot)))
			}
		})
	}
}
