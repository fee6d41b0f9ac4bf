package realgames

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules/nations"
	"github.com/forumgm/forumgm/store"
)

// editPost edits one of the account's own posts through the board's edit
// form, as the player would in a browser.
func editPost(t testing.TB, b *realboardtest.Board, c *forumconn.Conn, postID int, text, want string) {
	t.Helper()
	ctx := context.Background()
	page, extra := map[string]string{
		realboardtest.PhpBB: "posting.php?mode=edit&p=%d",
		realboardtest.MyBB:  "editpost.php?pid=%d",
	}[b.Engine], map[string]map[string]string{
		realboardtest.PhpBB: {"post": "Submit"},
		realboardtest.MyBB:  {"action": "do_editpost", "submit": "Update Post"},
	}[b.Engine]
	pg, err := c.Session.Fetch(ctx, fmt.Sprintf(page, postID))
	if err != nil {
		t.Fatalf("edit form of post %d: %v", postID, err)
	}
	form, err := parser.FindForm(pg.Doc, pg.URL, `form:has(textarea[name="message"])`)
	if err != nil {
		t.Fatalf("edit form of post %d: %v", postID, err)
	}
	form.Values.Set("message", text)
	for k, v := range extra {
		form.Values.Set(k, v)
	}
	if err := c.Session.FormWait(ctx, pg, form.Values); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Session.PostForm(ctx, form.Action, form.Values, pg.URL); err != nil {
		t.Fatalf("submitting the edit of post %d: %v", postID, err)
	}
	if body := postBody(t, b, postID); !strings.Contains(body, want) {
		t.Fatalf("post %d after the edit form: %q, want it to hold %q", postID, body, want)
	}
}

func postBody(t testing.TB, b *realboardtest.Board, id int) string {
	for _, r := range threadRows(t, b) {
		if r.ID == id {
			return r.Body
		}
	}
	return ""
}

// deletePost deletes a post the way a moderator does, through the
// engine's own deletion code (topic counters and pages kept right).
func deletePost(t testing.TB, b *realboardtest.Board, id int) {
	t.Helper()
	switch b.Engine {
	case realboardtest.PhpBB:
		b.PHP(t, fmt.Sprintf(`include_once($phpbb_root_path . 'includes/functions_admin.php'); include_once($phpbb_root_path . 'includes/functions_posting.php'); delete_posts('post_id', [%d]);`, id))
	case realboardtest.MyBB:
		b.PHP(t, fmt.Sprintf(`require_once MYBB_ROOT . 'inc/class_moderation.php'; $m = new Moderation; $m->delete_post(%d);`, id))
	}
	if postBody(t, b, id) != "" {
		t.Fatalf("post %d is still on the board", id)
	}
}

// expireBotSession ends the bot's session on the board the way an expiry
// or "log out everywhere" does: phpBB's session and autologin-key rows,
// MyBB's session rows and login key (MyBB's remember-me cookie is checked
// against the key, not against a session row).
func expireBotSession(t testing.TB, b *realboardtest.Board) {
	t.Helper()
	switch b.Engine {
	case realboardtest.PhpBB:
		b.Query(t, fmt.Sprintf("DELETE FROM {prefix}sessions WHERE session_user_id = %d", b.Bot.ID))
		b.Query(t, fmt.Sprintf("DELETE FROM {prefix}sessions_keys WHERE user_id = %d", b.Bot.ID))
	case realboardtest.MyBB:
		b.Query(t, fmt.Sprintf("DELETE FROM {prefix}sessions WHERE uid = %d", b.Bot.ID))
		b.Query(t, fmt.Sprintf("UPDATE {prefix}users SET loginkey = 'expired%d' WHERE uid = %d", time.Now().UnixNano()%1e6, b.Bot.ID))
	}
}

