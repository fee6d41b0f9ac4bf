package parser

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// The built-in smf profile on pages saved from a real SMF 2.1.4 (default
// theme): authors with their ids, message ids, UTC times read from
// "Today at 08:15 PM" against the header's board clock, the edit mark,
// and segments — bold counts; quoted, struck and code bold does not. SMF
// has no core spoiler: "[spoiler]" stays literal text on the page, so the
// bold inside it is shown to everyone and counts (parser/RULINGS.md).
func TestSMFBuiltinRealPages(t *testing.T) {
	x := MustNew(mustProfile(t, "smf"))
	type post struct {
		id, author, authorID, time string
		edited                     bool
		segs                       []string
	}
	for _, c := range []struct {
		file        string
		page, pages int
		posts       []post
	}{
		{file: "smf214_thread_p1.html", page: 1, pages: 2, posts: []post{
			{"4", "gmbot", "2", "2026-11-30T20:15:00Z", false, []string{"Day 1 has begun.", "vote: name"}},
			{"5", "alice", "3", "2026-11-30T20:15:00Z", true, []string{"vote: carol"}},
			{"6", "bob", "4", "2026-11-30T20:15:00Z", false, []string{"vote: alice"}},
			{"7", "carol", "5", "2026-11-30T20:15:00Z", false, []string{"vote: bob", "vote: nobody"}},
			{"8", "dave", "6", "2026-11-30T20:15:00Z", false, []string{"unvote", "VOTE: Carol"}},
			{"9", "alice", "3", "2026-11-30T20:15:00Z", false, []string{"vote: bob"}},
			{"10", "bob", "4", "2026-11-30T20:15:00Z", false, []string{"vote: alice"}},
			{"11", "carol", "5", "2026-11-30T20:15:00Z", false, []string{"vote: alice"}},
			{"12", "dave", "6", "2026-11-30T20:15:00Z", false, []string{"vote: alice"}},
			{"13", "alice", "3", "2026-11-30T20:15:00Z", false, []string{"vote: bob"}},
			{"14", "bob", "4", "2026-11-30T20:15:00Z", false, []string{"vote: alice"}},
			{"15", "carol", "5", "2026-11-30T20:16:00Z", false, []string{"vote: alice"}},
			{"16", "dave", "6", "2026-11-30T20:16:00Z", false, []string{"vote: alice"}},
			{"17", "alice", "3", "2026-11-30T20:16:00Z", false, []string{"vote: bob"}},
			{"18", "bob", "4", "2026-11-30T20:16:00Z", false, []string{"vote: alice"}},
		}},
		{file: "smf214_thread_p2.html", page: 2, pages: 2, posts: []post{
			{"19", "carol", "5", "2026-11-30T20:16:00Z", false, []string{"vote: alice"}},
			{"20", "dave", "6", "2026-11-30T20:16:00Z", false, []string{"vote: alice"}},
			{"21", "gmbot", "2", "2026-11-30T20:16:00Z", false, []string{"Vote count"}},
		}},
	} {
		t.Run(c.file, func(t *testing.T) {
			th, err := x.ParseThread(readReal(t, c.file))
			if err != nil {
				t.Fatal(err)
			}
			if th.Page != c.page || th.Pages != c.pages || len(th.Posts) != len(c.posts) {
				t.Fatalf("page %d of %d, %d posts; want %d of %d, %d", th.Page, th.Pages, len(th.Posts), c.page, c.pages, len(c.posts))
			}
			for i, w := range c.posts {
				p := th.Posts[i]
				segs := x.Segments(p.BodyHTML)
				if p.ID != w.id || p.Author.Name != w.author || p.Author.ID != w.authorID ||
					p.Time.Format(time.RFC3339) != w.time || p.Time.Location() != time.UTC || p.Edited != w.edited || !reflect.DeepEqual(segs, w.segs) {
					t.Errorf("post %d: got %s %s(%s) %s edited=%v %q; want %+v", i, p.ID, p.Author.Name, p.Author.ID,
						p.Time.Format(time.RFC3339), p.Edited, segs, w)
				}
			}
		})
	}
	// The saved PM and inbox pages (test profile in time_test.go) read the
	// same with the built-in one.
	doc, _ := Doc(readReal(t, "smf214_pm_view.html"))
	m, ok := x.PM(doc)
	if !ok || m.ID != "1" || m.From.Name != "gmbot" || m.From.ID != "2" || m.Subject != "Your role" ||
		!strings.Contains(m.BodyHTML, "Mafia Goon") || m.Time.Format(time.RFC3339) != "2026-11-30T20:17:00Z" {
		t.Errorf("PM: %+v (%v)", m, ok)
	}
	doc, _ = Doc(readReal(t, "smf214_pm_inbox.html"))
	hs := x.Inbox(doc)
	if len(hs) != 1 || hs[0].ID != "1" || hs[0].From.Name != "gmbot" || !hs[0].Unread {
		t.Errorf("inbox: %+v", hs)
	}
}
