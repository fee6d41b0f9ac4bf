// Package fakemybb is a small MyBB 1.8-like board for tests of the scraper
// and the poster: member.php login with my_post_key bound to the session,
// showthread.php paginated with the default postbit markup, newreply.php
// with posthash and flood control (postfloodsecs), private.php inbox, sent
// folder, read and do_send (pmfloodsecs). It is written from MyBB 1.8's
// documented pages and forms, not from MyBB's code (the real board is
// realboardtest's), and keeps only what the client touches. All time comes from a clock so flood waits cost nothing.
package fakemybb

import (
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"html"
	"net/http"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/clock"
)

// Post is one post.
type Post struct {
	ID, UID int
	Author  string
	Time    time.Time
	Message string // already HTML
	Edited  bool
}

// PM is one private message.
type PM struct {
	ID, From, To     int
	Subject, Message string
	Time             time.Time
	Read             bool
}

type user struct {
	uid        int
	name, pass string
	lastPost   time.Time
	lastPM     time.Time
}

// Board is the fake forum. Exported fields may be changed between requests.
type Board struct {
	mu       sync.Mutex
	clk      clock.Clock
	users    map[int]*user
	sessions map[string]int // sid -> uid (0 guest)
	nextSID  int
	posts    []Post
	pms      []PM
	nextPID  int
	nextPMID int

	PerPage   int
	FloodSecs int
	TID       int
	// Fail makes the next N requests answer 503 with Retry-After RetryAfter.
	Fail       int
	RetryAfter int
	// Requests counts requests; UserAgents records the last UA seen.
	Requests  int
	UserAgent string
	// Logins counts successful logins.
	Logins int
	// NoDateTitles renders relative dates without the title that holds the
	// absolute minute, leaving only "5 minutes ago" (a theme without it).
	NoDateTitles bool
}

// New makes a board with one thread (tid 9).
func New(clk clock.Clock) *Board {
	return &Board{clk: clk, users: map[int]*user{}, sessions: map[string]int{}, PerPage: 10,
		FloodSecs: 60, TID: 9, nextPID: 200, nextPMID: 40}
}

// AddUser adds a member and returns the uid.
func (b *Board) AddUser(name, pass string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	uid := len(b.users) + 1
	b.users[uid] = &user{uid: uid, name: name, pass: pass}
	return uid
}

// AddPost appends a post by uid (0 = guest named name) with HTML message.
func (b *Board) AddPost(uid int, guestName, msg string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.addPost(uid, guestName, msg)
}

func (b *Board) addPost(uid int, guestName, msg string) int {
	b.nextPID++
	name := guestName
	if u := b.users[uid]; u != nil {
		name = u.name
	}
	b.posts = append(b.posts, Post{ID: b.nextPID, UID: uid, Author: name, Time: b.clk.Now(), Message: msg})
	return b.nextPID
}

// Edit replaces a post's message and shows the edit notice.
func (b *Board) Edit(pid int, msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == pid {
			b.posts[i].Message, b.posts[i].Edited = msg, true
		}
	}
}

// Delete removes a post.
func (b *Board) Delete(pid int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == pid {
			b.posts = append(b.posts[:i], b.posts[i+1:]...)
			return
		}
	}
}

// Posts returns a copy of the thread.
func (b *Board) Posts() []Post {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Post(nil), b.posts...)
}

// SendPM delivers a PM (from a player to the bot, say).
func (b *Board) SendPM(from, to int, subject, msg string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.nextPMID++
	b.pms = append(b.pms, PM{ID: b.nextPMID, From: from, To: to, Subject: subject, Message: msg, Time: b.clk.Now()})
	return b.nextPMID
}

// PMs returns a copy of all PMs.
func (b *Board) PMs() []PM {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]PM(nil), b.pms...)
}

// LogoutAll ends every session (an admin's forced logout).
func (b *Board) LogoutAll() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for sid := range b.sessions {
		b.sessions[sid] = 0
	}
}

