package forumsim

import (
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// phpBB's language strings for the messages a client must recognise.
const (
	MsgFormInvalid     = "The submitted form was invalid. Try submitting again."
	MsgFlood           = "You cannot make another post so soon after your last."
	MsgTooFewChars     = "Your message contains too few characters."
	MsgEmptySubject    = "You must specify a subject when posting a new topic."
	MsgEmptyPMSubj     = "You must specify a subject when composing a new message."
	MsgNoRecipient     = "No recipient defined."
	MsgNoSuchUsers     = "The requested users to be added do not exist."
	MsgPostReview      = "At least one new post has been made to this topic. You may wish to review your post in light of this."
	MsgNoTopic         = "The requested topic does not exist."
	MsgNoPost          = "The requested post does not exist."
	MsgNoForum         = "The forum you selected does not exist."
	MsgNoMessage       = "Private message could not be found."
	MsgNoUser          = "The requested user does not exist."
	MsgLoginUser       = "You have specified an incorrect username. Please check your username and try again. If you continue to experience problems please contact the Board Administrator."
	MsgLoginPassword   = "You have specified an incorrect password. Please check your password and try again. If you continue to experience problems please contact the Board Administrator."
	MsgLogoutFailed    = "You were not logged out, as the request did not match your session. Please contact the board administrator if you continue to experience problems."
	MsgMessageStored   = "This message has been sent successfully."
	MsgPostDeleted     = "This post has been deleted successfully."
	MsgCannotDelete    = "Sorry but you may only delete posts which have not been replied to."
	MsgCannotEdit      = "You may only edit your own posts."
	MsgRegisterOff     = "Creating a new account is currently not possible."
	MsgModuleNotAccess = "Module not accessible"
)

// maxPostChars is phpBB's max_post_chars.
const maxPostChars = 60000

// serve routes by the script name, so the board works under any path;
// fx are the faults the handlers play out for this request.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, fx reqFaults) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fx = fx
	defer func() { s.fx = reqFaults{} }()
	s.requests++
	if r.Method == http.MethodPost {
		if err := parseForm(r); err != nil {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
	} else {
		_ = r.ParseForm() // as FormValue would: a malformed query reads as far as it goes
	}
	s.decodeForm(r) // a legacy board reads query and form as its charset's bytes
	se := s.session(w, r)
	switch path.Base(r.URL.Path) {
	case "/", ".", "index.php":
		s.index(w, r, se)
	case "viewforum.php":
		s.viewForum(w, r, se)
	case "viewtopic.php":
		s.viewTopic(w, r, se)
	case "memberlist.php":
		s.memberlist(w, r, se)
	case "ucp.php":
		s.ucp(w, r, se)
	case "posting.php":
		s.posting(w, r, se)
	default:
		if strings.HasSuffix(r.URL.Path, "/") {
			s.index(w, r, se)
			return
		}
		s.message(w, r, se, http.StatusNotFound, "The page you requested does not exist.", "")
	}
}

// parseForm reads urlencoded or multipart bodies (prosilver's posting forms
// are multipart; clients may send either, as phpBB accepts both).
func parseForm(r *http.Request) error {
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		return r.ParseMultipartForm(1 << 20)
	}
	return r.ParseForm()
}

func intParam(r *http.Request, name string) int {
	v, err := strconv.Atoi(strings.TrimSpace(r.FormValue(name)))
	if err != nil {
		return 0
	}
	return v
}

func posted(r *http.Request, name string) bool {
	_, ok := r.PostForm[name]
	return r.Method == http.MethodPost && ok
}

func redirect(w http.ResponseWriter, r *http.Request, rel string) {
	http.Redirect(w, r, absURL(r, rel), http.StatusFound)
}

func (s *Server) postCount(uid int) int {
	n := 0
	for _, p := range s.posts {
		if p.AuthorID == uid {
			n++
		}
	}
	return n
}

// ---- index, forum, topic ----

func (s *Server) index(w http.ResponseWriter, r *http.Request, se *session) {
	var b strings.Builder
	b.WriteString("<div class=\"forabg\">\n<div class=\"inner\">\n<ul class=\"topiclist\"><li class=\"header\"><dl class=\"row-item\"><dt><div class=\"list-inner\">Forum</div></dt><dd class=\"topics\">Topics</dd><dd class=\"posts\">Posts</dd></dl></li></ul>\n<ul class=\"topiclist forums\">\n")
	ids := slices.Sorted(maps.Keys(s.forums))
	for _, id := range ids {
		f := s.forums[id]
		topics, posts := 0, 0
		for _, t := range s.topics {
			if t.ForumID == id {
				topics++
				posts += len(t.posts)
			}
		}
		fmt.Fprintf(&b, "<li class=\"row\">\n<dl class=\"row-item forum_read\">\n<dt><div class=\"list-inner\"><a href=\"./viewforum.php?f=%d\" class=\"forumtitle\">%s</a><br />%s</div></dt>\n<dd class=\"topics\">%d <dfn>Topics</dfn></dd>\n<dd class=\"posts\">%d <dfn>Posts</dfn></dd>\n</dl>\n</li>\n",
			id, e(f.Name), e(f.Desc), topics, posts)
	}
	b.WriteString("</ul>\n</div>\n</div>")
	if len(ids) == 0 {
		b.WriteString("\n<p><strong>There are no forums on this board.</strong></p>")
	}
	s.page(w, r, se, "Index page", b.String(), pageOpts{section: "section-index"})
}

