package moderator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestFailingInboxOnForumsim (issue 22 item 7): a Nations game whose PM
// inbox cannot be read: the profile's urls.inbox answering 404, or pointed
// at a page without PMs (each fixed in the profile file, then `forumgm run`
// restarted), and the board's private messages turned off (phpBB then
// answers its PM pages 503; turned on again). Meanwhile the
// thread is read and its commands apply (Alice's civilisation); the forum
// health says the thread reads fine and the inbox fails, naming the page
// and why; the players are not told the board could not be read; and the
// round, which takes orders by PM, does not close at its deadline, since
// a PM not yet read may be an order made before it. Once the inbox reads,
// Bob's PM order, sent before the deadline, counts in the round, and the
// round closes.
func TestFailingInboxOnForumsim(t *testing.T) {
	for _, tc := range []struct {
		name, said string
		broken     string // the profile's urls.inbox while it fails ("": the engine's)
		disable    bool
	}{
		{name: "the inbox answers 404", broken: "privmsg.php", said: "404"},
		{name: "the inbox is a page without PMs", broken: "index.php", said: "lacks selectors.inbox_folder"},
		{name: "private messages turned off", disable: true, said: "503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			db := storetest.SQLite(t)
			clk := clock.NewFake(start)
			th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true},
				"GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
			prof := filepath.Join(t.TempDir(), "board.profile.yaml")
			write := func(inbox string) {
				text := "base: phpbb\nname: the-board\n"
				if inbox != "" {
					text += "urls:\n  inbox: " + inbox + "\n"
				}
				if err := os.WriteFile(prof, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write(tc.broken)
			th.Sim.SetPMsDisabled(tc.disable)
			fc := th.Forum(t, "FORUMGM_INBOX_TEST_PW")
			fc.Engine, fc.Profile = "", prof
			m := simModerator(db, clk, 0)
			cfg := th.Nations(start, 2, 10, 1)
			// No reminders: with the board's PMs off they could not be sent,
			// and this is about reading (a send failing is outbox_test's).
			cfg.Reminders = &gameconfig.Reminders{Before: &gameconfig.Offsets{}, Prod: "off"}
			g := simtest.Start(t, m, "inbox", "nations", cfg, fc, th.Roster())
			must := simtest.Must(t)
			g.Tick()
			deadline := reportOf(t, m, "inbox").Rules.Deadline
			clk.Advance(time.Minute)
			must(th.Sim.Post(th.Topic, th.Players["Alice"], "[b]CIV: Fire[/b]"))
			clk.Advance(4 * time.Minute)
			must(th.Sim.SendPM(th.Players["Bob"], []int{th.Bot}, "orders", "PROSPER"))
			for clk.Now().Before(deadline.Add(3 * time.Minute)) {
				clk.Advance(30 * time.Second)
				g.Tick() // the thread reads: no tick fails
			}
			rep := reportOf(t, m, "inbox")
			if rep.Rules.Phase != "round-1" {
				t.Errorf("phase %s after the deadline with the inbox unread, want round 1 still open", rep.Rules.Phase)
			}
			h := rep.ForumHealth
			if h.Failing() || !h.InboxFailing() || !strings.Contains(h.InboxError, "PM inbox") || !strings.Contains(h.InboxError, tc.said) {
				t.Errorf("forum health: %+v; want the thread fine and the inbox failing, naming it and why (%q)", h, tc.said)
			}
			if text := rep.HealthText(); !strings.Contains(text, "read fine") || !strings.Contains(text, "PM INBOX NOT READABLE") || !strings.Contains(text, "waits") {
				t.Errorf("status line: %q", text)
			}
			if cs := auditCommands(t, audit(t, m), "Alice", forum.KindPost); len(cs) != 1 || cs[0].Status != store.CommandAccepted {
				t.Errorf("Alice's civilisation, in the thread while the inbox failed: %+v", cs)
			}
			for _, p := range th.BotPosts() {
				if strings.Contains(p.Source, "could not be read") {
					t.Errorf("the players were told the board could not be read: %q", p.Source)
				}
			}

			// Fixed: the profile (and the runner restarted), or the board's PMs on.
			write("")
			th.Sim.SetPMsDisabled(false)
			m = simModerator(db, clk, 0)
			clk.Advance(30 * time.Second)
			if err := m.Tick(ctx, g.ID); err != nil {
				t.Fatal(err)
			}
			rep = reportOf(t, m, "inbox")
			if h := rep.ForumHealth; h.Failing() || h.InboxFailing() || h.InboxError != "" {
				t.Errorf("health after the inbox read: %+v", h)
			}
			if rep.Rules.Phase == "round-1" {
				t.Errorf("round 1 still open once the inbox was read")
			}
			var bob []store.CommandRow
			for _, r := range audit(t, m) {
				if r.Message.Kind == forum.KindPM && r.Message.AuthorName == "Bob" {
					bob = append(bob, r.Commands...)
				}
			}
			if len(bob) != 1 || bob[0].Status != store.CommandAccepted || bob[0].Phase != "round-1" {
				t.Errorf("Bob's order, sent before the deadline: %+v; want accepted in round 1", bob)
			}
		})
	}
}

func audit(t *testing.T, m *Moderator) []gamelog.AuditRow {
	t.Helper()
	rows, _, err := m.Audit(context.Background(), "inbox", gamelog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}
