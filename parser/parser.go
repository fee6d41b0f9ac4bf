// Package parser turns forum pages into posts, PM headers and PMs, and post
// bodies into command segments, all driven by a forum.Profile. It never
// touches the network.
package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/forumgm/forumgm/forum"
)

// Parser is a profile with its selectors and regexps compiled once.
type Parser struct {
	Profile forum.Profile
	loc     *time.Location
	skew    time.Duration
	layouts []layout

	post, author, tm, tmTitle, tmStrip, body, edit, pageCur, pageLinks, pageEnd, loggedIn, errBox goquery.Matcher
	bold, quote, spoiler, code, strike                                                            goquery.Matcher
	inRow, inLink, inFrom, inTime, inUnread                                                       goquery.Matcher
	pm, pmSubject, pmFrom, pmTime, pmTimeTitle, pmBody, pageTime                                  goquery.Matcher
	captcha, postID                                                                               goquery.Matcher
	topicRow, topicID, topicLast, topicReplies, threadForum                                       goquery.Matcher
	// withAuthorID and withTimeAttr match any node carrying the profile's
	// AuthorIDAttr / TimeAttr (compiled once, not per post).
	withAuthorID, withTimeAttr goquery.Matcher

	rePostID, reAuthorID, reTime, rePMID, rePMTime, reInTime, reURLPost, reURLPM, reFlood *regexp.Regexp
	reTopicID, reTopicLast, reTopicReplies, reThreadForum, reEditText                     *regexp.Regexp

	// spanRows, spanNext: how far a post runs past its node
	// (forum.Profile.Span); spans: beyond the node at all.
	spanRows int
	spanNext bool
	spans    bool

	// marks are the logged-in, page-end and error marks of each kind of
	// page (forum.Profile.MarksOf); "" is any page.
	marks map[forum.PageKind]pageMarks

	// memoKeys are the attributes the body selectors read, memoOK that a
	// walk may remember how elements read by them (quick.go, bodyMemo).
	memoKeys []string
	memoOK   bool
}

// nothing matches no node: an unset selector in a profile.
type nothing struct{}

func (nothing) Match(*html.Node) bool            { return false }
func (nothing) MatchAll(*html.Node) []*html.Node { return nil }
func (nothing) Filter([]*html.Node) []*html.Node { return nil }
func compileSel(name, s string) (goquery.Matcher, error) {
	if strings.TrimSpace(s) == "" {
		return nothing{}, nil
	}
	m, err := compileQuick(s)
	if err != nil {
		// goquery would silently match nothing: refuse instead.
		return nil, fmt.Errorf("selector %s %q: %w", name, s, err)
	}
	return m, nil
}