// postKey is my_post_key: bound to the session (guests: their sid).
func postKey(sid string, uid int) string {
	h := sha1.Sum([]byte(fmt.Sprintf("%s|%d|salt", sid, uid)))
	return hex.EncodeToString(h[:16])
}

func (b *Board) session(w http.ResponseWriter, r *http.Request) (string, *user) {
	if c, err := r.Cookie("sid"); err == nil {
		if uid, ok := b.sessions[c.Value]; ok {
			return c.Value, b.users[uid]
		}
	}
	b.nextSID++
	sid := fmt.Sprintf("s%08d", b.nextSID)
	b.sessions[sid] = 0
	http.SetCookie(w, &http.Cookie{Name: "sid", Value: sid, Path: "/"})
	return sid, nil
}

func (b *Board) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.Requests++
	b.UserAgent = r.UserAgent()
	if b.Fail > 0 {
		b.Fail--
		w.Header().Set("Retry-After", strconv.Itoa(b.RetryAfter))
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	_ = r.ParseForm()
	sid, u := b.session(w, r)
	script := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	switch script {
	case "index.php", "":
		b.page(w, sid, u, "Index", "<p>Forums</p>")
	case "member.php":
		b.member(w, r, sid, u)
	case "showthread.php":
		b.showthread(w, r, sid, u)
	case "newreply.php":
		b.newreply(w, r, sid, u)
	case "private.php":
		b.private(w, r, sid, u)
	case "memberlist.php":
		b.memberlist(w, r, sid, u)
	default:
		http.NotFound(w, r)
	}
}

