package forumsim

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

func postIDs(p page) []string {
	var ids []string
	for _, n := range sel(p.doc, "div", "post") {
		if id := attr(n, "id"); strings.HasPrefix(id, "p") {
			ids = append(ids, id)
		}
	}
	return ids
}

func activePage(p page) string {
	var got []string
	for _, li := range sel(p.doc, "li", "active") {
		if inside(li, "div", "pagination") {
			for _, sp := range sel(li, "span") {
				got = append(got, text(sp))
			}
		}
	}
	if len(got) == 0 {
		return ""
	}
	return got[0]
}

func nextHref(p page) string {
	for _, li := range sel(p.doc, "li", "arrow", "next") {
		for _, a := range sel(li, "a") {
			if attr(a, "rel") == "next" {
				return attr(a, "href")
			}
		}
	}
	return ""
}

func TestTopicPages(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(25)
	c := b.client()
	ts := func(n int) string { return fmt.Sprintf("p%d", n) }
	tests := []struct {
		name   string
		url    string
		first  int
		count  int
		active string
		next   string
	}{
		{"first page", fmt.Sprintf("viewtopic.php?t=%d", tid), 1, 10, "1", fmt.Sprintf("./viewtopic.php?t=%d&start=10", tid)},
		{"second page", fmt.Sprintf("viewtopic.php?t=%d&start=10", tid), 11, 10, "2", fmt.Sprintf("./viewtopic.php?t=%d&start=20", tid)},
		{"last page", fmt.Sprintf("viewtopic.php?t=%d&start=20", tid), 21, 5, "3", ""},
		{"clamped huge start", fmt.Sprintf("viewtopic.php?t=%d&start=999999", tid), 21, 5, "3", ""},
		{"clamped negative start", fmt.Sprintf("viewtopic.php?t=%d&start=-4", tid), 21, 5, "3", ""},
		{"start equal to total", fmt.Sprintf("viewtopic.php?t=%d&start=25", tid), 21, 5, "3", ""},
		{"p jump", "viewtopic.php?p=15", 11, 10, "2", fmt.Sprintf("./viewtopic.php?t=%d&start=20", tid)},
		{"p jump first", "viewtopic.php?p=10", 1, 10, "1", fmt.Sprintf("./viewtopic.php?t=%d&start=10", tid)},
		{"p jump last", "viewtopic.php?p=25", 21, 5, "3", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := c.get(tc.url)
			if p.status != 200 {
				t.Fatalf("status %d", p.status)
			}
			ids := postIDs(p)
			if len(ids) != tc.count || ids[0] != ts(tc.first) || ids[len(ids)-1] != ts(tc.first+tc.count-1) {
				t.Errorf("posts %v, want %d from p%d", ids, tc.count, tc.first)
			}
			if got := activePage(p); got != tc.active {
				t.Errorf("active page %q, want %q", got, tc.active)
			}
			if got := nextHref(p); got != tc.next {
				t.Errorf("next %q, want %q", got, tc.next)
			}
		})
	}
}

func TestPostsPerPageAndEllipsis(t *testing.T) {
	b := newBoard(t, Options{PostsPerPage: 3})
	tid := b.thread(30) // 10 pages
	c := b.client()
	p := c.get(fmt.Sprintf("viewtopic.php?t=%d&start=15", tid)) // page 6
	if ids := postIDs(p); len(ids) != 3 || ids[0] != "p16" {
		t.Fatalf("posts %v", ids)
	}
	var nums []string
	pag := sel(p.doc, "div", "pagination")[0]
	for _, li := range sel(pag, "li") {
		nums = append(nums, strings.TrimSpace(text(li)))
	}
	want := "Previous 1 … 4 5 6 7 8 … 10 Next"
	if got := strings.Join(nums, " "); got != want {
		t.Errorf("pagination %q, want %q", got, want)
	}
	b.s.SetPostsPerPage(10)
	p = c.get(fmt.Sprintf("viewtopic.php?t=%d&start=999", tid))
	if activePage(p) != "3" {
		t.Errorf("after SetPostsPerPage(10): page %q", activePage(p))
	}
	// One page: no list, phpBB's "Page 1 of 1".
	tid2, _, _ := b.s.AddTopic(b.forum, b.ids["Bob"], "Short", "x")
	p = c.get(fmt.Sprintf("viewtopic.php?t=%d", tid2))
	if activePage(p) != "" || !strings.Contains(p.body, "Page <strong>1</strong> of <strong>1</strong>") {
		t.Errorf("single page pagination wrong")
	}
}

