package realboardtest_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/scraper"
)

// TestFirstContact runs the project's forum code against each real board:
// the bot logs in, reads a three-page thread (authors, ids, times, bold
// segments), posts a reply once, sends a PM that shows in its sent folder,
// and reads a player's PM from its inbox. Both boards run at once: the
// bot's reply and PM wait out the board's real flood interval (15 s on
// both: phpBB's default, and an admin's setting on MyBB).
func TestFirstContact(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("waits out the boards' real flood intervals")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			firstContact(t, engine)
		})
	}
}

type want struct {
	id, author, authorID, seg string
}

func firstContact(t *testing.T, engine string) {
	ctx := context.Background()
	start := time.Now().UTC().Truncate(time.Minute)
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice", "Bob", "Carol"}})
	if engine == realboardtest.MyBB {
		// MyBB's 60 s default, met twice here (the bot's opening post,
		// then its reply), is waited out by realgames' TestFlood; here an
		// admin's 15 s (phpBB's default) is met the same way.
		b.Setting(t, "postfloodsecs", "15")
		b.Setting(t, "pmfloodsecs", "15")
	}
	c := boardtest.Connect(t, b, b.Bot)

	// 24 player posts after the opening post: 25 posts, three pages of 10.
	// Authors take turns (MyBB merges a member's consecutive posts).
	wants := []want{{id: strconv.Itoa(b.OpeningPostID), author: b.Bot.Name, authorID: b.Bot.IDString(), seg: "bold"}}
	var posts []realboardtest.Reply
	for i := 1; i <= 24; i++ {
		p := b.Players[i%len(b.Players)]
		seg := fmt.Sprintf("VOTE: %s %d", b.Players[(i+1)%len(b.Players)].Name, i)
		posts = append(posts, realboardtest.Reply{As: p, Text: fmt.Sprintf("Post %d by %s. [b]%s[/b] and [quote]not [b]this[/b][/quote]", i, p.Name, seg)})
		wants = append(wants, want{author: p.Name, authorID: p.IDString(), seg: seg})
	}
	for i, id := range b.Posts(t, posts) {
		wants[i+1].id = strconv.Itoa(id)
	}

	var got []forum.Post
	res, err := c.Scraper.ReadThread(ctx, b.ThreadIDString(), scraper.Cursor{}, func(p forum.Post) error {
		got = append(got, p)
		return nil
	})
	if err != nil {
		t.Fatalf("reading the thread: %v", err)
	}
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
		if p.Time.Before(start) || p.Time.After(end) {
			t.Errorf("post %s: time %v, want between %v and %v", p.ID, p.Time, start, end)
		}
		if segs := body.Segments(p.BodyHTML); len(segs) != 1 || segs[0] != w.seg {
			t.Errorf("post %s: segments %q, want [%q]", p.ID, segs, w.seg)
		}
		if wantPage := i/10 + 1; p.Page != wantPage {
			t.Errorf("post %s read from page %d, want %d", p.ID, p.Page, wantPage)
		}
	}

	// A reply through the poster, on the board exactly once.
	key := "firstcontact.t0k/1/" + engine
	// The bot's poster returns a flood refusal instead of waiting (its
	// moderator reads on meanwhile); this test has nothing else to do.
	id, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Reply(ctx, b.ThreadIDString(), "Round 1 is open. [b]Vote now[/b].", key)
	})
	if err != nil {
		t.Fatalf("reply: %v", err)
	}
	if n := countPosts(t, b, key); n != 1 {
		t.Errorf("the reply is on the board %d times, want once", n)
	}
	if found, ok, err := c.FindPost(ctx, b.ThreadIDString(), key); err != nil || !ok || found != id {
		t.Errorf("FindPost = %s, %v, %v; want %s", found, ok, err, id)
	}

	// A PM to a player: in the bot's sent folder, once, by its marker.
	alice := b.Player("Alice")
	pmKey := "firstcontact.t0k/pm/" + engine
	t0 := time.Now()
	pmID, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "[game] your role", "You are [b]resistance[/b].", pmKey)
	})
	if err != nil {
		t.Fatalf("PM: %v", err)
	}
	t.Logf("the PM after the reply took %.1fs (flood control)", time.Since(t0).Seconds())
	if found, ok, err := c.FindSentPM(ctx, pmKey, time.Time{}); err != nil || !ok || found != pmID {
		t.Errorf("FindSentPM = %s, %v, %v; want %s", found, ok, err, pmID)
	}
	if n := countPMs(t, b, pmKey, alice.ID); n != 1 {
		t.Errorf("Alice has the PM %d times, want once", n)
	}

	// A player's PM to the bot, read from the inbox.
	boardtest.CheckInboxPM(t, ctx, c, b, start)
}

// countPosts counts the thread's posts carrying the marker key, in the
// board's own database.
func countPosts(t *testing.T, b *realboardtest.Board, key string) int {
	q := map[string]string{
		realboardtest.PhpBB: "SELECT post_text AS body FROM {prefix}posts WHERE topic_id = %d",
		realboardtest.MyBB:  "SELECT message AS body FROM {prefix}posts WHERE tid = %d",
	}[b.Engine]
	n := 0
	for _, r := range b.Query(t, fmt.Sprintf(q, b.ThreadID)) {
		if forum.HasMarker(fmt.Sprint(r["body"]), key) {
			n++
		}
	}
	return n
}

// countPMs counts the recipient's copies of PMs carrying the key.
func countPMs(t *testing.T, b *realboardtest.Board, key string, to int) int {
	q := map[string]string{
		realboardtest.PhpBB: "SELECT p.message_text AS body FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d",
		realboardtest.MyBB:  "SELECT message AS body FROM {prefix}privatemessages WHERE uid = %d",
	}[b.Engine]
	n := 0
	for _, r := range b.Query(t, fmt.Sprintf(q, to)) {
		if forum.HasMarker(fmt.Sprint(r["body"]), key) {
			n++
		}
	}
	return n
}
