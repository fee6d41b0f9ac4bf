package forumtest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// read reads the thread from cursor: the pages' numbers, the posts' ids,
// and the cursor after the last page.
func read(t *testing.T, b *Board, cursor []byte) (pages []int, ids []string, last forum.ThreadPage) {
	t.Helper()
	err := b.ReadThread(context.Background(), "1", cursor, func(pg forum.ThreadPage) error {
		pages = append(pages, pg.Number)
		for _, p := range pg.Posts {
			ids = append(ids, p.ID)
		}
		last = pg
		last.Posts = nil
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return pages, ids, last
}

// The thread is read as a board serves it: page by page, a read starting
// again on the page of the cursor's post (an earlier page once deletions
// moved it there), the last page's range open to the end.
func TestThreadPages(t *testing.T) {
	b := New(clock.NewFake(t0))
	b.PerPage = 10
	for i := range 25 {
		b.Post(context.Background(), "Ann", fmt.Sprintf("post %d", i))
	}
	pages, ids, last := read(t, b, nil)
	if fmt.Sprint(pages) != "[1 2 3]" || len(ids) != 25 || last.Pages != 3 || last.First != "21" || last.Last != strconv.Itoa(1<<62) {
		t.Fatalf("first read: pages %v, %d posts, last page %+v", pages, len(ids), last)
	}
	if pages, ids, _ := read(t, b, last.Next); fmt.Sprint(pages) != "[3]" || len(ids) != 5 {
		t.Errorf("a read from the cursor: pages %v, posts %v; want the cursor's page again", pages, ids)
	}
	for i := 1; i <= 11; i++ {
		b.Remove(strconv.Itoa(i))
	}
	if pages, ids, _ := read(t, b, last.Next); fmt.Sprint(pages) != "[2]" || ids[len(ids)-1] != "25" {
		t.Errorf("after deletions before the cursor: pages %v, posts %v; want the page the cursor's post moved to", pages, ids)
	}
	if b.Fetches != 5 {
		t.Errorf("%d pages served, want 5", b.Fetches)
	}
}

// Made-up posts come first, numbered 1..Made; the board's own after them.
func TestMadePosts(t *testing.T) {
	b := New(clock.NewFake(t0))
	b.Made, b.PerPage = 12, 5
	b.MadePost = func(i int) forum.Post { return forum.Post{ID: strconv.Itoa(i + 1), Author: forum.Author{Name: "Bob"}} }
	b.Post(context.Background(), "Ann", "mine")
	_, ids, _ := read(t, b, nil)
	if len(ids) != 13 || ids[0] != "1" || ids[11] != "12" || ids[12] != "13" || b.LastID() != "13" {
		t.Errorf("posts %v, last id %s", ids, b.LastID())
	}
}

func TestInbox(t *testing.T) {
	clk := clock.NewFake(t0)
	b := New(clk)
	ctx := context.Background()
	b.PM(ctx, "Ann", "PROSPER")
	b.PMSubject("Bob", "[g] orders", "INVADE Ann")
	box, err := b.NewPMs(ctx, nil, nil)
	if err != nil || len(box.PMs) != 2 || !box.ListedAt.Equal(t0) || box.PMs[1].Subject != "[g] orders" || !box.PMs[0].Stamp.Known() {
		t.Fatalf("inbox %+v %v", box, err)
	}
	b.PMAt("Ann", "DEFEND", t0.Add(-time.Hour))
	b.ListedAt = t0.Add(-time.Minute)
	again, err := b.NewPMs(ctx, box.Next, nil)
	if err != nil || len(again.PMs) != 1 || again.PMs[0].Stamp.Known() || !again.PMs[0].Time.Equal(t0.Add(-time.Hour)) || !again.ListedAt.Equal(b.ListedAt) {
		t.Errorf("after the cursor: %+v %v", again, err)
	}
}

// Sends carry the marker line the poster writes, and the knobs fail them
// as a board does.
func TestSends(t *testing.T) {
	b := New(clock.NewFake(t0))
	ctx := context.Background()
	b.Lose = 1
	if _, err := b.Reply(ctx, "1", "Round 1 opens.", "g/r1/1"); err == nil {
		t.Error("a lost answer was not an error")
	}
	if id, ok, err := b.FindPost(ctx, "1", "g/r1/1"); !ok || err != nil || b.Finds != 1 {
		t.Errorf("the post whose answer was lost: %s %v %v", id, ok, err)
	}
	if _, ok, _ := b.FindPost(ctx, "1", "g/r1/12"); ok {
		t.Error("another key's post found")
	}
	b.MaxLen = 60
	if _, err := b.SendPM(ctx, forum.Author{Name: "Ann"}, "role", "You are the spy, and this message is long.", "g/r1/2"); !errors.As(err, new(*forum.TooLongError)) || b.LongRefusals != 1 {
		t.Errorf("a PM over MaxLen: %v", err)
	}
	b.MaxLen = 0
	if _, err := b.SendPM(ctx, forum.Author{Name: "Ann"}, "role", "You are the spy.", "g/r1/3"); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := b.FindSentPM(ctx, "g/r1/3", time.Time{}); !ok || err != nil || len(b.SentTo()["Ann"]) != 1 || b.PMCalls["Ann"] != 2 {
		t.Errorf("the PM sent: %v %v, %d sent, %d calls", ok, err, len(b.SentTo()["Ann"]), b.PMCalls["Ann"])
	}
	b.NoProof = map[string]bool{"Ann": true}
	if _, _, err := b.FindSentPM(ctx, "g/r1/3", time.Time{}); !errors.Is(err, forum.ErrNoProof) {
		t.Errorf("a full sent folder: %v", err)
	}
	b.Down = true
	if err := b.ReadThread(ctx, "1", nil, func(forum.ThreadPage) error { return nil }); !errors.Is(err, ErrDown) {
		t.Errorf("a board down: %v", err)
	}
	if len(b.BotPosts()) != 1 {
		t.Errorf("bot posts %q", b.BotPosts())
	}
}