func (s *Server) viewForum(w http.ResponseWriter, r *http.Request, se *session) {
	f := s.forums[intParam(r, "f")]
	if f == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoForum, "")
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<h2 class=\"forum-title\"><a href=\"./viewforum.php?f=%d\">%s</a></h2>\n<div><p>%s</p></div>\n", f.ID, e(f.Name), e(f.Desc))
	var ts []*Topic
	for _, t := range s.topics {
		if t.ForumID == f.ID && len(t.posts) > 0 {
			ts = append(ts, t)
		}
	}
	// viewforum.php: ORDER BY topic_last_post_time DESC, topic_last_post_id DESC.
	sort.Slice(ts, func(i, j int) bool {
		li, lj := s.posts[ts[i].posts[len(ts[i].posts)-1]], s.posts[ts[j].posts[len(ts[j].posts)-1]]
		if !li.Time.Equal(lj.Time) {
			return li.Time.After(lj.Time)
		}
		return li.ID > lj.ID
	})
	per, total := s.opt.TopicsPerPage, len(ts)
	start := intParam(r, "start")
	if start < 0 || start >= total { // validate_start: past the end, the last page
		start = max(total-1, 0) / per * per
	}
	base := "./viewforum.php?f=" + strconv.Itoa(f.ID)
	pag := pagination(base, total, per, start, "topic")
	fmt.Fprintf(&b, "<div class=\"action-bar bar-top\">\n<a href=\"./posting.php?mode=post&amp;f=%d\" class=\"button\" title=\"Post a new topic\"><span>New Topic</span></a>\n%s</div>\n", f.ID, pag)
	b.WriteString("<div class=\"forumbg\">\n<div class=\"inner\">\n<ul class=\"topiclist\"><li class=\"header\"><dl class=\"row-item\"><dt><div class=\"list-inner\">Topics</div></dt><dd class=\"posts\">Replies</dd><dd class=\"views\">Views</dd><dd class=\"lastpost\"><span>Last post</span></dd></dl></li></ul>\n<ul class=\"topiclist topics\">\n")
	for i, t := range ts[start:min(start+per, total)] {
		first, last := s.posts[t.posts[0]], s.posts[t.posts[len(t.posts)-1]]
		fmt.Fprintf(&b, "<li class=\"row bg%d\">\n<dl class=\"row-item topic_read\">\n<dt title=\"No unread posts\"><div class=\"list-inner\"><a href=\"./viewtopic.php?t=%d\" class=\"topictitle\">%s</a><br />\n",
			1+i%2, t.ID, e(t.Title))
		fmt.Fprintf(&b, "<div class=\"responsive-show\" style=\"display: none;\">Last post by %s &laquo; <a href=\"./viewtopic.php?p=%d#p%d\" title=\"Go to last post\"><time datetime=\"%s\">%s</time></a></div>\n",
			s.userFull(last.AuthorID, last.AuthorName), last.ID, last.ID, last.Time.UTC().Format(time.RFC3339), e(s.date(last.Time)))
		fmt.Fprintf(&b, "<div class=\"topic-poster responsive-hide left-box\">by %s &raquo; <time datetime=\"%s\">%s</time></div>\n</div></dt>\n",
			s.userFull(first.AuthorID, first.AuthorName), first.Time.UTC().Format(time.RFC3339), e(s.date(first.Time)))
		fmt.Fprintf(&b, "<dd class=\"posts\">%d <dfn>Replies</dfn></dd>\n<dd class=\"views\">%d <dfn>Views</dfn></dd>\n", len(t.posts)-1, t.views)
		fmt.Fprintf(&b, "<dd class=\"lastpost\"><span><dfn>Last post </dfn>by %s <a href=\"./viewtopic.php?p=%d#p%d\" title=\"Go to last post\"><span class=\"sr-only\"></span></a><br /><time datetime=\"%s\">%s</time></span></dd>\n</dl>\n</li>\n",
			s.userFull(last.AuthorID, last.AuthorName), last.ID, last.ID, last.Time.UTC().Format(time.RFC3339), e(s.date(last.Time)))
	}
	b.WriteString("</ul>\n</div>\n</div>\n")
	fmt.Fprintf(&b, "<div class=\"action-bar bar-bottom\">\n%s</div>\n", pag)
	if len(ts) == 0 {
		b.WriteString("\n<div class=\"panel\"><div class=\"inner\"><strong>There are no topics or posts in this forum.</strong></div></div>")
	}
	s.page(w, r, se, f.Name, b.String(), pageOpts{section: "section-viewforum", forum: f})
}

