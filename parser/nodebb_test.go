package parser

import (
	"reflect"
	"testing"
)

// The built-in nodebb profile on a topic page saved from a real NodeBB
// 4.10.3 (Harmony theme), as `forumgm parse --engine nodebb` reads one (the
// bot reads the topic's JSON, whose post HTML is the same): post and user
// ids, authors, times, and segments — bold counts; quoted and struck bold
// does not.
func TestNodeBBSavedTopic(t *testing.T) {
	x := MustNew(mustProfile(t, "nodebb"))
	th, err := x.ParseThread(readReal(t, "nodebb4103_topic.html"))
	if err != nil {
		t.Fatal(err)
	}
	type post struct {
		id, author, authorID, time string
		segs                       []string
	}
	want := []post{
		{"1", "admin", "1", "2026-12-06T05:37:34Z", nil},
		{"3", "admin", "1", "2026-12-06T05:38:04Z", []string{"VOTE Bob"}},
		{"4", "admin", "1", "2026-12-06T05:42:57Z", []string{"Day 1"}},
		{"5", "admin", "1", "2026-12-06T05:42:58Z", nil},
	}
	if len(th.Posts) != len(want) {
		t.Fatalf("%d posts, want %d", len(th.Posts), len(want))
	}
	for i, w := range want {
		p := th.Posts[i]
		got := post{p.ID, p.Author.Name, p.Author.ID, p.Time.UTC().Format("2006-01-02T15:04:05Z"), x.Segments(p.BodyHTML)}
		if len(got.segs) == 0 {
			got.segs = nil
		}
		if !reflect.DeepEqual(got, w) {
			t.Errorf("post %d: %+v, want %+v", i, got, w)
		}
	}
}
