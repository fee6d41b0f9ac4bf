// Package forumsim is a real local forum server that behaves like a phpBB
// 3.3 board with the prosilver style: forums, paginated topics, logins with
// form tokens and session cookies, replies with flood control, private
// messages, edits and deletes. The scraper, parser and poster are tested
// against it, and `forumgm sim` runs it for a person to browse.
//
// It is written from phpBB 3.3's documented pages, forms and markup, not
// from phpBB's code. Where it has to choose, see RULINGS.md in this package.
//
// The Server is an http.Handler; the board root is the directory of any
// request path, so it can be mounted at "/" or under "/forum/". All time
// comes from the clock in Options, so tests drive flood waits and token ages
// with clock.Fake.
package forumsim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/clock"
)

// Options configure a Server. Zero values give phpBB's defaults.
type Options struct {
	Clock clock.Clock // nil: the wall clock
	// PostsPerPage is phpBB's posts_per_page (default 10); TopicsPerPage
	// its topics_per_page, the topic list's rows a page (default 25).
	PostsPerPage  int
	TopicsPerPage int
	// FloodInterval is phpBB's flood_interval (default 15 s); negative
	// turns flood control off.
	FloodInterval time.Duration
	// Bold picks how [b] renders (phpBB 3.2.2+ strong, or older span).
	Bold bbcode.BoldStyle
	// Sitename is shown in the header (default "forumgm test board").
	Sitename string
	// Location renders textual dates (default UTC); <time datetime> is always UTC.
	Location *time.Location
	// NoPostReview turns off the "new post since you opened the form" check.
	NoPostReview bool
	// SessionLength is phpBB's session_length (default 3600 s of idleness).
	SessionLength time.Duration
	// TokenLifetime is form_token_lifetime (default 7200 s).
	TokenLifetime time.Duration
	// TokensAgain lets a form token be submitted again within its
	// lifetime, as phpBB 3.3.10's check_form_key does (it keeps no record);
	// by default a token is taken once, as a posting lock would, which
	// catches a bot resubmitting a form instead of fetching a new one.
	TokensAgain bool
	// Theme renames the classes of a topic's posts (default prosilver's).
	Theme Theme
	// MaxPostChars is phpBB's max_post_chars (default 60000): longer posts
	// and PMs are refused with phpBB's words, which name the limit.
	MaxPostChars int
	// SentPerPage pages the sent folder's list (start=, newest first) as
	// phpBB does at topics_per_page; 0 lists it whole.
	SentPerPage int
	// PMSentNamesNone: the page that says a PM was sent neither links nor
	// refreshes to it (as MyBB's and SMF's do not): a sender learns the
	// new PM only from its sent folder.
	PMSentNamesNone bool
	// NoPMs: the board has no private messages (as a FluxBB without a PM
	// extension): every PM page answers 404 and no page links them.
	NoPMs bool
	// PMsDisabled is phpBB's "Private messaging: No" (allow_privmsg off,
	// SetPMsDisabled while the board runs): the control panel's PM module
	// is then not accessible, and every PM page answers phpBB's General
	// Error "Module not accessible", HTTP 503.
	PMsDisabled bool
	// NoSize: the board's BBCode has no [size] (as FluxBB 1.5's has
	// none): the tag shows as typed.
	NoSize bool
	// NoImg: the board's admin turned [img] off (phpBB's "Allow [img]
	// BBCode tag in posts", MyBB's "Allow [img] Code"): the tag shows as
	// typed in posts made from then on (SetNoImg while the board runs).
	NoImg bool
	// Charset serves the board in a legacy charset (CharsetLatin1,
	// CharsetCP1252; empty: UTF-8), as charset.go describes: pages
	// declared and sent in it, forms read as its bytes, numeric references
	// kept. CharsetInMeta declares it in the page's <meta> only (its
	// Content-Type names no charset).
	Charset       string
	CharsetInMeta bool
	// SubjectBytes is the board's subject column's size in bytes (0: no
	// limit): a longer post or PM subject is answered with HTTP 500, the
	// database's error, and not stored.
	SubjectBytes int
	// Layout is the pages' layout: "" phpBB 3's prosilver, LayoutRows a
	// classic board's (layout.go).
	Layout string
}

// User is a board member.
type User struct {
	ID        int
	Name      string
	Password  string
	Exempt    bool // in the flood-exempt group (u_ignoreflood)
	Moderator bool // global moderator: edits/deletes any post, coloured name
	Signature string
	Joined    time.Time

	sigHTML  string
	formSalt string
	lastPost time.Time // user_lastpost_time, shared by posts and PMs
}

// Forum is a board forum.
type Forum struct {
	ID   int
	Name string
	Desc string
}

