package smftest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/scraper"
)

type want struct{ id, author, authorID, seg string }

// TestFirstContact runs the project's forum code against a real SMF 2.1.4:
// login, a three-page thread (authors, ids, UTC times, bold that counts
// and quoted, struck and code bold that does not), the PM captcha a
// member with fewer than 5 posts meets (a clear error, nothing sent), a
// reply exactly once (the redirect names no message id: found by its
// marker), a PM to a player (in the sent folder, once), a player's PM read
// from the inbox, and edits (no mark within 90 s, a mark after).
func TestFirstContact(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	start := time.Now().UTC().Truncate(time.Minute)
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice", "Bob", "Carol"}})
	c := boardtest.Connect(t, b, b.Bot)

	t0 := time.Now()
	if err := c.Session.Login(ctx); err != nil {
		t.Fatalf("login: %v", err)
	}
	t.Logf("login %.2fs", time.Since(t0).Seconds())

	// 44 player posts after the opening post: 45 posts, three pages of 15.
	wants := []want{{id: strconv.Itoa(b.OpeningPostID), author: b.Bot.Name, authorID: b.Bot.IDString(), seg: "bold"}}
	var posts []realboardtest.Reply
	for i := 1; i <= 44; i++ {
		p := b.Players[i%len(b.Players)]
		seg := fmt.Sprintf("VOTE: %s %d", b.Players[(i+1)%len(b.Players)].Name, i)
		posts = append(posts, realboardtest.Reply{As: p, Text: fmt.Sprintf(
			"Post %d by %s. [b]%s[/b] and [quote]not [b]this[/b][/quote] [s][b]struck[/b][/s] [code][b]code[/b][/code]", i, p.Name, seg)})
		wants = append(wants, want{author: p.Name, authorID: p.IDString(), seg: seg})
	}
	for i, id := range b.Posts(t, posts) {
		wants[i+1].id = strconv.Itoa(id)
	}
	var got []forum.Post
	t0 = time.Now()
	res, err := c.Scraper.ReadThread(ctx, b.ThreadIDString(), scraper.Cursor{}, func(p forum.Post) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the thread: %v", err)
	}
	t.Logf("read 3 pages in %.2fs", time.Since(t0).Seconds())
	if res.Pages != 3 || res.PagesRead != 3 || !res.ToEnd {
		t.Errorf("read %+v; want 3 pages read to the end", res)
	}
	if len(got) != len(wants) {
		t.Fatalf("read %d posts, want %d", len(got), len(wants))
	}
	end := time.Now().UTC().Add(time.Minute)
	body := boardtest.Reader(t, b)
	for i, p := range got {
		w := wants[i]
		if p.ID != w.id || p.Author.Name != w.author || p.Author.ID != w.authorID {
			t.Errorf("post %d: id %s by %s (%s); want id %s by %s (%s)", i, p.ID, p.Author.Name, p.Author.ID, w.id, w.author, w.authorID)
		}
		if p.Time.Before(start) || p.Time.After(end) || p.Time.Location() != time.UTC || !p.Stamp.Relative {
			t.Errorf("post %s: time %v (%+v), want a relative stamp between %v and %v", p.ID, p.Time, p.Stamp, start, end)
		}
		if segs := body.Segments(p.BodyHTML); len(segs) != 1 || segs[0] != w.seg {
			t.Errorf("post %s: segments %q, want [%q]", p.ID, segs, w.seg)
		}
		if wantPage := i/15 + 1; p.Page != wantPage {
			t.Errorf("post %s read from page %d, want %d", p.ID, p.Page, wantPage)
		}
		if p.Edited {
			t.Errorf("post %s marked edited", p.ID)
		}
	}

	// The bot has one post: SMF wants a captcha for its PMs
	// (pm_spam_settings 10,5,20). A clear error, and nothing sent.
	alice := b.Player("Alice")
	_, err = c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "[game] role", "You are [b]resistance[/b].", "smf.t0k/pm/captcha")
	if !errors.Is(err, poster.ErrCaptcha) || !errors.Is(err, poster.ErrRejected) {
		t.Fatalf("PM with fewer than 5 posts: err %v, want ErrCaptcha", err)
	}
	t.Logf("captcha refusal: %v", err)
	if n := countPMs(t, b, "smf.t0k/pm/captcha", alice.ID); n != 0 {
		t.Errorf("the refused PM reached Alice %d times", n)
	}

	// A reply through the poster, on the board exactly once.
	key := "smf.t0k/1/reply"
	t0 = time.Now()
	id, err := c.Reply(ctx, b.ThreadIDString(), "Round 1 is open. [b]Vote now[/b].", key)
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	t.Logf("reply %s in %.2fs", id, time.Since(t0).Seconds())
	if n := countPosts(t, b, key); n != 1 {
		t.Errorf("the reply is on the board %d times, want once", n)
	}
	if found, ok, err := c.FindPost(ctx, b.ThreadIDString(), key); err != nil || !ok || found != id {
		t.Errorf("FindPost = %s, %v, %v; want %s", found, ok, err, id)
	}
	if newest := b.Query(t, fmt.Sprintf("SELECT MAX(id_msg) AS id FROM {prefix}messages WHERE id_topic = %d", b.ThreadID)); fmt.Sprint(newest[0]["id"]) != id {
		t.Errorf("reply id %s, newest message on the board %v", id, newest[0]["id"])
	}

	// With 5 posts the bot sends PMs without a captcha: in its sent
	// folder once, and in Alice's inbox once.
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5 WHERE id_member = %d", b.Bot.ID))
	pmKey := "smf.t0k/pm/1"
	t0 = time.Now()
	pmID, err := c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "[game] your role", "You are [b]resistance[/b].", pmKey)
	if err != nil {
		t.Fatalf("PM: %v", err)
	}
	t.Logf("PM %s after the reply in %.2fs (flood control)", pmID, time.Since(t0).Seconds())
	if found, ok, err := c.FindSentPM(ctx, pmKey, time.Time{}); err != nil || !ok || found != pmID {
		t.Errorf("FindSentPM = %s, %v, %v; want %s", found, ok, err, pmID)
	}
	if n := countPMs(t, b, pmKey, alice.ID); n != 1 {
		t.Errorf("Alice has the PM %d times, want once", n)
	}

	// A player's PM to the bot, read from the inbox.
	boardtest.CheckInboxPM(t, ctx, c, b, start)

	// Edits through the board's own edit form: within 90 s of posting no
	// mark (edit_wait_time); once the post is older, a mark.
	edit(t, c, b, id, "Round 1 is open. [b]Vote now, please[/b].")
	if p := readPost(t, c, b, id); p.Edited || !strings.Contains(p.BodyHTML, "please") {
		t.Errorf("an edit within 90 s: edited=%v body %q; want the new text and no mark", p.Edited, p.BodyHTML)
	}
	b.Query(t, fmt.Sprintf("UPDATE {prefix}messages SET poster_time = poster_time - 120 WHERE id_msg = %s", id))
	edit(t, c, b, id, "Round 1 is open. [b]Vote now, really[/b].")
	if p := readPost(t, c, b, id); !p.Edited || !strings.Contains(p.BodyHTML, "really") {
		t.Errorf("an edit after 120 s: edited=%v body %q; want the mark", p.Edited, p.BodyHTML)
	}
}

