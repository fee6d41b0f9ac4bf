package forumsim

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// replyForm opens the reply form of the board's topic.
func (c *client) replyForm(tid int) (string, url.Values) {
	c.b.t.Helper()
	p := c.get(fmt.Sprintf("posting.php?mode=reply&t=%d", tid))
	act, v := p.form(c.b.t, "postform")
	return act, v
}

func urlValues(v url.Values) url.Values {
	out := url.Values{}
	for k, xs := range v {
		out[k] = append([]string(nil), xs...)
	}
	return out
}

// reply submits a reply through the form after waiting wait.
func (c *client) reply(tid int, msg string, wait time.Duration) page {
	c.b.t.Helper()
	act, v := c.replyForm(tid)
	vals := urlValues(v)
	vals.Set("message", msg)
	vals.Set("post", "Submit")
	c.b.clk.Advance(wait)
	return c.post(act, vals)
}

func TestReplyForm(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(3)
	c := b.client()
	c.login("Alice")
	p := c.get(fmt.Sprintf("posting.php?mode=reply&t=%d", tid))
	act, v := p.form(t, "postform")
	if act != fmt.Sprintf("%s/posting.php?mode=reply&t=%d", b.ts.URL, tid) {
		t.Errorf("action %s", act)
	}
	for f, want := range map[string]string{"subject": "Re: Game 1", "message": "", "topic_cur_post_id": "3"} {
		if got, ok := v[f]; !ok || got[0] != want {
			t.Errorf("field %s = %v, want %q", f, got, want)
		}
	}
	if v.Get("creation_time") == "" || v.Get("form_token") == "" {
		t.Error("no form token")
	}
	if attr(byID(p.doc, "postform"), "enctype") != "multipart/form-data" {
		t.Error("prosilver's posting form is multipart")
	}
	// The quick reply on the topic page carries the same hidden fields.
	q := c.get(fmt.Sprintf("viewtopic.php?t=%d", tid))
	_, qv := q.form(t, "qr_postform")
	if qv.Get("topic_cur_post_id") != "3" || qv.Get("topic_id") != fmt.Sprint(tid) || qv.Get("form_token") == "" {
		t.Errorf("quick reply fields %v", qv)
	}
}

func TestReply(t *testing.T) {
	tests := []struct {
		name    string
		msg     string
		wait    time.Duration
		wantErr string
	}{
		{"ok", "I agree. [b]vote Bob[/b]", time.Second, ""},
		{"same second", "fast", 0, MsgFormInvalid},
		{"empty message", "  \n ", time.Second, MsgTooFewChars},
		{"too long", strings.Repeat("x", maxPostChars+1), time.Second, "The maximum number of allowed characters is 60000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t, Options{})
			tid := b.thread(3)
			c := b.client()
			c.login("Alice")
			r := c.reply(tid, tc.msg, tc.wait)
			posts := b.s.Posts(tid)
			if tc.wantErr != "" {
				if r.status != 200 || !strings.Contains(errorText(r), tc.wantErr) {
					t.Fatalf("want p.error %q, got %d %q", tc.wantErr, r.status, errorText(r))
				}
				if len(sel(r.doc, "p", "error")) != 1 {
					t.Error("error must be in p.error")
				}
				if _, v := r.form(t, "postform"); v.Get("message") != tc.msg {
					t.Error("the error page must keep the message")
				}
				if len(posts) != 3 {
					t.Error("a refused reply was stored")
				}
				return
			}
			last := posts[len(posts)-1]
			want := fmt.Sprintf("%s/viewtopic.php?p=%d#p%d", b.ts.URL, last.ID, last.ID)
			if r.status != http.StatusFound || r.loc != want {
				t.Fatalf("status %d loc %q, want %q (%s)", r.status, r.loc, want, errorText(r))
			}
			if last.Source != tc.msg || !strings.Contains(last.HTML, `<strong class="text-strong">vote Bob</strong>`) || last.AuthorID != b.ids["Alice"] {
				t.Errorf("stored post %+v", last)
			}
			page := c.get(strings.TrimPrefix(r.loc, b.ts.URL+"/"))
			if byID(page.doc, fmt.Sprintf("p%d", last.ID)) == nil {
				t.Error("redirect target does not show the post")
			}
		})
	}
}