func (b *Board) page(w http.ResponseWriter, sid string, u *user, title, body string) {
	var head string
	if u != nil {
		head = fmt.Sprintf(`<span class="welcome">Welcome back, <strong><a href="member.php?action=profile&amp;uid=%d">%s</a></strong>. <a href="member.php?action=logout&amp;logoutkey=%s" class="logout">Log Out</a></span>`,
			u.uid, html.EscapeString(u.name), postKey(sid, u.uid)[:8])
	} else {
		head = `<span class="welcome">Hello There, Guest! <a href="member.php?action=login" class="login">Login</a></span>`
	}
	fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Fake MyBB - %s</title></head><body><div id="container"><div id="header"><div id="panel"><div class="upper"><div class="wrapper">%s</div></div></div></div><div id="content"><div class="wrapper">%s</div></div><div id="footer"><div class="lower"><span id="copyright">Powered By MyBB</span></div></div></div></body></html>`,
		html.EscapeString(title), head, body)
}

func (b *Board) errorPage(w http.ResponseWriter, sid string, u *user, msg string) {
	b.page(w, sid, u, "Error", `<table class="tborder"><tr><td class="thead"><strong>Fake MyBB</strong></td></tr><tr><td class="trow1"><div class="error">`+html.EscapeString(msg)+`</div></td></tr></table>`)
}

func (b *Board) redirectPage(w http.ResponseWriter, sid string, u *user, to, msg string) {
	b.page(w, sid, u, "Redirecting", `<meta http-equiv="refresh" content="2;URL=`+html.EscapeString(to)+`" /><p>`+html.EscapeString(msg)+`</p>`)
}

func (b *Board) member(w http.ResponseWriter, r *http.Request, sid string, u *user) {
	if r.Method == http.MethodPost && r.FormValue("action") == "do_login" {
		if r.FormValue("my_post_key") != postKey(sid, 0) {
			b.errorPage(w, sid, u, "Authorization code mismatch. Are you accessing this function correctly? Please go back and refresh the page and try again.")
			return
		}
		for _, cand := range b.users {
			if strings.EqualFold(cand.name, r.FormValue("username")) && cand.pass == r.FormValue("password") {
				b.sessions[sid] = cand.uid
				b.Logins++
				b.redirectPage(w, sid, cand, "index.php", "You have successfully been logged in.")
				return
			}
		}
		b.loginForm(w, sid, u, "You have entered an invalid username/password combination.")
		return
	}
	b.loginForm(w, sid, u, "")
}

func (b *Board) loginForm(w http.ResponseWriter, sid string, u *user, errText string) {
	var e string
	if errText != "" {
		e = `<div class="error"><p><em>Please correct the following errors before continuing:</em></p><ul><li>` + html.EscapeString(errText) + `</li></ul></div>`
	}
	b.page(w, sid, u, "Login", e+`<form action="member.php" method="post"><table class="tborder">
<tr><td class="trow1"><strong>Username:</strong></td><td class="trow1"><input type="text" class="textbox" name="username" size="25" value="" /></td></tr>
<tr><td class="trow2"><strong>Password:</strong></td><td class="trow2"><input type="password" class="textbox" name="password" size="25" value="" /></td></tr>
<tr><td class="trow1" colspan="2"><label><input type="checkbox" class="checkbox" name="remember" value="yes" checked="checked" /> Remember me</label></td></tr>
</table><div align="center"><input type="submit" class="button" name="submit" value="Login" /></div>
<input type="hidden" name="action" value="do_login" /><input type="hidden" name="url" value="index.php" />
<input type="hidden" name="my_post_key" value="`+postKey(sid, 0)+`" /></form>`)
}

func (b *Board) pages() int {
	n := (len(b.posts) + b.PerPage - 1) / b.PerPage
	return max(n, 1)
}

func (b *Board) showthread(w http.ResponseWriter, r *http.Request, sid string, u *user) {
	if r.FormValue("tid") != strconv.Itoa(b.TID) {
		b.errorPage(w, sid, u, "The specified thread does not exist.")
		return
	}
	pages := b.pages()
	page := 1
	switch v := r.FormValue("page"); v {
	case "last":
		page = pages
	case "":
	default:
		page, _ = strconv.Atoi(v)
		if page > pages || page <= 0 {
			page = 1 // MyBB falls back to the first page
		}
	}
	var sb strings.Builder
	sb.WriteString(b.pagination(page, pages))
	sb.WriteString(`<div id="posts">`)
	lo := (page - 1) * b.PerPage
	hi := min(lo+b.PerPage, len(b.posts))
	for _, p := range b.posts[lo:hi] {
		sb.WriteString(b.postbit(p))
	}
	sb.WriteString(`</div>`)
	b.page(w, sid, u, "Game thread", sb.String())
}

func (b *Board) pagination(page, pages int) string {
	if pages <= 1 {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, `<div class="pagination"><span class="pages">Pages (%d):</span>`, pages)
	for i := 1; i <= pages; i++ {
		if i == page {
			fmt.Fprintf(&sb, ` <span class="pagination_current">%d</span>`, i)
		} else {
			fmt.Fprintf(&sb, ` <a href="showthread.php?tid=%d&amp;page=%d" class="pagination_page">%d</a>`, b.TID, i, i)
		}
	}
	sb.WriteString(`</div>`)
	return sb.String()
}

func mybbDate(t time.Time) string { return t.UTC().Format("01-02-2006, 03:04 PM") }

// relDate renders a time as MyBB 1.8's my_date('relative') does with the
// default English strings and settings (UTC): "Less than 1 minute ago",
// "N minutes ago" and "N hours ago" under 12 hours, else "Today, 10:05 AM"
// / "Yesterday, …" / the full date; relative forms carry the absolute
// date (and time) in a title.
func (b *Board) relDate(t time.Time) string {
	now := b.clk.Now().Truncate(time.Second)
	t = t.Truncate(time.Second)
	diff := int64(now.Sub(t) / time.Second)
	abs, prefix, suffix := diff, "", " ago"
	if abs < 0 {
		abs, prefix, suffix = -abs, "In ", ""
	}
	title := func(tt, text string) string {
		if b.NoDateTitles {
			return text
		}
		return `<span title="` + tt + `">` + text + `</span>`
	}
	unit := func(n int64, one, many string) string {
		if n <= 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", n, many)
	}
	switch {
	case abs < 3600:
		txt := prefix + unit(abs/60, "minute", "minutes") + suffix
		if abs <= 60 {
			txt = prefix + "Less than 1 minute" + suffix
		}
		return title(mybbDate(t), txt)
	case abs < 43200:
		return title(mybbDate(t), prefix+unit(abs/3600, "hour", "hours")+suffix)
	}
	day := t.UTC().Format("01-02-2006")
	switch day {
	case now.UTC().Format("01-02-2006"):
		return title(day, "Today") + ", " + t.UTC().Format("03:04 PM")
	case now.Add(-24 * time.Hour).UTC().Format("01-02-2006"):
		return title(day, "Yesterday") + ", " + t.UTC().Format("03:04 PM")
	}
	return mybbDate(t)
}

func (b *Board) postbit(p Post) string {
	author := html.EscapeString(p.Author)
	if p.UID != 0 {
		author = fmt.Sprintf(`<a href="member.php?action=profile&amp;uid=%d">%s</a>`, p.UID, author)
	}
	edited := ""
	if p.Edited {
		edited = `<span class="edited_post">(This post was last modified: ` + mybbDate(b.clk.Now()) + `.)</span>`
	}
	return fmt.Sprintf(`<a name="pid%[1]d" id="pid%[1]d"></a>
<div class="post " style="" id="post_%[1]d">
<div class="post_author"><div class="author_information"><strong><span class="largetext">%[2]s</span></strong><br /></div></div>
<div class="post_content"><div class="post_head"><span class="post_date">%[3]s <span class="post_edit" id="edited_by_%[1]d">%[4]s</span></span></div>
<div class="post_body scaleimages" id="pid_%[1]d">%[5]s</div></div></div>
`, p.ID, author, b.relDate(p.Time), edited, p.Message)
}

func (b *Board) flooded(last time.Time) bool {
	return b.FloodSecs > 0 && !last.IsZero() && b.clk.Now().Sub(last) < time.Duration(b.FloodSecs)*time.Second
}

// floodText is MyBB 1.8's refusal (datahandler_post/_pm.lang.php): it names
// the seconds left, not the interval.
func (b *Board) floodText(last time.Time, what, verb string) string {
	left := b.FloodSecs - int(b.clk.Now().Sub(last)/time.Second)
	if left <= 1 {
		return "You are trying to " + verb + " a message too quickly after " + what + " a previous message. Please wait 1 more second."
	}
	return fmt.Sprintf("You are trying to %s a message too quickly after %s a previous message. Please wait %d more seconds.", verb, what, left)
}

func (b *Board) newreply(w http.ResponseWriter, r *http.Request, sid string, u *user) {
	if u == nil {
		b.errorPage(w, sid, u, "You are either not logged in or do not have permission to view this page.")
		return
	}
	if r.Method == http.MethodPost {
		if r.FormValue("my_post_key") != postKey(sid, u.uid) {
			b.errorPage(w, sid, u, "Authorization code mismatch. Are you accessing this function correctly? Please go back and refresh the page and try again.")
			return
		}
		if r.FormValue("action") != "do_newreply" || r.FormValue("posthash") == "" {
			b.errorPage(w, sid, u, "Invalid post request.")
			return
		}
		if b.flooded(u.lastPost) {
			b.errorPage(w, sid, u, b.floodText(u.lastPost, "posting", "post"))
			return
		}
		msg := html.EscapeString(r.FormValue("message"))
		msg = strings.ReplaceAll(msg, "\n", "<br />\n")
		msg = mycodeSize(msg)
		msg = strings.ReplaceAll(msg, "[b]", `<span style="font-weight: bold;" class="mycode_b">`)
		msg = strings.ReplaceAll(msg, "[/b]", `</span>`)
		pid := b.addPost(u.uid, "", msg)
		u.lastPost = b.clk.Now()
		w.Header().Set("Location", fmt.Sprintf("showthread.php?tid=%d&pid=%d#pid%d", b.TID, pid, pid))
		w.WriteHeader(http.StatusFound)
		return
	}
	b.page(w, sid, u, "Post Reply", fmt.Sprintf(`<form action="newreply.php?tid=%d&amp;processed=1" method="post" enctype="multipart/form-data" name="input">
<input type="hidden" name="my_post_key" value="%s" />
<input type="text" class="textbox" name="subject" size="40" maxlength="85" value="RE: Game thread" tabindex="1" />
<textarea name="message" id="message" rows="20" cols="70" tabindex="2"></textarea>
<input type="checkbox" class="checkbox" name="postoptions[signature]" value="1" />
<input type="submit" class="button" name="submit" value="Post Reply" tabindex="3" />
<input type="hidden" name="action" value="do_newreply" />
<input type="hidden" name="replyto" value="0" />
<input type="hidden" name="posthash" value="ph%d" />
<input type="hidden" name="attachmentaid" value="" />
<input type="hidden" name="tid" value="%d" />
</form>`, b.TID, postKey(sid, u.uid), b.clk.Now().UnixNano(), b.TID))
}

func (b *Board) private(w http.ResponseWriter, r *http.Request, sid string, u *user) {
	if u == nil {
		b.errorPage(w, sid, u, "You are either not logged in or do not have permission to view this page.")
		return
	}
	switch {
	case r.Method == http.MethodPost && r.FormValue("action") == "do_send":
		if r.FormValue("my_post_key") != postKey(sid, u.uid) {
			b.errorPage(w, sid, u, "Authorization code mismatch.")
			return
		}
		if b.flooded(u.lastPM) {
			b.errorPage(w, sid, u, b.floodText(u.lastPM, "sending", "send"))
			return
		}
		var to *user
		for _, cand := range b.users {
			if strings.EqualFold(cand.name, strings.TrimSpace(r.FormValue("to"))) {
				to = cand
			}
		}
		if to == nil {
			b.errorPage(w, sid, u, "The user "+r.FormValue("to")+" does not exist.")
			return
		}
		msg := strings.ReplaceAll(html.EscapeString(r.FormValue("message")), "\n", "<br />\n")
		msg = mycodeSize(msg)
		b.nextPMID++
		b.pms = append(b.pms, PM{ID: b.nextPMID, From: u.uid, To: to.uid, Subject: r.FormValue("subject"), Message: msg, Time: b.clk.Now()})
		u.lastPM = b.clk.Now()
		w.Header().Set("Location", "private.php")
		w.WriteHeader(http.StatusFound)
	case r.FormValue("action") == "send":
		b.page(w, sid, u, "Compose", fmt.Sprintf(`<form action="private.php" method="post" name="input">
<input type="hidden" name="my_post_key" value="%s" />
<input type="text" class="textbox" name="to" id="to" size="40" value="" />
<input type="text" class="textbox" name="subject" size="40" value="" />
<textarea name="message" id="message" rows="20" cols="70"></textarea>
<input type="checkbox" class="checkbox" name="options[savecopy]" value="1" checked="checked" />
<input type="submit" class="button" name="submit" value="Send Message" />
<input type="hidden" name="action" value="do_send" /><input type="hidden" name="pmid" value="" /><input type="hidden" name="do" value="" />
</form>`, postKey(sid, u.uid)))
	case r.FormValue("action") == "read":
		id, _ := strconv.Atoi(r.FormValue("pmid"))
		for i := range b.pms {
			m := &b.pms[i]
			if m.ID == id && (m.To == u.uid || m.From == u.uid) {
				if m.To == u.uid {
					m.Read = true
				}
				from := b.users[m.From]
				b.page(w, sid, u, "PM", fmt.Sprintf(`<table class="tborder"><tr><td class="thead"><strong>%s</strong></td></tr></table>
<div id="posts"><div class="post " style="" id="post_"><div class="post_author"><div class="author_information"><strong><span class="largetext"><a href="member.php?action=profile&amp;uid=%d">%s</a></span></strong></div></div>
<div class="post_content"><div class="post_head"><span class="post_date">%s <span class="post_edit" id="edited_by_"></span></span></div>
<div class="post_body scaleimages" id="pid_">%s</div></div></div></div>`, html.EscapeString(m.Subject), from.uid, html.EscapeString(from.name), b.relDate(m.Time), m.Message))
				return
			}
		}
		b.errorPage(w, sid, u, "The private message you requested does not exist.")
	default:
		sent := r.FormValue("fid") == "2"
		fid := r.FormValue("fid")
		if fid == "" {
			fid = "0" // private.php: the inbox, as fid 0
		}
		var sb strings.Builder
		// The private template's form and its sort links, which name the folder.
		fmt.Fprintf(&sb, `<form action="private.php" method="post" name="pmForm"><table class="tborder"><tr><td class="thead" colspan="6"><strong>Folder</strong></td></tr>`+
			`<tr><td class="tcat" colspan="3"><a href="private.php?fid=%s&amp;sortby=subject&amp;order=asc">Message Title</a></td></tr>`, html.EscapeString(fid))
		for i := len(b.pms) - 1; i >= 0; i-- { // newest first
			m := b.pms[i]
			if (!sent && m.To != u.uid) || (sent && m.From != u.uid) {
				continue
			}
			other := b.users[m.From]
			if sent {
				other = b.users[m.To]
			}
			cls := "old_pm"
			if !m.Read && !sent {
				cls = "new_pm"
			}
			fmt.Fprintf(&sb, `<tr><td class="trow1"><a href="private.php?action=read&amp;pmid=%d" class="%s">%s</a></td><td class="trow1"><a href="member.php?action=profile&amp;uid=%d">%s</a></td><td class="trow1"><span class="smalltext">%s</span></td></tr>`,
				m.ID, cls, html.EscapeString(m.Subject), other.uid, html.EscapeString(other.name), b.relDate(m.Time))
		}
		sb.WriteString(`</table></form>`)
		b.page(w, sid, u, "Private Messages", sb.String())
	}
}

// memberlist is MyBB's member list; ?username= keeps the members of exactly
// that name, compared case-blind (MyBB's default "exact" match). Each row
// links the name to the profile, as MyBB's memberlist_user template does.
func (b *Board) memberlist(w http.ResponseWriter, r *http.Request, sid string, u *user) {
	q := strings.TrimSpace(r.FormValue("username"))
	var rows strings.Builder
	var uids []int
	for uid := range b.users {
		uids = append(uids, uid)
	}
	sort.Ints(uids)
	for _, uid := range uids {
		m := b.users[uid]
		if q != "" && !strings.EqualFold(m.name, q) {
			continue
		}
		fmt.Fprintf(&rows, `<tr><td class="trow1" align="center"><a href="member.php?action=profile&amp;uid=%d"><img src="images/default_avatar.png" alt="" /></a></td><td class="trow1"><a href="member.php?action=profile&amp;uid=%d">%s</a><br /><span class="smalltext">Member</span></td></tr>`,
			m.uid, m.uid, html.EscapeString(m.name))
	}
	b.page(w, sid, u, "Member List", `<table class="tborder">`+rows.String()+`</table>`)
}

// mycodeSize renders [size] as MyBB does (inc/class_parser.php): a keyword
// as itself, a number as points (at most 50: mycode_size_int).
func mycodeSize(msg string) string {
	return sizeRe.ReplaceAllStringFunc(msg, func(m string) string {
		sub := sizeRe.FindStringSubmatch(m)
		size := sub[1]
		if n, err := strconv.Atoi(size); err == nil {
			size = strconv.Itoa(min(max(n, 1), 50)) + "pt"
		}
		return `<span style="font-size: ` + size + `;" class="mycode_size">` + sub[2] + `</span>`
	})
}

var sizeRe = regexp.MustCompile(`(?s)\[size=(xx-small|x-small|small|medium|large|x-large|xx-large|[0-9]+)\](.*?)\[/size\]`)