func TestPostMarkup(t *testing.T) {
	b := newBoard(t, Options{})
	tid, first, _ := b.s.AddTopic(b.forum, b.ids["Alice"], "Game <1>", "[b]vote Bob[/b]\n[quote=Bob][b]vote Alice[/b][/quote]")
	if err := b.s.SetSignature(b.ids["Alice"], "[b]Town forever[/b]"); err != nil {
		t.Fatal(err)
	}
	_ = b.s.SetModerator(b.ids["Staff"], true)
	b.clk.Advance(90 * time.Second)
	guest, _ := b.s.GuestPost(tid, "Visitor <x>", "hi")
	b.clk.Advance(time.Minute)
	mod, _ := b.s.Post(tid, b.ids["Staff"], "mod note")
	p := b.client().get(fmt.Sprintf("viewtopic.php?t=%d", tid))

	post := byID(p.doc, fmt.Sprintf("p%d", first))
	if post == nil || !hasClass(post, "post") {
		t.Fatal("no div.post#p1")
	}
	if len(sel(post, "dl", "postprofile")) != 1 {
		t.Error("no dl.postprofile")
	}
	authors := findAll(post, func(n *html.Node) bool { return n.Data == "a" && hasClass(n, "username") && inside(n, "p", "author") })
	if len(authors) != 1 || text(authors[0]) != "Alice" || attr(authors[0], "href") != fmt.Sprintf("./memberlist.php?mode=viewprofile&u=%d", b.ids["Alice"]) {
		t.Errorf("author link wrong: %v", authors)
	}
	tm := sel(post, "time")
	if len(tm) != 1 || attr(tm[0], "datetime") != "2026-11-30T11:00:00+00:00" || text(tm[0]) != "Mon Nov 30, 2026 11:00 am" {
		t.Errorf("time wrong: %s", innerHTML(post))
	}
	content := sel(post, "div", "content")
	want := bbcode.Render("[b]vote Bob[/b]\n[quote=Bob][b]vote Alice[/b][/quote]", bbcode.Options{})
	if len(content) != 1 || !strings.Contains(p.body, `<div class="content">`+want+`</div>`) {
		t.Errorf("content %q, want %q", innerHTML(content[0]), want)
	}
	sig := byID(p.doc, fmt.Sprintf("sig%d", first))
	if sig == nil || !hasClass(sig, "signature") || inside(sig, "div", "content") || !strings.Contains(innerHTML(sig), "text-strong") {
		t.Error("signature must be div.signature outside div.content")
	}
	if h := sel(post, "h3", "first"); len(h) != 1 || text(h[0]) != "Game <1>" {
		t.Error("first post's h3.first with the escaped subject")
	}

	g := byID(p.doc, fmt.Sprintf("p%d", guest))
	gs := findAll(g, func(n *html.Node) bool {
		return n.Data == "span" && hasClass(n, "username") && inside(n, "p", "author")
	})
	if len(gs) != 1 || text(gs[0]) != "Visitor <x>" {
		t.Errorf("guest author must be span.username")
	}
	m := byID(p.doc, fmt.Sprintf("p%d", mod))
	if ms := sel(m, "a", "username-coloured"); len(ms) == 0 || !strings.Contains(attr(ms[0], "style"), "color") {
		t.Error("moderator name must be a.username-coloured")
	}
	if strings.Contains(p.body, "<x>") || strings.Contains(p.body, "Game <1>") {
		t.Error("unescaped text in page")
	}
	if loggedIn(p) {
		t.Error("guest page shows logged-in markers")
	}
	if !strings.Contains(p.body, "mode=login&amp;redirect=") {
		t.Error("guest navbar needs the login link")
	}
}

func TestBoldSpanOption(t *testing.T) {
	b := newBoard(t, Options{Bold: bbcode.BoldSpan})
	tid, _, _ := b.s.AddTopic(b.forum, b.ids["Alice"], "T", "[b]vote[/b]")
	p := b.client().get(fmt.Sprintf("viewtopic.php?t=%d", tid))
	if !strings.Contains(p.body, `<div class="content"><span style="font-weight: bold">vote</span></div>`) {
		t.Error("old-style bold not rendered")
	}
}

