package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/scraper"
)

type simBoard struct {
	sim   *forumsim.Server
	url   string
	topic string
	clk   *clock.Fake
}

// newSim is a forumsim board with a short game thread (12 posts: two
// pages), a player's PM in the bot's inbox, and the bot (exempt or not).
func newSim(t *testing.T, theme forumsim.Theme, exempt bool) *simBoard {
	t.Helper()
	return newSimWith(t, forumsim.Options{Theme: theme}, exempt)
}

// newSimWith is newSim on a board with opts (its clock and NoPostReview
// set here).
func newSimWith(t *testing.T, opts forumsim.Options, exempt bool) *simBoard {
	t.Helper()
	clk := clock.NewFake(time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC))
	opts.Clock, opts.NoPostReview = clk, true
	sim := forumsim.New(opts)
	bot, _ := sim.AddUser("GM Bot", "botpw", exempt)
	alice, _ := sim.AddUser("Alice", "a", false)
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Game", "Welcome. Votes in [b]bold[/b].")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 11; i++ {
		clk.Advance(time.Minute)
		sim.Post(topic, alice, "[b]VOTE: Bob "+strconv.Itoa(i)+"[/b] [quote]not [b]this[/b][/quote]")
	}
	sim.SendPM(alice, []int{bot}, "orders", "INVADE Bob")
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return &simBoard{sim: sim, url: srv.URL + "/", topic: strconv.Itoa(topic), clk: clk}
}

func (b *simBoard) probe(t *testing.T, prof forum.Profile, postTest bool) *Report {
	t.Helper()
	return b.run(t, prof, postTest, nil)
}

// probeWith probes without posting through a transport that rewrites the
// board's answers.
func (b *simBoard) probeWith(t *testing.T, prof forum.Profile, rt http.RoundTripper) *Report {
	t.Helper()
	return b.run(t, prof, false, rt)
}