// New compiles a profile. It fails on a selector or regexp that does not
// compile, so a bad profile is caught before it silently matches nothing.
func New(p forum.Profile) (*Parser, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	x := &Parser{Profile: p}
	var err error
	x.loc, err = p.Location()
	if err != nil {
		return nil, err
	}
	x.layouts = compileLayouts(p.TimeLayouts)
	if x.spanRows, x.spanNext, err = p.Span(); err != nil {
		return nil, err
	}
	x.spans = x.spanNext || x.spanRows > 1
	x.skew = time.Duration(max(p.ClockSkewSeconds, 0)) * time.Second
	s := p.Selectors
	for _, c := range []struct {
		dst  *goquery.Matcher
		name string
		sel  string
	}{
		{&x.post, "post", s.Post}, {&x.author, "author", s.Author}, {&x.tm, "time", s.Time},
		{&x.tmTitle, "time_title", s.TimeTitle}, {&x.tmStrip, "time_strip", s.TimeStrip},
		{&x.body, "body", s.Body}, {&x.edit, "edit_notice", s.EditNotice},
		{&x.pageCur, "page_current", s.PageCurrent}, {&x.pageLinks, "page_links", s.PageLinks},
		{&x.pageEnd, "page_end", s.PageEnd},
		{&x.loggedIn, "logged_in", s.LoggedIn}, {&x.errBox, "error", s.Error},
		{&x.bold, "bold", s.Bold}, {&x.quote, "quote", s.Quote}, {&x.spoiler, "spoiler", s.Spoiler},
		{&x.code, "code", s.Code}, {&x.strike, "strike", s.Strike},
		{&x.inRow, "inbox_row", s.InboxRow}, {&x.inLink, "inbox_link", s.InboxLink},
		{&x.inFrom, "inbox_from", s.InboxFrom}, {&x.inTime, "inbox_time", s.InboxTime},
		{&x.inUnread, "inbox_unread", s.InboxUnread},
		{&x.pm, "pm", s.PM}, {&x.pmSubject, "pm_subject", s.PMSubject}, {&x.pmFrom, "pm_from", s.PMFrom},
		{&x.pmTime, "pm_time", s.PMTime}, {&x.pmTimeTitle, "pm_time_title", s.PMTimeTitle},
		{&x.pmBody, "pm_body", s.PMBody}, {&x.pageTime, "page_time", s.PageTime},
		{&x.captcha, "captcha", s.Captcha}, {&x.postID, "post_id", s.PostID},
		{&x.topicRow, "topic_row", s.TopicRow}, {&x.topicID, "topic_id", s.TopicID},
		{&x.topicLast, "topic_last_post", s.TopicLastPost}, {&x.topicReplies, "topic_replies", s.TopicReplies},
		{&x.threadForum, "thread_forum", s.ThreadForum},
	} {
		if *c.dst, err = compileSel(c.name, c.sel); err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
	}
	x.marks = map[forum.PageKind]pageMarks{"": {loggedIn: x.loggedIn, pageEnd: x.pageEnd, errBox: x.errBox, endSet: strings.TrimSpace(s.PageEnd) != ""}}
	for _, k := range forum.PageKinds {
		m, key := p.MarksOf(k)
		var pm pageMarks
		for _, c := range []struct {
			dst       *goquery.Matcher
			name, sel string
		}{{&pm.loggedIn, key.LoggedIn, m.LoggedIn}, {&pm.pageEnd, key.PageEnd, m.PageEnd}, {&pm.errBox, key.Error, m.Error}} {
			if *c.dst, err = compileSel(c.name, c.sel); err != nil {
				return nil, fmt.Errorf("profile %s: %w", p.Name, err)
			}
		}
		pm.endSet = strings.TrimSpace(m.PageEnd) != ""
		x.marks[k] = pm
	}
	var body []*quickMatcher
	for _, m := range []goquery.Matcher{x.bold, x.quote, x.spoiler, x.code, x.strike} {
		if q, ok := m.(*quickMatcher); ok {
			body = append(body, q)
		}
	}
	x.memoKeys, x.memoOK = bodyKinds(body...)
	x.withAuthorID, x.withTimeAttr = nothing{}, nothing{}
	if a := s.AuthorIDAttr; a != "" {
		if x.withAuthorID, err = compileSel("author_id_attr", "["+a+"]"); err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
	}
	if a := s.TimeAttr; a != "" {
		if x.withTimeAttr, err = compileSel("time_attr", "["+a+"]"); err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
	}
	for _, c := range []struct {
		dst **regexp.Regexp
		re  string
	}{
		{&x.rePostID, s.PostIDRegexp}, {&x.reAuthorID, s.AuthorIDRegexp}, {&x.reTime, s.TimeRegexp}, {&x.rePMID, s.PMIDRegexp},
		{&x.rePMTime, s.PMTimeRegexp}, {&x.reInTime, s.InboxTimeRegex},
		{&x.reURLPost, p.URLs.PostIDRegexp}, {&x.reURLPM, p.URLs.PMIDRegexp}, {&x.reFlood, p.FloodWaitRegexp},
		{&x.reTopicID, s.TopicIDRegexp}, {&x.reTopicLast, s.TopicLastPostRegexp}, {&x.reTopicReplies, s.TopicRepliesRegexp},
		{&x.reThreadForum, s.ThreadForumRegexp}, {&x.reEditText, s.EditNoticeRegexp},
	} {
		if c.re == "" {
			continue
		}
		if *c.dst, err = regexp.Compile(c.re); err != nil {
			return nil, fmt.Errorf("profile %s: %w", p.Name, err)
		}
	}
	return x, nil
}

// MustNew is New for built-in profiles, which are tested to compile.
func MustNew(p forum.Profile) *Parser {
	x, err := New(p)
	if err != nil {
		panic(err)
	}
	return x
}