func botSessions(t testing.TB, b *realboardtest.Board) int {
	q := map[string]string{
		realboardtest.PhpBB: "SELECT COUNT(*) AS n FROM {prefix}sessions WHERE session_user_id = %d",
		realboardtest.MyBB:  "SELECT COUNT(*) AS n FROM {prefix}sessions WHERE uid = %d",
	}[b.Engine]
	rows := b.Query(t, fmt.Sprintf(q, b.Bot.ID))
	n, _ := strconv.Atoi(fmt.Sprint(rows[0]["n"]))
	return n
}

func civOf(tb *table, player string) string {
	return tb.state().(*nations.State).CivOf(player)
}

// commandsOf are a player's commands in the audit log whose text holds s.
func commandsOf(tb *table, player, s string) []store.CommandRow {
	var out []store.CommandRow
	for _, c := range tb.commands(store.CommandFilter{Player: player}) {
		if strings.Contains(c.Text, s) {
			out = append(out, c)
		}
	}
	return out
}

// TestEditsDeletionsAndRelogin plays the start of a Nations game on phpBB
// (exact post times) with players using the board's reply and edit forms:
//   - an edit before the deadline replaces the post's command (Alice's
//     civilisation becomes the edited one, the old command is superseded);
//   - a post a moderator deletes is flagged in the audit log, and its
//     command stands (Bob keeps his civilisation);
//   - the bot's session is ended on the board mid-game: its next read and
//     post log in again and the game goes on;
//   - an edit seen after the deadline is only flagged: the civilisation
//     chosen in time stays.
func TestEditsDeletionsAndRelogin(t *testing.T) {
	matrix.Cell(t, realboardtest.PhpBB, matrix.Edits)
	if testing.Short() {
		t.Skip("plays a round in real time")
	}
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: []string{"Alice", "Bob"}, Subject: "Nations"})
	b.ExemptBot(t)
	zero := 0.0
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: time.Now().UTC(),
		Options: map[string]any{"rounds": 2, "round_minutes": 0.75, "break_minutes": 0}}
	tb := setup(t, b, "nations", gc, &zero)
	alice := player(t, b, b.Player("Alice"), 15*time.Second)
	bob := player(t, b, b.Player("Bob"), 15*time.Second)
	deadline := tb.opened()

	aliceID := reply(t, b, alice, "Here we go. [b]CIV: Fire[/b]")
	bobID := reply(t, b, bob, "[b]CIV: Earth[/b] for me")
	waitFor(t, "both picks applied", 20*time.Second, func() bool { return civOf(tb, "Alice") == nations.Fire && civOf(tb, "Bob") == nations.Earth })

	editPost(t, b, alice, aliceID, "Changed my mind. [b]CIV: Water[/b]", "CIV: Water")
	waitFor(t, "the edit applied", 20*time.Second, func() bool { return civOf(tb, "Alice") == nations.Water })
	if time.Now().After(deadline) {
		t.Fatalf("the edit was applied only after the deadline; the test's round is too short for this machine")
	}
	if cs := commandsOf(tb, "Alice", "Fire"); len(cs) != 1 || cs[0].Status != store.CommandSuperseded {
		t.Errorf("Alice's first pick in the audit: %+v; want one, superseded", cs)
	}

	// The session ends first: the read that sees the deletion is then
	// surely one after it (the other way round, under load, the bot could
	// see the deletion with its old session before it ended).
	expireBotSession(t, b)
	deletePost(t, b, bobID)
	waitFor(t, "the deletion seen", 20*time.Second, func() bool {
		var msgs []store.Message
		tb.db.View(ctx, func(tx *store.Tx) error { var err error; msgs, err = tx.Messages(tb.g.ID); return err })
		for _, m := range msgs {
			if m.ForumID == strconv.Itoa(bobID) {
				return m.Deleted
			}
		}
		return false
	})
	if n := botSessions(t, b); n == 0 {
		t.Errorf("the bot read the thread after its session ended without a session on the board")
	}
	if cs := commandsOf(tb, "Bob", "Earth"); len(cs) != 1 || cs[0].Status != store.CommandAccepted || civOf(tb, "Bob") != nations.Earth {
		t.Errorf("Bob's deleted pick: %+v, civ %s; want it to stand", cs, civOf(tb, "Bob"))
	}

	// Round 1 resolves; its report is the bot's first post after the
	// session ended (a post through a new login). The wait is counted from
	// the round's deadline, which is on a whole minute (phpBB shows
	// minutes), so up to a minute after the 45 s round: a fixed wait from
	// here fell short when the round's start was late in its minute.
	waitFor(t, "round 1 resolved and reported", time.Until(deadline)+60*time.Second, func() bool {
		return tb.state().(*nations.State).Round == 2 && tb.drained()
	})
	editPost(t, b, alice, aliceID, "Too late? [b]CIV: Air[/b]", "CIV: Air")
	waitFor(t, "the late edit flagged", 20*time.Second, func() bool {
		for _, c := range tb.commands(store.CommandFilter{Player: "Alice"}) {
			if c.Kind == "edit" && strings.Contains(c.Reason, "after its phase's deadline") {
				return true
			}
		}
		return false
	})
	if civOf(tb, "Alice") != nations.Water {
		t.Errorf("Alice's civilisation after the late edit: %s, want Water", civOf(tb, "Alice"))
	}
	tb.stop()
	tb.checkExactlyOnce()
}

