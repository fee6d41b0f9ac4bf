package parser

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
)

var update = flag.Bool("update", false, "rewrite golden files from the parser's output")

func mustProfile(t testing.TB, name string) forum.Profile {
	t.Helper()
	p, ok := forum.Builtin(name)
	if !ok {
		t.Fatalf("no built-in profile %q", name)
	}
	return p
}

// The golden files were written by hand from the engines' documented markup
// before the parser ran; -update only re-indents after a reviewed change.
func TestGolden(t *testing.T) {
	cases := []struct{ file, engine string }{
		{"phpbb30_thread", "phpbb"},
		{"phpbb33_thread", "phpbb"},
		{"phpbb_inbox", "phpbb"},
		{"phpbb_pm", "phpbb"},
		{"mybb_thread", "mybb"},
		{"mybb_inbox", "mybb"},
		{"mybb_pm", "mybb"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			page, err := os.ReadFile(filepath.Join("testdata", c.file+".html"))
			if err != nil {
				t.Fatal(err)
			}
			x := MustNew(mustProfile(t, c.engine))
			rep, err := x.MakeReport(page)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.MarshalIndent(rep, "", "  ")
			golden := filepath.Join("testdata", c.file+".golden.json")
			if *update {
				if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRaw, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			// Compare structurally so the hand-written layout may differ.
			var want, have any
			if err := json.Unmarshal(wantRaw, &want); err != nil {
				t.Fatalf("golden: %v", err)
			}
			_ = json.Unmarshal(got, &have)
			w, _ := json.MarshalIndent(want, "", "  ")
			h, _ := json.MarshalIndent(have, "", "  ")
			if !bytes.Equal(w, h) {
				t.Errorf("%s: got\n%s\nwant\n%s", c.file, h, w)
			}
		})
	}
}

// goquery matches nothing on a bad selector: every selector the built-in
// profiles rely on must match something in the fixtures.
func TestSelectorsMatchFixtures(t *testing.T) {
	type chk struct {
		file string
		sels map[string]string
	}
	php := mustProfile(t, "phpbb").Selectors
	my := mustProfile(t, "mybb").Selectors
	cases := map[string][]chk{
		"phpbb": {
			{"phpbb33_thread", map[string]string{"post": php.Post, "author": php.Author, "time": php.Time,
				"body": php.Body, "edit": php.EditNotice, "page_current": php.PageCurrent, "page_links": php.PageLinks,
				"logged_in": php.LoggedIn, "bold": php.Bold, "quote": php.Quote, "spoiler": php.Spoiler,
				"code": php.Code, "strike": php.Strike}},
			{"phpbb30_thread", map[string]string{"post": php.Post, "author": php.Author, "time": php.Time,
				"page_current": php.PageCurrent, "page_links": php.PageLinks, "bold": php.Bold, "edit": php.EditNotice}},
			{"phpbb_inbox", map[string]string{"inbox_row": php.InboxRow, "inbox_link": php.InboxLink,
				"inbox_from": php.InboxFrom, "inbox_time": php.InboxTime, "inbox_unread": php.InboxUnread}},
			{"phpbb_pm", map[string]string{"pm": php.PM, "pm_subject": php.PMSubject, "pm_from": php.PMFrom,
				"pm_time": php.PMTime, "pm_body": php.PMBody}},
		},
		"mybb": {
			{"mybb_thread", map[string]string{"post": my.Post, "author": my.Author, "time": my.Time,
				"time_title": my.TimeTitle, "time_strip": my.TimeStrip, "body": my.Body, "edit": my.EditNotice,
				"page_current": my.PageCurrent, "page_links": my.PageLinks, "logged_in": my.LoggedIn,
				"bold": my.Bold, "quote": my.Quote, "code": my.Code, "strike": my.Strike}},
			{"mybb_inbox", map[string]string{"inbox_row": my.InboxRow, "inbox_link": my.InboxLink,
				"inbox_from": my.InboxFrom, "inbox_time": my.InboxTime, "inbox_unread": my.InboxUnread}},
			{"mybb_pm", map[string]string{"pm": my.PM, "pm_subject": my.PMSubject, "pm_from": my.PMFrom,
				"pm_time": my.PMTime, "pm_body": my.PMBody}},
		},
	}
	for engine, list := range cases {
		for _, c := range list {
			page, err := os.ReadFile(filepath.Join("testdata", c.file+".html"))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Doc(page)
			if err != nil {
				t.Fatal(err)
			}
			for name, sel := range c.sels {
				m, err := compileSel(name, sel)
				if err != nil {
					t.Errorf("%s %s: %v", engine, name, err)
					continue
				}
				if doc.FindMatcher(m).Length() == 0 {
					t.Errorf("%s: selector %s %q matches nothing in %s", engine, name, sel, c.file)
				}
			}
		}
	}
}

func TestBadSelectorRefused(t *testing.T) {
	p := mustProfile(t, "phpbb")
	p.Selectors.Bold = "strong[[["
	if _, err := New(p); err == nil {
		t.Fatal("a profile with an invalid selector compiled")
	}
}

