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
	"github.com/andybalholm/cascadia"
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
	captcha                                                                                       goquery.Matcher

	rePostID, reAuthorID, reTime, rePMID, rePMTime, reInTime, reURLPost, reURLPM, reFlood *regexp.Regexp
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
	m, err := cascadia.Compile(s)
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
		{&x.captcha, "captcha", s.Captcha},
	} {
		if *c.dst, err = compileSel(c.name, c.sel); err != nil {
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
}

// Thread parses a thread page with no fetch time: relative post times
// come out unreadable (see ThreadAt).
func (x *Parser) Thread(doc *goquery.Document) Thread { return x.ThreadAt(doc, Fetch{}) }

// ThreadAt parses a thread page fetched at f; each post carries the stamp
// its time allows (relative times resolved against f).
func (x *Parser) ThreadAt(doc *goquery.Document, f Fetch) Thread {
	f = x.anchor(doc, f)
	t := Thread{LoggedIn: x.LoggedIn(doc)}
	t.Page, t.Pages = x.pagination(doc)
	doc.FindMatcher(x.post).Each(func(_ int, s *goquery.Selection) {
		id := group(x.rePostID, attr(s, x.Profile.Selectors.PostIDAttr))
		if id == "" {
			return // not a post node (a PM, a preview)
		}
		p := forum.Post{ID: id, Page: t.Page}
		p.Author = x.authorOf(s.FindMatcher(x.author).First())
		p.Stamp = x.postTime(s.FindMatcher(x.tm).First(), f)
		p.Time = p.Stamp.Earliest
		if b := s.FindMatcher(x.body).First(); b.Length() > 0 {
			p.BodyHTML, _ = b.Html()
			p.BodyHTML = readableBody(p.BodyHTML)
		}
		if e := s.FindMatcher(x.edit).First(); e.Length() > 0 {
			p.Edited = true
			p.EditNotice = collapse(e.Text())
		}
		t.Posts = append(t.Posts, p)
	})
	return t
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
	a := x.Profile.Selectors.TimeAttr
	if a == "" {
		a = "datetime"
	}
	n := doc.FindMatcher(x.pageTime).First()
	if v := attr(n, a); v != "" {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(v)); err == nil {
			return Fetch{Sent: t, Received: t, board: true}
		}
	}
	return f
}

func (x *Parser) pagination(doc *goquery.Document) (page, pages int) {
	page = 1
	if n, err := strconv.Atoi(collapse(doc.FindMatcher(x.pageCur).First().Text())); err == nil && n > 0 {
		page = n
	}
	pages = page
	doc.FindMatcher(x.pageLinks).Each(func(_ int, s *goquery.Selection) {
		if n, err := strconv.Atoi(collapse(s.Text())); err == nil && n > pages {
			pages = n
		}
	})
	return page, pages
}

// Complete reports whether a fetched page arrived whole: its raw bytes
// hold the closing </html> near the end (a raw cut has none) and the
// profile's page_end footer is there (a page cut short and closed — by a
// proxy, or by the HTML parser itself — lacks it, since the footer comes
// after every post). Only a complete page can show that something is NOT
// on it.
func (x *Parser) Complete(raw []byte, doc *goquery.Document) bool {
	tail := raw[max(0, len(raw)-4096):]
	if !bytes.Contains(bytes.ToLower(tail), []byte("</html>")) {
		return false
	}
	return strings.TrimSpace(x.Profile.Selectors.PageEnd) == "" || doc.FindMatcher(x.pageEnd).Length() > 0
}

// LoggedIn reports whether the page shows the profile's logged-in marker.
func (x *Parser) LoggedIn(doc *goquery.Document) bool {
	return doc.FindMatcher(x.loggedIn).Length() > 0
}

// Captcha reports whether a node (a form) holds the profile's captcha
// control.
func (x *Parser) Captcha(s *goquery.Selection) bool {
	return s.FindMatcher(x.captcha).Length() > 0
}

// ErrorText is the text of the page's error box(es), "" when none.
func (x *Parser) ErrorText(doc *goquery.Document) string {
	var parts []string
	doc.FindMatcher(x.errBox).Each(func(_ int, s *goquery.Selection) {
		if t := collapse(s.Text()); t != "" {
			parts = append(parts, t)
		}
	})
	return strings.Join(parts, " | ")
}

// authorOf reads a name node: its text is the name, and the user id comes
// from its own link or the first descendant link that carries one.
func (x *Parser) authorOf(s *goquery.Selection) forum.Author {
	a := forum.Author{Name: collapse(s.Text())}
	if s.Length() == 0 {
		return a
	}
	idAttr := x.Profile.Selectors.AuthorIDAttr
	if id := group(x.reAuthorID, attr(s, idAttr)); id != "" {
		a.ID = id
		return a
	}
	s.Find("[" + idAttr + "]").EachWithBreak(func(_ int, l *goquery.Selection) bool {
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
		for _, n := range append([]*goquery.Selection{s}, s.Find("["+a+"]")) {
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
	if b := n.FindMatcher(x.pmBody).First(); b.Length() > 0 {
		m.BodyHTML, _ = b.Html()
		m.BodyHTML = readableBody(m.BodyHTML)
	}
	return m, true
}

// Kind tells what a page is: "thread", "pm", "inbox" or "" (unknown).
func (x *Parser) Kind(doc *goquery.Document) string {
	found := false
	doc.FindMatcher(x.post).EachWithBreak(func(_ int, s *goquery.Selection) bool {
		found = group(x.rePostID, attr(s, x.Profile.Selectors.PostIDAttr)) != ""
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

// FloodWait reports whether a page is the board's flood-control error and
// the wait it names (0 when it names none).
func (x *Parser) FloodWait(doc *goquery.Document) (bool, time.Duration) {
	text := strings.ToLower(collapse(doc.Text()))
	hit := false
	for _, f := range x.Profile.FloodText {
		if f != "" && strings.Contains(text, strings.ToLower(f)) {
			hit = true
			break
		}
	}
	if !hit {
		return false, 0
	}
	if x.reFlood != nil {
		if m := x.reFlood.FindStringSubmatch(text); m != nil {
			for _, g := range m[1:] {
				if n, err := strconv.Atoi(g); err == nil && n > 0 {
					return true, time.Duration(n) * time.Second
				}
			}
		}
	}
	return true, 0
}

// Form is an HTML form as the bot will submit it.
type Form struct {
	Action string     // absolute URL
	Method string     // "POST" or "GET"
	Values url.Values // hidden and pre-filled fields (tokens)
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
