package realgames

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/realboardtest"
)

// TestAuditReadingOrder (issue 38, point 4): phpBB stamps thread posts to
// the second and shows PMs only to the minute. A player posts; once the bot
// has read the post, another player PMs the bot in the same minute. The
// audit lists the PM below the post, in the order the moderator applied
// them; by stamps alone (the order before) the PM's minute put it above.
// The PM is sent only after the bot has the post, so how late a loaded
// machine lets the bot read cannot change the order the test expects.
func TestAuditReadingOrder(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a game on a real board")
	}
	names := []string{"Pia", "Quin", "Rob", "Sue"}
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: names, Subject: "Protest, in reading order"})
	b.ExemptBot(t)
	now := time.Now().UTC()
	gc := gameconfig.GameConfig{Players: names, Seed: 5, Start: now,
		Options: map[string]any{"turn_hours": 24, "sites": 3},
		Setup:   map[string]any{"map": map[string]any{"columns": 5, "rows": 4, "layout": "odd-q"}, "sites": []any{"A1", "C2", "E4"}}}
	zero := 0.0
	tb := setup(t, b, "protest", gc, &zero)
	tb.opened()
	audit := func() []gamelog.AuditRow {
		rows, _, err := tb.m.Audit(context.Background(), tb.g.Name, gamelog.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		return rows
	}
	position := func(kind forum.MessageKind, id int) int {
		for i, r := range audit() {
			if r.Message.Kind == kind && r.Message.ForumID == strconv.Itoa(id) {
				return i
			}
		}
		return -1
	}
	var post, pm int
	for try := 1; pm == 0; try++ {
		if try > 4 {
			t.Fatal("the bot never read a post within the minute it was made")
		}
		// Early in a minute, so that the bot's read and the PM fit in it.
		for s := time.Now().Second(); s < 1 || s > 20; s = time.Now().Second() {
			time.Sleep(250 * time.Millisecond)
		}
		made := time.Now()
		post = b.Post(t, b.Player("Pia"), fmt.Sprintf("Good luck, everyone (%d).", try))
		waitFor(t, "the bot to read the post", 2*time.Minute, func() bool { return position(forum.KindPost, post) >= 0 })
		if time.Now().Truncate(time.Minute).Equal(made.Truncate(time.Minute)) && time.Now().Second() <= 57 {
			pm = b.PM(t, b.Player("Quin"), b.Bot, "scan", "A 2 D3")
		}
	}
	times := func(sql string, id int) time.Time {
		rows := b.Query(t, fmt.Sprintf(sql, id))
		if len(rows) == 0 {
			t.Fatalf("no row for %d: %s", id, sql)
		}
		at, err := boardUnix(rows[0]["at"])
		if err != nil {
			t.Fatal(err)
		}
		return at
	}
	postAt := times("SELECT post_time AS at FROM {prefix}posts WHERE post_id = %d", post)
	pmAt := times("SELECT message_time AS at FROM {prefix}privmsgs WHERE msg_id = %d", pm)
	if !postAt.Before(pmAt) || !postAt.Truncate(time.Minute).Equal(pmAt.Truncate(time.Minute)) {
		t.Fatalf("the board's times: post %d at %s, PM %d at %s: not a PM later in the post's minute", post, postAt.Format(time.TimeOnly), pm, pmAt.Format(time.TimeOnly))
	}
	waitFor(t, "the PM in the audit", 2*time.Minute, func() bool { return position(forum.KindPM, pm) >= 0 })
	if p, q := position(forum.KindPost, post), position(forum.KindPM, pm); q < p {
		t.Errorf("the audit lists PM %d (made %s) at %d, above post %d (made %s) at %d", pm, pmAt.Format(time.TimeOnly), q, post, postAt.Format(time.TimeOnly), p)
	}
}
