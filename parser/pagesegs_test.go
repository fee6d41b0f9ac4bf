package parser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestThreadSegmentsAsFromTheBody: the segments ThreadAt reads from each
// post's node in the page are the segments of the post's recorded body
// (what the moderator reads), on every saved thread page.
func TestThreadSegmentsAsFromTheBody(t *testing.T) {
	smf := smfParser(t, "")
	cases := []struct {
		file string
		x    *Parser
	}{
		{"phpbb30_thread.html", MustNew(mustProfile(t, "phpbb"))},
		{"phpbb33_thread.html", MustNew(mustProfile(t, "phpbb"))},
		{"mybb_thread.html", MustNew(mustProfile(t, "mybb"))},
		{"real/phpbb3310_thread_p1.html", MustNew(mustProfile(t, "phpbb"))},
		{"real/smf214_thread_p1.html", smf},
		{"real/smf214_thread_p2.html", smf},
		{"bench/phpbb3310_thread_25posts.html", MustNew(mustProfile(t, "phpbb"))},
		{"bench/phpbb3310_thread_dense.html", MustNew(mustProfile(t, "phpbb"))},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			th, err := c.x.ParseThread(page)
			if err != nil {
				t.Fatal(err)
			}
			if len(th.Posts) == 0 {
				t.Fatal("no posts")
			}
			n := 0
			r, err := c.x.BodyReader()
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range th.Posts {
				want := c.x.Segments(p.BodyHTML)
				if got := th.Segments(i); !slices.Equal(got, want) {
					t.Errorf("post %s: segments %q from the page, %q from its body", p.ID, got, want)
				}
				if cmds := r.Segments(p.BodyHTML); !p.CommandsRead || !slices.Equal(p.Commands, cmds) {
					t.Errorf("post %s: commands %q (read %v) with the page, %q from its body", p.ID, p.Commands, p.CommandsRead, cmds)
				}
				n += len(want)
			}
			if n == 0 && !strings.Contains(c.file, "smf") {
				t.Error("no segments on the whole page: the comparison proves nothing")
			}
		})
	}
}

// TestPMCommandsAsFromTheBody: the lines PMAt reads from a PM's node in
// its page are the lines the body reader reads from its recorded body.
func TestPMCommandsAsFromTheBody(t *testing.T) {
	cases := []struct {
		file string
		x    *Parser
	}{
		{"phpbb_pm.html", MustNew(mustProfile(t, "phpbb"))},
		{"mybb_pm.html", MustNew(mustProfile(t, "mybb"))},
		{"real/phpbb3310_pm_view.html", MustNew(mustProfile(t, "phpbb"))},
		{"real/smf214_pm_view.html", smfParser(t, "")},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Doc(page)
			if err != nil {
				t.Fatal(err)
			}
			pm, ok := c.x.PM(doc)
			if !ok {
				t.Fatal("no PM")
			}
			r, err := c.x.BodyReader()
			if err != nil {
				t.Fatal(err)
			}
			want := r.Lines(pm.BodyHTML)
			if !pm.CommandsRead || !slices.Equal(pm.Commands, want) || len(want) == 0 {
				t.Errorf("commands %q (read %v) with the page, %q from its body", pm.Commands, pm.CommandsRead, want)
			}
		})
	}
}

// TestThreadSegmentsOfACutPost: a post cut for its depth reads no segments
// from the page either.
func TestThreadSegmentsOfACutPost(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "phpbb33_thread.html"))
	if err != nil {
		t.Fatal(err)
	}
	x := MustNew(mustProfile(t, "phpbb"))
	page := injectBody(t, string(b), `<div class="content">`, "</div>\n", 1, nestedBold(5000))
	th, err := x.ParseThread(page)
	if err != nil {
		t.Fatal(err)
	}
	if len(th.Posts) < 2 || len(th.Segments(1)) != 0 || len(th.Posts[1].Commands) != 0 || !th.Posts[1].CommandsRead {
		t.Fatalf("cut post: %d posts, segments %q", len(th.Posts), th.Segments(1))
	}
	if len(th.Segments(0)) == 0 {
		t.Error("the post before it lost its segments")
	}
}

// TestBodyCannotFakeThePage: pagination and a logged-in marker written
// inside a post body are not the page's.
func TestBodyCannotFakeThePage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "phpbb33_thread.html"))
	if err != nil {
		t.Fatal(err)
	}
	x := MustNew(mustProfile(t, "phpbb"))
	want, err := x.ParseThread(b)
	if err != nil {
		t.Fatal(err)
	}
	fake := `<div class="pagination"><ul><li class="active"><span>998</span></li><li><a href="#">999</a></li></ul></div><a href="./ucp.php?mode=logout">Logout</a>`
	got, err := x.ParseThread(injectBody(t, string(b), `<div class="content">`, "</div>\n", 1, fake))
	if err != nil {
		t.Fatal(err)
	}
	if got.Page != want.Page || got.Pages != want.Pages || got.LoggedIn != want.LoggedIn || len(got.Posts) != len(want.Posts) {
		t.Errorf("page %d of %d, logged in %v, %d posts; want %d of %d, %v, %d", got.Page, got.Pages, got.LoggedIn, len(got.Posts),
			want.Page, want.Pages, want.LoggedIn, len(want.Posts))
	}
}