// reply posts as the player through the reply form and returns the post id.
func reply(t testing.TB, b *realboardtest.Board, c *forumconn.Conn, text string) int {
	t.Helper()
	ctx := context.Background()
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Poster.Reply(ctx, b.ThreadIDString(), "player", "", text)
	})
	if err != nil {
		t.Fatalf("%s's reply: %v", c.Session.Username(), err)
	}
	n, _ := strconv.Atoi(id)
	return n
}

// TestMyBBMergeIsNewCommand: MyBB merges a member's second post in a row
// (within postmergemins, 60) into the first. The appended text is a new
// message made when it was appended, not an edit of the old post: the
// first pick stays accepted (an edit would supersede it) and the appended
// pick is a command of its own, read in the phase it was made in.
// (Before merges were read as such, the appended pick superseded the first
// as an edit, or, after a deadline, was flagged and never answered.)
func TestMyBBMergeIsNewCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("plays a round in real time")
	}
	t.Parallel()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{Players: []string{"Alice", "Bob"}, Subject: "Nations"})
	b.ExemptBot(t)
	// Alice posts twice within the round: the players' flood limit is
	// lowered (MyBB's 60 s would eat the round); merging is MyBB's default.
	b.Setting(t, "postfloodsecs", "2")
	zero := 0.0
	gc := gameconfig.GameConfig{Players: []string{"Alice", "Bob"}, Seed: 1, Start: time.Now().UTC(),
		Options: map[string]any{"rounds": 2, "round_minutes": 3, "break_minutes": 0}}
	tb := setup(t, b, "nations", gc, &zero)
	alice := player(t, b, b.Player("Alice"), 2*time.Second)
	deadline := tb.opened()

	first := reply(t, b, alice, "Here we go. [b]CIV: Fire[/b]")
	waitFor(t, "the pick applied", 30*time.Second, func() bool { return civOf(tb, "Alice") == nations.Fire })
	second := reply(t, b, alice, "On second thought [b]CIV: Water[/b]")
	if second != first {
		t.Fatalf("MyBB made post %d a post of its own, not merged into %d", second, first)
	}
	if body := postBody(t, b, first); !strings.Contains(body, "Fire") || !strings.Contains(body, "Water") {
		t.Fatalf("the merged post: %q", body)
	}
	waitFor(t, "the appended pick applied", 30*time.Second, func() bool { return civOf(tb, "Alice") == nations.Water })
	if time.Now().After(deadline) {
		t.Fatal("the appended pick was applied only after the deadline; the round is too short for this machine")
	}
	for _, c := range tb.commands(store.CommandFilter{Player: "Alice"}) {
		if c.Kind == "edit" {
			t.Errorf("the appended text was taken for an edit: %+v", c)
		}
	}
	fire, water := commandsOf(tb, "Alice", "Fire"), commandsOf(tb, "Alice", "Water")
	if len(fire) != 1 || fire[0].Status != store.CommandAccepted {
		t.Errorf("the first pick after the merge: %+v; want it to stand (accepted), not superseded", fire)
	}
	if len(water) != 1 || water[0].Status != store.CommandAccepted || water[0].Phase != "round-1" ||
		(len(fire) == 1 && water[0].MessageID == fire[0].MessageID) {
		t.Errorf("the appended pick: %+v; want one command of a message of its own, accepted in round 1", water)
	}
}

