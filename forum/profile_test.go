package forum

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltinsValid(t *testing.T) {
	t.Parallel()
	for _, n := range BuiltinNames() {
		p, ok := Builtin(n)
		if !ok {
			t.Fatalf("%s missing", n)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	if _, ok := Builtin("vbulletin"); ok {
		t.Error("unknown engine accepted")
	}
}

func TestThreadPageURL(t *testing.T) {
	t.Parallel()
	php, _ := Builtin("phpbb")
	my, _ := Builtin("mybb")
	cases := []struct {
		p    Profile
		page int
		want string
	}{
		{php, 1, "viewtopic.php?t=7"},
		{php, 2, "viewtopic.php?t=7&start=10"},
		{php, 3, "viewtopic.php?t=7&start=20"},
		{my, 1, "showthread.php?tid=7"},
		{my, 3, "showthread.php?tid=7&page=3"},
	}
	for _, c := range cases {
		if got := c.p.ThreadPageURL("7", c.page); got != c.want {
			t.Errorf("%s page %d = %q, want %q", c.p.Name, c.page, got, c.want)
		}
	}
	php.PostsPerPage = 25
	if got := php.ThreadPageURL("7", 3); got != "viewtopic.php?t=7&start=50" {
		t.Errorf("25 per page: %q", got)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, c := range [][3]string{
		{"http://h/forum", "viewtopic.php?t=1", "http://h/forum/viewtopic.php?t=1"},
		{"http://h/forum/", "./ucp.php?mode=login", "http://h/forum/ucp.php?mode=login"},
		{"http://h", "index.php", "http://h/index.php"},
	} {
		got, err := Resolve(c[0], c[1])
		if err != nil || got != c[2] {
			t.Errorf("Resolve(%q,%q) = %q %v, want %q", c[0], c[1], got, err, c[2])
		}
	}
}

func TestLoadProfileOverrides(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "board.yaml")
	os.WriteFile(path, []byte(`
base: phpbb
name: myboard
posts_per_page: 25
flood_seconds: 30
time_zone: Europe/Berlin
selectors:
  spoiler: "div.my-spoiler"
forms:
  reply:
    extra: {post: "Absenden"}
`), 0o644)
	p, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Builtin("phpbb")
	if p.Name != "myboard" || p.PostsPerPage != 25 || p.FloodSeconds != 30 || p.TimeZone != "Europe/Berlin" {
		t.Errorf("scalars not overridden: %+v", p)
	}
	if p.Selectors.Spoiler != "div.my-spoiler" || p.Selectors.Post != base.Selectors.Post || p.Selectors.Bold != base.Selectors.Bold {
		t.Errorf("selectors: spoiler %q post %q", p.Selectors.Spoiler, p.Selectors.Post)
	}
	if p.Forms.Reply.Extra["post"] != "Absenden" || p.Forms.Reply.Message != "message" {
		t.Errorf("form override: %+v", p.Forms.Reply)
	}
	// The built-in itself is untouched.
	again, _ := Builtin("phpbb")
	if again.Forms.Reply.Extra["post"] != "Submit" {
		t.Error("override leaked into the built-in")
	}
}

func TestLoadProfileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ yaml, want string }{
		{"base: vbulletin\n", "unknown base"},
		{"base: phpbb\ntime_zone: Mars/Olympus\n", "time_zone"},
		{"base: mybb\nselectors: {post_id_regexp: \"(\"}\n", "post_id_regexp"},
		{"base: mybb\nposts_per_page: 0\n", "posts_per_page"},
		{"base: [\n", "profile"},
	} {
		_, err := ParseProfile([]byte(c.yaml))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: err %v, want %q", c.yaml, err, c.want)
		}
	}
	if _, err := LoadProfile("/nonexistent/profile.yaml"); err == nil {
		t.Error("missing file accepted")
	}
}

// Each kind of page has the marks page_marks gives it, the rest from
// selectors, and says which key each came from (issue 44, point 5).
func TestMarksOf(t *testing.T) {
	p, _ := Builtin("phpbb")
	p.PageMarks.PMFolder = Marks{LoggedIn: `a[href*="folder=inbox"]`}
	p.PageMarks.PostForm = Marks{Error: "table.errorbox span.gen", PageEnd: "div#end"}
	m, key := p.MarksOf(PagePMFolder)
	if m.LoggedIn != `a[href*="folder=inbox"]` || key.LoggedIn != "page_marks.pm_folder.logged_in" ||
		m.PageEnd != p.Selectors.PageEnd || key.PageEnd != "selectors.page_end" || m.Error != p.Selectors.Error || key.Error != "selectors.error" {
		t.Errorf("pm_folder: %+v %+v", m, key)
	}
	m, key = p.MarksOf(PagePostForm)
	if m.Error != "table.errorbox span.gen" || key.Error != "page_marks.post_form.error" || key.PageEnd != "page_marks.post_form.page_end" || m.LoggedIn != p.Selectors.LoggedIn {
		t.Errorf("post_form: %+v %+v", m, key)
	}
	for _, k := range []PageKind{"", PageThread, PagePM, PagePMForm} {
		if m, key := p.MarksOf(k); m.LoggedIn != p.Selectors.LoggedIn || key.LoggedIn != "selectors.logged_in" {
			t.Errorf("%q: %+v %+v", k, m, key)
		}
	}
}
