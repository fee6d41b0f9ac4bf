// Package probe checks a board before a game: it logs the bot in, reads
// the first and last page of the thread, opens the PM folders and fetches
// the reply and PM forms without submitting them, and says for each what a
// game needs whether it works — and when it does not, which profile key
// failed, what the page held there instead and what to do. With PostTest
// it also posts one reply and sends one PM to the bot itself, and finds
// both again by their markers.
package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// Config is what to probe.
type Config struct {
	URL     string // board root
	Profile forum.Profile
	Thread  string
	Creds   forum.Credentials
	// PostTest also posts one reply in the thread and sends one PM to the
	// bot itself, and confirms both.
	PostTest bool
	// FloodSeconds is the game file's flood_seconds for the bot (nil: unset).
	FloodSeconds *float64
	// Pictures is the game file's forum.pictures (nil: unset, on).
	Pictures *bool
	Scraper  scraper.Options
}

// Status of one check.
type Status string

// Statuses. Unknown: cannot be told yet (not a failure); Skipped: not
// tried because an earlier check failed.
const (
	OK      Status = "ok"
	Fail    Status = "fail"
	Warn    Status = "warn"
	Unknown Status = "unknown"
	Skipped Status = "skipped"
)

// Check is one item of the checklist.
type Check struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Status Status `json:"status"`
	// Needed: a game cannot run while this fails.
	Needed bool   `json:"needed"`
	Detail string `json:"detail,omitempty"`
	// Key is the profile key (and its value) that failed; Found the first
	// ~200 characters of the page region where it should have matched.
	Key   string `json:"key,omitempty"`
	Found string `json:"found,omitempty"`
	Fix   string `json:"fix,omitempty"`
}

// Post is one post the probe read.
type Post struct {
	ID        string   `json:"id"`
	Page      int      `json:"page"`
	Author    string   `json:"author"`
	AuthorID  string   `json:"author_id,omitempty"`
	Time      string   `json:"time,omitempty"` // the earliest instant, UTC RFC 3339
	Until     string   `json:"until,omitempty"`
	Precision string   `json:"precision"`
	TimeText  string   `json:"time_text,omitempty"`
	TimeError string   `json:"time_error,omitempty"`
	Segments  []string `json:"segments"`
}

// Report is the checklist and what was read.
type Report struct {
	Board    string  `json:"board"`
	Profile  string  `json:"profile"`
	Thread   string  `json:"thread"`
	Bot      string  `json:"bot"`
	PostTest bool    `json:"post_test"`
	OK       bool    `json:"ok"` // every check a game needs passed
	Checks   []Check `json:"checks"`
	Posts    []Post  `json:"posts"`
	// PMs says plainly, when a check of the bot's private messages failed,
	// that every game needs them ("" when they work).
	PMs string `json:"pms,omitempty"`
}

// Failed lists the needed checks that failed or could not be tried.
func (r *Report) Failed() []Check {
	var out []Check
	for _, c := range r.Checks {
		if c.Needed && (c.Status == Fail || c.Status == Skipped) {
			out = append(out, c)
		}
	}
	return out
}

type prober struct {
	cfg   Config
	prof  forum.Profile
	conn  *forumconn.Conn
	sess  *scraper.Session
	body  *parser.BodyReader // what the bot reads from a body
	r     *Report
	botID string
	pages []seenPage // for the charset check
}

// ForGame probes a game's board as `forumgm probe` and `forumgm new` do:
// its profile (file or built-in), the bot's password from where the game
// file says, and the game's request pace. The error is for a probe that
// could not start (no password, a bad profile or URL). version names the
// program in the User-Agent.
func ForGame(ctx context.Context, fc gameconfig.ForumConfig, version string, postTest bool) (*Report, error) {
	site, err := fc.Site() // the profile with the game's time_zone
	if err != nil {
		return nil, err
	}
	prof := site.Profile
	creds, err := fc.Credentials()
	if err != nil {
		return nil, err
	}
	opt := scraper.Options{UserAgent: scraper.UserAgent(version), Retries: 1, Backoff: time.Second, Timeout: 20 * time.Second}
	if fc.RequestsPerSecond > 0 {
		opt.MinInterval = time.Duration(float64(time.Second) / fc.RequestsPerSecond)
	}
	return Run(ctx, Config{URL: fc.URL, Profile: prof, Thread: fc.Thread, Creds: creds, PostTest: postTest, FloodSeconds: fc.FloodSeconds, Pictures: fc.Pictures, Scraper: opt})
}

// Run probes the board. The error is for a probe that could not start (a
// bad URL or profile); everything the board does wrong is in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.Profile.API == forum.APINodeBB {
		return runNodeBB(ctx, cfg)
	}
	c, err := forumconn.Open(cfg.URL, cfg.Profile, cfg.Creds, cfg.Scraper)
	if err != nil {
		return nil, err
	}
	body, err := c.Session.Parser.BodyReader()
	if err != nil {
		return nil, err
	}
	p := &prober{cfg: cfg, prof: cfg.Profile, conn: c, sess: c.Session, body: body,
		r: &Report{Board: cfg.URL, Profile: cfg.Profile.Name, Thread: cfg.Thread, Bot: cfg.Creds.Username, PostTest: cfg.PostTest, Posts: []Post{}}}
	if p.login(ctx) {
		p.thread(ctx)
		p.folder(ctx, "pm.inbox", "PM inbox", p.prof.URLs.Inbox, "urls.inbox")
		p.folder(ctx, "pm.sent", "PM sent folder", p.prof.URLs.Sent, "urls.sent")
		p.form(ctx, "form.reply", "reply form", "forms.reply", p.prof.Forms.Reply, map[string]string{"topic": cfg.Thread})
		p.form(ctx, "form.pm", "PM form (the bot can send PMs)", "forms.pm", p.prof.Forms.PM, map[string]string{"user": p.botID, "name": cfg.Creds.Username})
		p.charsets()
		if cfg.PostTest {
			p.postTest(ctx)
		} else {
			p.floodUnknown()
			p.picturesUnknown()
		}
	} else {
		for _, s := range []struct{ id, title string }{
			{"thread.first", "thread, first page"}, {"thread.last", "thread, last page"},
			{"pm.inbox", "PM inbox"}, {"pm.sent", "PM sent folder"}, {"form.reply", "reply form"},
			{"form.pm", "PM form (the bot can send PMs)"}, {"charset", "charset of pages and forms"},
		} {
			p.add(Check{ID: s.id, Title: s.title, Status: Skipped, Needed: true, Detail: "not tried: the bot is not logged in"})
		}
	}
	p.r.OK = len(p.r.Failed()) == 0
	p.r.PMs = pmsVerdict(p.r.Checks)
	return p.r, nil
}