// TestFlood: the boards' real flood limits (phpBB 15 s for posts and PMs
// together; MyBB 60 s for posts, and for PMs separately). A bot that
// thinks itself exempt (flood wait 0) but is not is refused, waits what the
// board says, and sends each message once; made exempt (ExemptBot), it
// sends back to back without a refusal.
func TestFlood(t *testing.T) {
	t.Parallel() // top-level too: a parallel test waits for every sequential one
	if testing.Short() {
		t.Skip("waits out the boards' real flood intervals")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice"}})
			interval := map[string]time.Duration{realboardtest.PhpBB: 15 * time.Second, realboardtest.MyBB: 60 * time.Second}[engine]
			alice := b.Player("Alice")
			to := forum.Author{Name: alice.Name, ID: alice.IDString()}
			send := func(c *forumconn.Conn, kind, key string) time.Duration {
				t.Helper()
				t0 := time.Now()
				// The bot's poster never waits for flood itself (its
				// moderator goes on meanwhile); here nothing else is to do.
				_, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
					if kind == "post" {
						return c.Reply(ctx, b.ThreadIDString(), "A post. "+key, key)
					}
					return c.SendPM(ctx, to, "flood "+key, "A PM. "+key, key)
				})
				if err != nil {
					t.Fatalf("%s %s: %v", kind, key, err)
				}
				return time.Since(t0)
			}

			if engine == realboardtest.MyBB {
				// The board's setup posted the opening post as the bot
				// seconds ago, and MyBB would merge post 1 into it: a
				// merge is neither checked for flood nor counted, so the
				// board would count from the opening post, not post 1
				// (a clean-clone CI run learned 57.5 s so). Alice posts
				// first and the bot's last post is forgotten: the board
				// counts from post 1, as the poster does.
				b.Post(t, alice, "Before the bot's posts.")
				b.PHP(t, fmt.Sprintf("$db->update_query('users', ['lastpost' => 0], 'uid=%d');", b.Bot.ID))
			}
			c := boardtest.Connect(t, b, b.Bot) // its flood status unknown, tried as exempt: the board must say otherwise
			// The board counts its interval from when it took the first
			// post, after this: the second is timed from here (Alice's
			// post between takes seconds of it under load, and so may the
			// board's taking the first).
			first := time.Now()
			send(c, "post", "flood.t/1")
			// phpBB: a PM right after a post is refused; MyBB: a second
			// post (PM flood is counted apart).
			second := map[string]string{realboardtest.PhpBB: "pm", realboardtest.MyBB: "post"}[engine]
			if engine == realboardtest.MyBB {
				// Someone posts between: MyBB would merge the bot's own
				// second post in a row into its first, flood or not.
				b.Post(t, alice, "Between the bot's posts.")
			}
			send(c, second, "flood.t/2")
			if d := time.Since(first); d < interval-2*time.Second {
				t.Errorf("the %s after a post went %v after it; the board's flood limit is %v", second, d, interval)
			}
			if fl := c.Poster.Flood(); fl.State != forum.FloodLimited || fl.Interval < interval-2*time.Second {
				t.Errorf("after the refusal the poster knows %v, want a limit of about %v", fl, interval)
			}
			if engine == realboardtest.MyBB {
				c = boardtest.Connect(t, b, b.Bot) // MyBB counts PMs apart from posts: start unknown again
				send(c, "pm", "flood.t/3")
				c = boardtest.Connect(t, b, b.Bot)
				if d := send(c, "pm", "flood.t/4"); d < interval-2*time.Second {
					t.Errorf("a PM right after a PM took %v; the board's PM flood limit is %v", d, interval)
				}
			}

			b.ExemptBot(t)
			c = boardtest.Connect(t, b, b.Bot)
			t0 := time.Now()
			for i, kind := range []string{"post", "pm", "post", "pm"} {
				if i == 2 {
					b.Post(t, alice, "Between the bot's posts again.") // no MyBB merge
				}
				send(c, kind, fmt.Sprintf("flood.x/%d", i))
			}
			// A bot the board still limits is refused at the first of them and
			// waits about the interval before each of the other three (≥ 3 ×
			// interval less its sends); an exempt one sends back to back. The
			// bound leaves room for the new session's login and a loaded
			// machine (10 s for the four on CI with half the interval); the
			// poster's flood state below says whether it was ever refused.
			if d := time.Since(t0); d > 2*interval {
				t.Errorf("four messages from the exempt bot took %v; a refused bot takes about 3 × %v", d, interval)
			}
			if fl := c.Poster.Flood(); fl.State == forum.FloodLimited {
				t.Errorf("the exempt bot was refused for flood (%v)", fl)
			}
			// Each once, on the board.
			thread := markersIn(threadRows(t, b))
			sent := markersIn(queryRows(t, b, fmt.Sprintf(boardQueries[engine].sentPMs, b.Bot.ID)))
			inbox := markersIn(queryRows(t, b, fmt.Sprintf(boardQueries[engine].userPMs, alice.ID)))
			for k, n := range thread {
				if n != 1 {
					t.Errorf("post %s on the board %d times", k, n)
				}
			}
			for k, n := range sent {
				if n != 1 || inbox[k] != 1 {
					t.Errorf("PM %s: %d in the sent folder, %d in the inbox; want once each", k, n, inbox[k])
				}
			}
			if len(thread)+len(sent) != map[string]int{realboardtest.PhpBB: 6, realboardtest.MyBB: 8}[engine] {
				t.Errorf("messages on the board: posts %v, PMs %v", thread, sent)
			}
		})
	}
}

