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

// stampQueries are the SQL giving each thread post's and bot-inbox PM's
// time as the board stored it, to the second (its pages show PMs to the
// minute on both engines: phpBB's and MyBB's default date formats).
var stampQueries = map[string]struct{ posts, pms string }{
	realboardtest.PhpBB: {
		posts: "SELECT post_id AS id, post_time AS at FROM {prefix}posts WHERE topic_id = %d",
		pms:   "SELECT p.msg_id AS id, p.message_time AS at FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d",
	},
	realboardtest.MyBB: {
		posts: "SELECT pid AS id, dateline AS at FROM {prefix}posts WHERE tid = %d",
		pms:   "SELECT pmid AS id, dateline AS at FROM {prefix}privatemessages WHERE uid = %d AND folder = 1",
	},
}

// readingSlack is how much later than a post a PM must have been made for
// the audit to be required to list it below the post: the bot reads the
// thread and the inbox once a second each, so a PM made this long after a
// post cannot have been seen first.
const readingSlack = 5 * time.Second

// checkAuditOrder checks the game's audit against the board's own clock
// (issue 38, point 4): no PM the board stored more than readingSlack after
// a thread post stands above that post. The pages stamp PMs only to the
// minute; ordering by stamps put such PMs above the posts of their minute.
func (tb *table) checkAuditOrder() (hard int) {
	t, b := tb.t, tb.b
	q, ok := stampQueries[b.Engine]
	if !ok {
		return
	}
	times := func(sql string) map[string]time.Time {
		out := map[string]time.Time{}
		for _, r := range b.Query(t, sql) {
			// JSON numbers (float64) or strings, as the engine's driver gives them.
			s, err := strconv.ParseFloat(fmt.Sprint(r["at"]), 64)
			if err != nil {
				t.Fatalf("a board time %v: %v", r["at"], err)
			}
			id, err := strconv.ParseFloat(fmt.Sprint(r["id"]), 64)
			if err != nil {
				t.Fatalf("a board id %v: %v", r["id"], err)
			}
			out[strconv.FormatInt(int64(id), 10)] = time.Unix(int64(s), 0)
		}
		return out
	}
	postAt := times(fmt.Sprintf(q.posts, b.ThreadID))
	pmAt := times(fmt.Sprintf(q.pms, b.Bot.ID))
	rows, _, err := tb.m.Audit(context.Background(), tb.g.Name, gamelog.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	type listed struct {
		id string
		at time.Time
	}
	var posts, pms []listed
	var above []int // for each PM, how many posts the audit lists above it
	for _, r := range rows {
		m := r.Message
		if _, err := strconv.Atoi(m.ForumID); err != nil {
			continue // a merged part ("123+1") has no row of its own
		}
		if at, ok := postAt[m.ForumID]; ok && m.Kind == forum.KindPost {
			posts = append(posts, listed{m.ForumID, at})
		}
		if at, ok := pmAt[m.ForumID]; ok && m.Kind == forum.KindPM {
			pms, above = append(pms, listed{m.ForumID, at}), append(above, len(posts))
		}
	}
	sameMinute := 0
	for i, pm := range pms {
		for _, p := range posts[above[i]:] {
			if d := pm.at.Sub(p.at); d >= readingSlack {
				t.Errorf("the audit lists PM %s (made %s) above post %s (made %s)", pm.id, pm.at.Format(time.TimeOnly), p.id, p.at.Format(time.TimeOnly))
				if pm.at.Truncate(time.Minute).Equal(p.at.Truncate(time.Minute)) {
					sameMinute++
				}
			}
		}
	}
	// How many PMs came readingSlack or more after a post of their own
	// minute: the cases stamps alone got wrong.
	for _, pm := range pms {
		for _, p := range posts {
			if d := pm.at.Sub(p.at); d >= readingSlack && pm.at.Truncate(time.Minute).Equal(p.at.Truncate(time.Minute)) {
				hard++
				break
			}
		}
	}
	t.Logf("audit order: %d posts, %d PMs, %d PMs made in a post's minute after it (%d listed above it)", len(posts), len(pms), hard, sameMinute)
	return hard
}

// TestAuditReadingOrder makes the case the whole games rarely show (their
// players answer a post within seconds): a player's post, then 8 s later in
// the same minute another player's PM to the bot. phpBB stamps the post to
// the second and shows the PM only to the minute; the audit must list the
// PM below the post, as the moderator applied them.
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
	// Post and PM inside one minute: start between its 2nd and 45th second.
	for s := time.Now().Second(); s < 2 || s > 45; s = time.Now().Second() {
		time.Sleep(500 * time.Millisecond)
	}
	post := b.Post(t, b.Player("Pia"), "Good luck, everyone.")
	time.Sleep(8 * time.Second)
	pm := b.PM(t, b.Player("Quin"), b.Bot, "scan", "A 2 D3")
	waitFor(t, "the post and the PM in the audit", 60*time.Second, func() bool {
		rows, _, err := tb.m.Audit(context.Background(), tb.g.Name, gamelog.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, r := range rows {
			if (r.Message.Kind == forum.KindPost && r.Message.ForumID == strconv.Itoa(post)) || (r.Message.Kind == forum.KindPM && r.Message.ForumID == strconv.Itoa(pm)) {
				seen++
			}
		}
		return seen == 2
	})
	if hard := tb.checkAuditOrder(); hard == 0 {
		t.Fatalf("the board's times put PM %d less than %v after post %d, or in another minute: the case was not made", pm, readingSlack, post)
	}
}