// Thread is one parsed thread page.
type Thread struct {
	Posts []forum.Post `json:"posts"`
	// Page is the current page (1-based), Pages the thread's page count.
	Page     int  `json:"page"`
	Pages    int  `json:"pages"`
	LoggedIn bool `json:"logged_in"`
	// Forum is the id of the forum holding the thread, as its topic list's
	// URL names it (selectors.thread_forum); "" when the page does not say.
	Forum string `json:"forum,omitempty"`
	segs  [][]string
}

// Thread parses a thread page with no fetch time: relative post times
// come out unreadable (see ThreadAt).
func (x *Parser) Thread(doc *goquery.Document) Thread { return x.ThreadAt(doc, Fetch{}) }

// ThreadAt parses a thread page fetched at f; each post carries the stamp
// its time allows (relative times resolved against f), and the thread each
// post's command segments (Thread.Segments).
//
// It walks the page's tree once for the page-wide nodes (posts, pagination,
// the logged-in marker, the board's clock), then each post's subtree once
// for its parts: no selector is compiled per post and no body is parsed
// again for its segments (a page is read every poll, see
// BenchmarkParseThreadPage).
func (x *Parser) ThreadAt(doc *goquery.Document, f Fetch) Thread {
	var (
		posts, open   []*postNodes // every post; those the walk is inside
		pageTime, cur *html.Node
		forumNode     *html.Node // the last thread_forum match
		links         []*html.Node
		loggedIn      bool
		walk          func(n *html.Node, inPost bool) *postNodes
	)
	// The pagination, the logged-in marker and the board's clock are
	// looked for outside posts only: what a player writes must not pass
	// for them, no engine puts them inside a post, and posts are most of
	// a page's nodes.
	walk = func(n *html.Node, inPost bool) *postNodes {
		var mine *postNodes
		if n.Type == html.ElementNode {
			for _, p := range open {
				p.match(x, n)
			}
			if x.post.Match(n) {
				// Even inside a post: markup left open in a body (a cut too
				// deep post) takes the posts after it inside.
				mine = &postNodes{node: n, id: x.postIDOf(n)}
				posts = append(posts, mine)
			}
			if !inPost {
				if pageTime == nil && x.pageTime.Match(n) {
					pageTime = n
				}
				if cur == nil && x.pageCur.Match(n) {
					cur = n
				}
				if x.pageLinks.Match(n) {
					links = append(links, n)
				}
				if !loggedIn && x.marks[forum.PageThread].loggedIn.Match(n) {
					loggedIn = true
				}
				if x.threadForum.Match(n) {
					forumNode = n
				}
			}
		}
		if mine != nil {
			open = append(open, mine)
		}
		inPost = inPost || mine != nil && mine.id != ""
		// A post spanning siblings (selectors.post_span) stays open over
		// them: their parts are its parts, and they are inside a post.
		var span *postNodes
		left := 0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if span != nil && c.Type == html.ElementNode {
				switch {
				case x.post.Match(c) && x.postIDOf(c) != "":
					span = nil // the next post begins
				case x.spanNext:
				case left == 0:
					span = nil
				default:
					left--
				}
			}
			if span != nil {
				open = append(open, span)
				walk(c, true)
				open = open[:len(open)-1]
				continue
			}
			if p := walk(c, inPost); x.spans && p != nil && p.id != "" {
				span, left = p, x.spanRows-1
			}
		}
		if mine != nil {
			open = open[:len(open)-1]
		}
		return mine
	}
	for _, n := range doc.Nodes {
		walk(n, false)
	}
	f = x.anchorAt(pageTime, f)
	t := Thread{LoggedIn: loggedIn}
	if forumNode != nil {
		t.Forum = group(x.reThreadForum, nodeAttr(forumNode, x.Profile.Selectors.ThreadForumAttr))
	}
	var buf bytes.Buffer
	memo := x.newMemo()
	t.Page, t.Pages = pages(cur, links)
	for _, pn := range posts {
		id := pn.id
		if id == "" {
			continue // not a post node (a PM, a preview)
		}
		author, tm, body, edit := pn.author, pn.tm, pn.body, pn.edit
		p := forum.Post{ID: id, Page: t.Page}
		p.Author = x.authorOf(sel(doc, author))
		p.Stamp = x.postTime(sel(doc, tm), f)
		p.Time = p.Stamp.Earliest
		var segs []string
		if body != nil {
			p.BodyHTML = innerHTML(&buf, body)
			if wasCut(p.BodyHTML) {
				p.BodyHTML = readableBody(p.BodyHTML)
			} else {
				w := &walker{x: x, memo: memo, mask: x.editMask(body, nil)}
				for c := body.FirstChild; c != nil; c = c.NextSibling {
					w.walk(c, false)
				}
				w.flush()
				segs = w.out
			}
		}
		// What the body reader reads from BodyHTML (markers dropped),
		// read here from the page's tree (TestThreadCommandsAsFromTheBody).
		p.Commands, p.CommandsRead = dropMarkers(append([]string(nil), segs...)), true
		if edit != nil {
			p.Edited = true
			p.EditNotice = collapse(sel(doc, edit).Text())
		}
		if note := x.editText(body); note != "" {
			p.Edited = true
			if p.EditNotice == "" {
				p.EditNotice = note
			}
		}
		t.Posts = append(t.Posts, p)
		t.segs = append(t.segs, segs)
	}
	return t
}