func TestTokenSingleUse(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(1)
	c := b.client()
	c.login("Staff") // exempt, so only the token can refuse
	act, v := c.replyForm(tid)
	vals := urlValues(v)
	vals.Set("message", "once")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	if r := c.post(act, vals); r.status != http.StatusFound {
		t.Fatalf("first submit: %d %s", r.status, errorText(r))
	}
	b.clk.Advance(time.Minute)
	vals.Set("topic_cur_post_id", fmt.Sprint(b.s.Posts(tid)[1].ID))
	r := c.post(act, vals)
	if !strings.Contains(errorText(r), MsgFormInvalid) {
		t.Errorf("reused token accepted: %d %q", r.status, errorText(r))
	}
	// A token from another session is refused too.
	other := b.client()
	other.login("Bob")
	b.clk.Advance(time.Minute)
	act2, v2 := other.replyForm(tid)
	vals2 := urlValues(v2)
	vals2.Set("message", "stolen")
	vals2.Set("post", "Submit")
	b.clk.Advance(time.Second)
	if r := c.post(act2, vals2); !strings.Contains(errorText(r), MsgFormInvalid) {
		t.Error("a token of another session was accepted")
	}
	if n := len(b.s.Posts(tid)); n != 2 {
		t.Errorf("%d posts, want 2", n)
	}
}

func TestFloodControl(t *testing.T) {
	tests := []struct {
		name     string
		user     string
		interval time.Duration // 0: default 15 s
		gap      time.Duration // between the two submits (each form waits 1 s more)
		flood    bool
	}{
		{"within 15 s", "Alice", 0, 5 * time.Second, true},
		{"just under", "Alice", 0, 13 * time.Second, true},
		{"after 15 s", "Alice", 0, 14 * time.Second, false},
		{"exempt group", "Staff", 0, 0, false},
		{"configured 60 s", "Bob", 60 * time.Second, 30 * time.Second, true},
		{"turned off", "Bob", -1, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoard(t, Options{FloodInterval: tc.interval})
			tid := b.thread(1)
			c := b.client()
			c.login(tc.user)
			if r := c.reply(tid, "first", time.Second); r.status != http.StatusFound {
				t.Fatalf("first reply: %s", errorText(r))
			}
			b.clk.Advance(tc.gap)
			r := c.reply(tid, "second", time.Second)
			if tc.flood {
				if r.status != 200 || errorText(r) != MsgFlood {
					t.Fatalf("want flood error, got %d %q", r.status, errorText(r))
				}
				// Waiting out the interval and resubmitting the new form works.
				act, v := r.form(t, "postform")
				vals := urlValues(v)
				vals.Set("post", "Submit")
				b.clk.Advance(time.Minute)
				if r2 := c.post(act, vals); r2.status != http.StatusFound {
					t.Errorf("after waiting: %d %q", r2.status, errorText(r2))
				}
				return
			}
			if r.status != http.StatusFound {
				t.Fatalf("unexpected refusal %q", errorText(r))
			}
		})
	}
}

func TestSetFloodIntervalAndExempt(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(1)
	c := b.client()
	c.login("Alice")
	c.reply(tid, "one", time.Second)
	b.s.SetFloodInterval(0)
	if r := c.reply(tid, "two", time.Second); r.status != http.StatusFound {
		t.Errorf("flood off: %q", errorText(r))
	}
	b.s.SetFloodInterval(30 * time.Second)
	if r := c.reply(tid, "three", time.Second); errorText(r) != MsgFlood {
		t.Errorf("flood back on: %q", errorText(r))
	}
	if err := b.s.SetExempt(b.ids["Alice"], true); err != nil {
		t.Fatal(err)
	}
	if r := c.reply(tid, "four", time.Second); r.status != http.StatusFound {
		t.Errorf("exempt: %q", errorText(r))
	}
}

func TestPostReview(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(2)
	c := b.client()
	c.login("Alice")
	act, v := c.replyForm(tid)
	// Bob posts while Alice types.
	b.clk.Advance(5 * time.Second)
	bobs, _ := b.s.Post(tid, b.ids["Bob"], "[b]vote Alice[/b]")
	vals := urlValues(v)
	vals.Set("message", "mine")
	vals.Set("post", "Submit")
	r := c.post(act, vals)
	if r.status != 200 || !strings.Contains(r.body, MsgPostReview) || len(b.s.Posts(tid)) != 3 {
		t.Fatalf("want the post review page, got %d", r.status)
	}
	if byID(r.doc, fmt.Sprintf("ppr%d", bobs)) == nil || byID(r.doc, fmt.Sprintf("p%d", bobs)) != nil {
		t.Error("review shows the new post as #ppr{ID}, never #p{ID}")
	}
	act, v = r.form(t, "postform")
	if v.Get("topic_cur_post_id") != fmt.Sprint(bobs) || v.Get("message") != "mine" {
		t.Errorf("review form fields %v", v)
	}
	vals = urlValues(v)
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	if r := c.post(act, vals); r.status != http.StatusFound {
		t.Errorf("resubmit after review: %q", errorText(r))
	}
	// Without topic_cur_post_id (or with post review off) there is no review.
	b2 := newBoard(t, Options{NoPostReview: true})
	tid2 := b2.thread(2)
	c2 := b2.client()
	c2.login("Alice")
	act, v = c2.replyForm(tid2)
	b2.s.Post(tid2, b2.ids["Bob"], "x")
	vals = urlValues(v)
	vals.Set("message", "mine")
	vals.Set("post", "Submit")
	b2.clk.Advance(time.Second)
	if r := c2.post(act, vals); r.status != http.StatusFound {
		t.Errorf("NoPostReview: %d", r.status)
	}
}

