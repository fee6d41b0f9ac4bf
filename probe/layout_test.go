package probe

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
)

// legacyRows is examples/legacy-rows.profile.yaml, the profile of
// forumsim's rows layout (issue 44), with edit applied to it.
func legacyRows(t *testing.T, edit func(p *forum.Profile)) forum.Profile {
	t.Helper()
	p, err := forum.LoadProfile(filepath.Join("..", "examples", "legacy-rows.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(&p)
	}
	return p
}

// The probe on the classic board of issue 44 (forumsim's rows layout:
// posts as three sibling rows with no container, members by name only, PM
// pages without a logout link, one message box for errors and successes)
// names the key a GM must set for each, and passes with the example
// profile, posting too.
func TestProbeNamesTheKeysOfAClassicBoard(t *testing.T) {
	t.Parallel()
	b := newSimWith(t, forumsim.Options{Layout: forumsim.LayoutRows}, true)

	// The built-in phpBB profile: no post matches.
	if c := check(t, b.probe(t, builtin("phpbb"), false), "thread.first"); c.Status != Fail || !strings.HasPrefix(c.Key, "selectors.post ") {
		t.Errorf("phpbb on the rows layout: %s %s (%s), want a fail naming selectors.post", c.Status, c.Key, c.Detail)
	}

	// The posts read, but no page marks: the PM pages show no logout link.
	r := b.probe(t, legacyRows(t, func(p *forum.Profile) { p.PageMarks = forum.PageMarks{} }), false)
	for _, id := range []string{"pm.inbox", "pm.sent"} {
		c := check(t, r, id)
		if c.Status != Fail || !strings.HasPrefix(c.Key, "selectors.logged_in ") || !strings.Contains(c.Fix, "page_marks.pm_folder.logged_in") {
			t.Errorf("%s without page marks: %s, key %q, fix %q; want a fail naming selectors.logged_in and page_marks.pm_folder.logged_in", id, c.Status, c.Key, c.Fix)
		}
	}
	if c := check(t, r, "form.pm"); c.Status != Fail || !strings.Contains(c.Fix, "page_marks.pm_form.logged_in") {
		t.Errorf("form.pm without page marks: %s, fix %q", c.Status, c.Fix)
	}

	// The example profile: every check passes, the posts' authors are
	// known by name (no "no user id" warning), and a test reply and PM go
	// through.
	r = b.probe(t, legacyRows(t, nil), true)
	if !r.OK {
		t.Fatalf("the example profile fails:\n%s", text(r))
	}
	for _, c := range r.Checks {
		if c.Status == Warn {
			t.Errorf("warning: %s: %s (%s)", c.ID, c.Detail, c.Key)
		}
	}
	if c := check(t, r, "posts.author_id"); c.Status != OK || !strings.Contains(c.Detail, "user_ids: names") {
		t.Errorf("author ids: %s %q", c.Status, c.Detail)
	}
	if len(r.Posts) == 0 || r.Posts[1].Author != "Alice" || r.Posts[1].AuthorID != "Alice" || len(r.Posts[1].Segments) != 1 {
		t.Errorf("posts read: %+v", r.Posts)
	}

	// The test PM is in the bot's sent folder now: read as one page of
	// unknown length, the probe says what to set.
	r = b.probe(t, legacyRows(t, func(p *forum.Profile) { p.URLs.SentOnePage = false }), false)
	if c := check(t, r, "pm.sent"); c.Status != Warn || !strings.HasPrefix(c.Key, "urls.sent_page ") || !strings.Contains(c.Fix, "urls.sent_one_page") {
		t.Errorf("a sent folder read as its first page only: %s, key %q, fix %q", c.Status, c.Key, c.Fix)
	}

	// A page end the PM pages lack is named where it is checked.
	r = b.probe(t, legacyRows(t, func(p *forum.Profile) { p.PageMarks.PMFolder.PageEnd = "div#pm-footer" }), false)
	if c := check(t, r, "pm.inbox"); c.Status != Fail || !strings.HasPrefix(c.Key, "page_marks.pm_folder.page_end ") {
		t.Errorf("a PM folder without its page end: %s, key %q", c.Status, c.Key)
	}
	r = b.probe(t, legacyRows(t, func(p *forum.Profile) { p.PageMarks.PM.PageEnd = "div#pm-footer" }), false)
	if c := check(t, r, "pm.inbox"); c.Status != Fail || !strings.HasPrefix(c.Key, "page_marks.pm.page_end ") {
		t.Errorf("a PM page without its page end: %s, key %q (%s)", c.Status, c.Key, c.Detail)
	}

	// Without user_ids: names the probe warns, and says what to set.
	r = b.probe(t, legacyRows(t, func(p *forum.Profile) { p.UserIDs = "" }), false)
	if c := check(t, r, "posts.author_id"); c.Status != Warn || !strings.Contains(c.Fix, "user_ids: names") {
		t.Errorf("author ids without user_ids: %s, fix %q", c.Status, c.Fix)
	}

	// An error mark that matches the board's one message box: its answer
	// to the test PM, a success the profile's sent_text does not know, is
	// caught, and the key named.
	r = b.probe(t, legacyRows(t, func(p *forum.Profile) {
		p.PageMarks.PMForm.Error = "span.gen"
		p.SentText = []string{"Your message was delivered"}
	}), true)
	if c := check(t, r, "post_test.pm"); c.Status != Fail || !strings.HasPrefix(c.Key, "page_marks.pm_form.error ") || !strings.Contains(c.Detail, "a success") {
		t.Errorf("an error mark matching the success page: %s, key %q, %q", c.Status, c.Key, c.Detail)
	}
}

// Posts a page are the bot account's own (issue 44, point 8): a thread
// whose full first page holds another count than the profile's fails,
// naming posts_per_page and the count to set.
func TestProbeNamesPostsPerPage(t *testing.T) {
	t.Parallel()
	b := newSimWith(t, forumsim.Options{PostsPerPage: 5}, true)
	c := check(t, b.probe(t, builtin("phpbb"), false), "thread.last")
	if c.Status != Fail || c.Key != "posts_per_page 10" || !strings.Contains(c.Fix, "posts_per_page: 5") {
		t.Errorf("5 posts a page, the profile 10: %s, key %q, fix %q", c.Status, c.Key, c.Fix)
	}
	p := builtin("phpbb")
	p.PostsPerPage = 5
	if c := check(t, b.probe(t, p, false), "thread.last"); c.Status != OK {
		t.Errorf("posts_per_page 5: %s %s", c.Status, c.Detail)
	}
}