// postIDOf is the post id a post node carries (selectors.post_id_attr),
// on itself or, with selectors.post_id, on the first element in it that
// post_id matches; "" when it is no post.
func (x *Parser) postIDOf(n *html.Node) string {
	a := x.Profile.Selectors.PostIDAttr
	if _, ok := x.postID.(nothing); ok {
		return group(x.rePostID, nodeAttr(n, a))
	}
	var id string
	var find func(n *html.Node) bool
	find = func(n *html.Node) bool {
		if n.Type == html.ElementNode && x.postID.Match(n) {
			if id = group(x.rePostID, nodeAttr(n, a)); id != "" {
				return true
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if find(c) {
				return true
			}
		}
		return false
	}
	find(n)
	return id
}

// editText is the edit notice the board wrote as text inside a body
// (selectors.edit_notice_regexp), collapsed; "" when none.
func (x *Parser) editText(body *html.Node) string {
	if x.reEditText == nil || body == nil {
		return ""
	}
	return collapse(x.reEditText.FindString(nodeText(body)))
}

// postNodes are a post's node and the first of each of its parts, in
// document order (none: nil).
type postNodes struct {
	id                           string // "" when the node is no post (a PM, a preview)
	node, author, tm, body, edit *html.Node
}

// match takes n, a descendant of the post's node, for each part not found yet.
func (p *postNodes) match(x *Parser, n *html.Node) {
	if p.author == nil && x.author.Match(n) {
		p.author = n
	}
	if p.tm == nil && x.tm.Match(n) {
		p.tm = n
	}
	if p.body == nil && x.body.Match(n) {
		p.body = n
	}
	if p.edit == nil && x.edit.Match(n) {
		p.edit = n
	}
}

// sel wraps one node (or none) as a selection.
func sel(doc *goquery.Document, n *html.Node) *goquery.Selection {
	if n == nil {
		return doc.FindNodes()
	}
	return doc.FindNodes(n)
}

// innerHTML renders a node's children, as goquery's Html does, through
// buf (a page's bodies share one buffer, grown once, instead of each
// growing its own: a body is copied out once, at its size).
func innerHTML(buf *bytes.Buffer, n *html.Node) string {
	buf.Reset()
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if err := html.Render(buf, c); err != nil {
			return ""
		}
	}
	return buf.String()
}

func nodeAttr(n *html.Node, name string) string {
	if name == "" || n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == name {
			return a.Val
		}
	}
	return ""
}

// ParseThread is Thread on raw bytes.
func (x *Parser) ParseThread(page []byte) (Thread, error) { return x.ParseThreadAt(page, Fetch{}) }

// ParseThreadAt is ThreadAt on raw bytes.
func (x *Parser) ParseThreadAt(page []byte, f Fetch) (Thread, error) {
	doc, err := Doc(page)
	if err != nil {
		return Thread{}, err
	}
	return x.ThreadAt(doc, f), nil
}

// anchor replaces the fetch time by the board's own clock when the page
// shows it (Selectors.PageTime): PHP renders it from the same time() as
// the relative stamps, so no skew or request time blurs them.
func (x *Parser) anchor(doc *goquery.Document, f Fetch) Fetch {
	var n *html.Node
	if s := doc.FindMatcher(x.pageTime); s.Length() > 0 {
		n = s.Nodes[0]
	}
	return x.anchorAt(n, f)
}