func TestNewTopicAndQuote(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(2)
	c := b.client()
	c.login("GM Bot")
	p := c.get(fmt.Sprintf("posting.php?mode=post&f=%d", b.forum))
	act, v := p.form(t, "postform")
	vals := urlValues(v)
	vals.Set("message", "Sign up here")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	if r := c.post(act, vals); !strings.Contains(errorText(r), MsgEmptySubject) {
		t.Errorf("want empty subject error, got %q", errorText(r))
	}
	act, v = c.get(fmt.Sprintf("posting.php?mode=post&f=%d", b.forum)).form(t, "postform")
	vals = urlValues(v)
	vals.Set("subject", "Resistance #1")
	vals.Set("message", "Sign up here")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	r := c.post(act, vals)
	if r.status != http.StatusFound || len(b.s.Topics(b.forum)) != 2 {
		t.Fatalf("new topic: %d %q", r.status, errorText(r))
	}
	// Quote prefills phpBB 3.2+'s quote attributes.
	b.clk.Advance(time.Minute)
	first := b.s.Posts(tid)[0]
	_, qv := c.get(fmt.Sprintf("posting.php?mode=quote&p=%d", first.ID)).form(t, "postform")
	want := fmt.Sprintf("[quote=\"Alice\" post_id=%d time=%d user_id=%d]\n%s\n[/quote]\n", first.ID, first.Time.Unix(), first.AuthorID, first.Source)
	if qv.Get("message") != want {
		t.Errorf("quote prefill %q, want %q", qv.Get("message"), want)
	}
}

func notice(p page, id int) string {
	post := byID(p.doc, fmt.Sprintf("p%d", id))
	if post == nil {
		return "<no post>"
	}
	if n := sel(post, "div", "notice"); len(n) > 0 {
		return strings.Join(strings.Fields(text(n[0])), " ")
	}
	return ""
}

func TestEditNoticeQuirk(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(3)
	posts := b.s.Posts(tid)
	alice, bob := b.ids["Alice"], b.ids["Bob"]
	_ = b.s.SetModerator(b.ids["Staff"], true)
	staff := b.ids["Staff"]
	tests := []struct {
		name   string
		post   int
		editor int
		reason string
		want   string // notice text, "" for none
	}{
		{"own post, not last", posts[0].ID, alice, "", "Last edited by Alice on Mon Nov 30, 2026 11:05 am, edited 1 time in total."},
		{"again", posts[0].ID, alice, "", "Last edited by Alice on Mon Nov 30, 2026 11:05 am, edited 2 times in total."},
		{"own last post: no notice", posts[2].ID, alice, "", ""},
		{"last post with a reason", posts[2].ID, alice, "typo", "Last edited by Alice on Mon Nov 30, 2026 11:05 am, edited 1 time in total."},
		{"moderator, no reason", posts[1].ID, staff, "", ""},
		{"moderator with reason", posts[1].ID, staff, "rules", "Last edited by Staff on Mon Nov 30, 2026 11:05 am, edited 1 time in total."},
	}
	_ = bob
	b.clk.Set(t0.Add(5 * time.Minute))
	c := b.client()
	for _, tc := range tests {
		if err := b.s.Edit(tc.post, tc.editor, "edited [b]vote Carol[/b]", tc.reason); err != nil {
			t.Fatal(err)
		}
		p := c.get(fmt.Sprintf("viewtopic.php?t=%d", tid))
		if got := notice(p, tc.post); got != tc.want {
			t.Errorf("%s: notice %q, want %q", tc.name, got, tc.want)
		}
		if got, _ := b.s.GetPost(tc.post); !strings.Contains(got.HTML, "vote Carol") || got.Edited == 0 {
			t.Errorf("%s: body not changed", tc.name)
		}
	}
	// The notice is outside div.content.
	p := c.get(fmt.Sprintf("viewtopic.php?t=%d", tid))
	for _, n := range sel(p.doc, "div", "notice") {
		if inside(n, "div", "content") {
			t.Error("notice inside content")
		}
	}
}