// edit submits SMF's edit form for a message as the connection's account.
func edit(t *testing.T, c *forumconn.Conn, b *realboardtest.Board, msg, text string) {
	t.Helper()
	ctx := context.Background()
	pg, err := c.Session.Fetch(ctx, fmt.Sprintf("index.php?action=post;msg=%s;topic=%d.0", msg, b.ThreadID))
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.FindForm(pg.Doc, pg.URL, "form#postmodify")
	if err != nil {
		t.Fatalf("edit form: %v", err)
	}
	f.Values.Set("message", text)
	res, err := c.Session.PostForm(ctx, f.Action, f.Values, pg.URL)
	if err != nil || res.Status >= 400 {
		t.Fatalf("edit: %v (HTTP %d)", err, res.Status)
	}
	if e := c.Session.Parser.ErrorText(res.Doc); e != "" {
		t.Fatalf("edit refused: %s", e)
	}
}

func readPost(t *testing.T, c *forumconn.Conn, b *realboardtest.Board, id string) forum.Post {
	t.Helper()
	var found *forum.Post
	_, err := c.Scraper.ReadThread(context.Background(), b.ThreadIDString(), scraper.Cursor{}, func(p forum.Post) error {
		if p.ID == id {
			found = &p
		}
		return nil
	})
	if err != nil || found == nil {
		t.Fatalf("post %s not read: %v", id, err)
	}
	return *found
}