// anchorAt is anchor with the page-time node found (nil: none).
func (x *Parser) anchorAt(n *html.Node, f Fetch) Fetch {
	a := x.Profile.Selectors.TimeAttr
	if a == "" {
		a = "datetime"
	}
	if v := nodeAttr(n, a); v != "" {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
			return Fetch{Sent: t, Received: t, board: true}
		}
	}
	return f
}

// pages reads the pagination: the current page's node (nil: none, page 1)
// and the page links.
func pages(cur *html.Node, links []*html.Node) (page, pages int) {
	page = 1
	if cur != nil {
		if n, err := strconv.Atoi(collapse(nodeText(cur))); err == nil && n > 0 {
			page = n
		}
	}
	pages = page
	for _, l := range links {
		if n, err := strconv.Atoi(collapse(nodeText(l))); err == nil && n > pages {
			pages = n
		}
	}
	return page, pages
}

// Complete reports whether a fetched page arrived whole: its raw bytes
// hold the closing </html> near the end (a raw cut has none) and the
// profile's page_end footer is there (a page cut short and closed — by a
// proxy, or by the HTML parser itself — lacks it, since the footer comes
// after every post). Only a complete page can show that something is NOT
// on it.
func (x *Parser) Complete(raw []byte, doc *goquery.Document) bool {
	return x.CompleteOn("", raw, doc)
}

// pageMarks are one kind of page's marks, compiled.
type pageMarks struct {
	loggedIn, pageEnd, errBox goquery.Matcher
	endSet                    bool
}

// CompleteOn is Complete for a kind of page, by its page-end mark
// (page_marks.KIND.page_end, else selectors.page_end).
func (x *Parser) CompleteOn(kind forum.PageKind, raw []byte, doc *goquery.Document) bool {
	tail := raw[max(0, len(raw)-4096):]
	if !bytes.Contains(bytes.ToLower(tail), []byte("</html>")) {
		return false
	}
	m := x.marks[kind]
	return !m.endSet || doc.FindMatcher(m.pageEnd).Length() > 0
}

// LoggedInOn is LoggedIn for a kind of page, by its logged-in mark
// (page_marks.KIND.logged_in, else selectors.logged_in).
func (x *Parser) LoggedInOn(kind forum.PageKind, doc *goquery.Document) bool {
	return doc.FindMatcher(x.marks[kind].loggedIn).Length() > 0
}

// ErrorTextOn is ErrorText for a kind of page, by its error mark
// (page_marks.KIND.error, else selectors.error).
func (x *Parser) ErrorTextOn(kind forum.PageKind, doc *goquery.Document) string {
	var parts []string
	doc.FindMatcher(x.marks[kind].errBox).Each(func(_ int, s *goquery.Selection) {
		if t := collapse(s.Text()); t != "" {
			parts = append(parts, t)
		}
	})
	return strings.Join(parts, " | ")
}