// TestFormTokenTiming: phpBB refuses a form submitted in the second it was
// issued (check_form_key wants a non-zero age): the poster waits until the
// board's clock has passed that second (the profile's form_time_field,
// creation_time, placed against the board's clock by the forms before),
// and its replies go through at the first submission.
func TestFormTokenTiming(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: []string{"Alice"}})
	c := player(t, b, b.Player("Alice"), 0)
	prof := c.Session.Profile.Forms.Reply
	page := forum.Expand(prof.Page, map[string]string{"topic": b.ThreadIDString()})
	if _, err := c.Session.Fetch(ctx, page); err != nil { // log in first
		t.Fatal(err)
	}

	// A submission in the form's own second: the board hands the form back.
	refused := false
	var through time.Time // when a try that crossed a second was posted
	const tries = 10
	for try := 0; try < tries && !refused; try++ {
		if !through.IsZero() {
			// A try that went through started Alice's flood interval: a
			// submission within it would be handed back for flood, which
			// must not pass for the form's age.
			time.Sleep(time.Until(through.Add(16 * time.Second)))
			through = time.Time{}
		}
		justAfterASecondBegins()
		sec := time.Now().Unix()
		pg, err := c.Session.Fetch(ctx, page)
		if err != nil {
			t.Fatal(err)
		}
		form, err := parser.FindForm(pg.Doc, pg.URL, prof.Selector)
		if err != nil {
			t.Fatal(err)
		}
		form.Values.Set("message", "Too quick")
		for k, v := range prof.Extra {
			form.Values.Set(k, v)
		}
		res, err := c.Session.PostForm(ctx, form.Action, form.Values, pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().Unix() != sec {
			t.Logf("try %d crossed a second; again", try)
			if c.Session.Parser.PostIDFromURL(res.Location()) != "" {
				t.Logf("(and went through, as a form a second old does)")
				through = time.Now()
			}
			continue
		}
		if id := c.Session.Parser.PostIDFromURL(res.Location()); id != "" {
			t.Fatalf("phpBB took a form submitted in its own second (post %s)", id)
		}
		if _, err := parser.FindForm(res.Doc, res.URL, prof.Selector); err != nil {
			t.Fatalf("a too-quick submission: neither a post nor the form again (HTTP %d)", res.Status)
		}
		refused = true
	}
	if !refused {
		t.Fatalf("could not submit within one second in %d tries (machine too slow?)", tries)
	}

	// A try that went through started Alice's flood interval (15 s on
	// this board, for posts and PMs together): the poster's reply must not
	// meet it, or it is refused for flood, not for the form's age.
	if !through.IsZero() {
		time.Sleep(time.Until(through.Add(16 * time.Second)))
	}

	// The poster: fetch, wait, submit once, three times (Alice's flood
	// interval between).
	for i := range 3 {
		if i > 0 {
			time.Sleep(16 * time.Second)
		}
		n0 := c.Session.Requests()
		t0 := time.Now()
		id, err := c.Poster.Reply(ctx, b.ThreadIDString(), fmt.Sprintf("player.%d", i), "", "Patient [b]VOTE: Bob[/b]")
		if err != nil {
			t.Fatalf("the poster's reply %d: %v", i, err)
		}
		t.Logf("reply %d: %v from the form's fetch to the post", i, time.Since(t0).Round(time.Millisecond))
		// The form, the submission (and at most the page it lands on).
		if n := c.Session.Requests() - n0; n > 3 {
			t.Errorf("the poster made %d requests: it did not get through at the first submission", n)
		}
		if got := postBody(t, b, atoi(id)); !strings.Contains(got, "Patient") {
			t.Errorf("post %s: %q", id, got)
		}
	}
}

