//go:build linux

package nodebbtest

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/realboardtest"
)

// TestReadMarkup: the bot reads a player's post from the topic's JSON with
// its id, author, user id and time, and the body reader takes from its
// rendered HTML the bold outside quotes, minus struck text; an edit is
// seen, and a deleted post is left out while the page still covers it.
func TestReadMarkup(t *testing.T) {
	t.Parallel()
	b := board(t, realboardtest.NodeBBOptions{Players: []string{"Alice", "Bjørn"}})
	ctx := context.Background()
	alice := user(t, b, b.Player("Alice"))
	before := time.Now().Add(-2 * time.Second)
	pid, err := alice.Post(ctx, "**VOTE Bjørn** then\n\n> **not this, quoted**\n\n~~**nor this**~~ and **PASS** too")
	if err != nil {
		t.Fatal(err)
	}
	gone, err := user(t, b, b.Player("Bjørn")).Post(ctx, "**VOTE Alice**, deleted later")
	if err != nil {
		t.Fatal(err)
	}
	bd, site := connect(t, b)
	read := func() (map[string]forum.Post, []forum.ThreadPage) {
		posts := map[string]forum.Post{}
		var pages []forum.ThreadPage
		err := bd.ReadThread(ctx, b.ThreadIDString(), nil, func(pg forum.ThreadPage) error {
			for _, p := range pg.Posts {
				posts[p.ID] = p
			}
			pg.Posts = nil
			pages = append(pages, pg)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return posts, pages
	}
	posts, pages := read()
	p, ok := posts[strconv.Itoa(pid)]
	if !ok {
		t.Fatalf("post %d not read; read %v", pid, posts)
	}
	if p.Author.Name != b.Player("Alice").Name || p.Author.ID != b.Player("Alice").IDString() {
		t.Errorf("author %+v, want %s (%d)", p.Author, b.Player("Alice").Name, b.Player("Alice").ID)
	}
	if !p.Stamp.Exact() || p.Time.Before(before) || p.Time.After(time.Now().Add(2*time.Second)) {
		t.Errorf("time %v (%+v), want an exact stamp of now", p.Time, p.Stamp)
	}
	if got, want := site.Reader.Segments(p.BodyHTML), []string{"VOTE Bjørn", "PASS"}; !reflect.DeepEqual(got, want) {
		t.Errorf("segments %q, want %q (body %s)", got, want, p.BodyHTML)
	}
	if len(pages) != 1 || pages[0].Forum != strconv.Itoa(b.CategoryID) || pages[0].First != strconv.Itoa(b.OpeningPostID) {
		t.Errorf("pages %+v, want one page of category %d from post %d", pages, b.CategoryID, b.OpeningPostID)
	}
	mark, err := bd.Mark(ctx, pages[0].Forum, b.ThreadIDString())
	if err != nil {
		t.Fatal(err)
	}
	if want := forum.PostSign(strconv.Itoa(gone), "2"); mark.Sign != want {
		t.Errorf("mark %q, want %q", mark.Sign, want)
	}

	if err := alice.Edit(ctx, pid, "**VOTE Alice** instead"); err != nil {
		t.Fatal(err)
	}
	if err := user(t, b, b.Player("Bjørn")).Delete(ctx, gone); err != nil {
		t.Fatal(err)
	}
	posts, pages = read()
	p = posts[strconv.Itoa(pid)]
	if !p.Edited || !reflect.DeepEqual(site.Reader.Segments(p.BodyHTML), []string{"VOTE Alice"}) {
		t.Errorf("after the edit: edited %v, segments %q", p.Edited, site.Reader.Segments(p.BodyHTML))
	}
	if _, ok := posts[strconv.Itoa(gone)]; ok {
		t.Errorf("the deleted post %d is still read", gone)
	}
	if last, _ := strconv.ParseInt(pages[0].Last, 10, 64); last < int64(gone) {
		t.Errorf("the page's range %s–%s does not cover the deleted post %d", pages[0].First, pages[0].Last, gone)
	}
	mark2, err := bd.Mark(ctx, pages[0].Forum, b.ThreadIDString())
	if err != nil {
		t.Fatal(err)
	}
	if mark2.Sign == mark.Sign {
		t.Errorf("the mark %q did not change when the last post was deleted", mark2.Sign)
	}
}

// TestReplyMarker: the bot's reply goes out through the write API with its
// marker (written as Markdown), is found again by the marker and is in the
// topic once; a key not sent is not found. A second reply within the
// board's postDelay (10 s on the second server, as NodeBB's default) is a
// flood wait naming when, the board untouched.
func TestReplyMarker(t *testing.T) {
	t.Parallel()
	// Alone on the second server (its posts every 10 s: 2 s, the shared
	// one's, passed on a loaded machine before the second reply left).
	b := restartBoard(t, realboardtest.NodeBBOptions{Exclusive: true})
	ctx := context.Background()
	bd, site := connect(t, b)
	key := "reply_test/day-1/1"
	before := time.Now()
	id, err := bd.Reply(ctx, b.ThreadIDString(), "[b]Day 1[/b] begins. [i]Vote[/i] with [b]VOTE name[/b].", key)
	if err != nil {
		t.Fatal(err)
	}
	after := time.Now()
	_, err = bd.Reply(ctx, b.ThreadIDString(), "A second post at once.", "reply_test/day-1/3")
	refused := time.Now()
	var fe *forum.FloodError
	if !errors.As(err, &fe) {
		t.Fatalf("a second reply within postDelay: %v, want a flood wait", err)
	}
	// 10 s after the post the board took at the earliest, however long
	// the checks took; at the latest 10 s after the refusal (the bot counts
	// from it when it cannot tell when the board took the first).
	if fe.Until.Before(before.Add(9*time.Second)) || fe.Until.After(refused.Add(11*time.Second)) {
		t.Errorf("the flood wait ends %v after the first reply was sent (answered after %v, refused after %v), want 10 s",
			fe.Until.Sub(before), after.Sub(before), refused.Sub(before))
	}
	if st := bd.Flood(); st.State != forum.FloodLimited || st.Interval != 10*time.Second {
		t.Errorf("flood status %+v, want limited to 10 s", st)
	}
	found, ok, err := bd.FindPost(ctx, b.ThreadIDString(), key)
	if err != nil || !ok || found != id {
		t.Fatalf("FindPost = %q %v %v, want %s", found, ok, err, id)
	}
	if _, ok, err := bd.FindPost(ctx, b.ThreadIDString(), "reply_test/day-1/2"); ok || err != nil {
		t.Errorf("a key never sent: found %v, %v", ok, err)
	}
	rows := b.Query(t, `SELECT data->>'content' AS content FROM legacy_hash WHERE _key = $1`, "post:"+id)
	if len(rows) != 1 || !forum.HasMarker(rows[0]["content"].(string), key) {
		t.Fatalf("post %s on the board: %v", id, rows)
	}
	var body string
	bd.ReadThread(ctx, b.ThreadIDString(), nil, func(pg forum.ThreadPage) error {
		for _, p := range pg.Posts {
			if p.ID == id {
				body = p.BodyHTML
			}
		}
		return nil
	})
	if segs := site.Reader.Segments(body); !reflect.DeepEqual(segs, []string{"Day 1", "VOTE name"}) {
		t.Errorf("the bot's post reads %q (body %s)", segs, body)
	}
}

// TestQueuedReply: with NodeBB's post queue on, a new member's reply is
// answered 200 with "queued": the bot hears it as a refusal for good (the
// GM's to fix), not as sent.
func TestQueuedReply(t *testing.T) {
	t.Parallel()
	b := board(t, realboardtest.NodeBBOptions{PostQueue: true})
	bd, _ := connect(t, b)
	_, err := bd.Reply(context.Background(), b.ThreadIDString(), "Day 1 begins.", "queued_test/1")
	if !errors.Is(err, forum.ErrPermanent) || !errors.Is(err, nodebb.ErrQueued) {
		t.Fatalf("a queued reply: %v, want ErrPermanent and ErrQueued", err)
	}
}

// TestChatRoundTrip: a player's chat to the bot is read as a PM (its id,
// sender, time, and lines), once; the bot's PM goes out as a chat in the
// one-to-one room, with its marker, found again by it and not read back
// as a PM to the bot; a later chat in the same room is read after it.
func TestChatRoundTrip(t *testing.T) {
	t.Parallel()
	b := board(t, realboardtest.NodeBBOptions{})
	ctx := context.Background()
	bd, site := connect(t, b)
	carol := user(t, b, b.Player("Carol"))
	// The bot reads an empty inbox first: its cursor.
	in, err := bd.NewPMs(ctx, nil, nil)
	if err != nil || len(in.PMs) != 0 {
		t.Fatalf("an empty inbox: %+v, %v", in, err)
	}
	mid, err := carol.Chat(ctx, b.Bot, "DEFEND\n~~ATTACK Bob~~\nINVADE Alice")
	if err != nil {
		t.Fatal(err)
	}
	in2 := readPMs(t, bd, in.Next, 1)
	if len(in2.PMs) != 1 || in2.PMs[0].ID != strconv.Itoa(mid) {
		t.Fatalf("new PMs %+v, want Carol's message %d", in2.PMs, mid)
	}
	pm := in2.PMs[0]
	if pm.From.Name != b.Player("Carol").Name || pm.From.ID != b.Player("Carol").IDString() || !pm.Stamp.Exact() {
		t.Errorf("PM from %+v at %+v", pm.From, pm.Stamp)
	}
	if got, want := site.Reader.Lines(pm.BodyHTML), []string{"DEFEND", "INVADE Alice"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lines %q, want %q (body %s)", got, want, pm.BodyHTML)
	}
	key := "chat_test/role/1"
	id, err := bd.SendPM(ctx, forum.Author{Name: b.Player("Carol").Name, ID: b.Player("Carol").IDString()}, "Your role", "You are a [b]spy[/b].", key)
	if err != nil {
		t.Fatal(err)
	}
	if found, ok, err := bd.FindSentPM(ctx, key, time.Now().Add(-time.Minute)); err != nil || !ok || found != id {
		t.Errorf("FindSentPM = %q %v %v, want %s", found, ok, err, id)
	}
	if _, ok, err := bd.FindSentPM(ctx, "chat_test/role/2", time.Time{}); ok || err != nil {
		t.Errorf("a key never sent: found %v, %v", ok, err)
	}
	n := 0
	for _, r := range b.Query(t, `SELECT data->>'content' AS content, data->>'fromuid' AS fromuid FROM legacy_hash WHERE _key LIKE 'message:%'`) {
		if forum.HasMarker(r["content"].(string), key) {
			n++
			if r["fromuid"] != b.Bot.IDString() {
				t.Errorf("the PM is from user %v", r["fromuid"])
			}
		}
	}
	if n != 1 {
		t.Errorf("the PM is on the board %d times, want once", n)
	}
	mid2, err := carol.Chat(ctx, b.Bot, "PASS")
	if err != nil {
		t.Fatal(err)
	}
	in3 := readPMs(t, bd, in2.Next, 1)
	if len(in3.PMs) != 1 || in3.PMs[0].ID != strconv.Itoa(mid2) {
		t.Errorf("after the bot's own message: %+v, want only Carol's %d", in3.PMs, mid2)
	}
}

// readPMs reads the bot's new chats from the cursor, again and again
// (following the cursor) until want have come or 20 s have passed, and
// then once more: what every read brought, and the last cursor. A read
// takes only messages a few seconds old (nodebb's settle), and each
// message comes once.
func readPMs(t *testing.T, bd forum.Board, cursor []byte, want int) forum.Inbox {
	t.Helper()
	var all forum.Inbox
	all.Next = cursor
	end := time.Now().Add(20 * time.Second)
	for extra := 0; extra < 2; {
		in, err := bd.NewPMs(context.Background(), all.Next, nil)
		if err != nil {
			t.Fatal(err)
		}
		all.PMs, all.Next, all.ListedAt = append(all.PMs, in.PMs...), in.Next, in.ListedAt
		if len(all.PMs) >= want || time.Now().After(end) {
			extra++
			if extra == 1 {
				time.Sleep(4 * time.Second) // a read later: nothing more, nothing again
			}
			continue
		}
		time.Sleep(500 * time.Millisecond)
	}
	return all
}
