package forumsim

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

type inboxRow struct {
	href, subject, from, fromHref, inner string
	unread                               bool
}

// inboxRows reads li.row > dl.row-item rows.
func inboxRows(p page) []inboxRow {
	var out []inboxRow
	for _, li := range sel(p.doc, "li", "row") {
		dls := sel(li, "dl", "row-item")
		if len(dls) == 0 || dls[0].Parent != li {
			continue
		}
		var r inboxRow
		if a := sel(li, "a", "topictitle"); len(a) > 0 {
			r.href, r.subject = attr(a[0], "href"), text(a[0])
		}
		if u := findAll(li, func(n *html.Node) bool { return hasClass(n, "username") || hasClass(n, "username-coloured") }); len(u) > 0 {
			r.from, r.fromHref = text(u[0]), attr(u[0], "href")
		}
		if in := sel(li, "div", "list-inner"); len(in) > 0 {
			r.inner = strings.TrimSpace(text(in[0]))
		}
		r.unread = len(sel(li, "a", "row-item-link")) > 0
		out = append(out, r)
	}
	return out
}

func TestInboxAndRead(t *testing.T) {
	b := newBoard(t, Options{})
	bot, bob, alice := b.ids["GM Bot"], b.ids["Bob"], b.ids["Alice"]
	m1, err := b.s.SendPM(bob, []int{bot}, "Orders", "INVADE Alice\n[b]x[/b]")
	if err != nil {
		t.Fatal(err)
	}
	b.clk.Advance(time.Minute)
	m2, _ := b.s.SendPM(alice, []int{bot, bob}, "Hello <all>", "hi")
	c := b.client()
	// Guests get the login box.
	if p := c.get("ucp.php?i=pm&folder=inbox"); byID(p.doc, "login") == nil || !strings.Contains(p.body, "User Control Panel") {
		t.Error("guest inbox must ask to log in")
	}
	c.login("GM Bot")
	p := c.get("ucp.php?i=pm&folder=inbox")
	rows := inboxRows(p)
	if len(rows) != 2 {
		t.Fatalf("%d rows:\n%s", len(rows), p.body)
	}
	r := rows[0] // newest first
	if r.href != fmt.Sprintf("./ucp.php?i=pm&mode=view&f=0&p=%d", m2) || r.subject != "Hello <all>" || r.from != "Alice" ||
		r.fromHref != fmt.Sprintf("./memberlist.php?mode=viewprofile&u=%d", alice) || !r.unread {
		t.Errorf("row %+v", r)
	}
	if !regexp.MustCompile(`»\s*Mon Nov 30, 2026 11:01 am$`).MatchString(r.inner) {
		t.Errorf("list-inner must end with » time: %q", r.inner)
	}
	if !strings.Contains(p.body, `<strong class="badge">2</strong>`) {
		t.Error("navbar unread badge")
	}
	// Read one: div#post-ID.post.pm, p.author with Sent and From, div.content.
	v := c.get(fmt.Sprintf("ucp.php?i=pm&mode=view&f=0&p=%d", m1))
	post := byID(v.doc, fmt.Sprintf("post-%d", m1))
	if post == nil || !hasClass(post, "post") || !hasClass(post, "pm") {
		t.Fatalf("no div#post-%d.post.pm", m1)
	}
	au := sel(post, "p", "author")
	if len(au) != 1 {
		t.Fatal("no p.author")
	}
	if m := regexp.MustCompile(`Sent:\s*([^\n]+)`).FindStringSubmatch(text(au[0])); m == nil || strings.TrimSpace(m[1]) != "Mon Nov 30, 2026 11:00 am" {
		t.Errorf("Sent line: %q", text(au[0]))
	}
	from := sel(au[0], "a", "username")
	if len(from) != 1 || text(from[0]) != "Bob" || attr(from[0], "href") != fmt.Sprintf("./memberlist.php?mode=viewprofile&u=%d", bob) {
		t.Error("From must be the sender's a.username")
	}
	if ct := sel(post, "div", "content"); len(ct) != 1 || !strings.Contains(v.body, `<div class="content">INVADE Alice<br><strong class="text-strong">x</strong></div>`) {
		t.Error("PM body")
	}
	if h := sel(post, "h3"); len(h) == 0 || text(h[0]) != "Orders" {
		t.Error("PM subject in h3")
	}
	// Reading marks it read; without f= works too.
	rows = inboxRows(c.get("ucp.php?i=pm&folder=inbox"))
	if rows[1].unread || !rows[0].unread {
		t.Errorf("unread flags after reading: %+v", rows)
	}
	if p := c.get(fmt.Sprintf("ucp.php?i=pm&mode=view&p=%d", m2)); byID(p.doc, fmt.Sprintf("post-%d", m2)) == nil {
		t.Error("view without f=")
	}
	if got := b.s.Inbox(bot); len(got) != 2 || got[0].Unread[bot] || got[1].Unread[bot] {
		t.Errorf("API inbox %+v", got)
	}
	// Carol-like outsiders cannot read it.
	o := b.client()
	o.login("Staff")
	if p := o.get(fmt.Sprintf("ucp.php?i=pm&mode=view&p=%d", m1)); p.status != 404 || !strings.Contains(p.body, MsgNoMessage) {
		t.Error("an outsider read a PM")
	}
	if rows := inboxRows(o.get("ucp.php?i=pm&folder=inbox")); len(rows) != 0 {
		t.Error("outsider inbox not empty")
	}
}

