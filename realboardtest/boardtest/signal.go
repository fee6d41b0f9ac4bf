//go:build linux

package boardtest

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/realboardtest"
)

// SignalOps are an engine's ways to change the game thread behind the
// bot's back, for CheckSignal: each through the engine's own code (or its
// forms), as a member or moderator would.
type SignalOps struct {
	// Feed is the engine's feed of the forum's posts (%d: the forum id).
	Feed string
	// FeedEntry finds one entry of the feed: its first group the entry's
	// id (a post's, or a thread's), the second its time.
	FeedEntry *regexp.Regexp
	// Edit changes a post's text as its author.
	Edit func(t testing.TB, as realboardtest.Account, post int, text string)
	// Delete deletes a post for good, as a moderator does.
	Delete func(t testing.TB, post int)
	// SoftDelete hides a post as deleted, restorable (nil: none).
	SoftDelete func(t testing.TB, post int)
	// Unapprove puts a post back in the moderation queue.
	Unapprove func(t testing.TB, post int)
	// Merges: the board appends a member's next post to their last one.
	Merges bool
}

// SignalFinding is one change to the thread and what the bot saw of it:
// whether the thread's mark in the topic list changed, the forum's feed,
// and the bot's own read of the thread (its posts and bodies).
type SignalFinding struct {
	Change             string
	Mark, Feed, Thread bool
}

func (f SignalFinding) String() string {
	yes := map[bool]string{true: "changed", false: "same"}
	return fmt.Sprintf("%-42s list %-8s feed %-8s thread %s", f.Change, yes[f.Mark], yes[f.Feed], yes[f.Thread])
}

