package realboardtest_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestChangeSignal measures the change signals of the real phpBB and MyBB
// (docs/polling.md): each kind of change to a thread, and whether the
// forum's topic list (the thread's mark), its feed and the bot's own read
// of the thread show it at once.
//
// Every change the bot's read of the thread shows, the list shows too,
// but for edits and MyBB's merges (CheckSignalSound): those the moderator
// reads the thread for (full_read_seconds, merge_window_seconds).
//
// phpBB: the list shows the last post's id (its time to the second) and
// the replies count. Its feed (app.php/feed/forum/F) is the session's
// user's view (a moderator's holds the hidden posts), posts by id with
// times to the second, an edit only when phpBB records it (not its
// author's edit of the last post), and only the forum's latest 15 posts.
//
// MyBB: the list shows the replies count and the last post's time to the
// minute and poster (no id): a merge changes none of them. Its feed
// (syndication.php) lists threads by their first post only: a reply never
// changes it.
func TestChangeSignal(t *testing.T) {
	t.Parallel()
	T, F := true, false
	for _, c := range []struct {
		engine string
		ops    func(b *realboardtest.Board) boardtest.SignalOps
		want   map[string][3]bool // change → list, feed, thread changed
	}{
		{realboardtest.PhpBB, phpbbSignalOps, map[string][3]bool{
			"a new post":                                     {T, T, T},
			"two posts in the same second":                   {T, T, T},
			"an edit of the last post":                       {F, F, T}, // no edit recorded: the feed's time stays
			"an edit of an earlier post":                     {F, T, T},
			"a post deleted inside the thread":               {T, T, T},
			"a post by another member":                       {T, T, T},
			"the last post deleted":                          {T, T, T},
			"the last post soft-deleted":                     {T, T, T},
			"the last post put back in the moderation queue": {T, T, T},
			// A moderator sees the soft-deleted and queued posts, in the
			// thread, the list's count and the feed; not as the last post.
			"the bot made a moderator (moderator)":                       {T, T, T},
			"a new post (moderator)":                                     {T, T, T},
			"two posts in the same second (moderator)":                   {T, T, T},
			"an edit of the last post (moderator)":                       {F, F, T},
			"an edit of an earlier post (moderator)":                     {F, T, T},
			"a post deleted inside the thread (moderator)":               {T, T, T},
			"a post by another member (moderator)":                       {T, T, T},
			"the last post deleted (moderator)":                          {T, T, T},
			"the last post soft-deleted (moderator)":                     {T, F, F},
			"the last post put back in the moderation queue (moderator)": {T, F, F},
			// A guest sees neither the hidden posts nor their count.
			"a guest's view (moderator)": {T, T, F},
		}},
		{realboardtest.MyBB, mybbSignalOps, map[string][3]bool{
			"a new post":                                     {T, F, T},
			"two posts in the same second":                   {T, F, T},
			"an edit of the last post":                       {F, F, T},
			"an edit of an earlier post":                     {F, F, T},
			"a post deleted inside the thread":               {T, F, T},
			"a post by another member":                       {T, F, T},
			"the last post deleted":                          {T, F, T},
			"the last post soft-deleted":                     {T, F, T},
			"the last post put back in the moderation queue": {T, F, T},
			"a member's post appended to their last one":     {F, F, T},
			// A moderator sees the soft-deleted and queued posts in the
			// thread, not in the list's replies count.
			"the bot made a moderator (moderator)":                       {F, F, T},
			"a new post (moderator)":                                     {T, F, T},
			"two posts in the same second (moderator)":                   {T, F, T},
			"an edit of the last post (moderator)":                       {F, F, T},
			"an edit of an earlier post (moderator)":                     {F, F, T},
			"a post deleted inside the thread (moderator)":               {T, F, T},
			"a post by another member (moderator)":                       {T, F, T},
			"the last post deleted (moderator)":                          {T, F, T},
			"the last post soft-deleted (moderator)":                     {T, F, F},
			"the last post put back in the moderation queue (moderator)": {T, F, F},
			"a member's post appended to their last one (moderator)":     {F, F, T},
			"a guest's view (moderator)":                                 {F, F, F},
		}},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, c.engine, realboardtest.Options{})
			found := boardtest.CheckSignal(t, b, c.ops(b))
			for _, f := range found {
				w, ok := c.want[f.Change]
				if !ok {
					t.Errorf("unexpected step %q", f.Change)
					continue
				}
				if got := [3]bool{f.Mark, f.Feed, f.Thread}; got != w {
					t.Errorf("%s: list, feed, thread changed %v; want %v", f.Change, got, w)
				}
			}
			boardtest.CheckSignalSound(t, found, "edit", "appended")
		})
	}
}