func TestMissingPages(t *testing.T) {
	b := newBoard(t, Options{})
	b.thread(2)
	c := b.client()
	for _, tc := range []struct{ url, want string }{
		{"viewtopic.php?t=99", MsgNoTopic},
		{"viewtopic.php?p=99", MsgNoPost},
		{"viewtopic.php", MsgNoTopic},
		{"viewforum.php?f=9", MsgNoForum},
		{"nothing.php", "does not exist"},
	} {
		p := c.get(tc.url)
		msg := byID(p.doc, "message")
		if p.status != http.StatusNotFound || msg == nil || !strings.Contains(text(msg), tc.want) {
			t.Errorf("%s: status %d, message %v", tc.url, p.status, msg != nil)
		}
	}
}

func TestIndexForumProfile(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(3)
	weird, _ := b.s.AddUser("[b]Ev\u00efl[/b] <&>", "pw", false)
	c := b.client()
	p := c.get("")
	if fl := sel(p.doc, "a", "forumtitle"); len(fl) != 1 || attr(fl[0], "href") != fmt.Sprintf("./viewforum.php?f=%d", b.forum) {
		t.Error("index must link the forum")
	}
	p = c.get(fmt.Sprintf("viewforum.php?f=%d", b.forum))
	if tl := sel(p.doc, "a", "topictitle"); len(tl) != 1 || attr(tl[0], "href") != fmt.Sprintf("./viewtopic.php?t=%d", tid) {
		t.Error("forum must link the topic")
	}
	// Profiles need a login, as on a default board.
	p = c.get(fmt.Sprintf("memberlist.php?mode=viewprofile&u=%d", weird))
	if byID(p.doc, "login") == nil {
		t.Error("guest profile view should ask to log in")
	}
	c.login("Bob")
	p = c.get(fmt.Sprintf("memberlist.php?mode=viewprofile&u=%d", weird))
	h := sel(p.doc, "h2", "memberlist-title")
	if len(h) != 1 || text(h[0]) != "Viewing profile - [b]Ev\u00efl[/b] <&>" {
		t.Errorf("profile title wrong: %s", p.body)
	}
	if !strings.Contains(p.body, fmt.Sprintf("./ucp.php?i=pm&amp;mode=compose&amp;u=%d", weird)) {
		t.Error("profile must link PM compose")
	}
	p = c.get("memberlist.php")
	if n := len(sel(p.doc, "a", "username")); n != 5 {
		t.Errorf("member list has %d members", n)
	}
	p = c.get("memberlist.php?mode=viewprofile&u=77")
	if p.status != 404 {
		t.Errorf("missing profile status %d", p.status)
	}
}

// The board works under a sub-directory, and redirects stay in it.
func TestSubdirectory(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(1)
	c := b.client()
	p := c.get(fmt.Sprintf("forum/viewtopic.php?t=%d", tid))
	if len(postIDs(p)) != 1 {
		t.Fatal("no post under /forum/")
	}
	lp := c.get("forum/ucp.php?mode=login")
	act, v := lp.form(t, "login")
	if !strings.HasSuffix(act, "/forum/ucp.php?mode=login") {
		t.Errorf("login action %s", act)
	}
	v.Set("username", "Alice")
	v.Set("password", "alice-pw")
	v.Set("login", "Login")
	b.clk.Advance(time.Second)
	r := c.post(act, v)
	if r.loc != b.ts.URL+"/forum/index.php" {
		t.Errorf("redirect %q", r.loc)
	}
}