func (b *simBoard) run(t *testing.T, prof forum.Profile, postTest bool, rt http.RoundTripper) *Report {
	t.Helper()
	r, err := Run(context.Background(), Config{URL: b.url, Profile: prof, Thread: b.topic,
		Creds: forum.Credentials{Username: "GM Bot", Password: "botpw"}, PostTest: postTest,
		Scraper: scraper.Options{Clock: b.clk, MinInterval: time.Millisecond, Retries: 1, Transport: rt}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func check(t *testing.T, r *Report, id string) Check {
	t.Helper()
	for _, c := range r.Checks {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no check %s in %+v", id, r.Checks)
	return Check{}
}

func text(r *Report) string {
	var b bytes.Buffer
	r.WriteText(&b)
	return b.String()
}

func builtin(name string) forum.Profile {
	p, _ := forum.Builtin(name)
	return p
}

func TestProbeSimAllGreen(t *testing.T) {
	t.Parallel()
	b := newSim(t, forumsim.Theme{}, true)
	r := b.probe(t, builtin("phpbb"), false)
	out := text(r)
	if !r.OK {
		t.Fatalf("not all green:\n%s", out)
	}
	for _, id := range []string{"login", "thread.first", "thread.last", "posts.author", "posts.author_id", "posts.time", "posts.body", "pm.inbox", "pm.sent", "form.reply", "form.pm"} {
		if c := check(t, r, id); c.Status != OK {
			t.Errorf("%s: %s %s\n%s", id, c.Status, c.Detail, out)
		}
	}
	if c := check(t, r, "flood"); c.Status != Unknown || !strings.Contains(c.Detail, "unknown until the first post") {
		t.Errorf("flood without posting: %+v", c)
	}
	// First and last page: 10 + 2 posts, each with its one bold vote.
	if len(r.Posts) != 12 || r.Posts[0].Author != "GM Bot" || r.Posts[11].Page != 2 {
		t.Fatalf("posts: %+v", r.Posts)
	}
	if p := r.Posts[11]; p.Author != "Alice" || p.Precision != "exact" || p.Time != "2026-11-30T18:11:00Z" || len(p.Segments) != 1 || p.Segments[0] != "VOTE: Bob 11" {
		t.Errorf("last post: %+v", p)
	}
	if c := check(t, r, "pm.inbox"); !strings.Contains(c.Detail, "from Alice") {
		t.Errorf("inbox PM not read back: %+v", c)
	}
	for _, want := range []string{"ok    login", "#", "command: VOTE: Bob 11", "everything a game needs works"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	// Nothing was posted or sent.
	if n := len(b.sim.Posts(mustAtoi(b.topic))); n != 12 {
		t.Errorf("the probe changed the thread: %d posts", n)
	}
}

func mustAtoi(s string) int { n, _ := strconv.Atoi(s); return n }

// TestProbeRenamedTheme: the built-in profile on a board whose theme
// renamed the post container fails, naming the selector and showing the
// renamed container; the example profile file passes.
func TestProbeRenamedTheme(t *testing.T) {
	t.Parallel()
	b := newSim(t, forumsim.RenamedTheme, true)
	r := b.probe(t, builtin("phpbb"), false)
	out := text(r)
	if r.OK {
		t.Fatalf("all green on a theme the profile cannot read:\n%s", out)
	}
	c := check(t, r, "thread.first")
	if c.Status != Fail || c.Key != `selectors.post "div.post"` || !strings.HasPrefix(c.Found, `<div id="p1" class="topic-entry has-profile`) || len(c.Found) > 220 {
		t.Errorf("thread.first: %+v", c)
	}
	for _, want := range []string{"FAIL  thread, first page", `key:   selectors.post "div.post"`, `found: <div id="p1" class="topic-entry`, "fix:", "a game cannot run here yet: thread, first page, thread, last page"} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}

	// Only the author selector wrong: named, with the byline shown.
	prof := builtin("phpbb")
	prof.Selectors.Post = "div.topic-entry"
	r = b.probe(t, prof, false)
	c = check(t, r, "posts.author")
	if r.OK || c.Status != Fail || c.Key != `selectors.author "p.author strong"` || !strings.Contains(c.Found, `<span class="poster-name"><a `) {
		t.Errorf("posts.author: %+v\n%s", c, text(r))
	}

	ex, err := forum.LoadProfile(filepath.Join("..", "examples", "renamed-theme.profile.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if r := b.probe(t, ex, false); !r.OK {
		t.Errorf("the example profile on the renamed theme:\n%s", text(r))
	}
}

// TestProbePostTest: the reply and the PM to itself are confirmed by their
// markers; a bot the board holds to its flood interval is reported as not
// exempt.
func TestProbePostTest(t *testing.T) {
	t.Parallel()
	for _, exempt := range []bool{true, false} {
		b := newSim(t, forumsim.Theme{}, exempt)
		r := b.probe(t, builtin("phpbb"), true)
		out := text(r)
		if !r.OK {
			t.Fatalf("exempt %v:\n%s", exempt, out)
		}
		if c := check(t, r, "post_test.reply"); c.Status != OK || !strings.Contains(c.Detail, "found it again by its marker") {
			t.Errorf("reply: %+v", c)
		}
		if c := check(t, r, "post_test.pm"); c.Status != OK || !strings.Contains(c.Detail, "in the inbox as PM") || !strings.Contains(c.Detail, "from GM Bot") {
			t.Errorf("pm: %+v", c)
		}
		flood := check(t, r, "flood")
		if exempt && flood.Status != Unknown || !exempt && (flood.Status != Warn || !strings.Contains(flood.Detail, "not exempt")) {
			t.Errorf("exempt %v: flood %+v", exempt, flood)
		}
		if n := len(b.sim.Posts(mustAtoi(b.topic))); n != 13 {
			t.Errorf("posts after the test: %d, want 13", n)
		}
	}
}

func TestProbeFailures(t *testing.T) {
	t.Parallel()
	b := newSim(t, forumsim.Theme{}, true)
	// A wrong password: login fails, the rest is skipped.
	r, err := Run(context.Background(), Config{URL: b.url, Profile: builtin("phpbb"), Thread: b.topic,
		Creds: forum.Credentials{Username: "GM Bot", Password: "wrong"}, Scraper: scraper.Options{Clock: b.clk, MinInterval: time.Millisecond, Retries: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if c := check(t, r, "login"); r.OK || c.Status != Fail || !strings.Contains(c.Fix, "check the bot's user name and password") {
		t.Errorf("wrong password: %+v", c)
	}
	if c := check(t, r, "form.pm"); c.Status != Skipped || !c.Needed {
		t.Errorf("after a failed login: %+v", c)
	}
	// A wrong thread id.
	b.topic = "999"
	r = b.probe(t, builtin("phpbb"), false)
	if c := check(t, r, "thread.first"); r.OK || c.Status != Fail || !strings.Contains(c.Found, "does not exist") {
		t.Errorf("no such thread: %+v\n%s", c, text(r))
	}
	// A form field the board's form does not have.
	b.topic = "1"
	prof := builtin("phpbb")
	prof.Forms.Reply.Message = "body"
	r = b.probe(t, prof, false)
	if c := check(t, r, "form.reply"); r.OK || c.Status != Fail || c.Key != `forms.reply.message "body"` || !strings.Contains(c.Found, "message") {
		t.Errorf("missing field: %+v", c)
	}
	// A footer the theme does not have: every page would look cut short.
	prof = builtin("phpbb")
	prof.Selectors.PageEnd = "div#footer"
	r = b.probe(t, prof, false)
	if c := check(t, r, "thread.last"); r.OK || c.Status != Fail || c.Key != `selectors.page_end "div#footer"` || !strings.Contains(c.Found, "page-footer") {
		t.Errorf("missing footer: %+v", c)
	}
	// A sent folder that is no sent folder (issue 22 item 8): a PM
	// missing from it would prove nothing, and probe says so.
	prof = builtin("phpbb")
	prof.URLs.Sent = "index.php"
	r = b.probe(t, prof, false)
	if c := check(t, r, "pm.sent"); r.OK || c.Status != Fail || !strings.HasPrefix(c.Key, "selectors.sent_folder ") || !strings.Contains(c.Detail, "never sent again") {
		t.Errorf("urls.sent not the sent folder: %+v", c)
	}
	if c := check(t, b.probe(t, builtin("phpbb"), false), "pm.sent"); c.Status != OK {
		t.Errorf("the real sent folder: %+v", c)
	}
	// An inbox that is no inbox (issue 22 item 7): a page without PMs,
	// and the board's private messages turned off.
	prof = builtin("phpbb")
	prof.URLs.Inbox = "index.php"
	r = b.probe(t, prof, false)
	if c := check(t, r, "pm.inbox"); r.OK || c.Status != Fail || !strings.HasPrefix(c.Key, "selectors.inbox_folder ") || !strings.Contains(c.Detail, "not the bot's PM inbox") {
		t.Errorf("urls.inbox at the index: %+v", c)
	}
	b.sim.SetPMsDisabled(true)
	r = b.probe(t, builtin("phpbb"), false)
	if c := check(t, r, "pm.inbox"); r.OK || c.Status != Fail || !strings.Contains(c.Detail, "503") {
		t.Errorf("PMs turned off: %+v", c)
	}
	b.sim.SetPMsDisabled(false)
}

// TestReportJSON: the shape scripts read.
func TestReportJSON(t *testing.T) {
	t.Parallel()
	b := newSim(t, forumsim.RenamedTheme, true)
	data, _ := json.Marshal(b.probe(t, builtin("phpbb"), false))
	var v struct {
		Board, Profile, Thread, Bot string
		OK                          *bool
		PostTest                    *bool `json:"post_test"`
		Checks                      []map[string]any
		Posts                       []any
	}
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if v.OK == nil || *v.OK || v.PostTest == nil || v.Profile != "phpbb" || v.Bot != "GM Bot" || v.Posts == nil || len(v.Checks) < 8 {
		t.Fatalf("report: %s", data)
	}
	for _, c := range v.Checks {
		for _, k := range []string{"id", "title", "status", "needed"} {
			if _, ok := c[k]; !ok {
				t.Errorf("check without %s: %v", k, c)
			}
		}
		if c["id"] == "thread.first" && (c["key"] == nil || c["found"] == nil || c["fix"] == nil) {
			t.Errorf("failed check without key/found/fix: %v", c)
		}
	}
}

func TestClip(t *testing.T) {
	t.Parallel()
	long := "<div>\n\t" + strings.Repeat("x", 300) + "</div>"
	if got := clip(long); !strings.HasPrefix(got, "<div> xxx") || !strings.HasSuffix(got, "…") || len([]rune(got)) != 201 {
		t.Errorf("clip long: %q", got)
	}
	if got := clip("a\x00b\u200bc"); got != `a\x00b\u200bc` {
		t.Errorf("clip control: %q", got)
	}
}

func TestCaptchaField(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ form, want string }{
		{`<input name="subject"><input name="g-recaptcha-response">`, `input[name="g-recaptcha-response"]`},
		{`<div id="captcha_box"><input name="code"></div>`, `div#captcha_box`},
		{`<div class="row cf-turnstile"></div>`, `div.cf-turnstile`},
		{`<input name="pm_vv[code]"><img id="verification_image_pm" src="/index.php?action=verificationcode;vid=pm;rand=ab12">`, `img[src*="verificationcode"]`},
		{`<p>Type the captcha</p><input name="answer">`, ``},
	} {
		doc, err := goquery.NewDocumentFromReader(strings.NewReader("<form>" + tc.form + "</form>"))
		if err != nil {
			t.Fatal(err)
		}
		if got := captchaField(doc.Find("form")); got != tc.want {
			t.Errorf("%s: got %s, want %s", tc.form, got, tc.want)
		}
	}
}