func phpbbSignalOps(b *realboardtest.Board) boardtest.SignalOps {
	visibility := func(t testing.TB, post int, state string) {
		b.PHP(t, fmt.Sprintf(`$r = rb_query("SELECT p.topic_id, p.forum_id, t.topic_first_post_id, t.topic_last_post_id FROM " . POSTS_TABLE . " p JOIN " . TOPICS_TABLE . " t ON t.topic_id = p.topic_id WHERE p.post_id = %d")[0];
rb_as(2);
$phpbb_container->get('content.visibility')->set_post_visibility(%s, %d, (int) $r['topic_id'], (int) $r['forum_id'], 2, time(), 'forumgm test', $r['topic_first_post_id'] == %d, $r['topic_last_post_id'] == %d);`,
			post, state, post, post, post))
	}
	return boardtest.SignalOps{
		Feed:      "app.php/feed/forum/%d",
		FeedEntry: regexp.MustCompile(`(?s)<entry>.*?<updated>([^<]+)</updated>.*?<id>[^<]*?[?&]p=(\d+)`),
		Edit: func(t testing.TB, as realboardtest.Account, post int, text string) {
			boardtest.EditPost(t, b, as, post, text)
		},
		Delete: func(t testing.TB, post int) {
			b.PHP(t, fmt.Sprintf(`include_once($phpbb_root_path . 'includes/functions_admin.php'); delete_posts('post_id', [%d]);`, post))
		},
		SoftDelete: func(t testing.TB, post int) { visibility(t, post, "ITEM_DELETED") },
		Unapprove:  func(t testing.TB, post int) { visibility(t, post, "ITEM_REAPPROVE") },
	}
}

func mybbSignalOps(b *realboardtest.Board) boardtest.SignalOps {
	mod := func(t testing.TB, call string) {
		b.PHP(t, `require_once MYBB_ROOT . 'inc/class_moderation.php'; $m = new Moderation; `+call+`;`)
	}
	return boardtest.SignalOps{
		Feed:      "syndication.php?fid=%d",
		FeedEntry: regexp.MustCompile(`(?s)<item>.*?<link>[^<]*?tid=(\d+)[^<]*</link>\s*<pubDate>([^<]+)</pubDate>`),
		Edit: func(t testing.TB, as realboardtest.Account, post int, text string) {
			boardtest.EditPost(t, b, as, post, text)
		},
		Delete:     func(t testing.TB, post int) { mod(t, fmt.Sprintf("$m->delete_post(%d)", post)) },
		SoftDelete: func(t testing.TB, post int) { mod(t, fmt.Sprintf("$m->soft_delete_posts([%d])", post)) },
		Unapprove:  func(t testing.TB, post int) { mod(t, fmt.Sprintf("$m->unapprove_posts([%d])", post)) },
		Merges:     true,
	}
}

// TestTopicListPages: the topic list is paged (phpBB 25 topics a page,
// MyBB 20) and read only as far as the game thread.
func TestTopicListPages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		engine  string
		perPage int
		topic   string // PHP: topic %d by the admin
	}{
		{realboardtest.PhpBB, 25, `rb_post(2, %d, 0, 'Chatter %d', 'Just chatting here.');`},
		{realboardtest.MyBB, 20, `rb_post(1, %d, 0, 'Chatter %d', 'Just chatting here.');`},
	} {
		t.Run(c.engine, func(t *testing.T) {
			t.Parallel()
			b := realboardtest.Start(t, c.engine, realboardtest.Options{})
			boardtest.CheckTopicPages(t, b, c.perPage, func(i int) string { return fmt.Sprintf(c.topic, b.ForumID, i) })
		})
	}
}

// TestThreadForum: the thread's page names its forum, whose topic list
// shows the thread (the change signal without a forum in the game file).
func TestThreadForum(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			boardtest.CheckThreadForum(t, realboardtest.Start(t, engine, realboardtest.Options{}))
		})
	}
}