// nodeText is a node's text, as goquery's Text.
func nodeText(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// LoggedIn reports whether the page shows the profile's logged-in marker.
func (x *Parser) LoggedIn(doc *goquery.Document) bool { return x.LoggedInOn("", doc) }

// Captcha reports whether a node (a form) holds the profile's captcha
// control.
func (x *Parser) Captcha(s *goquery.Selection) bool {
	return s.FindMatcher(x.captcha).Length() > 0
}

// ErrorText is the text of the page's error box(es), "" when none.
func (x *Parser) ErrorText(doc *goquery.Document) string { return x.ErrorTextOn("", doc) }

// authorOf reads a name node: its text is the name, and the user id comes
// from its own link or the first descendant link that carries one.
func (x *Parser) authorOf(s *goquery.Selection) forum.Author {
	a := forum.Author{Name: collapse(s.Text())}
	if s.Length() == 0 {
		return a
	}
	if x.Profile.NamesAreIDs() {
		a.ID = a.Name // user_ids: names
		return a
	}
	idAttr := x.Profile.Selectors.AuthorIDAttr
	if id := group(x.reAuthorID, attr(s, idAttr)); id != "" {
		a.ID = id
		return a
	}
	s.FindMatcher(x.withAuthorID).EachWithBreak(func(_ int, l *goquery.Selection) bool {
		a.ID = group(x.reAuthorID, attr(l, idAttr))
		return a.ID == ""
	})
	return a
}

// postTime reads a post's time node: a machine-readable attribute on it
// or a descendant if the profile names one, else its text.
func (x *Parser) postTime(s *goquery.Selection, f Fetch) forum.Stamp {
	if s.Length() == 0 {
		return forum.UnreadableStamp("", fmt.Errorf("unreadable time: no time node (selector %q) in the post", x.Profile.Selectors.Time))
	}
	if a := x.Profile.Selectors.TimeAttr; a != "" {
		for _, n := range append([]*goquery.Selection{s}, s.FindMatcher(x.withTimeAttr)) {
			if v := strings.TrimSpace(attr(n.First(), a)); v != "" {
				if t, err := time.Parse(time.RFC3339, v); err == nil {
					return forum.ExactStamp(t, v)
				}
			}
		}
	}
	return x.timeOf(s, x.tmTitle, x.reTime, f)
}

// timeOf reads a textual time: the node's text (through re when set) in
// the profile's layouts and time zone. A title descendant (MyBB's "Today"
// or "9 hours ago" with the date and time in its title) is tried first,
// joined with the rest of the text (", 10:00 AM"); the visible text is the
// fallback. The stamp's Text is what the page showed, with the title's
// text after it in brackets when that is what was read.
func (x *Parser) timeOf(s *goquery.Selection, title goquery.Matcher, re *regexp.Regexp, f Fetch) forum.Stamp {
	if s.Length() == 0 {
		return forum.UnreadableStamp("", errors.New("unreadable time: no time node on the page"))
	}
	c := s.Clone()
	c.FindMatcher(x.tmStrip).Remove()
	raw := textLines(c.Nodes...)
	full := collapse(raw)
	if re != nil {
		if g := group(re, strings.TrimSpace(raw)); g != "" {
			full = collapse(g)
		}
	}
	var cands []string
	if tt := c.FindMatcher(title).First(); tt.Length() > 0 {
		if ttl := collapse(attr(tt, "title")); ttl != "" {
			rest := strings.TrimSpace(strings.Replace(full, collapse(tt.Text()), "", 1))
			cands = append(cands, ttl+rest, collapse(ttl+" "+rest), ttl)
		}
	}
	cands = append(cands, full)
	st, err := x.ParseTime(f, cands...)
	if err == nil && st.Text != full {
		st.Text = full + " [" + st.Text + "]"
	}
	return st
}

// Inbox parses a PM folder list (inbox or sent) with no fetch time.
func (x *Parser) Inbox(doc *goquery.Document) []forum.PMHeader { return x.InboxAt(doc, Fetch{}) }

// InboxAt parses a PM folder list fetched at f.
func (x *Parser) InboxAt(doc *goquery.Document, f Fetch) []forum.PMHeader {
	f = x.anchor(doc, f)
	var out []forum.PMHeader
	doc.FindMatcher(x.inRow).Each(func(_ int, row *goquery.Selection) {
		link := row.FindMatcher(x.inLink).First()
		id := group(x.reURLPM, attr(link, "href"))
		if id == "" {
			return
		}
		h := forum.PMHeader{ID: id, Subject: collapse(link.Text())}
		h.From = x.authorOf(row.FindMatcher(x.inFrom).First())
		h.Stamp = x.timeOf(row.FindMatcher(x.inTime).First(), x.tmTitle, x.reInTime, f)
		h.Time = h.Stamp.Earliest
		h.Unread = row.FindMatcher(x.inUnread).Length() > 0 || x.inUnread.Match(row.Nodes[0])
		out = append(out, h)
	})
	return out
}

// PM parses one PM page with no fetch time. ok is false when the page
// holds no PM.
func (x *Parser) PM(doc *goquery.Document) (forum.PrivateMessage, bool) { return x.PMAt(doc, Fetch{}) }

// PMAt parses one PM page fetched at f.
func (x *Parser) PMAt(doc *goquery.Document, f Fetch) (forum.PrivateMessage, bool) {
	f = x.anchor(doc, f)
	n := doc.FindMatcher(x.pm).First()
	if n.Length() == 0 {
		return forum.PrivateMessage{}, false
	}
	m := forum.PrivateMessage{}
	if x.rePMID != nil {
		m.ID = group(x.rePMID, attr(n, x.Profile.Selectors.PMIDAttr))
	}
	subj := n.FindMatcher(x.pmSubject).First()
	if subj.Length() == 0 {
		subj = doc.FindMatcher(x.pmSubject).First()
	}
	m.Subject = collapse(subj.Text())
	m.From = x.authorOf(n.FindMatcher(x.pmFrom).First())
	m.Stamp = x.timeOf(n.FindMatcher(x.pmTime).First(), x.pmTimeTitle, x.rePMTime, f)
	m.Time = m.Stamp.Earliest
	m.CommandsRead = true
	if b := n.FindMatcher(x.pmBody).First(); b.Length() > 0 {
		m.BodyHTML, _ = b.Html()
		if wasCut(m.BodyHTML) {
			m.BodyHTML = readableBody(m.BodyHTML)
		} else {
			// Its lines, from the page's tree (as BodyReader.Lines reads
			// them from the body).
			w := &walker{x: x, all: true, memo: x.newMemo(), mask: x.editMask(b.Nodes[0], nil)}
			for c := b.Nodes[0].FirstChild; c != nil; c = c.NextSibling {
				w.walk(c, true)
			}
			w.flush()
			m.Commands = dropMarkers(w.out)
		}
	}
	return m, true
}

// Kind tells what a page is: "thread", "pm", "inbox" or "" (unknown).
func (x *Parser) Kind(doc *goquery.Document) string {
	found := false
	doc.FindMatcher(x.post).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		found = x.postIDOf(s.Nodes[0]) != ""
		return !found
	})
	switch {
	case found:
		return "thread"
	case doc.FindMatcher(x.pm).Length() > 0:
		return "pm"
	case len(x.Inbox(doc)) > 0:
		return "inbox"
	}
	return ""
}

