package moderator

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// TestUnreadableMessageIsAnswered (issue 22 item 2): a post and a PM nested
// too deeply to read (5,000 nested [b]; 3,900 nested quotes: what froze a
// game once) are recorded as unreadable. The audit log says why, for each
// (not only "processed"), and each author gets one PM, through the outbox,
// saying the message could not be read and to send the command again,
// plainly; later reads tell nobody again. The readable posts around them
// count as usual.
func TestUnreadableMessageIsAnswered(t *testing.T) {
	ctx := context.Background()
	db := storetest.SQLite(t)
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true},
		"GMBot", "gm-pass", true, []string{"Alice", "Bob"}, "The game starts here.")
	m := simModerator(db, clk, 0)
	g := simtest.Start(t, m, "deep", "nations", th.Nations(start, 2, 30, 5), th.Forum(t, "FORUMGM_DEEP_TEST_PW"), th.Roster())
	g.Tick()
	must := simtest.Must(t)
	clk.Advance(time.Minute)
	deep := must(th.Sim.Post(th.Topic, th.Players["Alice"], strings.Repeat("[b]", 5000)+"CIV: Fire"+strings.Repeat("[/b]", 5000)))
	must(th.Sim.Post(th.Topic, th.Players["Bob"], "[b]CIV: Water[/b]"))
	must(th.Sim.SendPM(th.Players["Bob"], []int{th.Bot}, "orders", strings.Repeat("[quote]", 3900)+"PROSPER"+strings.Repeat("[/quote]", 3900)))
	for range 4 {
		clk.Advance(30 * time.Second)
		g.Tick()
	}

	rows, _, err := m.Audit(ctx, "deep", gamelog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	why := map[string]string{} // author: the unreadable message's reason
	for _, r := range rows {
		if !forum.IsUnreadable(r.Message.BodyHTML) {
			continue
		}
		if r.Message.Status != store.MessageProcessed || len(r.Commands) != 1 || r.Commands[0].Status != store.CommandRejected {
			t.Errorf("%s %s by %s: %s, commands %+v; want one rejected row with the reason", r.Message.Kind, r.Message.ForumID, r.Message.AuthorName, r.Message.Status, r.Commands)
			continue
		}
		why[r.Message.AuthorName] = r.Commands[0].Reason
	}
	for _, who := range []string{"Alice", "Bob"} {
		if !strings.Contains(why[who], "nested more than 512 levels") {
			t.Errorf("the audit log does not say why %s's message was not read: %q", who, why[who])
		}
	}
	if cs := auditCommands(t, rows, "Bob", forum.KindPost); len(cs) != 1 || cs[0].Status != store.CommandAccepted {
		t.Errorf("Bob's readable post: %+v", cs)
	}

	told := map[string][]string{}
	for _, it := range simtest.Outbox(t, db, g.ID) {
		if it.Kind == forum.KindPM && strings.Contains(it.Body, "could not be read") {
			told[it.RecipientName] = append(told[it.RecipientName], it.Body)
			if it.State != store.OutboxSent || th.OnBoard(it) != 1 {
				t.Errorf("%s's notice is %s, on the board %d times", it.RecipientName, it.State, th.OnBoard(it))
			}
		}
	}
	for who, what := range map[string]string{"Alice": "post " + strconv.Itoa(deep), "Bob": "PM"} {
		if len(told[who]) != 1 {
			t.Errorf("%s was told %d times: %q", who, len(told[who]), told[who])
			continue
		}
		if n := told[who][0]; !strings.Contains(n, what) || !strings.Contains(n, "again, plainly") {
			t.Errorf("%s's notice does not name the %s or say to send it again plainly: %q", who, what, n)
		}
	}
}

// auditCommands are the audit log's commands of one author's messages of a kind.
func auditCommands(t *testing.T, rows []gamelog.AuditRow, author string, kind forum.MessageKind) []store.CommandRow {
	t.Helper()
	var out []store.CommandRow
	for _, r := range rows {
		if r.Message.AuthorName == author && r.Message.Kind == kind && !forum.IsUnreadable(r.Message.BodyHTML) {
			out = append(out, r.Commands...)
		}
	}
	return out
}