// TestFormsNeedNoWait: MyBB takes a reply form submitted at once, in the
// second it was fetched (its my_post_key is the session's, its posthash any
// string): its profile waits for none (form_wait_seconds 0).
func TestFormsNeedNoWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.MyBB, realboardtest.Options{Players: []string{"Alice"}})
	c := boardtest.Connect(t, b, b.Bot)
	prof := c.Session.Profile.Forms.Reply
	page := forum.Expand(prof.Page, map[string]string{"topic": b.ThreadIDString()})
	if _, err := c.Session.Fetch(ctx, page); err != nil { // log in first
		t.Fatal(err)
	}
	b.ExemptBot(t)
	// Each try starts just after a second begins, so the fetch and the
	// submission have nearly a whole second; a loaded machine may still
	// spill over, so up to ten tries, and at least three submissions.
	same := 0
	const tries = 10
	for try := 0; try < tries && (try < 3 || same == 0); try++ {
		b.Post(t, b.Player("Alice"), fmt.Sprintf("Between the bot's posts %d.", try)) // no MyBB merge
		justAfterASecondBegins()
		sec := time.Now().Unix()
		pg, err := c.Session.Fetch(ctx, page)
		if err != nil {
			t.Fatal(err)
		}
		form, err := parser.FindForm(pg.Doc, pg.URL, prof.Selector)
		if err != nil {
			t.Fatal(err)
		}
		form.Values.Set("message", fmt.Sprintf("At once %d", try))
		for k, v := range prof.Extra {
			form.Values.Set(k, v)
		}
		res, err := c.Session.PostForm(ctx, form.Action, form.Values, pg.URL)
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().Unix() == sec {
			same++
		} else {
			t.Logf("try %d crossed a second", try)
		}
		id := c.Session.Parser.PostIDFromURL(res.Location())
		if id == "" {
			id = c.Session.Parser.PostIDFromURL(parser.MetaRefresh(res.Doc)) // MyBB's friendly redirect page
		}
		if id == "" {
			t.Fatalf("MyBB refused a form submitted at once (HTTP %d, %s): %.300s", res.Status, c.Session.Parser.ErrorText(res.Doc), res.Doc.Text())
		}
	}
	if same == 0 {
		t.Fatalf("no try of %d fetched and submitted within one second (machine too slow?)", tries)
	}
	if w := c.Session.Profile.FormWaitSeconds; w != 0 {
		t.Errorf("the MyBB profile waits %d s before submitting a form; it needs none", w)
	}
}

