package smftest

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestChangeSignal measures SMF's change signals (docs/polling.md) as the
// phpBB and MyBB test does: the message index shows the last post's id
// (topic=T.msgM; none for a topic without replies) and the replies count;
// every change the bot's read of the thread shows, it shows too, but
// edits. Its feed (?action=.xml;sa=recent) lists the board's latest posts
// by id, to the second, and no edits; SMF caches it for 240 s for a
// logged-in member whenever building it took more than 0.2 s (News.php),
// so on a busy board it may be minutes old (not measured here: the test
// board is fast).
func TestChangeSignal(t *testing.T) {
	t.Parallel() // top-level too: a sequential test holds every parallel one back
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{})
	php := func(t testing.TB, code string) {
		b.PHP(t, `require_once $sourcedir . '/RemoveTopic.php'; require_once $sourcedir . '/Subs-Post.php'; `+code)
	}
	ops := boardtest.SignalOps{
		Feed:      "index.php?action=.xml;sa=recent;board=%d;type=rss2",
		FeedEntry: regexp.MustCompile(`(?s)<item>.*?<link>[^<]*?msg(\d+)#msg\d+</link>.*?<pubDate>([^<]+)</pubDate>`),
		Edit: func(t testing.TB, as realboardtest.Account, post int, text string) {
			php(t, fmt.Sprintf(`rb_as(%d); $body = $smcFunc['htmlspecialchars'](%q, ENT_QUOTES); preparsecode($body);
$msg = ['id' => %d, 'body' => $body, 'modify_time' => time(), 'modify_name' => $user_info['name'], 'modify_member' => %d, 'modify_reason' => ''];
$top = ['id' => %d, 'board' => %d]; $poster = [];
modifyPost($msg, $top, $poster);`, as.ID, text, post, as.ID, b.ThreadID, b.ForumID))
		},
		Delete:    func(t testing.TB, post int) { php(t, fmt.Sprintf(`rb_as(1); removeMessage(%d);`, post)) },
		Unapprove: func(t testing.TB, post int) { php(t, fmt.Sprintf(`rb_as(1); approvePosts([%d], false, false);`, post)) },
	}
	T, F := true, false
	want := map[string][3]bool{
		"a new post":                                                 {T, T, T},
		"two posts in the same second":                               {T, T, T},
		"an edit of the last post":                                   {F, F, T},
		"an edit of an earlier post":                                 {F, F, T},
		"a post deleted inside the thread":                           {T, T, T},
		"a post by another member":                                   {T, T, T},
		"the last post deleted":                                      {T, T, T},
		"the last post put back in the moderation queue":             {T, T, T},
		"the bot made a moderator (moderator)":                       {F, F, F}, // SMF (post moderation off, as installed) shows a queued post to nobody
		"a new post (moderator)":                                     {T, T, T},
		"a post by another member (moderator)":                       {T, T, T},
		"the last post put back in the moderation queue (moderator)": {T, T, T},
		"a guest's view (moderator)":                                 {F, F, F},
	}
	found := boardtest.CheckSignal(t, b, ops)
	for _, f := range found {
		w, ok := want[f.Change]
		if !ok {
			t.Errorf("unexpected step %q", f.Change)
			continue
		}
		if got := [3]bool{f.Mark, f.Feed, f.Thread}; got != w {
			t.Errorf("%s: list, feed, thread changed %v; want %v", f.Change, got, w)
		}
	}
	boardtest.CheckSignalSound(t, found, "edit")
}

// TestTopicListPages: SMF's message index is paged (20 topics a page) and
// read only as far as the game thread.
func TestTopicListPages(t *testing.T) {
	t.Parallel() // top-level too: a sequential test holds every parallel one back
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{})
	boardtest.CheckTopicPages(t, b, 20, func(i int) string {
		return fmt.Sprintf(`rb_post(1, %d, 0, 'Chatter %d', 'Just chatting here.');`, b.ForumID, i)
	})
}

// TestThreadForum: the thread's page names its board, whose message index
// shows the thread (the change signal without a forum in the game file).
func TestThreadForum(t *testing.T) {
	t.Parallel() // top-level too: a sequential test holds every parallel one back
	boardtest.CheckThreadForum(t, realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{}))
}