// TestFloodRefusal: SMF counts its 5 s flood wait per IP, for posts and
// PMs. On PostgreSQL SMF 2.1.4 never refuses (see
// realboardtest.Board.SMFFloodControl), so first that: a reply right after a
// post from the same IP is taken. Then, with flood control as on MySQL, a
// post from the bot's IP a moment ago makes the board refuse the bot's
// reply with its flood page, which the parser reads with the wait it
// names; the poster waits it out and the reply is on the board once.
func TestFloodRefusal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{})
	c := boardtest.Connect(t, b, b.Bot)
	// flood makes the IP's last post "now": the row is deleted and made
	// again, not updated, since SMFFloodControl's trigger (below) swallows
	// every update, this test's own too (an update left the row of the
	// bot's previous post, which SMF drops once its 5 s wait is over: on a
	// loaded machine the next post got there later than that, and nothing
	// was refused). It says 10 s from now, so that the board's clean-up of
	// rows older than its wait cannot drop it before a slow post arrives;
	// the wait the board names is its setting, not the row's age.
	flood := func() {
		b.Query(t, "DELETE FROM {prefix}log_floodcontrol WHERE ip = '127.0.0.1' AND log_type = 'post'")
		b.Query(t, "INSERT INTO {prefix}log_floodcontrol (ip, log_time, log_type) VALUES ('127.0.0.1', EXTRACT(EPOCH FROM now())::int + 10, 'post')")
	}
	submit := func(text string) *scraper.Page {
		pg, err := c.Session.Fetch(ctx, fmt.Sprintf("index.php?action=post;topic=%d.0", b.ThreadID))
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.FindForm(pg.Doc, pg.URL, "form#postmodify")
		if err != nil {
			t.Fatal(err)
		}
		f.Values.Set("message", text)
		flood()
		res, err := c.Session.PostForm(ctx, f.Action, f.Values, pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// As installed on PostgreSQL: no refusal.
	res := submit("unflooded [b]reply[/b]")
	if ok, _ := c.Session.Parser.FloodWait(res.Doc); ok || countPosts(t, b, "unflooded") != 1 {
		t.Fatalf("SMF on PostgreSQL refused a quick post (HTTP %d, %s): flood control works there now; revisit SMFFloodControl's doc",
			res.Status, c.Session.Parser.ErrorText(res.Doc))
	}

	// As on MySQL: the board's refusal, as the parser reads it.
	b.SMFFloodControl(t)
	res = submit("flooded [b]reply[/b]")
	ok, wait := c.Session.Parser.FloodWait(res.Doc)
	if !ok || wait.Interval != 5*time.Second {
		t.Fatalf("flood page not recognised (%v, %s; HTTP %d): %s", ok, wait, res.Status, c.Session.Parser.ErrorText(res.Doc))
	}
	t.Logf("board says: %s", c.Session.Parser.ErrorText(res.Doc))
	if n := countPosts(t, b, "flooded"); n != 0 {
		t.Fatalf("the refused post is on the board")
	}

	// The poster is refused, learns the board's wait and says when to try
	// again (it never sleeps: the moderator goes on meanwhile); tried then,
	// the reply goes through once.
	flood()
	t0 := time.Now()
	key := "smf.t0k/1/flood"
	refusals := 0
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		id, err := c.Reply(ctx, b.ThreadIDString(), "After the flood wait.", key)
		if errors.Is(err, forum.ErrFlood) {
			refusals++
		}
		return id, err
	})
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	if refusals == 0 {
		t.Error("the board's flood refusal was not seen")
	}
	t.Logf("reply %s after a flood refusal in %.1fs", id, time.Since(t0).Seconds())
	if n := countPosts(t, b, key); n != 1 {
		t.Errorf("the reply is on the board %d times, want once", n)
	}
}

// countPosts counts the thread's posts carrying the marker key, or
// (a key without a "/") starting with that word.
func countPosts(t *testing.T, b *realboardtest.Board, key string) int {
	n := 0
	for _, r := range b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}messages WHERE id_topic = %d", b.ThreadID)) {
		body := fmt.Sprint(r["body"])
		if (!strings.Contains(key, "/") && strings.HasPrefix(body, key)) || forum.HasMarker(body, key) {
			n++
		}
	}
	return n
}

// countPMs counts the recipient's copies of PMs carrying the key.
func countPMs(t *testing.T, b *realboardtest.Board, key string, to int) int {
	n := 0
	q := fmt.Sprintf("SELECT pm.body FROM {prefix}personal_messages pm JOIN {prefix}pm_recipients r ON r.id_pm = pm.id_pm WHERE r.id_member = %d", to)
	for _, r := range b.Query(t, q) {
		if forum.HasMarker(fmt.Sprint(r["body"]), key) {
			n++
		}
	}
	return n
}