// PostIDFromURL finds a post id in a URL (a redirect after replying).
func (x *Parser) PostIDFromURL(u string) string { return group(x.reURLPost, u) }

// PMIDFromURL finds a PM id in a URL.
func (x *Parser) PMIDFromURL(u string) string { return group(x.reURLPM, u) }

// Closed reports whether a page is the board's "closed for maintenance"
// page, or carries the notice staff see over a closed board (the
// profile's closed_text), and what the board says: its error box (with the
// admin's reason) or, without one, the wording matched. Posts, PMs and
// inbox rows are not read for it: a player who quotes the wording must not
// close the board for the bot.
func (x *Parser) Closed(doc *goquery.Document) (bool, string) {
	if len(x.Profile.ClosedText) == 0 || len(doc.Nodes) == 0 {
		return false, ""
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		switch n.Type {
		case html.TextNode:
			b.WriteString(n.Data)
			b.WriteByte(' ')
			return
		case html.ElementNode:
			if x.userContent(n) {
				return
			}
			if n.Data == "img" {
				// SMF says it only in its maintenance picture's alt text.
				for _, a := range n.Attr {
					if a.Key == "alt" {
						b.WriteString(a.Val)
						b.WriteByte(' ')
					}
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc.Nodes[0])
	c := forum.Mentions(b.String(), x.Profile.ClosedText)
	if c == "" {
		return false, ""
	}
	if said := x.ErrorText(doc); said != "" {
		return true, said
	}
	return true, c
}

// userContent: a node holding what members wrote (a post, a PM, an inbox
// row with its subject).
func (x *Parser) userContent(n *html.Node) bool {
	for _, m := range []goquery.Matcher{x.post, x.body, x.inRow, x.pm, x.pmBody, x.pmSubject} {
		if m != nil && m.Match(n) {
			return true
		}
	}
	return false
}

// FloodNotice is what a board's flood refusal says of time: the seconds
// still to wait (MyBB: "Please wait 57 more seconds"), or its whole
// interval (SMF: "less than 15 seconds ago"); zero where it names none.
type FloodNotice struct {
	Left, Interval time.Duration
}

// FloodWait tells whether the page is the board's flood refusal, and what
// it says of time: the profile's flood_wait_regexp group named "interval"
// is the board's interval, any other group the seconds left.
func (x *Parser) FloodWait(doc *goquery.Document) (bool, FloodNotice) {
	text := strings.ToLower(collapse(doc.Text()))
	if forum.Mentions(text, x.Profile.FloodText) == "" {
		return false, FloodNotice{}
	}
	if x.reFlood != nil {
		if m := x.reFlood.FindStringSubmatch(text); m != nil {
			names := x.reFlood.SubexpNames()
			for i, g := range m {
				if n, err := strconv.Atoi(g); i > 0 && err == nil && n > 0 {
					d := time.Duration(n) * time.Second
					if names[i] == "interval" {
						return true, FloodNotice{Interval: d}
					}
					return true, FloodNotice{Left: d}
				}
			}
		}
	}
	return true, FloodNotice{}
}

// Form is an HTML form as the bot will submit it.
type Form struct {
	Action string     // absolute URL
	Method string     // "POST" or "GET"
	Values url.Values // hidden and pre-filled fields (tokens)
	// Charset is the first charset the form's accept-charset names that a
	// browser knows (canonical, as Charset.Name), "" when it names none:
	// a browser submits the form in it, else in its page's charset.
	Charset string
}

// FindForm extracts the first form matching sel: its action (resolved
// against pageURL) and every successful field it would submit, so tokens
// (form_token, creation_time, sid, my_post_key, posthash) are kept.
func FindForm(doc *goquery.Document, pageURL, sel string) (Form, error) {
	m, err := compileSel("form", sel)
	if err != nil {
		return Form{}, err
	}
	f := doc.FindMatcher(m).First()
	if f.Length() == 0 {
		return Form{}, fmt.Errorf("no form %q on the page", sel)
	}
	action := attr(f, "action")
	base, err := url.Parse(pageURL)
	if err != nil {
		return Form{}, err
	}
	ref, err := url.Parse(strings.TrimSpace(action))
	if err != nil {
		return Form{}, fmt.Errorf("form action %q: %w", action, err)
	}
	out := Form{Action: base.ResolveReference(ref).String(), Method: strings.ToUpper(attr(f, "method")), Values: url.Values{}}
	if out.Method == "" {
		out.Method = "GET"
	}
	out.Charset = AcceptCharset(attr(f, "accept-charset"))
	f.Find("input[name], textarea[name], select[name]").Each(func(_ int, s *goquery.Selection) {
		name := attr(s, "name")
		switch goquery.NodeName(s) {
		case "textarea":
			out.Values.Add(name, s.Text())
		case "select":
			opt := s.Find("option[selected]").First()
			if opt.Length() == 0 {
				opt = s.Find("option").First()
			}
			if opt.Length() > 0 {
				v, ok := opt.Attr("value")
				if !ok {
					v = opt.Text()
				}
				out.Values.Add(name, v)
			}
		default:
			switch strings.ToLower(attr(s, "type")) {
			case "submit", "button", "image", "reset", "file":
				return
			case "checkbox", "radio":
				if _, ok := s.Attr("checked"); !ok {
					return
				}
			}
			v, ok := s.Attr("value")
			if !ok && strings.EqualFold(attr(s, "type"), "checkbox") {
				v = "on"
			}
			out.Values.Add(name, v)
		}
	})
	return out, nil
}

// MetaRefresh is the target of a page's <meta http-equiv="refresh">, "" if none.
func MetaRefresh(doc *goquery.Document) string {
	var target string
	doc.Find("meta[http-equiv]").EachWithBreak(func(_ int, s *goquery.Selection) bool {
		if !strings.EqualFold(attr(s, "http-equiv"), "refresh") {
			return true
		}
		c := attr(s, "content")
		if i := strings.Index(strings.ToLower(c), "url="); i >= 0 {
			target = strings.Trim(strings.TrimSpace(c[i+4:]), `'"`)
		}
		return target == ""
	})
	return target
}

// ReadAll reads a page body with a cap so a broken server cannot exhaust memory.
func ReadAll(r io.Reader) ([]byte, error) {
	return io.ReadAll(io.LimitReader(r, 16<<20))
}

func attr(s *goquery.Selection, name string) string {
	if name == "" || s.Length() == 0 {
		return ""
	}
	v, _ := s.Attr(name)
	return v
}

func group(re *regexp.Regexp, s string) string {
	if re == nil || s == "" {
		return ""
	}
	m := re.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	for _, g := range m[1:] {
		if g != "" {
			return g
		}
	}
	if len(m) == 1 {
		return m[0]
	}
	return ""
}

// collapse joins whitespace runs into single spaces and trims.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// Segments are the command segments of the i-th post, read from the page's
// own tree (the same as Parser.Segments of its BodyHTML; none for a post
// that had to be cut, see deep.go). Nil for a Thread not made by ThreadAt.
func (t Thread) Segments(i int) []string {
	if i < 0 || i >= len(t.segs) {
		return nil
	}
	return t.segs[i]
}