func (s *Server) viewTopic(w http.ResponseWriter, r *http.Request, se *session) {
	per := s.opt.PostsPerPage
	var t *Topic
	start := intParam(r, "start")
	if intParam(r, "p") != 0 {
		p := s.postParam(w, r, se)
		if p == nil {
			return
		}
		t = s.topics[p.TopicID]
		for i, id := range t.posts {
			if id == p.ID {
				start = i / per * per
			}
		}
	} else {
		t = s.topics[intParam(r, "t")]
	}
	if t == nil {
		s.message(w, r, se, http.StatusNotFound, MsgNoTopic, "")
		return
	}
	t.views++ // topic_views: phpBB counts a member's view of a topic they were not on
	total := len(t.posts)
	// phpbb/pagination.php validate_start: out of range goes to the last page.
	if start < 0 || start >= total {
		start = (total - 1) / per * per
	}
	base := "./viewtopic.php?t=" + strconv.Itoa(t.ID)
	pag := pagination(base, total, per, start, "post")
	var b strings.Builder
	fmt.Fprintf(&b, "<h2 class=\"topic-title\"><a href=\"%s\">%s</a></h2>\n", e(base), e(t.Title))
	fmt.Fprintf(&b, "<div class=\"action-bar bar-top\">\n<a href=\"./posting.php?mode=reply&amp;t=%d\" class=\"button\" title=\"Post a reply\"><span>Post Reply</span></a>\n%s</div>\n\n", t.ID, pag)
	end := min(start+per, total)
	if s.rows() {
		b.WriteString(s.renderRows(se, t, t.posts[start:end]))
	} else {
		for i, id := range t.posts[start:end] {
			if s.fx.truncate && start+i == end-1 {
				b.WriteString(truncateMark)
			}
			b.WriteString(s.renderPost(se, t, s.posts[id], i))
		}
	}
	fmt.Fprintf(&b, "<div class=\"action-bar bar-bottom\">\n<a href=\"./posting.php?mode=reply&amp;t=%d\" class=\"button\" title=\"Post a reply\"><span>Post Reply</span></a>\n%s</div>\n", t.ID, pag)
	if se.registered() {
		// quickreply_editor.html
		last := t.posts[len(t.posts)-1]
		fmt.Fprintf(&b, "<form method=\"post\" action=\"./posting.php?mode=reply&amp;t=%d\" id=\"qr_postform\">\n<div class=\"panel\">\n<div class=\"inner\">\n<h2 class=\"quickreply-title\">Quick Reply</h2>\n<fieldset class=\"fields1\">\n", t.ID)
		fmt.Fprintf(&b, "<input type=\"hidden\" name=\"subject\" value=\"%s\" />\n<div id=\"message-box\" class=\"message-box\"><textarea style=\"height: 9em;\" name=\"message\" rows=\"7\" cols=\"76\" tabindex=\"3\" class=\"inputbox\"></textarea></div>\n</fieldset>\n", e("Re: "+t.Title))
		fmt.Fprintf(&b, "<fieldset class=\"submit-buttons\">\n%s<input type=\"hidden\" name=\"topic_cur_post_id\" value=\"%d\" />\n<input type=\"hidden\" name=\"topic_id\" value=\"%d\" />\n<input type=\"hidden\" name=\"forum_id\" value=\"%d\" />\n", s.tokenFields(se, "posting"), last, t.ID, t.ForumID)
		b.WriteString("<input type=\"submit\" accesskey=\"s\" tabindex=\"6\" name=\"post\" value=\"Submit\" class=\"button1\" />\n</fieldset>\n</div>\n</div>\n</form>\n")
	}
	s.page(w, r, se, t.Title, b.String(), pageOpts{section: "section-viewtopic", forum: s.forums[t.ForumID]})
}