// justAfterASecondBegins sleeps into the next second of the clock, so a
// fetch and a submission made at once have nearly all of it.
func justAfterASecondBegins() {
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestInboxAndSentFolder: the bot reads its inbox in order and only once
// (the cursor), a player's PM from the board's PM form included, and finds
// each PM it sent in its sent folder by its marker.
func TestInboxAndSentFolder(t *testing.T) {
	t.Parallel() // top-level too: a parallel test waits for every sequential one
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob"}})
			b.ExemptBot(t)
			alice, bob := b.Player("Alice"), b.Player("Bob")
			c := boardtest.Connect(t, b, b.Bot)

			// Bob's through the engine's PM code; Alice's below through
			// her form, not flooded by one just before.
			ids := []int{b.PM(t, bob, b.Bot, "orders", "INVADE Alice"), b.PM(t, bob, b.Bot, "orders 2", "DEFEND")}
			box, err := c.NewPMs(ctx, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			pms, cur := box.PMs, box.Next
			if len(pms) != 2 || pms[0].ID != strconv.Itoa(ids[0]) || pms[1].ID != strconv.Itoa(ids[1]) ||
				pms[0].From.Name != "Bob" || pms[1].From.Name != "Bob" {
				t.Fatalf("inbox read %+v; want PMs %v from Bob in order", pms, ids)
			}
			if again, err := c.NewPMs(ctx, cur, nil); err != nil || len(again.PMs) != 0 {
				t.Errorf("a second read with the cursor: %d PMs, %v; want none", len(again.PMs), err)
			}
			// Through Alice's own PM form.
			ac := player(t, b, alice, 0)
			ac.Poster.Unmarked = false // confirmed by her sent folder
			if _, err := ac.Poster.SendPM(ctx, forum.Author{Name: b.Bot.Name, ID: b.Bot.IDString()}, "alice.pm", "orders", "PROSPER"); err != nil {
				t.Fatal(err)
			}
			box, err = c.NewPMs(ctx, cur, nil)
			pms = box.PMs
			if err != nil || len(pms) != 1 || pms[0].From.Name != "Alice" || strings.Join(boardtest.Reader(t, b).Lines(pms[0].BodyHTML), "|") != "PROSPER" {
				t.Fatalf("after Alice's form PM: %+v, %v; want one PM, PROSPER (the marker line is no command)", pms, err)
			}

			for i, to := range []realboardtest.Account{alice, bob} {
				key := fmt.Sprintf("inbox.t/pm/%d", i)
				id, err := c.SendPM(ctx, forum.Author{Name: to.Name, ID: to.IDString()}, "your role", "You are [b]spy[/b].", key)
				if err != nil {
					t.Fatal(err)
				}
				if found, ok, err := c.FindSentPM(ctx, key, time.Time{}); err != nil || !ok || found != id {
					t.Errorf("FindSentPM(%s) = %s, %v, %v; want %s", key, found, ok, err, id)
				}
			}
			if _, ok, err := c.FindSentPM(ctx, "inbox.t/pm/never", time.Time{}); err != nil || ok {
				t.Errorf("FindSentPM of a PM never sent: %v, %v", ok, err)
			}
			sent := markersIn(queryRows(t, b, fmt.Sprintf(boardQueries[engine].sentPMs, b.Bot.ID)))
			if sent["inbox.t/pm/0"] != 1 || sent["inbox.t/pm/1"] != 1 || len(sent) != 2 {
				t.Errorf("the bot's sent folder on the board: %v", sent)
			}
		})
	}
}
