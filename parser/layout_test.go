package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
)

// legacyRows is examples/legacy-rows.profile.yaml: posts as three sibling
// rows, members by name, edit notices as text in the body (issue 44).
func legacyRows(t testing.TB) forum.Profile {
	t.Helper()
	p, err := forum.LoadProfile(filepath.Join("..", "examples", "legacy-rows.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rowsPage(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "rows_thread.html"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Posts without a container (issue 44, points 2, 6 and 7): a post that
// spans three sibling rows (post_span: 3), or runs to the next post's row
// (post_span: next), is read whole: its id from the anchor in its first
// row (post_id), its author by name as its id (user_ids: names), its time
// and its body; an edit notice written as text in the body marks it
// edited and is never part of a command, even inside a bold run and
// across a link; the footer row's links are not the body. Without a span
// the rows after the first are lost: the body is not found.
func TestPostsWithoutAContainer(t *testing.T) {
	page := rowsPage(t)
	type want struct {
		id, author, time, notice string
		cmds                     []string
	}
	wants := []want{
		{"101", "GM Bot", "2026-12-06T09:00:00Z", "", nil},
		{"102", "carol", "2026-12-06T09:05:00Z", "[Edited on 6-12-2026 by carol]", []string{"INVADE dave"}},
		{"103", "Dave O", "2026-12-06T09:10:00Z", "[Edited on 6-12-2026 by Dave O]", []string{"PROSPER"}},
	}
	for _, span := range []string{"3", "next"} {
		t.Run(span, func(t *testing.T) {
			prof := legacyRows(t)
			prof.Selectors.PostSpan = span
			x, err := New(prof)
			if err != nil {
				t.Fatal(err)
			}
			th, err := x.ParseThread(page)
			if err != nil {
				t.Fatal(err)
			}
			if len(th.Posts) != len(wants) {
				t.Fatalf("%d posts, want %d: %+v", len(th.Posts), len(wants), th.Posts)
			}
			r, _ := x.BodyReader()
			for i, w := range wants {
				p := th.Posts[i]
				if p.ID != w.id || p.Author.Name != w.author || p.Author.ID != w.author {
					t.Errorf("post %d: id %q, author %+v; want %s by %s (id %[5]s)", i, p.ID, p.Author, w.id, w.author)
				}
				if got := p.Stamp.Earliest.UTC().Format("2006-01-02T15:04:05Z"); got != w.time {
					t.Errorf("post %s: time %s (%s), want %s", w.id, got, p.Stamp.Err, w.time)
				}
				if p.Edited != (w.notice != "") || p.EditNotice != w.notice {
					t.Errorf("post %s: edited %v %q, want %q", w.id, p.Edited, p.EditNotice, w.notice)
				}
				if !reflect.DeepEqual(p.Commands, w.cmds) && !(len(p.Commands) == 0 && len(w.cmds) == 0) {
					t.Errorf("post %s: commands %q, want %q", w.id, p.Commands, w.cmds)
				}
				// What the body reader reads from the body, as recorded.
				if got := r.Segments(p.BodyHTML); !reflect.DeepEqual(got, p.Commands) && !(len(got) == 0 && len(p.Commands) == 0) {
					t.Errorf("post %s: the body reader reads %q, the page %q", w.id, got, p.Commands)
				}
				if strings.Contains(p.BodyHTML, "Back to top") || strings.Contains(p.BodyHTML, "Posted:") {
					t.Errorf("post %s: the body holds another row: %q", w.id, p.BodyHTML)
				}
			}
		})
	}
	t.Run("no span", func(t *testing.T) {
		prof := legacyRows(t)
		prof.Selectors.PostSpan = ""
		th, err := MustNew(prof).ParseThread(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range th.Posts {
			if p.BodyHTML != "" {
				t.Errorf("post %s has a body from its first row alone: %q", p.ID, p.BodyHTML)
			}
		}
	})
}

func TestPostSpanIsChecked(t *testing.T) {
	for _, bad := range []string{"0", "-1", "many", "51"} {
		p := legacyRows(t)
		p.Selectors.PostSpan = bad
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "selectors.post_span") {
			t.Errorf("post_span %q: %v", bad, err)
		}
	}
	p := legacyRows(t)
	p.UserIDs = "numbers"
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "user_ids") {
		t.Errorf("user_ids numbers: %v", err)
	}
}

// FuzzRowsPage: the post-splitting by siblings and the edit-notice pattern
// on untrusted pages: every post has an id, its segments are collapsed,
// and no segment holds an edit notice.
func FuzzRowsPage(f *testing.F) {
	f.Add(rowsPage(f))
	f.Add([]byte(`<table class="forumline"><tr><td><a name="pid1"></a><span class="name"><b>a</b></span></td></tr><tr><td><span class="postbody"><b>x [Edited on 1-1-2000 by [Edited on 2-2-2000 by y]z]</b></span></td></tr></table>`))
	f.Add([]byte(`<table class="forumline"><tr><td><a name="pid1"></a></td></tr><tr><td><a name="pid2"></a><span class="postbody"><b>[Edited on 1-1-2000 by <i>q</i>]</b></span></td></tr></table>`))
	base := legacyRows(f)
	var xs []*Parser
	for _, span := range []string{"3", "next", "1"} {
		p := base
		p.Selectors.PostSpan = span
		xs = append(xs, MustNew(p))
	}
	notice := regexp.MustCompile(base.Selectors.EditNoticeRegexp)
	f.Fuzz(func(t *testing.T, page []byte) {
		for _, x := range xs {
			th, err := x.ParseThread(page)
			if err != nil {
				return
			}
			for i, p := range th.Posts {
				if p.ID == "" {
					t.Fatal("post without id")
				}
				for _, segs := range [][]string{th.Segments(i), x.Segments(p.BodyHTML), p.Commands} {
					checkSegments(t, segs)
					for _, s := range segs {
						if notice.MatchString(s) {
							t.Fatalf("segment %q holds an edit notice", s)
						}
					}
				}
			}
		}
	})
}