// renderPost is one postrow of viewtopic_body.html.
func (s *Server) renderPost(se *session, t *Topic, p *Post, row int) string {
	var b strings.Builder
	author := s.userFull(p.AuthorID, p.AuthorName)
	fmt.Fprintf(&b, "<div id=\"p%d\" class=\"%s has-profile bg%d\">\n<div class=\"inner\">\n\n", p.ID, s.opt.Theme.postClass(), 2-row%2)
	fmt.Fprintf(&b, "<dl class=\"postprofile\" id=\"profile%d\">\n<dt class=\"has-profile-rank no-avatar\">\n<div class=\"avatar-container\"></div>\n%s\n</dt>\n", p.ID, author)
	if u := s.users[p.AuthorID]; u != nil && p.AuthorID != 0 {
		rank := "Registered User"
		if u.Moderator {
			rank = "Global Moderator"
		}
		fmt.Fprintf(&b, "<dd class=\"profile-rank\">%s</dd>\n<dd class=\"profile-posts\"><strong>Posts:</strong> <a href=\"./search.php?author_id=%d&amp;sr=posts\">%d</a></dd>\n<dd class=\"profile-joined\"><strong>Joined:</strong> %s</dd>\n",
			rank, u.ID, s.postCount(u.ID), e(s.date(u.Joined)))
	}
	b.WriteString("</dl>\n\n<div class=\"postbody\">\n")
	fmt.Fprintf(&b, "<div id=\"post_content%d\">\n\n", p.ID)
	first := ""
	if row == 0 {
		first = ` class="first"`
	}
	fmt.Fprintf(&b, "<h3%s><a href=\"./viewtopic.php?p=%d#p%d\">%s</a></h3>\n\n", first, p.ID, p.ID, e(p.Subject))
	if se.registered() {
		b.WriteString("<ul class=\"post-buttons\">\n")
		u := s.users[se.userID]
		if u.Moderator || u.ID == p.AuthorID {
			fmt.Fprintf(&b, "<li><a href=\"./posting.php?mode=edit&amp;p=%d\" title=\"Edit post\" class=\"button button-icon-only\"><span>Edit</span></a></li>\n", p.ID)
			if u.Moderator || t.posts[len(t.posts)-1] == p.ID {
				fmt.Fprintf(&b, "<li><a href=\"./posting.php?mode=delete&amp;p=%d\" title=\"Delete post\" class=\"button button-icon-only\"><span>Delete</span></a></li>\n", p.ID)
			}
		}
		fmt.Fprintf(&b, "<li><a href=\"./posting.php?mode=quote&amp;p=%d\" title=\"Reply with quote\" class=\"button button-icon-only\"><span>Quote</span></a></li>\n</ul>\n\n", p.ID)
	}
	fmt.Fprintf(&b, "<p class=\"author\">\n<a class=\"unread\" href=\"./viewtopic.php?p=%d#p%d\" title=\"Post\"><span class=\"sr-only\">Post</span></a>\n", p.ID, p.ID)
	fmt.Fprintf(&b, "<span class=\"responsive-hide\">by %s &raquo; </span><time datetime=\"%s\">%s</time>\n</p>\n\n", s.opt.Theme.byline(author), rfc3339(p.Time), e(s.date(p.Time)))
	fmt.Fprintf(&b, "<div class=\"content\">%s</div>\n\n", p.HTML)
	if p.EditCount > 0 {
		times := "times"
		if p.EditCount == 1 {
			times = "time"
		}
		ed := s.users[p.EditUserID]
		name := ""
		if ed != nil {
			name = ed.Name
		}
		fmt.Fprintf(&b, "<div class=\"notice\">\nLast edited by %s on %s, edited %d %s in total.\n</div>\n\n", s.userFull(p.EditUserID, name), e(s.date(p.EditTime)), p.EditCount, times)
	}
	if u := s.users[p.AuthorID]; u != nil && p.AuthorID != 0 && u.sigHTML != "" {
		fmt.Fprintf(&b, "<div id=\"sig%d\" class=\"signature\">%s</div>\n\n", p.ID, u.sigHTML)
	}
	b.WriteString("</div>\n\n</div>\n\n")
	b.WriteString("<div class=\"back2top\"><a href=\"#top\" class=\"top\" title=\"Top\"><span class=\"sr-only\">Top</span></a></div>\n\n</div>\n</div>\n\n<hr class=\"divider\" />\n\n")
	return b.String()
}

// ---- members ----

func (s *Server) memberlist(w http.ResponseWriter, r *http.Request, se *session) {
	if !se.registered() {
		// Guests lack u_viewprofile on a default board.
		s.loginForm(w, r, se, "memberlist.php?"+r.URL.RawQuery, "The board requires you to be registered and logged in to view this page.", "", "", http.StatusOK)
		return
	}
	if r.FormValue("mode") == "email" {
		s.emailForm(w, r, se)
		return
	}
	if r.FormValue("mode") == "viewprofile" {
		u := s.users[intParam(r, "u")]
		if un := r.FormValue("un"); un != "" && r.FormValue("u") == "" {
			u = s.userNamed(un) // phpBB: a profile by user name, compared case-blind
		}
		if u == nil {
			s.message(w, r, se, http.StatusNotFound, MsgNoUser, "")
			return
		}
		groups := "Registered users"
		if u.Exempt {
			groups += ", Flood exempt"
		}
		if u.Moderator {
			groups += ", Global moderators"
		}
		name := `<span>` + e(u.Name) + `</span>`
		if u.Moderator {
			name = `<span style="color: #00AA00;" class="username-coloured">` + e(u.Name) + `</span>`
		}
		var b strings.Builder
		fmt.Fprintf(&b, "<h2 class=\"memberlist-title\">Viewing profile - %s</h2>\n<form method=\"post\" action=\"./memberlist.php\" id=\"viewprofile\">\n<div class=\"panel bg1\">\n<div class=\"inner\">\n<dl class=\"left-box details profile-details\">\n<dt>Username:</dt><dd>%s</dd>\n<dt>Groups:</dt><dd>%s</dd>\n</dl>\n</div>\n</div>\n",
			e(u.Name), name, e(groups))
		fmt.Fprintf(&b, "<div class=\"panel bg2\">\n<div class=\"inner\">\n<div class=\"column1\">\n<h3>Contact %s</h3>\n<dl class=\"details\"><dt>PM:</dt><dd><a href=\"%s\">Send private message</a></dd></dl>\n</div>\n",
			e(u.Name), e(s.composeLink(u.ID)))
		fmt.Fprintf(&b, "<div class=\"column2\">\n<h3>User statistics</h3>\n<dl class=\"details\"><dt>Joined:</dt><dd>%s</dd>\n<dt>Total posts:</dt><dd>%d</dd></dl>\n</div>\n</div>\n</div>\n</form>",
			e(s.date(u.Joined)), s.postCount(u.ID))
		s.page(w, r, se, "Viewing profile - "+u.Name, b.String(), pageOpts{section: "section-memberlist"})
		return
	}
	var b strings.Builder
	b.WriteString("<h2 class=\"solo\">Members</h2>\n<div class=\"forumbg forumbg-table\">\n<div class=\"inner\">\n<table class=\"table1 memberlist\" id=\"memberlist\">\n<thead><tr><th class=\"name\">Username</th><th class=\"posts\">Posts</th><th class=\"joined\">Joined</th></tr></thead>\n<tbody>\n")
	ids := slices.Sorted(maps.Keys(s.users))
	for i, id := range ids {
		u := s.users[id]
		fmt.Fprintf(&b, "<tr class=\"bg%d\"><td>%s</td><td class=\"posts\">%d</td><td>%s</td></tr>\n", 1+i%2, s.userFull(id, u.Name), s.postCount(id), e(s.date(u.Joined)))
	}
	b.WriteString("</tbody>\n</table>\n</div>\n</div>")
	s.page(w, r, se, "Members", b.String(), pageOpts{section: "section-memberlist"})
}

