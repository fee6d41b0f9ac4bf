package main

import (
	"path/filepath"
	"testing"
)

// `forumgm parse --engine smf` on pages saved from a real SMF 2.1.4.
func TestParseCommandSMF(t *testing.T) {
	real := filepath.Join("..", "..", "parser", "testdata", "real")
	for _, c := range []struct {
		file                               string
		page, n                            int
		id, author, authorID, time, seg0   string
		lastID, lastAuthor, lastTime, segN string
	}{
		{"smf214_thread_p1.html", 1, 15, "4", "gmbot", "2", "2026-11-30T20:15:00Z", "Day 1 has begun.",
			"18", "bob", "2026-11-30T20:16:00Z", "vote: alice"},
		{"smf214_thread_p2.html", 2, 3, "19", "carol", "5", "2026-11-30T20:16:00Z", "vote: alice",
			"21", "gmbot", "2026-11-30T20:16:00Z", "Vote count"},
	} {
		got, err := runParse(t, "--engine", "smf", filepath.Join(real, c.file))
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		posts := got["posts"].([]any)
		if got["kind"] != "thread" || got["page"].(float64) != float64(c.page) || got["pages"].(float64) != 2 || len(posts) != c.n {
			t.Fatalf("%s: %v", c.file, got)
		}
		first, last := posts[0].(map[string]any), posts[len(posts)-1].(map[string]any)
		if first["id"] != c.id || first["author"] != c.author || first["author_id"] != c.authorID ||
			first["time"] != c.time || first["segments"].([]any)[0] != c.seg0 {
			t.Errorf("%s first post: %v", c.file, first)
		}
		segs := last["segments"].([]any)
		if last["id"] != c.lastID || last["author"] != c.lastAuthor || last["time"] != c.lastTime || segs[len(segs)-1] != c.segN {
			t.Errorf("%s last post: %v", c.file, last)
		}
	}
	if _, err := runParse(t, "--engine", "vbulletin", filepath.Join(real, "smf214_thread_p1.html")); err == nil {
		t.Error("unknown engine accepted")
	}
}