func TestEditForm(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(3)
	first := b.s.Posts(tid)[0]
	c := b.client()
	c.login("Alice")
	p := c.get(fmt.Sprintf("posting.php?mode=edit&p=%d", first.ID))
	act, v := p.form(t, "postform")
	if v.Get("message") != first.Source {
		t.Errorf("edit form message %q", v.Get("message"))
	}
	if _, ok := v["edit_reason"]; !ok {
		t.Error("edit form lacks edit_reason")
	}
	vals := urlValues(v)
	vals.Set("message", "[b]vote nobody[/b]")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	r := c.post(act, vals)
	if r.status != http.StatusFound || r.loc != fmt.Sprintf("%s/viewtopic.php?p=%d#p%d", b.ts.URL, first.ID, first.ID) {
		t.Fatalf("edit: %d %q %q", r.status, r.loc, errorText(r))
	}
	got, _ := b.s.GetPost(first.ID)
	if got.Source != "[b]vote nobody[/b]" || got.EditCount != 1 {
		t.Errorf("after edit %+v", got)
	}
	// Edits are not flood-limited, but Bob cannot edit Alice's post.
	c2 := b.client()
	c2.login("Bob")
	if r := c2.get(fmt.Sprintf("posting.php?mode=edit&p=%d", first.ID)); r.status != http.StatusForbidden {
		t.Errorf("Bob editing Alice's post: %d", r.status)
	}
}

func TestDelete(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(3) // Alice, Bob, Alice
	posts := b.s.Posts(tid)
	c := b.client()
	c.login("Bob")
	// Bob's post has been replied to: refused.
	if r := c.get(fmt.Sprintf("posting.php?mode=delete&p=%d", posts[1].ID)); r.status != http.StatusForbidden || !strings.Contains(r.body, MsgCannotDelete) {
		t.Errorf("deleting a replied-to post: %d", r.status)
	}
	a := b.client()
	a.login("Alice")
	del := func(cl *client, id int, tamper bool) page {
		p := cl.get(fmt.Sprintf("posting.php?mode=delete&p=%d", id))
		act, v := p.form(t, "confirm")
		vals := urlValues(v)
		vals.Set("confirm", "Yes")
		if tamper {
			act = strings.Replace(act, "confirm_key=", "confirm_key=X", 1)
		}
		return cl.post(act, vals)
	}
	if r := del(a, posts[2].ID, true); r.status != http.StatusBadRequest {
		t.Errorf("wrong confirm_key accepted: %d", r.status)
	}
	r := del(a, posts[2].ID, false)
	if r.status != 200 || !strings.Contains(text(byID(r.doc, "message")), MsgPostDeleted) {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if _, ok := b.s.GetPost(posts[2].ID); ok || len(b.s.Posts(tid)) != 2 {
		t.Error("post not deleted")
	}
	if p := a.get(fmt.Sprintf("viewtopic.php?p=%d", posts[2].ID)); p.status != 404 {
		t.Error("deleted post still reachable")
	}
	// Now Bob's post is the last one: he may delete it.
	if r := del(c, posts[1].ID, false); r.status != 200 {
		t.Errorf("Bob deleting his last post: %d", r.status)
	}
	// A moderator may delete any post; the API deletes too.
	_ = b.s.SetModerator(b.ids["Staff"], true)
	m := b.client()
	m.login("Staff")
	if r := del(m, posts[0].ID, false); r.status != 200 {
		t.Errorf("moderator delete: %d", r.status)
	}
	if len(b.s.Topics(b.forum)) != 0 {
		t.Error("a topic without posts must go")
	}
	if err := b.s.DeletePost(posts[0].ID); err == nil {
		t.Error("deleting twice must fail")
	}
}

// Author names with markup characters stay text everywhere.
func TestNamesEscaped(t *testing.T) {
	b := newBoard(t, Options{})
	evil, _ := b.s.AddUser(`[/quote]<script>&"x`, "pw", false)
	tid, pid, _ := b.s.AddTopic(b.forum, evil, "T", "hi")
	_ = b.s.Edit(pid, evil, "hi again", "why")
	c := b.client()
	p := c.get(fmt.Sprintf("viewtopic.php?t=%d", tid))
	if strings.Contains(p.body, "<script>") {
		t.Fatal("unescaped name")
	}
	names := findAll(byID(p.doc, fmt.Sprintf("p%d", pid)), func(n *html.Node) bool { return hasClass(n, "username") && inside(n, "p", "author") })
	if len(names) != 1 || text(names[0]) != `[/quote]<script>&"x` {
		t.Errorf("name read back wrong")
	}
}