// ---- ucp.php ----

func (s *Server) ucp(w http.ResponseWriter, r *http.Request, se *session) {
	mode := r.FormValue("mode")
	switch mode {
	case "login":
		s.login(w, r, se)
		return
	case "logout":
		if se.registered() {
			if r.URL.Query().Get("sid") != se.id {
				s.message(w, r, se, http.StatusOK, e(MsgLogoutFailed), "./index.php")
				return
			}
			s.endSession(w, se, r)
		}
		redirect(w, r, "./index.php")
		return
	case "register":
		s.message(w, r, se, http.StatusOK, e(MsgRegisterOff), "")
		return
	}
	if !se.registered() {
		s.loginForm(w, r, se, "ucp.php?"+r.URL.RawQuery, "Please login in order to access the User Control Panel.", "", "", http.StatusOK)
		return
	}
	if i := r.FormValue("i"); i == "pm" || i == "ucp_pm" {
		if s.opt.NoPMs {
			s.message(w, r, se, http.StatusNotFound, "The page you requested does not exist.", "")
			return
		}
		if s.opt.PMsDisabled {
			generalError(w, MsgModuleNotAccess)
			return
		}
		switch mode {
		case "compose":
			s.compose(w, r, se)
		case "view":
			if r.FormValue("p") != "" {
				s.readPM(w, r, se)
				return
			}
			s.pmFolder(w, r, se)
		default:
			s.pmFolder(w, r, se)
		}
		return
	}
	u := s.users[se.userID]
	links := "<li><a href=\"./ucp.php?i=pm&amp;folder=inbox\">Private messages: Inbox</a></li>\n<li><a href=\"./ucp.php?i=pm&amp;folder=sentbox\">Private messages: Sent messages</a></li>\n<li><a href=\"./ucp.php?i=pm&amp;mode=compose\">Compose message</a></li>\n"
	if s.opt.NoPMs {
		links = "<li><a href=\"./ucp.php?i=ucp_prefs\">Board preferences</a></li>\n"
	}
	body := fmt.Sprintf("<h2>User Control Panel</h2>\n<div class=\"panel\"><div class=\"inner\">\n<p>Welcome, %s.</p>\n<ul>\n%s</ul>\n</div></div>", e(u.Name), links)
	s.page(w, r, se, "User Control Panel", body, pageOpts{section: "section-ucp"})
}

func (s *Server) login(w http.ResponseWriter, r *http.Request, se *session) {
	redirectTo := r.FormValue("redirect")
	if redirectTo == "" {
		redirectTo = "index.php"
	}
	if !posted(r, "login") {
		if se.registered() {
			redirect(w, r, "./index.php")
			return
		}
		s.loginForm(w, r, se, redirectTo, "", "", "", http.StatusOK)
		return
	}
	name := r.PostFormValue("username")
	key, ok := s.checkToken(se, "login", r)
	if !ok {
		s.loginForm(w, r, se, redirectTo, "", e(MsgFormInvalid), name, http.StatusOK)
		return
	}
	u := s.userByName(name)
	if u == nil {
		s.loginForm(w, r, se, redirectTo, "", e(MsgLoginUser), name, http.StatusOK)
		return
	}
	if u.Password != r.PostFormValue("password") {
		s.loginForm(w, r, se, redirectTo, "", e(MsgLoginPassword), name, http.StatusOK)
		return
	}
	s.useToken(key)
	delete(s.sessions, se.id)
	autoKey := ""
	if r.PostFormValue("autologin") != "" {
		autoKey = randHex(16)
		s.keys[autoKey] = u.ID
	}
	s.newSession(w, u.ID, autoKey)
	redirect(w, r, safeRedirect(redirectTo))
}

// safeRedirect keeps a redirect on the board (phpBB refuses off-site ones).
func safeRedirect(rel string) string {
	u, err := url.Parse(rel)
	if err != nil || u.IsAbs() || u.Host != "" || strings.HasPrefix(rel, "//") {
		return "./index.php"
	}
	return "./" + strings.TrimLeft(strings.TrimPrefix(rel, "./"), "/")
}

// ---- private messages ----

const (
	folderInbox = 0
	folderSent  = -1
)

func pmViewURL(folder, id int) string {
	return fmt.Sprintf("./ucp.php?i=pm&mode=view&f=%d&p=%d", folder, id)
}