// Every page renders, is well nested (checked by client.do) and shows its
// marker, for a guest and for a member.
func TestEveryPage(t *testing.T) {
	b := newBoard(t, Options{})
	tid := b.thread(11) // the last post, p11, is Alice's: she may delete it
	pm, _ := b.s.SendPM(b.ids["Bob"], []int{b.ids["Alice"]}, "s", "m")
	guest, member := b.client(), b.client()
	member.login("Alice")
	tests := []struct {
		url          string
		guest, login string // substring expected for each
	}{
		{"", `class="forumtitle"`, `class="forumtitle"`},
		{"index.php", `class="forumtitle"`, `header-profile`},
		{fmt.Sprintf("viewforum.php?f=%d", b.forum), `class="topictitle"`, `class="topictitle"`},
		{fmt.Sprintf("viewtopic.php?t=%d", tid), `id="p1"`, `id="qr_postform"`},
		{"memberlist.php", `id="login"`, `id="memberlist"`},
		{"memberlist.php?mode=viewprofile&u=3", `id="login"`, `memberlist-title`},
		{"ucp.php", `id="login"`, `User Control Panel`},
		{"ucp.php?mode=register", MsgRegisterOff, MsgRegisterOff},
		{"ucp.php?i=pm&folder=inbox", `id="login"`, `dl class="row-item pm_unread"`},
		{"ucp.php?i=pm&folder=sentbox", `id="login"`, `You have no messages in this folder.`},
		{fmt.Sprintf("ucp.php?i=pm&mode=view&p=%d", pm), `id="login"`, fmt.Sprintf(`id="post-%d"`, pm)},
		{"ucp.php?i=pm&mode=compose", `id="login"`, `name="username_list"`},
		{fmt.Sprintf("posting.php?mode=reply&t=%d", tid), `id="login"`, `id="postform"`},
		{fmt.Sprintf("posting.php?mode=post&f=%d", b.forum), `id="login"`, `id="postform"`},
		{"posting.php?mode=quote&p=2", `id="login"`, `[quote=&#34;Bob&#34;`},
		{"posting.php?mode=edit&p=1", `id="login"`, `name="edit_reason"`},
		{"posting.php?mode=delete&p=11", `id="login"`, `id="confirm"`},
		{"posting.php?mode=bogus", `id="login"`, `No valid mode supplied.`},
		{"ucp.php?mode=login", `id="login"`, `header-profile`},
	}
	for _, tc := range tests {
		if p := guest.get(tc.url); !strings.Contains(p.body, tc.guest) {
			t.Errorf("guest %s: no %q", tc.url, tc.guest)
		}
		p := member.get(tc.url)
		if p.status == http.StatusFound {
			p = member.get(strings.TrimPrefix(p.loc, b.ts.URL+"/"))
		}
		if !strings.Contains(p.body, tc.login) {
			t.Errorf("member %s: no %q", tc.url, tc.login)
		}
	}
}

// TestTopicList: viewforum.php lists a forum's topics by their last post,
// newest first, topics_per_page (25) a page at start=N as phpBB 3.3 does:
// each row's last post links its id, the replies count and the views (a
// topic's views count its page views) are cells of their own, and the
// phpBB profile's parser reads the rows and the pagination.
func TestTopicList(t *testing.T) {
	b := newBoard(t, Options{})
	var topics []int
	for i := 0; i < 60; i++ {
		tid, _, err := b.s.AddTopic(b.forum, b.ids["Alice"], fmt.Sprintf("Topic %d", i), "Hello")
		if err != nil {
			t.Fatal(err)
		}
		topics = append(topics, tid)
		b.clk.Advance(time.Second)
	}
	// The oldest gets a reply: it is listed first.
	pid, err := b.s.Post(topics[0], b.ids["Bob"], "Bump")
	if err != nil {
		t.Fatal(err)
	}
	c := b.client()
	c.get(fmt.Sprintf("viewtopic.php?t=%d", topics[59]))
	prof, _ := forum.Builtin("phpbb")
	x := parser.MustNew(prof)
	var all []forum.ThreadMark
	for page, start := range []int{0, 25, 50} {
		p := c.get(fmt.Sprintf("viewforum.php?f=%d&start=%d", b.forum, start))
		doc, err := parser.Doc([]byte(p.body))
		if err != nil {
			t.Fatal(err)
		}
		l := x.Topics(doc)
		if l.Page != page+1 || l.Pages != 3 || len(l.Marks) != []int{25, 25, 10}[page] {
			t.Errorf("start=%d: page %d of %d, %d rows", start, l.Page, l.Pages, len(l.Marks))
		}
		all = append(all, l.Marks...)
		if page == 0 && !strings.Contains(p.body, `<dd class="views">1 <dfn>Views</dfn></dd>`) {
			t.Error("the topic viewed once does not show 1 view")
		}
	}
	if len(all) != 60 || all[0] != (forum.ThreadMark{Thread: fmt.Sprint(topics[0]), Sign: fmt.Sprintf("post %d, replies 1", pid)}) {
		t.Fatalf("first row %+v of %d", all[0], len(all))
	}
	for i, m := range all[1:] {
		if want := fmt.Sprint(topics[59-i]); m.Thread != want || m.Sign == "" {
			t.Errorf("row %d: %+v, want topic %s, newest first", i+1, m, want)
		}
	}
	// Past the end: the last page, as validate_start does.
	p := c.get(fmt.Sprintf("viewforum.php?f=%d&start=500", b.forum))
	if !strings.Contains(p.body, `<li class="active"><span>3</span></li>`) {
		t.Error("start past the end is not the last page")
	}
}