func TestSegments(t *testing.T) {
	php := mustProfile(t, "phpbb")
	my := mustProfile(t, "mybb")
	cases := []struct {
		name string
		p    forum.Profile
		body string
		want []string
	}{
		{"strong 3.3", php, `x <strong class="text-strong">VOTE: A</strong> y`, []string{"VOTE: A"}},
		{"plain strong 3.0 template", php, `<strong>VOTE: A</strong>`, []string{"VOTE: A"}},
		{"b", php, `<b>VOTE: A</b>`, []string{"VOTE: A"}},
		{"span bold", php, `<span style="font-weight: bold">VOTE: A</span>`, []string{"VOTE: A"}},
		{"span bold no space", php, `<span style="font-weight:bold">VOTE: A</span>`, []string{"VOTE: A"}},
		{"weight 700", php, `<span style="font-weight: 700">VOTE: A</span>`, []string{"VOTE: A"}},
		{"mycode", my, `<span style="font-weight: bold;" class="mycode_b">VOTE: A</span>`, []string{"VOTE: A"}},
		{"discourse", php, `<span class="bbcode-b">VOTE: A</span>`, []string{"VOTE: A"}},
		{"not bold", php, `<span style="font-style: italic">VOTE: A</span> <em>VOTE: B</em>`, nil},
		{"quoted next to real", php, `<blockquote><div><cite>A wrote:</cite><strong>VOTE: X</strong></div></blockquote><strong>VOTE: Y</strong>`, []string{"VOTE: Y"}},
		{"nested quotes", php, `<blockquote><div><blockquote><div><blockquote><div><strong>VOTE: X</strong></div></blockquote><strong>VOTE: X2</strong></div></blockquote></div></blockquote>ok`, nil},
		{"quote inside bold splits", php, `<strong>VOTE: <blockquote><div>X</div></blockquote> Y</strong>`, []string{"VOTE:", "Y"}},
		{"uncited quote", php, `<blockquote class="uncited"><div><strong>VOTE: X</strong></div></blockquote>`, nil},
		{"mybb quote", my, `<blockquote class="mycode_quote"><cite>A Wrote:</cite><span class="mycode_b">VOTE: X</span></blockquote>`, nil},
		{"spoiler", php, `<div class="spoiler"><div class="spoiler-title">S</div><div class="spoiler-content"><strong>VOTE: X</strong></div></div>`, nil},
		{"details spoiler", php, `<details><summary>s</summary><b>VOTE: X</b></details>`, nil},
		{"code", php, `<div class="codebox"><p>Code:</p><pre><code><strong>VOTE: X</strong></code></pre></div>`, nil},
		{"inline code", php, `<code><b>VOTE: X</b></code>`, nil},
		{"struck whole", php, `<span style="text-decoration: line-through"><strong>VOTE: X</strong></span>`, nil},
		{"struck inside", php, `<strong>VOTE: <s>X</s> Y</strong>`, []string{"VOTE: Y"}},
		{"del strike", php, `<del><b>VOTE: X</b></del><strike><b>VOTE: Z</b></strike>`, nil},
		{"two votes", php, `<strong>VOTE: A</strong> <strong>VOTE: B</strong>`, []string{"VOTE: A", "VOTE: B"}},
		{"br split", php, `<strong>VOTE: A<br>VOTE: B</strong>`, []string{"VOTE: A", "VOTE: B"}},
		{"br self-closing", php, `<strong>VOTE: A<br />  <br/>VOTE: B</strong>`, []string{"VOTE: A", "VOTE: B"}},
		{"nested bold", php, `<strong>VOTE: <b>A</b> now</strong>`, []string{"VOTE: A now"}},
		{"styled inside", php, `<strong><span style="color:red">VOTE</span>: <em>A</em></strong>`, []string{"VOTE: A"}},
		{"bold inside colour", php, `<span style="color: red"><strong>VOTE: A</strong></span>`, []string{"VOTE: A"}},
		{"whitespace", php, "<strong>\n  VOTE:\t\tA \u00a0 </strong>", []string{"VOTE: A"}},
		{"empty bold", php, `<strong> </strong><strong></strong>`, nil},
		{"non-ascii", php, `<strong>VOTE: Łukasz Ærøe</strong>`, []string{"VOTE: Łukasz Ærøe"}},
		{"escaped markup text", php, `<strong>VOTE: &lt;b&gt;X</strong>`, []string{"VOTE: <b>X"}},
		{"list items", php, `<strong><ul><li>A</li><li>B</li></ul></strong>`, []string{"A", "B"}},
		{"paragraphs", php, `<b><p>A</p><p>B</p></b>`, []string{"A", "B"}},
		{"broken html", php, `<strong>VOTE: A<blockquote><strong>X`, []string{"VOTE: A"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Segments(c.p, c.body)
			if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
				t.Errorf("Segments(%q) = %q, want %q", c.body, got, c.want)
			}
		})
	}
}