// Topic is a thread.
type Topic struct {
	ID      int
	ForumID int
	Title   string
	posts   []int // post ids in order
	views   int   // topic_views
}

// Post is one post. Source is the BBCode as submitted; HTML is what
// div.content shows, rendered at submit time.
type Post struct {
	ID         int
	TopicID    int
	ForumID    int
	AuthorID   int // 0 for a guest
	AuthorName string
	Subject    string
	Source     string
	HTML       string
	Time       time.Time
	// Edit info, only as phpBB records it (see Edit).
	EditCount  int
	EditTime   time.Time
	EditUserID int
	// Edited counts every edit, recorded or not (for tests).
	Edited int
}

// PM is one private message.
type PM struct {
	ID       int
	FromID   int
	FromName string
	To       []int
	Subject  string
	Source   string
	HTML     string
	Time     time.Time
	// Unread lists recipients who have not opened it.
	Unread map[int]bool
}

// Server is the simulated board.
type Server struct {
	mu  sync.Mutex
	opt Options
	clk clock.Clock

	users    map[int]*User
	forums   map[int]*Forum
	topics   map[int]*Topic
	posts    map[int]*Post
	pms      map[int]*PM
	sessions map[string]*session
	keys     map[string]int // autologin keys -> user id
	used     map[string]time.Time
	nextID   struct{ user, forum, topic, post, pm int }
	guest    *User // phpBB's ANONYMOUS (user id 1)
	requests int
	emails   []Email
	fx       reqFaults // the request being served (under mu)
	flt      faults
}

// Errors of the in-process API.
var (
	ErrNoUser   = errors.New("forumsim: no such user")
	ErrNoTopic  = errors.New("forumsim: no such topic")
	ErrNoForum  = errors.New("forumsim: no such forum")
	ErrNoPost   = errors.New("forumsim: no such post")
	ErrNameUsed = errors.New("forumsim: username already taken")
)

// New makes an empty board (no forums, no users but the guest).
func New(opt Options) *Server {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.PostsPerPage <= 0 {
		opt.PostsPerPage = 10
	}
	if opt.TopicsPerPage <= 0 {
		opt.TopicsPerPage = 25
	}
	if opt.FloodInterval == 0 {
		opt.FloodInterval = 15 * time.Second
	}
	if opt.Sitename == "" {
		opt.Sitename = "forumgm test board"
	}
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	if opt.SessionLength <= 0 {
		opt.SessionLength = time.Hour
	}
	if opt.TokenLifetime <= 0 {
		opt.TokenLifetime = 2 * time.Hour
	}
	s := &Server{
		opt: opt, clk: opt.Clock,
		users: map[int]*User{}, forums: map[int]*Forum{}, topics: map[int]*Topic{},
		posts: map[int]*Post{}, pms: map[int]*PM{}, sessions: map[string]*session{},
		keys: map[string]int{}, used: map[string]time.Time{},
	}
	s.guest = &User{ID: 1, Name: "Anonymous", formSalt: randHex(8)}
	s.nextID.user = 2 // phpBB: 1 is ANONYMOUS, members start at 2
	return s
}

func (s *Server) now() time.Time { return s.clk.Now() }

// SetFloodInterval changes flood_interval (<= 0 turns it off).
// SetSentPerPage pages the sent folder's list (0: whole), as
// Options.SentPerPage.
func (s *Server) SetSentPerPage(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.SentPerPage = n
}

// SetPMsDisabled turns the board's private messages off or on (phpBB's
// allow_privmsg), as an admin does in the ACP.
func (s *Server) SetPMsDisabled(off bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.PMsDisabled = off
}

// SetNoImg turns [img] off or on in posts made from then on, as an admin
// does in the board's settings.
func (s *Server) SetNoImg(off bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opt.NoImg = off
}

func (s *Server) SetFloodInterval(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d <= 0 {
		d = -1
	}
	s.opt.FloodInterval = d
}

// SetPostsPerPage changes posts_per_page.
func (s *Server) SetPostsPerPage(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > 0 {
		s.opt.PostsPerPage = n
	}
}

// PostsPerPage is the current posts_per_page.
func (s *Server) PostsPerPage() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.opt.PostsPerPage
}

// AddUser registers a member; exempt puts them in the flood-exempt group.
// Names are unique regardless of case and may hold any characters.
func (s *Server) AddUser(name, password string, exempt bool) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name = s.boardText(strings.TrimSpace(name))
	if name == "" {
		return 0, errors.New("forumsim: empty username")
	}
	if s.userByName(name) != nil {
		return 0, fmt.Errorf("%w: %q", ErrNameUsed, name)
	}
	u := &User{ID: s.nextID.user, Name: name, Password: password, Exempt: exempt,
		Joined: s.now(), formSalt: randHex(8)}
	s.nextID.user++
	s.users[u.ID] = u
	return u.ID, nil
}