func (s *Server) pmFolder(w http.ResponseWriter, r *http.Request, se *session) {
	folder, cur := folderInbox, "inbox"
	switch r.FormValue("folder") {
	case "sentbox", "outbox":
		folder, cur = folderSent, r.FormValue("folder")
	case "", "inbox":
		switch r.FormValue("f") {
		case "-1":
			folder, cur = folderSent, "sentbox"
		case "-2":
			folder, cur = folderSent, "outbox"
		}
	}
	u := s.users[se.userID]
	msgs := s.folder(u.ID, folder == folderSent)
	if n := s.opt.SentPerPage; n > 0 && folder == folderSent {
		first, _ := strconv.Atoi(r.FormValue("start"))
		first = min(max(first, 0), len(msgs))
		msgs = msgs[first:min(first+n, len(msgs))]
	}
	title := "Inbox"
	if folder == folderSent {
		title = "Sent messages"
	}
	var b strings.Builder
	b.WriteString(cpMenu(cur))
	fmt.Fprintf(&b, "<h2>Private messages</h2>\n<form id=\"viewfolder\" method=\"post\" action=\"./ucp.php?i=pm&amp;mode=view&amp;action=view_folder&amp;f=%d\">\n<div class=\"panel\">\n<div class=\"inner\">\n<h2 class=\"ucp-title\">%s</h2>\n", folder, title)
	b.WriteString("<p><a href=\"./ucp.php?i=pm&amp;folder=inbox\">Inbox</a> &bull; <a href=\"./ucp.php?i=pm&amp;folder=sentbox\">Sent messages</a> &bull; <a href=\"./ucp.php?i=pm&amp;mode=compose\" class=\"button\">New PM</a></p>\n")
	if len(msgs) == 0 {
		b.WriteString("<p><strong>You have no messages in this folder.</strong></p>\n")
	} else {
		b.WriteString("<ul class=\"topiclist two-columns\"><li class=\"header\"><dl class=\"row-item\"><dt><div class=\"list-inner\">Message</div></dt><dd class=\"mark\">Mark</dd></dl></li></ul>\n<ul class=\"topiclist cplist pmlist responsive-show-all\">\n")
		for i, m := range msgs {
			unread := folder == folderInbox && m.Unread[u.ID]
			style := "pm_read"
			if unread {
				style = "pm_unread"
			}
			view := pmViewURL(folder, m.ID)
			fmt.Fprintf(&b, "<li class=\"row bg%d\">\n<dl class=\"row-item %s\">\n<dt>\n", 1+i%2, style)
			if unread {
				fmt.Fprintf(&b, "<a href=\"%s\" class=\"row-item-link\"></a>\n", e(view))
			}
			fmt.Fprintf(&b, "<div class=\"list-inner\">\n<a href=\"%s\" class=\"topictitle\">%s</a><br />\n", e(view), e(m.Subject))
			if folder == folderSent {
				var to []string
				for _, id := range m.To {
					to = append(to, s.userFull(id, s.users[id].Name))
				}
				fmt.Fprintf(&b, "To: %s &raquo; %s\n</div>\n</dt>\n", strings.Join(to, ", "), e(s.date(m.Time)))
			} else {
				fmt.Fprintf(&b, "by %s &raquo; %s\n</div>\n</dt>\n", s.userFull(m.FromID, m.FromName), e(s.date(m.Time)))
			}
			fmt.Fprintf(&b, "<dd class=\"mark\"><input type=\"checkbox\" name=\"marked_msg_id[]\" value=\"%d\" /></dd>\n</dl>\n</li>\n", m.ID)
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</div>\n</div>\n</form>")
	s.page(w, r, se, "Private messages", b.String(), pageOpts{section: "section-ucp"})
}

// generalError is phpBB's page for an E_USER_ERROR (includes/functions.php
// msg_handler): HTTP 503, its own bare page, not the board's template.
func generalError(w http.ResponseWriter, text string) {
	w.Header().Set("Content-Type", "text/html; charset=UTF-8")
	w.WriteHeader(http.StatusServiceUnavailable)
	fmt.Fprintf(w, "<!DOCTYPE html><html dir=\"ltr\"><head><meta charset=\"utf-8\"><title>General Error</title></head><body id=\"errorpage\"><div id=\"wrap\">"+
		"<div id=\"page-header\"><a href=\"./index.php\">Return to index page</a></div><div id=\"acp\"><div class=\"panel\"><div id=\"content\">"+
		"<h1>General Error</h1><div>%s</div></div></div></div><div id=\"page-footer\">Powered by phpBB&reg; Forum Software</div></div></body></html>", e(text))
}

// cpMenu is the control panel's folder menu (prosilver ucp_header.html),
// the folder shown marked as the active subsection.
func cpMenu(cur string) string {
	var b strings.Builder
	b.WriteString("<div id=\"cp-menu\" class=\"cp-menu\">\n<div id=\"navigation\" class=\"navigation\" role=\"navigation\">\n<ul>\n")
	for _, f := range []struct{ id, name string }{{"inbox", "Inbox"}, {"outbox", "Outbox"}, {"sentbox", "Sent messages"}} {
		if f.id == cur {
			fmt.Fprintf(&b, "<li id=\"active-subsection\" class=\"active-subsection\"><a href=\"./ucp.php?i=pm&amp;folder=%s\">%s</a></li>\n", f.id, f.name)
		} else {
			fmt.Fprintf(&b, "<li><a href=\"./ucp.php?i=pm&amp;folder=%s\"><span>%s</span></a></li>\n", f.id, f.name)
		}
	}
	b.WriteString("</ul>\n</div>\n</div>\n")
	return b.String()
}

func (s *Server) readPM(w http.ResponseWriter, r *http.Request, se *session) {
	m := s.pms[intParam(r, "p")]
	uid := se.userID
	if m == nil || (m.FromID != uid && !contains(m.To, uid)) {
		s.message(w, r, se, http.StatusNotFound, MsgNoMessage, "")
		return
	}
	delete(m.Unread, uid)
	var b strings.Builder
	b.WriteString("<h2>Private messages</h2>\n<div class=\"panel\">\n<div class=\"inner\">\n")
	fmt.Fprintf(&b, "<div id=\"post-%d\" class=\"post pm has-profile bg2\">\n<div class=\"inner\">\n", m.ID)
	fmt.Fprintf(&b, "<dl class=\"postprofile\" id=\"profile%d\">\n<dt class=\"has-profile-rank no-avatar\">\n<div class=\"avatar-container\"></div>\n%s\n</dt>\n</dl>\n", m.ID, s.userFull(m.FromID, m.FromName))
	fmt.Fprintf(&b, "<div class=\"postbody\">\n<h3 class=\"first\">%s</h3>\n", e(m.Subject))
	fmt.Fprintf(&b, "<p class=\"author\">\n<strong>Sent:</strong> %s\n<br /><strong>From:</strong> %s\n</p>\n", e(s.date(m.Time)), s.userFull(m.FromID, m.FromName))
	fmt.Fprintf(&b, "<div class=\"content\">%s</div>\n", m.HTML)
	if u := s.users[m.FromID]; u != nil && u.sigHTML != "" {
		fmt.Fprintf(&b, "<div id=\"sig%d\" class=\"signature\">%s</div>\n", m.ID, u.sigHTML)
	}
	b.WriteString("</div>\n</div>\n</div>\n")
	fmt.Fprintf(&b, "<p><a href=\"%s\" class=\"button\">Reply</a></p>\n</div>\n</div>", e(s.composeLink(m.FromID)))
	s.page(w, r, se, "Private messages - "+m.Subject, b.String(), pageOpts{section: "section-ucp"})
}

var reAddress = regexp.MustCompile(`^address_list\[u\]\[(\d+)\]$`)

// compose is ucp_pm_compose: recipients by id in address_list[u][ID]=to,
// names added through username_list (a refresh, never a send).
func (s *Server) compose(w http.ResponseWriter, r *http.Request, se *session) {
	u := s.users[se.userID]
	var to []int
	seen := map[int]bool{}
	add := func(id int) {
		if !seen[id] && s.users[id] != nil {
			seen[id] = true
			to = append(to, id)
		}
	}
	if id := intParam(r, "u"); id != 0 && r.Method == http.MethodGet {
		add(id)
	}
	if un := r.FormValue("un"); un != "" && r.Method == http.MethodGet && s.rows() {
		// The rows layout addresses a member by name.
		if v := s.userNamed(un); v != nil {
			add(v.ID)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(r.PostForm)) {
		if m := reAddress.FindStringSubmatch(k); m != nil {
			if v := r.PostFormValue(k); v == "to" || v == "bcc" {
				id, _ := strconv.Atoi(m[1])
				if _, removed := r.PostForm["remove_u["+m[1]+"]"]; !removed {
					add(id)
				}
			}
		}
	}
	subject, message := r.PostFormValue("subject"), r.PostFormValue("message")
	var errs []string
	if names := strings.TrimSpace(r.PostFormValue("username_list")); r.Method == http.MethodPost && (names != "" || posted(r, "add_to")) {
		missing := false
		for _, n := range strings.Split(names, "\n") {
			if n = strings.TrimSpace(n); n == "" {
				continue
			}
			if v := s.userByName(n); v != nil {
				add(v.ID)
			} else {
				missing = true
			}
		}
		if missing {
			errs = append(errs, MsgNoSuchUsers)
		}
		s.composeForm(w, r, se, to, subject, message, errs)
		return
	}
	if !posted(r, "post") {
		s.composeForm(w, r, se, to, subject, message, nil)
		return
	}
	key, ok := s.checkToken(se, "ucp_pm_compose", r)
	if !ok {
		errs = append(errs, MsgFormInvalid)
	}
	if len(to) == 0 {
		errs = append(errs, MsgNoRecipient)
	}
	if strings.TrimSpace(subject) == "" {
		errs = append(errs, MsgEmptyPMSubj)
	}
	errs = append(errs, checkMessage(message, s.opt.MaxPostChars)...)
	if s.flooded(u) {
		errs = append(errs, MsgFlood)
	}
	if len(errs) > 0 {
		s.composeForm(w, r, se, to, subject, message, errs)
		return
	}
	if s.subjectTooLong(w, subject, "privmsgs_subject") {
		return
	}
	s.useToken(key)
	m := s.addPM(u, to, subject, message)
	u.lastPost = s.now()
	view := fmt.Sprintf("./ucp.php?i=pm&mode=view&p=%d", m.ID)
	text := fmt.Sprintf("%s<br /><br />Click <a href=\"%s\">here</a> to view your message.<br /><br />Click <a href=\"./ucp.php?i=pm&amp;folder=inbox\">here</a> to return to your &#8220;Inbox&#8221; folder.", e(MsgMessageStored), e(view))
	if s.opt.PMSentNamesNone {
		view = "./ucp.php?i=pm&folder=inbox"
		text = fmt.Sprintf("%s<br /><br />Click <a href=\"%s\">here</a> to return to your &#8220;Inbox&#8221; folder.", e(MsgMessageStored), e(view))
	}
	s.message(w, r, se, http.StatusOK, text, view)
}

func (s *Server) composeForm(w http.ResponseWriter, r *http.Request, se *session, to []int, subject, message string, errs []string) {
	var b strings.Builder
	b.WriteString("<h2>Private messages</h2>\n")
	fmt.Fprintf(&b, "<form id=\"postform\" method=\"post\" action=\"./ucp.php?i=pm&amp;mode=compose&amp;sid=%s\" name=\"postform\" enctype=\"multipart/form-data\">\n", e(se.id))
	b.WriteString("<div class=\"panel\" id=\"postingbox\">\n<div class=\"inner\">\n<h3>Compose message</h3>\n<fieldset class=\"fields1\">\n")
	if len(errs) > 0 {
		b.WriteString(s.formErrors(errs))
	}
	b.WriteString("<dl>\n<dt><label for=\"username_list\">Recipients:</label></dt>\n<dd><textarea id=\"username_list\" name=\"username_list\" class=\"inputbox\" cols=\"50\" rows=\"2\" tabindex=\"1\"></textarea></dd>\n<dd><input type=\"submit\" name=\"add_to\" value=\"Add\" class=\"button2\" tabindex=\"1\" /></dd>\n")
	if len(to) > 0 {
		b.WriteString("<dd><ul class=\"recipients\">\n")
		for _, id := range to {
			fmt.Fprintf(&b, "<li>%s <input type=\"submit\" name=\"remove_u[%d]\" value=\"Remove\" class=\"button2\" /></li>\n", s.userFull(id, s.users[id].Name), id)
		}
		b.WriteString("</ul></dd>\n")
	}
	b.WriteString("</dl>\n")
	b.WriteString(subjectField(subject))
	fmt.Fprintf(&b, "<div id=\"message-box\" class=\"message-box\"><textarea name=\"message\" id=\"message\" rows=\"15\" cols=\"76\" tabindex=\"3\" class=\"inputbox\">%s</textarea></div>\n", e(message))
	b.WriteString(editorButtonsOpen)
	for _, id := range to {
		fmt.Fprintf(&b, "<input type=\"hidden\" name=\"address_list[u][%d]\" value=\"to\" />\n", id)
	}
	b.WriteString(s.tokenFields(se, "ucp_pm_compose"))
	b.WriteString(editorButtonsClose)
	s.page(w, r, se, "Compose message", b.String(), pageOpts{section: "section-ucp"})
}

// The parts of posting_editor.html that posts and PMs share: the subject
// field, and the submit panel around the hidden fields.
const (
	editorButtonsOpen  = "</fieldset>\n</div>\n</div>\n<div class=\"panel bg2\">\n<div class=\"inner\">\n<fieldset class=\"submit-buttons\">\n"
	editorButtonsClose = "<input type=\"submit\" tabindex=\"5\" name=\"preview\" value=\"Preview\" class=\"button1\" />&nbsp;\n<input type=\"submit\" accesskey=\"s\" tabindex=\"6\" name=\"post\" value=\"Submit\" class=\"button1 default-submit-action\" />\n</fieldset>\n</div>\n</div>\n</form>"
)

func subjectField(subject string) string {
	return fmt.Sprintf("<dl style=\"clear: left;\">\n<dt><label for=\"subject\">Subject:</label></dt>\n<dd><input type=\"text\" name=\"subject\" id=\"subject\" size=\"45\" maxlength=\"120\" tabindex=\"2\" value=\"%s\" class=\"inputbox autowidth\" /></dd>\n</dl>\n", e(subject))
}

func joinErrs(errs []string) string {
	out := make([]string, len(errs))
	for i, x := range errs {
		out[i] = e(x)
	}
	return strings.Join(out, "<br />")
}

// checkMessage is the length check of message_parser, against the board's
// max_post_chars (0: phpBB's default); its refusal is phpBB's
// CHARS_POST_CONTAINS and TOO_MANY_CHARS_LIMIT.
func checkMessage(msg string, max int) []string {
	if max <= 0 {
		max = maxPostChars
	}
	n := utf8.RuneCountInString(strings.TrimSpace(msg))
	if n == 0 {
		return []string{MsgTooFewChars}
	}
	if n > max {
		return []string{fmt.Sprintf("Your message contains %d characters. The maximum number of allowed characters is %d.", n, max)}
	}
	return nil
}

// flooded is phpBB's flood check on user_lastpost_time (posts and PMs share it).
func (s *Server) flooded(u *User) bool {
	if s.fx.flood {
		return true
	}
	if u.Exempt || s.opt.FloodInterval <= 0 || u.lastPost.IsZero() {
		return false
	}
	secs := int64((s.opt.FloodInterval + time.Second - 1) / time.Second)
	return s.now().Unix()-u.lastPost.Unix() < secs
}

// userNamed finds a user by name as phpBB's username_clean compares names:
// case-blind (the local board's names are plain enough for that to be all).
func (s *Server) userNamed(name string) *User {
	for _, u := range s.users {
		if strings.EqualFold(u.Name, strings.TrimSpace(name)) {
			return u
		}
	}
	return nil
}
