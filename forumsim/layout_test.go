package forumsim

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
)

// The rows layout (issue 44): a topic's posts are three sibling rows each
// of one table, no page a member sees shows a numeric user id, an edit is
// noted as text at the end of the body, the PM pages show no logout link
// while the others do, and a subject longer than the board's column is an
// HTTP 500 naming it, nothing stored.
func TestRowsLayout(t *testing.T) {
	t.Parallel()
	b := newBoard(t, Options{Layout: LayoutRows, SubjectBytes: 20, NoPostReview: true})
	tid := b.thread(3)
	first := b.s.Posts(tid)[0].ID
	b.clk.Advance(time.Minute)
	if err := b.s.Edit(first, b.ids["Alice"], "Post 1 [b]vote Alice[/b]", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.s.SendPM(b.ids["Bob"], []int{b.ids["Alice"]}, "hello", "hi"); err != nil {
		t.Fatal(err)
	}
	c := b.client()
	c.login("Alice")
	topic := c.get("viewtopic.php?t=" + strconv.Itoa(tid))
	tables := sel(topic.doc, "table", "forumline")
	if len(tables) != 1 {
		t.Fatalf("%d post tables", len(tables))
	}
	rows := findAll(tables[0], func(n *html.Node) bool { return n.Type == html.ElementNode && n.Data == "tr" })
	if len(rows) != 1+3*3+1 {
		t.Errorf("%d rows, want a header, three for each of 3 posts, a closing one", len(rows))
	}
	if sel(topic.doc, "div", "post") != nil {
		t.Error("a post has a container")
	}
	if !strings.Contains(topic.body, `<a name="pid`+strconv.Itoa(first)+`"></a>`) || !regexp.MustCompile(`vote Alice</strong>\s*<br\s*/?>\s*<br\s*/?>\s*\[Edited on 30-11-2026 by Alice\]`).MatchString(topic.body) {
		t.Errorf("the edited post:\n%s", topic.body)
	}
	ids := regexp.MustCompile(`[?&;](amp;)?(u|uid|user_id|author_id)=\d`)
	for _, rel := range []string{"viewtopic.php?t=" + strconv.Itoa(tid), "ucp.php?i=pm&folder=inbox", "ucp.php?i=pm&folder=sentbox", "memberlist.php", "memberlist.php?mode=viewprofile&un=Bob", "index.php"} {
		pg := c.get(rel)
		if m := ids.FindString(pg.body); m != "" {
			t.Errorf("%s shows a user id: %q", rel, m)
		}
		pm := strings.Contains(rel, "i=pm")
		if logout := strings.Contains(pg.body, "mode=logout"); logout == pm {
			t.Errorf("%s: logout link %v", rel, logout)
		}
	}
	// The PM form by name, and a subject over the column.
	form := c.get("ucp.php?i=pm&mode=compose&un=Bob")
	action, v := form.form(t, "postform")
	if v.Get("address_list[u]["+strconv.Itoa(b.ids["Bob"])+"]") != "to" {
		t.Fatalf("the PM form by name has no recipient: %v", v)
	}
	v.Set("subject", "a subject longer than twenty")
	v.Set("message", "hello")
	v.Set("post", "Submit")
	b.clk.Advance(time.Minute)
	res := c.post(action, v)
	if res.status != 500 || !strings.Contains(res.body, "Data too long for column 'privmsgs_subject'") || len(b.s.Inbox(b.ids["Bob"])) != 0 {
		t.Errorf("a subject over the column: HTTP %d, %d PMs stored\n%s", res.status, len(b.s.Inbox(b.ids["Bob"])), res.body)
	}
}