func (s *Server) userByName(name string) *User {
	name = s.boardText(name)
	for _, u := range s.users {
		if strings.EqualFold(u.Name, strings.TrimSpace(name)) {
			return u
		}
	}
	return nil
}

func (s *Server) user(id int) (*User, error) {
	u := s.users[id]
	if u == nil {
		return nil, fmt.Errorf("%w: %d", ErrNoUser, id)
	}
	return u, nil
}

// UserID finds a member by name (case-insensitive).
func (s *Server) UserID(name string) (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if u := s.userByName(name); u != nil {
		return u.ID, true
	}
	return 0, false
}

// Users lists the members by id.
func (s *Server) Users() []User {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []User
	for _, u := range s.users {
		out = append(out, *u)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SetExempt moves a member in or out of the flood-exempt group.
func (s *Server) SetExempt(id int, exempt bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, err := s.user(id)
	if err != nil {
		return err
	}
	u.Exempt = exempt
	return nil
}

// SetModerator makes a member a global moderator (or not).
func (s *Server) SetModerator(id int, on bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, err := s.user(id)
	if err != nil {
		return err
	}
	u.Moderator = on
	return nil
}

// SetSignature sets a member's signature (BBCode), shown under each post
// outside div.content.
func (s *Server) SetSignature(id int, text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	u, err := s.user(id)
	if err != nil {
		return err
	}
	u.Signature = text
	u.sigHTML = bbcode.Render(text, bbcode.Options{Bold: s.opt.Bold, NoSize: s.opt.NoSize})
	return nil
}

// ForceLogout ends every session of a member and forgets their autologin
// keys, as an admin's "force logout" or a session purge would.
func (s *Server) ForceLogout(id int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for sid, se := range s.sessions {
		if se.userID == id {
			delete(s.sessions, sid)
		}
	}
	for k, uid := range s.keys {
		if uid == id {
			delete(s.keys, k)
		}
	}
}

// AddForum creates a forum and returns its id.
func (s *Server) AddForum(name, desc string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID.forum++
	f := &Forum{ID: s.nextID.forum, Name: name, Desc: desc}
	s.forums[f.ID] = f
	return f.ID
}

// AddTopic opens a topic with its first post, bypassing forms and flood
// control (fixtures).
func (s *Server) AddTopic(forumID, authorID int, title, text string) (topicID, postID int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forums[forumID] == nil {
		return 0, 0, fmt.Errorf("%w: %d", ErrNoForum, forumID)
	}
	u, err := s.user(authorID)
	if err != nil {
		return 0, 0, err
	}
	s.nextID.topic++
	t := &Topic{ID: s.nextID.topic, ForumID: forumID, Title: s.boardText(title)}
	s.topics[t.ID] = t
	p := s.addPost(t, u.ID, u.Name, title, text)
	return t.ID, p.ID, nil
}

// Post adds a reply as a member, bypassing forms and flood control.
func (s *Server) Post(topicID, authorID int, text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[topicID]
	if t == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoTopic, topicID)
	}
	u, err := s.user(authorID)
	if err != nil {
		return 0, err
	}
	return s.addPost(t, u.ID, u.Name, "Re: "+t.Title, text).ID, nil
}

// GuestPost adds a reply by a guest (no user id; name shown in span.username).
func (s *Server) GuestPost(topicID int, name, text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[topicID]
	if t == nil {
		return 0, fmt.Errorf("%w: %d", ErrNoTopic, topicID)
	}
	return s.addPost(t, 0, name, "Re: "+t.Title, text).ID, nil
}

func (s *Server) addPost(t *Topic, uid int, name, subject, text string) *Post {
	s.nextID.post++
	subject, text = s.boardText(subject), s.boardText(text)
	p := &Post{ID: s.nextID.post, TopicID: t.ID, ForumID: t.ForumID, AuthorID: uid,
		AuthorName: name, Subject: subject, Source: text, HTML: s.render(text), Time: s.now()}
	s.posts[p.ID] = p
	t.posts = append(t.posts, p.ID)
	return p
}

func (s *Server) render(text string) string {
	return bbcode.Render(text, bbcode.Options{Bold: s.opt.Bold, NoSize: s.opt.NoSize, NoImg: s.opt.NoImg})
}