func TestComposePM(t *testing.T) {
	b := newBoard(t, Options{})
	bot, bob := b.ids["GM Bot"], b.ids["Bob"]
	c := b.client()
	c.login("GM Bot")
	p := c.get(fmt.Sprintf("ucp.php?i=pm&mode=compose&u=%d", bob))
	act, v := p.form(t, "postform")
	sid := cookie(c, b.ts.URL, CookieSession)
	if act != fmt.Sprintf("%s/ucp.php?i=pm&mode=compose&sid=%s", b.ts.URL, sid) {
		t.Errorf("compose action %s", act)
	}
	if v.Get(fmt.Sprintf("address_list[u][%d]", bob)) != "to" || v.Get("form_token") == "" {
		t.Fatalf("compose fields %v", v)
	}
	vals := urlValues(v)
	vals.Set("subject", "Your role")
	vals.Set("message", "You are a [b]spy[/b].")
	vals.Set("post", "Submit")
	if r := c.post(act, vals); !strings.Contains(errorText(r), MsgFormInvalid) {
		t.Errorf("same-second PM accepted: %q", errorText(r))
	}
	act, v = c.get(fmt.Sprintf("ucp.php?i=pm&mode=compose&u=%d", bob)).form(t, "postform")
	vals = urlValues(v)
	vals.Set("subject", "Your role")
	vals.Set("message", "You are a [b]spy[/b].")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	r := c.post(act, vals)
	sent := b.s.Sent(bot)
	if r.status != 200 || len(sent) != 1 {
		t.Fatalf("send: %d %q", r.status, errorText(r))
	}
	id := sent[0].ID
	if !strings.Contains(text(byID(r.doc, "message")), MsgMessageStored) ||
		!strings.Contains(r.body, fmt.Sprintf(`<meta http-equiv="refresh" content="3; url=./ucp.php?i=pm&amp;mode=view&amp;p=%d" />`, id)) {
		t.Errorf("success page:\n%s", r.body)
	}
	if sent[0].Source != "You are a [b]spy[/b]." || !strings.Contains(sent[0].HTML, "text-strong") {
		t.Errorf("stored PM %+v", sent[0])
	}
	// Reuse of the same token is refused.
	b.clk.Advance(time.Minute)
	if r := c.post(act, vals); !strings.Contains(errorText(r), MsgFormInvalid) || len(b.s.Sent(bot)) != 1 {
		t.Error("PM token reused")
	}
	// Bob sees it; the bot's sent folder lists it with the recipient.
	bc := b.client()
	bc.login("Bob")
	rows := inboxRows(bc.get("ucp.php?i=pm&folder=inbox"))
	if len(rows) != 1 || rows[0].subject != "Your role" || rows[0].from != "GM Bot" || !rows[0].unread {
		t.Errorf("Bob's inbox %+v", rows)
	}
	srows := inboxRows(c.get("ucp.php?i=pm&folder=sentbox"))
	if len(srows) != 1 || srows[0].href != fmt.Sprintf("./ucp.php?i=pm&mode=view&f=-1&p=%d", id) || srows[0].from != "Bob" || !strings.Contains(srows[0].inner, "To: Bob") {
		t.Errorf("sent folder %+v", srows)
	}
	if p := c.get(fmt.Sprintf("ucp.php?i=pm&mode=view&f=-1&p=%d", id)); byID(p.doc, fmt.Sprintf("post-%d", id)) == nil {
		t.Error("sender cannot view the sent PM")
	}
}