// NeedPMs is why a board whose PMs the bot cannot use hosts no game.
const NeedPMs = "every game needs private messages today: roles and private results go out by PM and players send their orders by PM"

// pmChecks are the checks of the bot's private messages.
var pmChecks = map[string]bool{"pm.inbox": true, "pm.sent": true, "form.pm": true, "post_test.pm": true, "chats": true}

// pmsVerdict says plainly, when a PM check failed, what that means for a
// game ("" when none failed; a check not tried proves nothing).
func pmsVerdict(checks []Check) string {
	var failed []string
	for _, c := range checks {
		if pmChecks[c.ID] && c.Status == Fail {
			failed = append(failed, c.Title)
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return fmt.Sprintf("the bot cannot use private messages here (%s failed); %s, so no game can run on this board until they work (a board without private messages cannot host a forumgm game yet: docs/profiles.md)",
		strings.Join(failed, ", "), NeedPMs)
}

// pmFix is the fix of a failed PM check: what to check, why it matters,
// and for a 404 that the board may have no private messages at all.
func pmFix(err error, what string) string {
	fix := what
	if errors.Is(err, scraper.ErrNotFound) {
		fix = "the board answered 404: it may have no private messages (or the profile's URL is wrong); " + fix
	}
	return fix + "; " + NeedPMs
}

// isSentFolder checks that the page at urls.sent shows the profile's
// sent-folder marker: only then does a PM missing from it count as not
// sent (scraper.ErrNotSentFolder); otherwise c fails, saying so.
func (p *prober) isSentFolder(c *Check, pg *scraper.Page) bool {
	sel := p.prof.Selectors.SentFolder
	if strings.TrimSpace(sel) != "" && pg.Doc.Find(sel).Length() > 0 {
		return true
	}
	c.Status, c.Key, c.Found = Fail, keyVal("selectors.sent_folder", sel), mainRegion(pg.Doc)
	c.Detail = "the page at urls.sent does not show the sent folder's marker, so the bot cannot tell a PM it is unsure of was not sent: every such PM stays unconfirmed for you, never sent again"
	if strings.TrimSpace(sel) == "" {
		c.Detail = "the profile names no sent-folder marker, so the bot cannot tell a PM it is unsure of was not sent: every such PM stays unconfirmed for you, never sent again"
	}
	c.Fix = "point urls.sent at the bot's sent folder and set selectors.sent_folder to what only that page shows, empty or not (see docs/profiles.md)"
	return false
}

// isInbox checks that the page at urls.inbox shows the profile's inbox
// marker, when it names one (scraper.ErrNotInbox); otherwise c fails.
func (p *prober) isInbox(c *Check, pg *scraper.Page) bool {
	sel := p.prof.Selectors.InboxFolder
	if strings.TrimSpace(sel) == "" || pg.Doc.Find(sel).Length() > 0 {
		return true
	}
	c.Status, c.Key, c.Found = Fail, keyVal("selectors.inbox_folder", sel), mainRegion(pg.Doc)
	c.Detail = "the page at urls.inbox is not the bot's PM inbox (it does not show the inbox's marker): the bot would read no PMs from it"
	if t := p.sess.Parser.ErrorText(pg.Doc); t != "" {
		c.Detail += "; the board says: " + t
	}
	c.Fix = pmFix(nil, "point urls.inbox at the bot's PM inbox (are private messages turned on for the board and the bot?) and set selectors.inbox_folder to what only that page shows")
	return false
}

func (p *prober) add(c Check) { p.r.Checks = append(p.r.Checks, c) }

func keyVal(key, val string) string { return fmt.Sprintf("%s %q", key, val) }

// ---- login

func (p *prober) login(ctx context.Context) bool {
	c := Check{ID: "login", Title: "login", Needed: true}
	err := p.sess.Login(ctx)
	if err == nil {
		// Login only proves the board took the password; a page must show it.
		pg, ferr := p.sess.Fetch(ctx, p.prof.URLs.Index)
		if ferr == nil && p.sess.Parser.LoggedIn(pg.Doc) {
			c.Status, c.Detail = OK, "logged in as "+p.cfg.Creds.Username
			p.add(c)
			return true
		}
		err = ferr
		if err == nil {
			err = errors.New("the index page shows no logged-in marker")
		}
	}
	c.Status, c.Detail = Fail, err.Error()
	lf := p.prof.Forms.Login
	switch {
	case errors.Is(err, scraper.ErrClosed):
		c.Fix = "the board is closed for maintenance: probe again once its admin has reopened it"
	case errors.Is(err, scraper.ErrUnavailable):
		c.Fix = "the board did not answer: check the url and that the board is up"
	case strings.Contains(err.Error(), "login page:"):
		c.Key = keyVal("forms.login.selector", lf.Selector)
		c.Fix = "the login page has no such form: set forms.login (page, selector, user, password) in a profile file"
		if pg, _ := p.sess.Fetch(ctx, lf.Page); pg != nil {
			c.Found = mainRegion(pg.Doc)
		}
	case errors.Is(err, scraper.ErrLoginRefused):
		// The board's own answer to a wrong name or password (the
		// profile's login_refused_text), or its attempt limit's captcha.
		c.Fix = "check the bot's user name and password (password_env / password_file); after a few failures the board may want a captcha or lock the account: log in once by hand in a browser"
	case strings.Contains(err.Error(), "board says"), strings.Contains(err.Error(), "last attempt failed"):
		c.Fix = "check the bot's user name and password (password_env / password_file); the board may also lock the account after failures"
	default:
		c.Key = keyVal("selectors.logged_in", p.prof.Selectors.LoggedIn)
		c.Fix = "if the password is right, the theme hides the logged-in marker: set selectors.logged_in to something only members see (a logout link)"
		if pg, _ := p.sess.Fetch(ctx, p.prof.URLs.Index); pg != nil {
			c.Found = clip(htmlOf(first(pg.Doc.Selection, "#page-header, header, #header, nav, #panel, body")))
		}
	}
	p.add(c)
	return false
}

// ---- thread

func (p *prober) thread(ctx context.Context) {
	firstURL := p.prof.ThreadPageURL(p.cfg.Thread, 1)
	t1, doc1, ok := p.threadPage(ctx, "thread.first", "thread, first page", firstURL)
	lastURL := forum.Expand(p.prof.URLs.LastPage, map[string]string{"topic": p.cfg.Thread})
	tl, docl, okl := p.threadPage(ctx, "thread.last", "thread, last page", lastURL)
	if ok && okl {
		i := len(p.r.Checks) - 1
		c := &p.r.Checks[i]
		switch {
		case t1.Pages > 1 && t1.Page == 1 && len(t1.Posts) != p.prof.PostsPerPage:
			// A full first page shows how many posts a page holds for
			// the bot's account: another count puts every later page
			// the bot computes elsewhere.
			c.Status, c.Detail = Fail, fmt.Sprintf("the thread's first page of %d holds %d posts, but the profile says %d a page", t1.Pages, len(t1.Posts), p.prof.PostsPerPage)
			c.Key = fmt.Sprintf("posts_per_page %d", p.prof.PostsPerPage)
			c.Fix = fmt.Sprintf("set posts_per_page: %d, the posts a page the bot's own account sees (members may choose their own on MyBB and SMF)", len(t1.Posts))
		case t1.Pages > 1 && tl.Page != t1.Pages:
			c.Status, c.Detail = Fail, fmt.Sprintf("the first page counts %d pages but the last-page URL shows page %d", t1.Pages, tl.Page)
			c.Key = keyVal("urls.last_page", p.prof.URLs.LastPage)
			c.Fix = "set urls.last_page to a URL that shows a topic's last page"
		case tl.Page == 1 && t1.Pages == 1 && t1.Posts[0].ID != tl.Posts[0].ID:
			c.Status, c.Detail = Fail, "the last page shows other posts than the first, but no page number was found"
			c.Key = keyVal("selectors.page_current", p.prof.Selectors.PageCurrent)
			c.Fix = "set selectors.page_current and selectors.page_links to the theme's pagination (the scraper follows the pages by them)"
			c.Found = clip(htmlOf(first(docl.Selection, `.pagination, [class*="pagination"], [class*="pages"]`)))
		}
	}
	var posts []forum.Post
	var docs []*goquery.Document
	if ok {
		posts, docs = append(posts, t1.Posts...), append(docs, repeat(doc1, len(t1.Posts))...)
	}
	if okl && !(ok && tl.Page == t1.Page) {
		posts, docs = append(posts, tl.Posts...), append(docs, repeat(docl, len(tl.Posts))...)
	}
	if len(posts) == 0 {
		return
	}
	p.postChecks(posts, docs)
}

func repeat(d *goquery.Document, n int) []*goquery.Document {
	out := make([]*goquery.Document, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func (p *prober) threadPage(ctx context.Context, id, title, rel string) (parser.Thread, *goquery.Document, bool) {
	c := Check{ID: id, Title: title, Needed: true}
	pg, err := p.sess.FetchAs(ctx, rel, forum.PageThread)
	if err != nil {
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = "check the thread id and that the bot may read the forum it is in"
		p.guestPage(&c, err, forum.PageThread)
		if pg != nil && pg.Doc != nil {
			c.Found = mainRegion(pg.Doc)
		}
		p.add(c)
		return parser.Thread{}, nil, false
	}
	p.saw(title, pg, "")
	t := p.sess.Parser.ThreadAt(pg.Doc, pg.Fetch())
	if len(t.Posts) == 0 {
		c.Status = Fail
		c.Key = keyVal("selectors.post", p.prof.Selectors.Post)
		c.Detail = "no post matched " + c.Key
		if say := p.sess.Parser.ErrorText(pg.Doc); say != "" {
			c.Detail += "; the board says: " + say
			c.Fix = "check the thread id and that the bot may read it"
		} else {
			c.Fix = "the theme names posts differently: set selectors.post (and selectors.post_id_attr / post_id_regexp) in a profile file; where nothing holds one post (each post rows of one table), selectors.post_span and post_id too; see docs/profiles.md"
		}
		c.Found = p.postLike(pg.Doc)
		p.add(c)
		return t, pg.Doc, false
	}
	if !p.sess.Parser.CompleteOn(forum.PageThread, pg.Body, pg.Doc) {
		// Every read would refuse such a page as cut short: the game
		// would never read its thread.
		c.Status = Fail
		m, key := p.prof.MarksOf(forum.PageThread)
		c.Key = keyVal(key.PageEnd, m.PageEnd)
		c.Detail = fmt.Sprintf("%d posts, but the page has no %s or no closing </html>, so the bot would take it as cut short", len(t.Posts), c.Key)
		c.Fix = "set selectors.page_end to the theme's page footer (an element after every post), or to \"\" to check only </html>"
		// The page's end, where a footer would be.
		c.Found = "…" + strings.Join(strings.Fields(strings.ToValidUTF8(string(pg.Body[max(0, len(pg.Body)-240):]), "")), " ")
		p.add(c)
		return t, pg.Doc, true
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%d posts on page %d of %d", len(t.Posts), t.Page, t.Pages)
	p.add(c)
	return t, pg.Doc, true
}

// postLike is the start of the first node whose post-id attribute matches
// the profile's regexp although the post selector did not take it (a
// renamed container), else of the page's main region.
func (p *prober) postLike(doc *goquery.Document) string {
	s := p.prof.Selectors
	if re, err := regexp.Compile(s.PostIDRegexp); err == nil && s.PostIDAttr != "" {
		var found *goquery.Selection
		doc.Find("[" + s.PostIDAttr + "]").EachWithBreak(func(_ int, n *goquery.Selection) bool {
			if v, _ := n.Attr(s.PostIDAttr); re.MatchString(v) && goquery.NodeName(n) != "a" {
				found = n
			}
			return found == nil
		})
		if found != nil {
			return clip(htmlOf(found))
		}
	}
	return mainRegion(doc)
}

// postNode finds a post's node again on its page.
func (p *prober) postNode(doc *goquery.Document, id string) *goquery.Selection {
	s := p.prof.Selectors
	re, _ := regexp.Compile(s.PostIDRegexp)
	var out *goquery.Selection
	doc.Find(s.Post).EachWithBreak(func(_ int, n *goquery.Selection) bool {
		carrier := n
		if s.PostID != "" {
			carrier = n.Find(s.PostID).AddSelection(n.Filter(s.PostID)).First()
		}
		v, _ := carrier.Attr(s.PostIDAttr)
		if m := re.FindStringSubmatch(v); m != nil && m[len(m)-1] == id {
			out = n
		}
		return out == nil
	})
	if out == nil {
		return doc.Selection.Slice(0, 0)
	}
	if rows, next, err := p.prof.Span(); err == nil && (next || rows > 1) {
		// A post spanning sibling rows: its node and those rows.
		sib := out.NextAll()
		if !next {
			sib = sib.Slice(0, min(rows-1, sib.Length()))
		} else if end := sib.Filter(s.Post); end.Length() > 0 {
			sib = out.NextUntilSelection(end.First())
		}
		out = out.AddSelection(sib)
	}
	return out
}

func (p *prober) postChecks(posts []forum.Post, docs []*goquery.Document) {
	s := p.prof.Selectors
	var noAuthor, noID, noTime, noBody []int
	for i, fp := range posts {
		segs := p.body.Segments(fp.BodyHTML)
		if segs == nil {
			segs = []string{}
		}
		pp := Post{ID: fp.ID, Page: fp.Page, Author: fp.Author.Name, AuthorID: fp.Author.ID, Precision: fp.Stamp.Precision.String(),
			TimeText: fp.Stamp.Text, TimeError: fp.Stamp.Err, Segments: segs}
		if fp.Stamp.Known() {
			pp.Time = fp.Stamp.Earliest.UTC().Format(time.RFC3339)
			if fp.Stamp.Width() > 0 {
				pp.Until = fp.Stamp.Latest.UTC().Format(time.RFC3339)
			}
		}
		p.r.Posts = append(p.r.Posts, pp)
		if fp.Author.Name == "" {
			noAuthor = append(noAuthor, i)
		} else if fp.Author.ID == "" {
			noID = append(noID, i)
		}
		if strings.EqualFold(fp.Author.Name, p.cfg.Creds.Username) && fp.Author.ID != "" {
			p.botID = fp.Author.ID
		}
		if !fp.Stamp.Known() {
			noTime = append(noTime, i)
		}
		if strings.TrimSpace(fp.BodyHTML) == "" {
			noBody = append(noBody, i)
		}
	}
	ids := func(is []int) string {
		var out []string
		for _, i := range is {
			out = append(out, "#"+posts[i].ID)
		}
		if len(out) > 5 {
			out = append(out[:5], "…")
		}
		return strings.Join(out, ", ")
	}
	n := len(posts)

	c := Check{ID: "posts.author", Title: "post authors", Needed: true, Status: OK, Detail: fmt.Sprintf("all %d posts have an author", n)}
	if len(noAuthor) > 0 {
		i := noAuthor[0]
		c.Status, c.Key = Fail, keyVal("selectors.author", s.Author)
		c.Detail = fmt.Sprintf("%d of %d posts have no author (%s): nothing matched %s", len(noAuthor), n, ids(noAuthor), c.Key)
		c.Found = p.authorRegion(p.postNode(docs[i], posts[i].ID))
		c.Fix = "set selectors.author (within a post) to the node holding the author's name in a profile file"
	}
	p.add(c)

	if len(noAuthor) == 0 {
		c = Check{ID: "posts.author_id", Title: "post authors' user ids", Status: OK, Detail: "every author has a user id"}
		if p.prof.NamesAreIDs() {
			c.Detail = "members are known by name (user_ids: names): each author's name is their id"
		} else if len(noID) > 0 {
			i := noID[0]
			c.Status, c.Key = Warn, keyVal("selectors.author_id_regexp", s.AuthorIDRegexp)
			c.Detail = fmt.Sprintf("%d of %d posts' authors have no user id (%s); players are then matched by name only (guests have none)", len(noID), n, ids(noID))
			c.Found = clip(htmlOf(p.postNode(docs[i], posts[i].ID).Find(s.Author).First()))
			c.Fix = "set selectors.author_id_attr / author_id_regexp to read the id from the author's profile link; if the board shows no numeric user id anywhere (its links name members by name), set user_ids: names"
		}
		p.add(c)
	}

	c = Check{ID: "posts.time", Title: "post times", Needed: true, Status: OK, Detail: fmt.Sprintf("all %d posts have a readable time (%s)", n, precisions(posts))}
	if len(noTime) > 0 {
		i := noTime[0]
		c.Status = Fail
		c.Key = keyVal("selectors.time", s.Time)
		why := posts[i].Stamp.Err
		if why == "" {
			why = "no time"
		}
		c.Detail = fmt.Sprintf("%d of %d posts have no readable time (%s): %s", len(noTime), n, ids(noTime), why)
		node := p.postNode(docs[i], posts[i].ID)
		if t := node.Find(s.Time).First(); t.Length() > 0 {
			c.Found = clip(htmlOf(t))
			c.Fix = "the time's text is not in time_layouts: add the board's date format to time_layouts (Go layout), or set selectors.time_attr / time_regexp"
		} else {
			c.Found = clip(htmlOf(node))
			c.Fix = "set selectors.time (within a post) to the node holding the post's time"
		}
	}
	p.add(c)

	c = Check{ID: "posts.body", Title: "post bodies", Needed: true, Status: OK, Detail: fmt.Sprintf("%d command segments in %d posts", countSegs(p.r.Posts), n)}
	if len(noBody) == n {
		c.Status, c.Key = Fail, keyVal("selectors.body", s.Body)
		c.Detail = "no post has a body: nothing matched " + c.Key
		c.Found = clip(htmlOf(p.postNode(docs[0], posts[0].ID)))
		c.Fix = "set selectors.body (within a post) to the post's content node"
	} else if len(noBody) > 0 {
		c.Status = Warn
		c.Detail += fmt.Sprintf("; %d posts have an empty body (%s)", len(noBody), ids(noBody))
	}
	p.add(c)
}

func countSegs(ps []Post) int {
	n := 0
	for _, p := range ps {
		n += len(p.Segments)
	}
	return n
}

func precisions(posts []forum.Post) string {
	seen := map[string]int{}
	var order []string
	for _, p := range posts {
		k := p.Stamp.Precision.String()
		if p.Stamp.Relative {
			k += ", relative"
		}
		if seen[k] == 0 {
			order = append(order, k)
		}
		seen[k]++
	}
	var out []string
	for _, k := range order {
		out = append(out, fmt.Sprintf("%d %s", seen[k], k))
	}
	return strings.Join(out, "; ")
}

// authorRegion is where an author's link sits in a post: the parent of the
// first link carrying a user id, else the start of the post.
func (p *prober) authorRegion(post *goquery.Selection) string {
	s := p.prof.Selectors
	if re, err := regexp.Compile(s.AuthorIDRegexp); err == nil && s.AuthorIDAttr != "" && s.AuthorIDRegexp != "" {
		var region *goquery.Selection
		// The byline's link (within the time node) first: it is what the
		// author selector usually aims at.
		for _, scope := range []*goquery.Selection{post.Find(s.Time).First(), post} {
			scope.Find("[" + s.AuthorIDAttr + "]").EachWithBreak(func(_ int, n *goquery.Selection) bool {
				if v, _ := n.Attr(s.AuthorIDAttr); re.MatchString(v) {
					region = n.Parent()
				}
				return region == nil
			})
			if region != nil {
				return clip(htmlOf(region))
			}
		}
	}
	return clip(htmlOf(post))
}

// ---- PM folders

func (p *prober) folder(ctx context.Context, id, title, rel, key string) {
	c := Check{ID: id, Title: title, Needed: true}
	if rel == "" {
		c.Status, c.Key, c.Detail = Fail, keyVal(key, ""), "the profile has no URL for it"
		c.Fix = pmFix(nil, "set "+key+" in the profile file")
		p.add(c)
		return
	}
	pg, err := p.sess.FetchAs(ctx, rel, forum.PagePMFolder)
	if err != nil {
		c.Status, c.Key, c.Detail = Fail, keyVal(key, rel), err.Error()
		c.Fix = pmFix(err, "check that the bot account may use private messages and that "+key+" is the folder's URL")
		p.guestPage(&c, err, forum.PagePMFolder)
		if pg != nil && pg.Doc != nil {
			c.Found = mainRegion(pg.Doc)
		}
		p.add(c)
		return
	}
	if id == "pm.sent" && !p.isSentFolder(&c, pg) || id == "pm.inbox" && !p.isInbox(&c, pg) {
		p.add(c)
		return
	}
	if !p.sess.Parser.CompleteOn(forum.PagePMFolder, pg.Body, pg.Doc) {
		// Every read of the folder would refuse the page as cut short.
		m, k := p.prof.MarksOf(forum.PagePMFolder)
		c.Status, c.Key = Fail, keyVal(k.PageEnd, m.PageEnd)
		c.Detail = fmt.Sprintf("the page has no %s or no closing </html>, so the bot would take it as cut short and never read the folder", c.Key)
		c.Fix = fmt.Sprintf("set %s to the PM pages' footer (an element after their list), or page_marks.pm_folder.page_end where it is not the thread pages' one", k.PageEnd)
		c.Found = "…" + strings.Join(strings.Fields(strings.ToValidUTF8(string(pg.Body[max(0, len(pg.Body)-240):]), "")), " ")
		p.add(c)
		return
	}
	heads := p.sess.Parser.InboxAt(pg.Doc, pg.Fetch())
	if len(heads) == 0 {
		if l := p.pmLinks(pg.Doc); l.Length() > 0 {
			c.Status, c.Key = Fail, keyVal("selectors.inbox_row", p.prof.Selectors.InboxRow)
			c.Detail = fmt.Sprintf("the page links %d PMs but no row matched %s (or selectors.inbox_link)", l.Length(), c.Key)
			c.Found = clip(htmlOf(l.First().Parent().Parent()))
			c.Fix = "set selectors.inbox_row and selectors.inbox_link to the theme's PM list"
			p.add(c)
			return
		}
		c.Status, c.Detail = OK, "opened; empty (the PM pages themselves are checked by --post-test)"
		p.add(c)
		return
	}
	c.Status, c.Detail = OK, fmt.Sprintf("%d messages listed", len(heads))
	if u := p.prof.URLs; id == "pm.sent" && c.Status == OK && u.SentPage == "" && !u.SentOnePage && !(u.SentNewestFirst && u.Outbox == "") && len(heads) >= max(u.SentPerPage, 1) {
		// Past its first page the bot cannot read the folder: a PM it is
		// unsure of, once others pushed it off, stays unconfirmed.
		c.Status, c.Key = Warn, keyVal("urls.sent_page", "")
		c.Detail += "; the profile reads only the sent folder's first page, so a PM the bot is unsure of stays unconfirmed once newer ones fill that page"
		c.Fix = "say how to read the whole folder: urls.sent_page (and urls.sent_per_page) if the board splits it into pages; urls.sent_one_page: true if it never does; or urls.sent_newest_first: true if it lists the newest first with times (docs/profiles.md)"
	}
	// Read the newest one: the PM page's selectors.
	m, err := p.conn.Scraper.ReadPM(ctx, heads[0].ID)
	switch {
	case errors.Is(err, scraper.ErrIncomplete):
		m, k := p.prof.MarksOf(forum.PagePM)
		c.Status, c.Key = Fail, keyVal(k.PageEnd, m.PageEnd)
		c.Detail += fmt.Sprintf("; reading PM %s: %v: the page has no %s or no closing </html>", heads[0].ID, err, c.Key)
		c.Fix = fmt.Sprintf("set %s to the PM page's footer, or page_marks.pm.page_end where it is not the thread pages' one", k.PageEnd)
	case err != nil:
		c.Status, c.Key = Fail, keyVal("selectors.pm", p.prof.Selectors.PM)
		c.Detail += fmt.Sprintf("; reading PM %s: %v", heads[0].ID, err)
		c.Fix = "set selectors.pm (and pm_from, pm_body) to the theme's PM page"
		if pg, _ := p.sess.Fetch(ctx, forum.Expand(p.prof.URLs.ReadPM, map[string]string{"pm": heads[0].ID})); pg != nil && pg.Doc != nil {
			c.Found = mainRegion(pg.Doc)
		}
	case m.From.Name == "":
		c.Status, c.Key = Fail, keyVal("selectors.pm_from", p.prof.Selectors.PMFrom)
		c.Detail += fmt.Sprintf("; PM %s has no sender: nothing matched %s", heads[0].ID, c.Key)
		c.Fix = "set selectors.pm_from (within the message) to the sender's name"
	case !m.Stamp.Known():
		c.Status, c.Key = Warn, keyVal("selectors.pm_time", p.prof.Selectors.PMTime)
		c.Detail += fmt.Sprintf("; PM %s from %s: time unreadable (%s)", heads[0].ID, m.From.Name, m.Stamp.Err)
		c.Fix = "set selectors.pm_time / pm_time_regexp, or add the board's date format to time_layouts"
	default:
		c.Detail += fmt.Sprintf("; read PM %s from %s (%s, %s)", heads[0].ID, m.From.Name, m.Stamp.Earliest.UTC().Format(time.RFC3339), m.Stamp.Precision)
	}
	p.add(c)
}

// pmLinks are the links to PM pages on a folder page.
func (p *prober) pmLinks(doc *goquery.Document) *goquery.Selection {
	re, err := regexp.Compile(p.prof.URLs.PMIDRegexp)
	script := strings.SplitN(p.prof.URLs.ReadPM, "?", 2)[0]
	if err != nil || p.prof.URLs.PMIDRegexp == "" {
		return doc.Selection.Slice(0, 0)
	}
	// The page's own list, not the header's notifications of new PMs.
	scope := doc.Selection
	if m := first(doc.Selection, "#page-body, main, #content"); m.Length() > 0 {
		scope = m
	}
	return scope.Find("a[href]").FilterFunction(func(_ int, a *goquery.Selection) bool {
		h, _ := a.Attr("href")
		return re.MatchString(h) && strings.Contains(h, script) && !strings.Contains(h, "compose")
	})
}

// ---- forms

var captchaRe = regexp.MustCompile(`(?i)captcha|recaptcha|verification[_-]?code|turnstile`)

func (p *prober) form(ctx context.Context, id, title, key string, f forum.Form, vars map[string]string) {
	c := Check{ID: id, Title: title, Needed: true}
	rel := forum.Expand(f.Page, vars)
	kind := forum.PagePMForm
	if id == "form.reply" {
		kind = forum.PagePostForm
	}
	pg, err := p.sess.FetchAs(ctx, rel, kind)
	if err != nil {
		c.Status, c.Key, c.Detail = Fail, keyVal(key+".page", f.Page), err.Error()
		c.Fix = "check that the bot may " + map[bool]string{true: "reply in the thread", false: "send PMs"}[id == "form.reply"] + " and that " + key + ".page is the form's page"
		if id == "form.pm" {
			c.Fix = pmFix(err, c.Fix)
		}
		p.guestPage(&c, err, kind)
		if pg != nil && pg.Doc != nil {
			c.Found = mainRegion(pg.Doc)
		}
		p.add(c)
		return
	}
	form, err := parser.FindForm(pg.Doc, pg.URL, f.Selector)
	if err != nil {
		c.Status, c.Key = Fail, keyVal(key+".selector", f.Selector)
		c.Detail = "no form matched " + c.Key
		if say := p.sess.Parser.ErrorText(pg.Doc); say != "" {
			c.Detail += "; the board says: " + say
		}
		c.Found = clip(htmlOf(first(pg.Doc.Selection, "form")))
		if c.Found == "" {
			c.Found = mainRegion(pg.Doc)
		}
		c.Fix = "the bot may lack the permission (the board's words above), or the theme's form differs: set " + key + ".selector"
		p.add(c)
		return
	}
	p.saw(strings.TrimSuffix(strings.SplitN(title, " (", 2)[0], " "), pg, p.sess.SubmitCharset(pg.URL, form.Action))
	var missing []string
	for _, fld := range []struct{ key, name string }{
		{key + ".message", f.Message}, {key + ".subject", f.Subject}, {key + ".recipient", f.Recipient},
	} {
		if fld.name == "" {
			continue
		}
		if _, ok := form.Values[fld.name]; !ok {
			missing = append(missing, keyVal(fld.key, fld.name))
		}
	}
	if len(missing) > 0 {
		c.Status, c.Key = Fail, strings.Join(missing, ", ")
		c.Detail = "the form has no field " + c.Key
		c.Found = "fields: " + strings.Join(fieldNames(form), ", ")
		c.Fix = "set the field names in the profile's " + key + " to the form's"
		p.add(c)
		return
	}
	formNode := first(pg.Doc.Selection, f.Selector)
	// The profile's own captcha selector first (what the poster refuses
	// on), then any captcha-like markup a profile without one would miss.
	if sel := p.prof.Selectors.Captcha; sel != "" && p.sess.Parser.Captcha(formNode) {
		c.Status, c.Key = Fail, keyVal("selectors.captcha", sel)
		c.Detail = "the form asks for a captcha, which the bot cannot answer"
		c.Found = clip(htmlOf(formNode.Find(sel).First()))
		c.Fix = "let the bot's account skip the captcha (a group without it, or enough posts where the board asks only new members; SMF: 5 posts, pm_spam_settings)"
		p.add(c)
		return
	}
	if h := htmlOf(formNode); captchaRe.MatchString(h) {
		loc := captchaRe.FindStringIndex(h)
		c.Status = Fail
		c.Detail = "the form asks for a captcha, which the bot cannot answer"
		if sel := captchaField(formNode); sel != "" {
			c.Key = "captcha " + sel
		}
		c.Found = clip(h[max(loc[0]-80, 0):])
		c.Fix = "let the bot's account skip the captcha (a group without it, or enough posts where the board asks only new members)"
		p.add(c)
		return
	}
	c.Status, c.Detail = OK, fmt.Sprintf("found, not submitted (%d fields, tokens kept)", len(form.Values))
	p.add(c)
}

// captchaField names the form's first element whose name, id, class or
// src looks like a captcha, as a CSS selector the GM can look up on the
// page ("" when only the text around it does).
func captchaField(form *goquery.Selection) string {
	sel := ""
	form.Find("*").EachWithBreak(func(_ int, e *goquery.Selection) bool {
		for _, a := range []string{"name", "id", "class", "src"} {
			v, ok := e.Attr(a)
			if !ok || !captchaRe.MatchString(v) {
				continue
			}
			switch tag := goquery.NodeName(e); a {
			case "id":
				sel = tag + "#" + v
			case "class":
				sel = tag + "." + strings.Fields(v)[0]
				for _, f := range strings.Fields(v) {
					if captchaRe.MatchString(f) {
						sel = tag + "." + f
						break
					}
				}
			case "src": // a URL with a cache-busting part: its telling word
				sel = fmt.Sprintf("%s[src*=%q]", tag, captchaRe.FindString(v))
			default:
				sel = fmt.Sprintf("%s[name=%q]", tag, v)
			}
			return false
		}
		return true
	})
	return sel
}

func fieldNames(f parser.Form) []string {
	var out []string
	for k := range f.Values {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ---- flood and the post test

func (p *prober) floodUnknown() {
	c := Check{ID: "flood", Title: "flood-exempt bot account", Status: Unknown,
		Detail: "unknown until the first post: group membership is not visible to the bot (--post-test tries a reply and a PM in a row)"}
	if fs := p.cfg.FloodSeconds; fs != nil && *fs == 0 {
		c.Detail += "; the game file says flood_seconds: 0, so the bot will not pace itself (a flood error from the board is still waited out)"
	}
	p.add(c)
}

func (p *prober) postTest(ctx context.Context) {
	key := "probe." + time.Now().UTC().Format("20060102T150405") + "." + randHex(3)
	po := p.conn.Poster
	clk := po.Session.Clock()
	answers := map[forum.PageKind]*scraper.Page{}
	po.Answered = func(kind forum.PageKind, res *scraper.Page) { answers[kind] = res }
	defer func() { po.Answered = nil }()
	reply := Check{ID: "post_test.reply", Title: "test reply", Needed: true}
	// The board's own flood refusal is what tells: wait it out, as a game's
	// next tick would.
	id, err := poster.Patiently(ctx, clk, func() (string, error) {
		return p.conn.Reply(ctx, p.cfg.Thread, "forumgm probe: a test post to check the bot can reply, and whether the board shows a picture: [img]"+probePicture+"[/img] Safe to delete.", key)
	})
	if err != nil {
		reply.Status, reply.Detail = Fail, err.Error()
		reply.Fix = "the board refused the reply (its words above): check the bot's permission to post in the thread's forum; a flood message the bot did not wait out means the profile's flood_text misses the board's wording"
		p.add(reply)
	} else if found, ok, err := p.conn.FindPost(ctx, p.cfg.Thread, key); err != nil || !ok || found != id {
		reply.Status, reply.Detail = Fail, fmt.Sprintf("posted #%s, but its marker was not found again (%v)", id, err)
		reply.Key = keyVal("selectors.author", p.prof.Selectors.Author)
		reply.Fix = "the bot would not see its own posts after a restart: check selectors.author and selectors.body"
		p.add(reply)
	} else {
		reply.Status, reply.Detail = OK, fmt.Sprintf("posted #%s and found it again by its marker %s", id, key)
		p.successMark(&reply, forum.PagePostForm, answers[forum.PagePostForm])
		p.add(reply)
		p.learnBotID(ctx, id)
	}
	p.pictures(ctx, reply.Status == OK, id)

	pm := Check{ID: "post_test.pm", Title: "test PM to the bot itself", Needed: true}
	pmSent := false // the board took the test PM
	pmKey := key + ".pm"
	to := forum.Author{Name: p.cfg.Creds.Username, ID: p.botID}
	if strings.Contains(p.prof.Forms.PM.Page, "{user}") && to.ID == "" {
		pm.Status, pm.Key = Fail, keyVal("selectors.author_id_regexp", p.prof.Selectors.AuthorIDRegexp)
		pm.Detail = "the board addresses PMs by user id and the bot's own id was not found on its posts"
		pm.Fix = "check selectors.author_id_attr / author_id_regexp"
		p.add(pm)
	} else if pmID, err := poster.Patiently(ctx, clk, func() (string, error) {
		return p.conn.SendPM(ctx, to, "forumgm probe", "forumgm probe: a test PM from the bot to itself. Safe to delete.", pmKey)
	}); err != nil {
		pm.Status, pm.Detail = Fail, err.Error()
		pm.Fix = pmFix(err, "the board refused the PM: check that the bot may send PMs (and is not held by a captcha or a minimum post count)")
		p.add(pm)
	} else {
		pmSent = true
		pm.Status, pm.Detail = OK, fmt.Sprintf("sent PM %s, found in the sent folder by its marker %s", pmID, pmKey)
		p.successMark(&pm, forum.PagePMForm, answers[forum.PagePMForm])
		if got, err := p.inboxMarker(ctx, pmKey); err != nil {
			pm.Status, pm.Key = Fail, keyVal("selectors.pm", p.prof.Selectors.PM)
			pm.Detail += "; not found in the inbox: " + err.Error()
			pm.Fix = "check selectors.inbox_row, inbox_link, pm, pm_from and pm_body"
		} else {
			pm.Detail += "; " + got
		}
		p.add(pm)
	}

	c := Check{ID: "flood", Title: "flood-exempt bot account"}
	if reply.Status != OK {
		c.Status, c.Detail = Unknown, "the test reply did not go through, so the flood limit could not be seen"
	} else if fl := po.Flood(); fl.State == forum.FloodLimited {
		c.Status = Warn
		c.Detail = fmt.Sprintf("not exempt: the board made the bot wait %s between two submissions", fl.Interval)
		c.Fix = "fine for a game (the bot paces itself); for quicker updates put the bot in a group that ignores flood limits, then flood_seconds: 0"
		if fs := p.cfg.FloodSeconds; fs != nil && *fs == 0 {
			c.Fix = "the game file says flood_seconds: 0 but the board is not exempting the bot: remove it, or exempt the account"
		}
	} else if !pmSent {
		// Only what was seen: one reply, and no PM after it.
		c.Status = Unknown
		c.Detail = "the test reply went through but the test PM did not go through, so no second submission in a row was seen; the flood limit, if any, shows at the bot's first two posts in a row"
	} else {
		c.Status = Unknown
		c.Detail = "the board took the PM right after the reply; on boards whose flood limit covers PMs too (phpBB) the account is exempt, elsewhere it shows at the first two posts in a row"
	}
	p.add(c)
}

// learnBotID reads the bot's user id off its test post, for a board that
// addresses PMs by id.
func (p *prober) learnBotID(ctx context.Context, postID string) {
	if p.botID != "" {
		return
	}
	pg, err := p.sess.Fetch(ctx, forum.Expand(p.prof.URLs.LastPage, map[string]string{"topic": p.cfg.Thread}))
	if err != nil {
		return
	}
	for _, fp := range p.sess.Parser.Thread(pg.Doc).Posts {
		if fp.ID == postID {
			p.botID = fp.Author.ID
		}
	}
}

// inboxMarker finds the PM carrying the marker in the bot's inbox and
// reads it back.
func (p *prober) inboxMarker(ctx context.Context, key string) (string, error) {
	heads, err := p.conn.Scraper.Inbox(ctx)
	if err != nil {
		return "", err
	}
	for i, h := range heads {
		if i >= 10 {
			break
		}
		m, err := p.conn.Scraper.ReadPM(ctx, h.ID)
		if err != nil {
			return "", err
		}
		for _, k := range poster.FindMarkers(m.BodyHTML) {
			if k == key {
				when := "time unreadable: " + m.Stamp.Err
				if m.Stamp.Known() {
					when = m.Stamp.Earliest.UTC().Format(time.RFC3339) + ", " + m.Stamp.Precision.String()
				}
				return fmt.Sprintf("in the inbox as PM %s from %s (%s)", m.ID, m.From.Name, when), nil
			}
		}
	}
	return "", fmt.Errorf("none of the %d newest inbox PMs carries the marker", min(len(heads), 10))
}

// ---- snippets

func first(s *goquery.Selection, sel string) *goquery.Selection {
	return s.Find(sel).First()
}

func htmlOf(s *goquery.Selection) string {
	if s == nil || s.Length() == 0 {
		return ""
	}
	h, err := goquery.OuterHtml(s)
	if err != nil {
		return ""
	}
	return h
}

// mainRegion is the start of the page's main content (past the header).
func mainRegion(doc *goquery.Document) string {
	for _, sel := range []string{"#page-body", "main", "#content", "#container", "body"} {
		if n := first(doc.Selection, sel); n.Length() > 0 {
			if h, err := n.Html(); err == nil && strings.TrimSpace(h) != "" {
				return clip(h)
			}
		}
	}
	return ""
}

// clip is the first ~200 characters of an HTML region, whitespace runs
// collapsed and anything unprintable escaped, for a terminal.
func clip(h string) string {
	h = strings.Join(strings.Fields(h), " ")
	var b strings.Builder
	n := 0
	for _, r := range h {
		if n >= 200 {
			b.WriteString("…")
			break
		}
		if unicode.IsPrint(r) {
			b.WriteRune(r)
		} else {
			b.WriteString(strings.Trim(strconv.QuoteRune(r), "'"))
		}
		n++
	}
	return b.String()
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// probePicture is the [img] of the post test: an address no browser
// reaches (.invalid), so the test post sends no reader anywhere; the board
// renders the tag or not by its settings alone.
const probePicture = "http://forumgm.invalid/probe.png"

// pictureFix is what a GM does about a board that shows [img] as text.
const pictureFix = "set forum: pictures: false in the game file: posts then keep the text map and scores, without the picture; or have the board's admin allow [img] in the thread's forum (MyBB: the forum's \"Allow [img] Code\"; SMF: remove img from the disabled BBC tags; phpBB: \"Allow [img] BBCode tag in posts\")"

// picturesUnknown: without the post test the probe cannot see whether the
// board shows [img] as a picture.
func (p *prober) picturesUnknown() {
	c := Check{ID: "pictures", Title: "pictures in posts ([img])"}
	if p.cfg.Pictures != nil && !*p.cfg.Pictures {
		c.Status, c.Detail = OK, "the game file says pictures: false: posts carry the text map and scores, no [img]"
	} else {
		c.Status, c.Detail = Unknown, "unknown until a post: --post-test posts an [img] and reads how the board shows it"
	}
	p.add(c)
}

// pictures reads the test reply back as the board shows it: an <img> of
// probePicture means the thread's forum shows [img] (the maps and charts
// of a game with public_url show as pictures); the tag left as text means
// an admin turned [img] off there.
func (p *prober) pictures(ctx context.Context, posted bool, id string) {
	c := Check{ID: "pictures", Title: "pictures in posts ([img])"}
	defer func() { p.add(c) }()
	if !posted {
		c.Status, c.Detail = Unknown, "the test reply did not go through, so how the board shows [img] could not be seen"
		return
	}
	lastURL := forum.Expand(p.prof.URLs.LastPage, map[string]string{"topic": p.cfg.Thread})
	pg, err := p.sess.Fetch(ctx, lastURL)
	if err != nil {
		c.Status, c.Detail = Unknown, "reading the test reply back: "+err.Error()
		return
	}
	var body string
	found := false
	for _, post := range p.sess.Parser.Thread(pg.Doc).Posts {
		if post.ID == id {
			body, found = post.BodyHTML, true
		}
	}
	if !found {
		c.Status, c.Detail = Unknown, fmt.Sprintf("the test reply #%s is not on the thread's last page", id)
		return
	}
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		c.Status, c.Detail = Unknown, "reading the test reply back: "+err.Error()
		return
	}
	off := p.cfg.Pictures != nil && !*p.cfg.Pictures
	shown := doc.Find(`img[src="`+probePicture+`"]`).Length() > 0
	switch {
	case shown && off:
		c.Status = Warn
		c.Detail = "the board shows [img] as a picture here, but the game file says pictures: false: posts carry the text map only"
		c.Fix = "remove forum: pictures: false to have the maps and charts shown as pictures (with the game's public_url)"
	case shown:
		c.Status, c.Detail = OK, "the board shows [img] as a picture in the thread's forum: with public_url, posts show the maps and charts as pictures"
	case off:
		c.Status, c.Detail = OK, "the board shows [img] as text in the thread's forum, and the game file says pictures: false: posts carry the text map and scores, no [img]"
	default:
		c.Status = Warn
		c.Detail = "the board shows [img] as text in the thread's forum (the test reply's picture came out as " + clip(strings.TrimSpace(doc.Text())) + ")"
		c.Fix = pictureFix
	}
}

// guestPage names the logged-in mark of a kind of page that still showed
// a guest page after a login (the board's PM pages without the logout
// link its other pages show).
func (p *prober) guestPage(c *Check, err error, kind forum.PageKind) {
	if !errors.Is(err, scraper.ErrLogin) || !strings.Contains(err.Error(), "guest page") {
		return
	}
	m, key := p.prof.MarksOf(kind)
	c.Key = keyVal(key.LoggedIn, m.LoggedIn)
	c.Fix = fmt.Sprintf("the login worked, but this page does not show %s: if these pages lack what the rest of the board shows a member (a logout link), set page_marks.%s.logged_in to what only a logged-in member sees on them (docs/profiles.md)", key.LoggedIn, kind)
}

// successMark fails c when the board's answer to a submission that went
// in (res) shows the kind's error mark and no sent_text: where a marker
// check after such an answer cannot tell, the bot would take the
// success for the board's refusal, fail the message, and a GM's retry
// would post it twice.
func (p *prober) successMark(c *Check, kind forum.PageKind, res *scraper.Page) {
	if res == nil || res.Doc == nil {
		return
	}
	said := p.sess.Parser.ErrorTextOn(kind, res.Doc)
	if said == "" || p.prof.SaysSent(said) {
		return
	}
	m, key := p.prof.MarksOf(kind)
	c.Status, c.Key = Fail, keyVal(key.Error, m.Error)
	c.Detail += fmt.Sprintf("; but the board's answer to it, a success, matches the error mark %s (%q): where a marker check after such an answer cannot tell, the bot would take it for a refusal", key.Error, clip(said))
	c.Fix = fmt.Sprintf("narrow %s to the board's error box only (or set page_marks.%s.error), or add the words of its success page to sent_text (docs/profiles.md)", key.Error, kind)
}