// Edit changes a post's text as editorID, with phpBB's rule for the edit
// notice: edit info is stored only when a reason is given, or when a
// non-moderator edits a post that is not the topic's last post. So an edit
// of the last post leaves no "Last edited by" notice.
func (s *Server) Edit(postID, editorID int, text, reason string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.posts[postID]
	if p == nil {
		return fmt.Errorf("%w: %d", ErrNoPost, postID)
	}
	ed, err := s.user(editorID)
	if err != nil {
		return err
	}
	s.edit(p, ed, text, reason)
	return nil
}

func (s *Server) edit(p *Post, ed *User, text, reason string) {
	t := s.topics[p.TopicID]
	last := t.posts[len(t.posts)-1] == p.ID
	text = s.boardText(text)
	p.Source = text
	p.HTML = s.render(text)
	p.Edited++
	if strings.TrimSpace(reason) != "" || (!ed.Moderator && !last) {
		p.EditCount++
		p.EditTime = s.now()
		p.EditUserID = ed.ID
	}
}

// DeletePost removes a post for good; a topic left empty goes too.
func (s *Server) DeletePost(postID int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.posts[postID] == nil {
		return fmt.Errorf("%w: %d", ErrNoPost, postID)
	}
	s.deletePost(postID)
	return nil
}

func (s *Server) deletePost(id int) {
	p := s.posts[id]
	delete(s.posts, id)
	t := s.topics[p.TopicID]
	for i, pid := range t.posts {
		if pid == id {
			t.posts = append(t.posts[:i:i], t.posts[i+1:]...)
			break
		}
	}
	if len(t.posts) == 0 {
		delete(s.topics, t.ID)
	}
}

// GetPost returns a copy of a post.
func (s *Server) GetPost(id int) (Post, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.posts[id]
	if p == nil {
		return Post{}, false
	}
	return *p, true
}

// Posts returns copies of a topic's posts in order (nil if no topic).
func (s *Server) Posts(topicID int) []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topics[topicID]
	if t == nil {
		return nil
	}
	out := make([]Post, 0, len(t.posts))
	for _, id := range t.posts {
		out = append(out, *s.posts[id])
	}
	return out
}

// PostIDs are the topic's post ids in thread order.
func (t Topic) PostIDs() []int { return append([]int(nil), t.posts...) }

// Forums lists the forums by id.
func (s *Server) Forums() []Forum {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Forum
	for _, f := range s.forums {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Topics lists a forum's topics by id (all forums when forumID is 0).
func (s *Server) Topics(forumID int) []Topic {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Topic
	for _, t := range s.topics {
		if forumID == 0 || t.ForumID == forumID {
			c := *t
			c.posts = append([]int(nil), t.posts...)
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// SendPM delivers a private message directly (fixtures), bypassing flood control.
func (s *Server) SendPM(fromID int, to []int, subject, text string) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	from, err := s.user(fromID)
	if err != nil {
		return 0, err
	}
	for _, id := range to {
		if _, err := s.user(id); err != nil {
			return 0, err
		}
	}
	if len(to) == 0 {
		return 0, errors.New("forumsim: PM without recipients")
	}
	return s.addPM(from, to, subject, text).ID, nil
}

func (s *Server) addPM(from *User, to []int, subject, text string) *PM {
	s.nextID.pm++
	subject, text = s.boardText(subject), s.boardText(text)
	m := &PM{ID: s.nextID.pm, FromID: from.ID, FromName: from.Name, To: append([]int(nil), to...),
		Subject: subject, Source: text, HTML: s.render(text), Time: s.now(), Unread: map[int]bool{}}
	for _, id := range to {
		m.Unread[id] = true
	}
	s.pms[m.ID] = m
	return m
}

func copyPM(m *PM) PM {
	c := *m
	c.To = append([]int(nil), m.To...)
	c.Unread = make(map[int]bool, len(m.Unread))
	for k, v := range m.Unread {
		c.Unread[k] = v
	}
	return c
}

// Inbox returns copies of the PMs a member received, newest first (as
// phpBB lists them).
func (s *Server) Inbox(userID int) []PM {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folder(userID, false)
}

// Sent returns copies of the PMs a member sent, newest first.
func (s *Server) Sent(userID int) []PM {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.folder(userID, true)
}

func (s *Server) folder(userID int, sent bool) []PM {
	var out []PM
	for _, m := range s.pms {
		if sent && m.FromID == userID || !sent && contains(m.To, userID) {
			out = append(out, copyPM(m))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID > out[j].ID })
	return out
}

func contains(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// Requests counts HTTP requests served (for politeness tests).
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests
}

// Start serves the board on addr (e.g. "127.0.0.1:0") in the background.
// It returns the board root URL and a function that shuts the server down.
func (s *Server) Start(addr string) (baseURL string, stop func(context.Context) error, err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/", hs.Shutdown, nil
}
