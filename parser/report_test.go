package parser

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportFlags is issue 22 item 4: `forumgm parse` showed a page cut
// short as complete and an unreadable post (nested too deep) as a post
// with no commands, while the live reader refuses the one and records the
// other as unreadable. The report now says both: Incomplete on the page,
// Unreadable (the reason) on the post or PM; a whole page says neither.
func TestReportFlags(t *testing.T) {
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	x := MustNew(mustProfile(t, "phpbb"))
	thread := read("phpbb33_thread.html")
	posts := regexp.MustCompile(`<div id="p\d+"`).FindAllStringIndex(thread, -1)
	last := posts[len(posts)-1][0]
	for _, tc := range []struct {
		name             string
		page             string
		incomplete       bool
		unreadable       string // the post id
		wantPostsAtLeast int
	}{
		{"whole", thread, false, "", 7},
		{"cut before the last post, closed", thread[:last] + "</div></div></body></html>\n", true, "", 6},
		{"cut raw", thread[:last], true, "", 6},
		{"a post nested too deep", string(injectBody(t, thread, `<div class="content">`, "</div>\n", 1, nestedBold(5000))), false, "112", 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := x.MakeReport([]byte(tc.page))
			if err != nil {
				t.Fatal(err)
			}
			if rep.Incomplete != tc.incomplete {
				t.Errorf("incomplete = %v, want %v", rep.Incomplete, tc.incomplete)
			}
			if len(rep.Posts) < tc.wantPostsAtLeast {
				t.Fatalf("%d posts", len(rep.Posts))
			}
			for _, p := range rep.Posts {
				if want := p.ID == tc.unreadable; (p.Unreadable != "") != want {
					t.Errorf("post %s: unreadable %q, want flagged %v", p.ID, p.Unreadable, want)
				} else if want && (!strings.Contains(p.Unreadable, "nested more than 512 levels") || len(p.Segments) != 0) {
					t.Errorf("post %s: unreadable %q, segments %q; want the reason and no segments", p.ID, p.Unreadable, p.Segments)
				}
			}
		})
	}
	// A PM nested too deep is flagged the same way.
	pm := read("phpbb_pm.html")
	deep := injectBody(t, pm, `<div class="content">`, "</div>\n", 0, nestedQuotes(3900))
	rep, err := x.MakeReport(deep)
	if err != nil {
		t.Fatal(err)
	}
	if rep.PM == nil || !strings.Contains(rep.PM.Unreadable, "nested more than 512 levels") || len(rep.PM.Lines) != 0 {
		t.Errorf("a PM nested too deep: %+v", rep.PM)
	}
	if rep, _ := x.MakeReport([]byte(pm)); rep.PM == nil || rep.PM.Unreadable != "" || rep.Incomplete {
		t.Errorf("a whole, readable PM: %+v", rep)
	}
}