// CheckSignal makes each kind of change to the board's game thread and
// records what the bot account, logged in, sees of it at once (no wait:
// what a list or feed holds back, a cache, shows as "same"): its mark in
// the topic list (forumconn's Mark, the change signal), the forum's feed,
// and its own read of the thread. Then it makes the bot a moderator (who
// sees posts in the moderation queue, and soft-deleted ones) and makes
// those changes again. It returns the findings in order (a moderator's with
// " (moderator)" after the change), and last how a guest's list and feed
// differ from the moderator's; the caller checks them against what the
// engine should do.
func CheckSignal(t *testing.T, b *realboardtest.Board, ops SignalOps) []SignalFinding {
	t.Helper()
	ctx := context.Background()
	bot := Connect(t, b, b.Bot)
	forumID, thread := fmt.Sprint(b.ForumID), b.ThreadIDString()
	reader := Reader(t, b)
	type view struct {
		mark   string
		feed   string
		thread map[string]string // post id → body hash
		last   string
	}
	look := func(c *forumconn.Conn) view {
		t.Helper()
		v := view{thread: map[string]string{}}
		m, err := c.Mark(ctx, forumID, thread)
		if err != nil {
			t.Fatalf("the topic list: %v", err)
		}
		if m.Sign == "" {
			t.Fatalf("the topic list of forum %s does not show thread %s", forumID, thread)
		}
		v.mark = m.Sign
		if _, err := c.Session.Fetch(ctx, "index.php"); err != nil { // logged in, for the feed
			t.Fatal(err)
		}
		pg, err := c.Session.Get(ctx, fmt.Sprintf(ops.Feed, b.ForumID))
		if err != nil {
			t.Fatalf("the feed: %v", err)
		}
		var entries []string
		for _, e := range ops.FeedEntry.FindAllStringSubmatch(string(pg.Body), -1) {
			entries = append(entries, e[1]+"@"+e[2])
		}
		if len(entries) == 0 {
			t.Fatalf("no entries in the feed %s:\n%s", pg.URL, pg.Body)
		}
		v.feed = strings.Join(entries, " ")
		err = c.ReadThread(ctx, thread, nil, func(pg forum.ThreadPage) error {
			for _, p := range pg.Posts {
				v.thread[p.ID] = reader.Hash(p.BodyHTML)
				v.last = p.ID
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading the thread: %v", err)
		}
		return v
	}
	var out []SignalFinding
	var prev view
	role := ""
	step := func(change string, do func()) {
		t.Helper()
		do()
		now := look(bot)
		f := SignalFinding{Change: change + role, Mark: now.mark != prev.mark, Feed: now.feed != prev.feed, Thread: !maps.Equal(now.thread, prev.thread)}
		t.Logf("%s (list: %s)", f, now.mark)
		out = append(out, f)
		prev = now
	}
	alice, bob, carol := b.Player("Alice"), b.Player("Bob"), b.Player("Carol")
	sequence := func(all bool) {
		var a1, b1, c1, p int
		// The posters take turns, so that MyBB merges only where meant.
		first := alice
		if !all {
			first = carol // Bob's post was the last
		}
		step("a new post", func() { a1 = b.Post(t, first, "I am town. [b]vote: Bob[/b]") })
		if all {
			step("two posts in the same second", func() {
				ids := b.Posts(t, []realboardtest.Reply{{As: bob, Text: "No, [b]vote: Alice[/b]"}, {As: carol, Text: "Hmm, not sure."}})
				b1, c1 = ids[0], ids[1]
			})
			step("an edit of the last post", func() { ops.Edit(t, carol, c1, "Hmm, not sure. [b]vote: Alice[/b]") })
			step("an edit of an earlier post", func() { ops.Edit(t, alice, a1, "I am town. [b]vote: Carol[/b]") })
			step("a post deleted inside the thread", func() { ops.Delete(t, b1) })
			step("a post by another member", func() { p = b.Post(t, bob, "Sorry, wrong thread.") })
			step("the last post deleted", func() { ops.Delete(t, p) })
		}
		if ops.SoftDelete != nil {
			step("a post by another member", func() { p = b.Post(t, bob, "My vote: [b]vote: Carol[/b]") })
			step("the last post soft-deleted", func() { ops.SoftDelete(t, p) })
		}
		// Alice: the last visible post is Carol's, so no merge.
		step("a post by another member", func() { p = b.Post(t, alice, "[b]vote: Bob[/b] (to be queued)") })
		step("the last post put back in the moderation queue", func() { ops.Unapprove(t, p) })
		if ops.Merges {
			step("a post by another member", func() { b.Post(t, bob, "Posting again, Bob here.") })
			step("a member's post appended to their last one", func() { b.Post(t, bob, "And once more: [b]vote: Carol[/b]") })
		}
	}
	prev = look(bot)
	sequence(true)
	// The same as a moderator, who sees posts in the moderation queue and
	// soft-deleted ones.
	b.ExemptBot(t)
	bot = Connect(t, b, b.Bot)
	role = " (moderator)"
	step("the bot made a moderator", func() {})
	sequence(false)
	// A guest's view, against the moderator's: the list and the feed are
	// each viewer's own.
	prof, _ := forum.Builtin(b.Engine)
	x := parser.MustNew(prof)
	page := Get(t, b.URL+forum.Expand(prof.URLs.TopicList, map[string]string{"forum": forumID, "page": "1", "start": "0"}))
	doc, err := parser.Doc([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	guest := ""
	for _, m := range x.Topics(doc).Marks {
		if m.Thread == thread {
			guest = m.Sign
		}
	}
	var entries []string
	for _, e := range ops.FeedEntry.FindAllStringSubmatch(Get(t, b.URL+fmt.Sprintf(ops.Feed, b.ForumID)), -1) {
		entries = append(entries, e[1]+"@"+e[2])
	}
	f := SignalFinding{Change: "a guest's view (moderator)", Mark: guest != prev.mark, Feed: strings.Join(entries, " ") != prev.feed}
	t.Logf("%s (list: %s)", f, guest)
	return append(out, f)
}

// SignalWants are what a change must do for the signal to be sound where
// the thread changed: the list's mark changed with it, except where
// allowed (an edit, a merge: read within full_read_seconds or the merge
// window). CheckSignalSound fails the test for any other change the
// thread showed and the list did not.
func CheckSignalSound(t *testing.T, found []SignalFinding, allowed ...string) {
	t.Helper()
	for _, f := range found {
		if !f.Thread || f.Mark || strings.HasPrefix(f.Change, "the bot made a moderator") {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || strings.Contains(f.Change, a)
		}
		if !ok {
			t.Errorf("%s: the thread changed and the topic list did not: the signal would miss it", f.Change)
		}
	}
}

// EditPost edits one of the account's own posts through the board's edit
// form, as the player would in a browser (phpBB, MyBB).
func EditPost(t testing.TB, b *realboardtest.Board, as realboardtest.Account, postID int, text string) {
	t.Helper()
	ctx := context.Background()
	page, extra := map[string]string{
		realboardtest.PhpBB: "posting.php?mode=edit&p=%d",
		realboardtest.MyBB:  "editpost.php?pid=%d",
	}[b.Engine], map[string]map[string]string{
		realboardtest.PhpBB: {"post": "Submit"},
		realboardtest.MyBB:  {"action": "do_editpost", "submit": "Update Post"},
	}[b.Engine]
	c := Connect(t, b, as)
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
}

// CheckTopicPages fills the board's forum with more topics than one page
// of its topic list holds (perPage, the board's default), the game thread
// the oldest, and checks that the bot finds its mark on the list's second
// page (reading two pages), and on the first alone once a post brought it
// to the top: the list is read newest last post first, only as far as the
// threads wanted.
func CheckTopicPages(t *testing.T, b *realboardtest.Board, perPage int, newTopic func(i int) string) {
	t.Helper()
	ctx := context.Background()
	var code strings.Builder
	for i := 0; i < perPage+3; i++ {
		code.WriteString(newTopic(i) + "\n")
	}
	// The new topics a second later than the game thread's last post: made
	// in the same second, the board may list the game thread among them
	// (MyBB breaks a tie of last-post times any way; seen on a CI run).
	time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(1100 * time.Millisecond)))
	b.PHP(t, code.String())
	forumID, thread := fmt.Sprint(b.ForumID), b.ThreadIDString()
	c := Connect(t, b, b.Bot)
	if _, err := c.Session.Fetch(ctx, "index.php"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []int{2, 1} {
		before := c.Session.Requests()
		m, err := c.Mark(ctx, forumID, thread)
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Session.Requests() - before; m.Sign == "" || n != want {
			t.Errorf("the game thread's mark %q after %d pages of the list, want it after %d", m.Sign, n, want)
		}
		b.Post(t, b.Player("Alice"), "Back to the game, everyone.")
	}
}

// CheckThreadForum reads the game thread's first page as the bot and checks
// that it names the forum holding the thread (selectors.thread_forum), and
// that this forum's topic list shows the thread: what lets a game that
// names no forum get the change signal.
func CheckThreadForum(t *testing.T, b *realboardtest.Board) {
	t.Helper()
	ctx := context.Background()
	c := Connect(t, b, b.Bot)
	got := ""
	errStop := errors.New("first page read")
	err := c.ReadThread(ctx, b.ThreadIDString(), nil, func(pg forum.ThreadPage) error {
		got = pg.Forum
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		t.Fatal(err)
	}
	if want := fmt.Sprint(b.ForumID); got != want {
		t.Fatalf("the thread's page names forum %q, want %q", got, want)
	}
	m, err := c.Mark(ctx, got, b.ThreadIDString())
	if err != nil || m.Sign == "" {
		t.Fatalf("the topic list of forum %s does not show the thread: %+v, %v", got, m, err)
	}
}