func TestComposeErrorsAndFlood(t *testing.T) {
	b := newBoard(t, Options{})
	bob := b.ids["Bob"]
	tests := []struct {
		name      string
		to        bool
		subj, msg string
		want      string
	}{
		{"no recipient", false, "s", "m", MsgNoRecipient},
		{"no subject", true, " ", "m", MsgEmptyPMSubj},
		{"no message", true, "s", "", MsgTooFewChars},
	}
	c := b.client()
	c.login("Alice")
	for _, tc := range tests {
		p := c.get("ucp.php?i=pm&mode=compose")
		if tc.to {
			p = c.get(fmt.Sprintf("ucp.php?i=pm&mode=compose&u=%d", bob))
		}
		act, v := p.form(t, "postform")
		vals := urlValues(v)
		vals.Set("subject", tc.subj)
		vals.Set("message", tc.msg)
		vals.Set("post", "Submit")
		b.clk.Advance(time.Second)
		r := c.post(act, vals)
		if !strings.Contains(errorText(r), tc.want) {
			t.Errorf("%s: %q", tc.name, errorText(r))
		}
	}
	// username_list is a refresh: it adds recipients, it never sends.
	act, v := c.get("ucp.php?i=pm&mode=compose").form(t, "postform")
	vals := urlValues(v)
	vals.Set("username_list", "bob\nNobody")
	vals.Set("subject", "s")
	vals.Set("message", "m")
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	r := c.post(act, vals)
	if len(b.s.Sent(b.ids["Alice"])) != 0 || !strings.Contains(errorText(r), MsgNoSuchUsers) {
		t.Fatalf("username_list sent or no error: %q", errorText(r))
	}
	act, v = r.form(t, "postform")
	if v.Get(fmt.Sprintf("address_list[u][%d]", bob)) != "to" || v.Get("message") != "m" {
		t.Fatalf("refresh lost the recipient or text: %v", v)
	}
	vals = urlValues(v)
	vals.Set("post", "Submit")
	b.clk.Advance(time.Second)
	if r := c.post(act, vals); len(b.s.Sent(b.ids["Alice"])) != 1 {
		t.Fatalf("send after refresh: %q", errorText(r))
	}
	// PMs and posts share user_lastpost_time for flood control.
	tid := b.thread(1)
	r = c.reply(tid, "right after a PM", time.Second)
	if errorText(r) != MsgFlood {
		t.Errorf("post right after a PM: %q", errorText(r))
	}
	b.clk.Advance(20 * time.Second)
	if r := c.reply(tid, "later", time.Second); r.status != http.StatusFound {
		t.Fatalf("reply: %q", errorText(r))
	}
	act, v = c.get(fmt.Sprintf("ucp.php?i=pm&mode=compose&u=%d", bob)).form(t, "postform")
	vals = urlValues(v)
	vals.Set("subject", "s")
	vals.Set("message", "m")
	vals.Set("post", "Submit")
	b.clk.Advance(2 * time.Second)
	if r := c.post(act, vals); errorText(r) != MsgFlood {
		t.Errorf("PM right after a post: %q", errorText(r))
	}
}

// TestNoPMs: a board without private messages (Options.NoPMs, as a FluxBB
// without a PM extension): every PM page, the compose form and its submit
// included, answers 404, and the header links no PMs; the rest works.
func TestNoPMs(t *testing.T) {
	b := newBoard(t, Options{NoPMs: true})
	c := b.client()
	c.login("GM Bot")
	for _, rel := range []string{"ucp.php?i=pm&folder=inbox", "ucp.php?i=pm&folder=sentbox", "ucp.php?i=pm&mode=compose&u=2", "ucp.php?i=pm&mode=view&p=1", "ucp.php?i=ucp_pm&mode=compose"} {
		if p := c.get(rel); p.status != http.StatusNotFound || !strings.Contains(p.body, "does not exist") {
			t.Errorf("GET %s on a board without PMs: %d", rel, p.status)
		}
	}
	if p := c.post(b.ts.URL+"/ucp.php?i=pm&mode=compose", url.Values{"subject": {"x"}, "message": {"y"}}); p.status != http.StatusNotFound {
		t.Errorf("a PM submit on a board without PMs: %d", p.status)
	}
	p := c.get("index.php")
	if p.status != http.StatusOK || strings.Contains(p.body, "i=pm") {
		t.Errorf("the index on a board without PMs: %d, links PMs: %v", p.status, strings.Contains(p.body, "i=pm"))
	}
	if p := c.get("ucp.php"); p.status != http.StatusOK || strings.Contains(p.body, "i=pm") {
		t.Errorf("the control panel on a board without PMs: %d, links PMs: %v", p.status, strings.Contains(p.body, "i=pm"))
	}
}

// TestTokensAgain: with TokensAgain a form's token is taken as often as it
// is submitted within its lifetime (phpBB 3.3.10's check_form_key), so
// forms of one kind made in one second all go; by default only the first.
func TestTokensAgain(t *testing.T) {
	for _, again := range []bool{false, true} {
		b := newBoard(t, Options{TokensAgain: again, FloodInterval: -1})
		bot, bob := b.ids["GM Bot"], b.ids["Bob"]
		c := b.client()
		c.login("GM Bot")
		var forms []string
		var vals []url.Values
		for i := range 2 { // two forms in one second: one token
			act, v := c.get(fmt.Sprintf("ucp.php?i=pm&mode=compose&u=%d", bob)).form(t, "postform")
			vs := urlValues(v)
			vs.Set("subject", fmt.Sprintf("Role %d", i))
			vs.Set("message", "You are a spy.")
			vs.Set("post", "Submit")
			forms, vals = append(forms, act), append(vals, vs)
		}
		if vals[0].Get("form_token") != vals[1].Get("form_token") {
			t.Fatal("two forms of one second with different tokens")
		}
		b.clk.Advance(time.Second)
		for i := range forms {
			if r := c.post(forms[i], vals[i]); errorText(r) != "" {
				t.Logf("TokensAgain %v, PM %d: %s", again, i, errorText(r))
			}
		}
		want := 1
		if again {
			want = 2
		}
		if n := len(b.s.Sent(bot)); n != want {
			t.Errorf("TokensAgain %v: %d PMs sent with one token, want %d", again, n, want)
		}
	}
}