func TestLines(t *testing.T) {
	php := mustProfile(t, "phpbb")
	cases := []struct {
		body string
		want []string
	}{
		{"KILL Bob<br>PROTECT Carol", []string{"KILL Bob", "PROTECT Carol"}},
		{"<br><br>  one  <br>\n<br>", []string{"one"}},
		{`VOTE A<blockquote><div><cite>Bot wrote:</cite>VOTE B<br>VOTE C</div></blockquote>VOTE D`, []string{"VOTE A", "VOTE D"}},
		{`<strong>bold</strong> and not`, []string{"bold and not"}},
		{`<s>old</s>new`, []string{"new"}},
		{`a<div>b</div>c`, []string{"a", "b", "c"}},
		{"", nil},
	}
	for _, c := range cases {
		got := Lines(php, c.body)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Lines(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}

func TestFindForm(t *testing.T) {
	page := `<html><body>
<form id="login" method="post" action="./ucp.php?mode=login&amp;sid=abc">
<input type="text" name="username" value="">
<input type="password" name="password">
<input type="checkbox" name="autologin"> <input type="checkbox" name="viewonline" checked>
<input type="hidden" name="redirect" value="./index.php">
<input type="hidden" name="creation_time" value="1700000000" />
<input type="hidden" name="form_token" value="deadbeef" />
<input type="hidden" name="sid" value="abc">
<select name="lang"><option value="en">en</option><option value="de" selected>de</option></select>
<textarea name="note">hi</textarea>
<input type="submit" name="login" value="Login">
</form></body></html>`
	doc, _ := Doc([]byte(page))
	f, err := FindForm(doc, "http://board.test/forum/ucp.php?mode=login", `form#login`)
	if err != nil {
		t.Fatal(err)
	}
	if f.Action != "http://board.test/forum/ucp.php?mode=login&sid=abc" || f.Method != "POST" {
		t.Errorf("action/method = %q %q", f.Action, f.Method)
	}
	for k, want := range map[string]string{"creation_time": "1700000000", "form_token": "deadbeef", "sid": "abc",
		"redirect": "./index.php", "viewonline": "on", "lang": "de", "note": "hi", "username": ""} {
		if got := f.Values.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	for _, k := range []string{"autologin", "login"} {
		if f.Values.Has(k) {
			t.Errorf("%s should not be submitted by default", k)
		}
	}
	if _, err := FindForm(doc, "http://board.test/", "form#nope"); err == nil {
		t.Error("missing form not reported")
	}
}

func TestFloodWait(t *testing.T) {
	for _, tc := range []struct {
		engine, page string
		flood        bool
		want         FloodNotice
	}{
		{"phpbb", `<div id="message"><p>You cannot make another post so soon after your last.</p></div>`, true, FloodNotice{}},
		// MyBB 1.8 names the seconds left (datahandler_post.lang.php).
		{"mybb", `<div class="error">You are trying to post a message too quickly after posting a previous message. Please wait 57 more seconds.</div>`, true, FloodNotice{Left: 57 * time.Second}},
		{"mybb", `<div class="error">You are trying to send a message too quickly after sending a previous message. Please wait 1 more second.</div>`, true, FloodNotice{Left: time.Second}},
		// Older MyBB texts name the interval.
		{"mybb", `<div class="error">We are sorry but we cannot process your post. The administrator has specified you are only allowed to post once every 60 seconds.</div>`, true, FloodNotice{Interval: 60 * time.Second}},
		{"mybb", `<p>Posted.</p>`, false, FloodNotice{}},
		{"smf", `<div class="errorbox">Your last posting was less than 15 seconds ago. Please try again later.</div>`, true, FloodNotice{Interval: 15 * time.Second}},
	} {
		doc, _ := Doc([]byte(tc.page))
		if ok, n := MustNew(mustProfile(t, tc.engine)).FloodWait(doc); ok != tc.flood || n != tc.want {
			t.Errorf("%s %q: flood %v %+v, want %v %+v", tc.engine, tc.page, ok, n, tc.flood, tc.want)
		}
	}
}

// Textual times are read in the profile's time zone; attributes are UTC.
func TestTimeZone(t *testing.T) {
	my := mustProfile(t, "mybb")
	my.TimeZone = "Europe/Berlin"
	page, _ := os.ReadFile(filepath.Join("testdata", "mybb_thread.html"))
	th, err := MustNew(my).ParseThread(page)
	if err != nil {
		t.Fatal(err)
	}
	if got := th.Posts[0].Time.Format(time.RFC3339); got != "2026-11-30T09:05:00Z" {
		t.Errorf("MyBB Berlin time = %s", got)
	}
	php := mustProfile(t, "phpbb")
	php.TimeZone = "America/New_York"
	page, _ = os.ReadFile(filepath.Join("testdata", "phpbb30_thread.html"))
	th, _ = MustNew(php).ParseThread(page)
	if got := th.Posts[0].Time.Format(time.RFC3339); got != "2026-11-30T14:05:00Z" {
		t.Errorf("phpBB 3.0 New York time = %s", got)
	}
	page, _ = os.ReadFile(filepath.Join("testdata", "phpbb33_thread.html"))
	th, _ = MustNew(php).ParseThread(page)
	if got := th.Posts[0].Time.Format(time.RFC3339); got != "2026-11-30T10:00:00Z" {
		t.Errorf("datetime attribute must ignore the zone: %s", got)
	}
}
