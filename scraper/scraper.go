package scraper

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// Scraper reads threads and PMs through a Session.
type Scraper struct {
	Session *Session
}

// New makes a scraper on a session.
func New(s *Session) *Scraper { return &Scraper{Session: s} }

// Cursor is where the last read of a thread stopped: the last post seen
// and the page it was on. The zero Cursor reads from the first page.
type Cursor struct {
	LastID string `json:"last_id,omitempty"`
	Page   int    `json:"page,omitempty"`
	// FirstID is the first post on that page when it was read. If the page
	// now starts later, posts were deleted before it: the read steps back
	// a page so the range it reports still covers every post from FirstID.
	FirstID string `json:"first_id,omitempty"`
}

// Result describes one read.
type Result struct {
	// Cursor is where the next read should start.
	Cursor Cursor `json:"cursor"`
	// From and To are the first and last post ids seen. Every post between
	// them was on a page this read saw, so a stored post in that range that
	// was not visited has been deleted (see Covers).
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// ToEnd is true when the read reached the thread's last page, so the
	// range extends past To (a deleted last post is noticed too).
	ToEnd bool `json:"to_end"`
	// Seen is the number of posts visited; Pages the thread's page count;
	// PagesRead the number of pages fetched.
	Seen      int `json:"seen"`
	Pages     int `json:"pages"`
	PagesRead int `json:"pages_read"`
	// Forum is the forum holding the thread, as the last page read names
	// it (parser.Thread.Forum; "" when it does not).
	Forum string `json:"forum,omitempty"`
}

// Covers reports whether a post id lies in the range this read saw
// completely: a stored post it covers that was not visited is deleted.
func (r Result) Covers(id string) bool {
	if r.From == "" {
		return false
	}
	if CompareIDs(id, r.From) < 0 {
		return false
	}
	return r.ToEnd || CompareIDs(id, r.To) <= 0
}

// CompareIDs orders post ids: numerically when both are numbers
// (forum.CompareIDs).
func CompareIDs(a, b string) int { return forum.CompareIDs(a, b) }

// ReadThread reads a topic from a cursor and calls visit for every post on
// the pages it reads, in forum order, one page at a time (a long thread is
// never held whole).
//
// It starts on the cursor's page, so a poll of an unchanged thread costs
// one request however long the thread is; the posts of that page are
// visited again, so the caller can hash bodies to notice edits. Then it
// follows the pages to the end. If deletions moved the cursor's page's
// posts to an earlier page, it steps back so no post is skipped and the
// reported range still covers every post from the cursor's page on.
// Deletions on pages before the cursor's are only noticed by a read from
// an earlier cursor (e.g. the zero Cursor before resolving a phase). An error from
// visit stops the read; the result's cursor is then at the last post
// visited.
func (sc *Scraper) ReadThread(ctx context.Context, topic string, cur Cursor, visit func(forum.Post) error) (Result, error) {
	return sc.ReadThreadPages(ctx, topic, cur, visit, nil)
}

// ReadThreadPages is ReadThread that also calls page after each page's
// posts were visited (pageDone), with the result so far (its Cursor is after that
// page, ToEnd set on the last page): a caller can record a long read page
// by page and stop it (an error from pageDone ends the read) to resume later
// from that cursor.
func (sc *Scraper) ReadThreadPages(ctx context.Context, topic string, cur Cursor, visit func(forum.Post) error, pageDone func(Result) error) (Result, error) {
	res := Result{Cursor: cur}
	page := max(cur.Page, 1)
	stepBack, clamped := true, false
	for {
		pg, err := sc.Session.FetchAs(ctx, sc.Session.Profile.ThreadPageURL(topic, page), forum.PageThread)
		if err != nil {
			return res, fmt.Errorf("thread %s page %d: %w", topic, page, err)
		}
		if !sc.Session.Parser.CompleteOn(forum.PageThread, pg.Body, pg.Doc) {
			// A cut page may hold a post cut mid-body: its commands
			// would be read short and never again. Read it whole later.
			return res, fmt.Errorf("thread %s page %d: %w", topic, page, ErrIncomplete)
		}
		t := sc.Session.Parser.ThreadAt(pg.Doc, pg.Fetch())
		res.PagesRead++
		res.Pages = t.Pages
		if t.Forum != "" {
			res.Forum = t.Forum
		}
		if len(t.Posts) == 0 {
			return res, fmt.Errorf("thread %s page %d: %w: no posts matched the %s profile (%s)", topic, page,
				ErrNotFound, sc.Session.Profile.Name, errText(sc, pg))
		}
		if !clamped && t.Page != page && page > t.Pages && t.Page != t.Pages {
			// Asked past the end (the thread shrank) and the board fell back
			// to another page (MyBB shows page 1): go to the real last page.
			clamped = true
			page = t.Pages
			continue
		}
		anchor := cur.FirstID
		if anchor == "" {
			anchor = cur.LastID
		}
		if stepBack && anchor != "" && t.Page > 1 && CompareIDs(t.Posts[0].ID, anchor) > 0 {
			// Posts before the cursor's page were deleted, so its first
			// posts (maybe new ones too) moved to the page before.
			page = t.Page - 1
			continue
		}
		stepBack = false
		for _, p := range t.Posts {
			p.Page = t.Page
			if err := visit(p); err != nil {
				return res, err
			}
			if res.From == "" {
				res.From = p.ID
			}
			res.To = p.ID
			res.Seen++
			res.Cursor = Cursor{LastID: p.ID, Page: t.Page, FirstID: t.Posts[0].ID}
		}
		res.ToEnd = t.Page >= t.Pages
		if pageDone != nil {
			if err := pageDone(res); err != nil {
				return res, err
			}
		}
		if res.ToEnd {
			return res, nil
		}
		page = t.Page + 1
	}
}

// pageSays is what a page that is not the one expected shows instead: the
// board's message box, else its title.
func pageSays(x *parser.Parser, pg *Page) string {
	if t := x.ErrorText(pg.Doc); t != "" {
		return "board says: " + t
	}
	return fmt.Sprintf("the page's title: %q", strings.Join(strings.Fields(pg.Doc.Find("title").First().Text()), " "))
}

func errText(sc *Scraper, pg *Page) string {
	if t := sc.Session.Parser.ErrorText(pg.Doc); t != "" {
		return "board says: " + t
	}
	return "wrong topic id or profile?"
}

// Inbox lists the PM inbox (its first page, newest first).
func (sc *Scraper) Inbox(ctx context.Context) ([]forum.PMHeader, error) {
	hs, _, err := sc.InboxAt(ctx)
	return hs, err
}

// ErrIncomplete: a page came cut short (parser.Complete), so what is not on
// it may still be on the board, and what is may be cut. Every read here
// refuses such a page with it (the caller reads again later): a PM or post
// cut mid-body would lose commands for good, and the marker checks must
// not take a message missing from a cut page as never sent.
var ErrIncomplete = errors.New("the page came incomplete")

// Sent lists the bot's sent PMs (the first page of the outbox, if the
// engine has one, then of the sent folder), newest first in each. A
// folder page cut short is ErrIncomplete: the marker check must not take
// a PM missing from it as never sent.
func (sc *Scraper) Sent(ctx context.Context) ([]forum.PMHeader, error) {
	var out []forum.PMHeader
	for _, rel := range []string{sc.Session.Profile.URLs.Outbox, sc.Session.Profile.URLs.Sent} {
		if rel == "" {
			continue
		}
		hs, err := sc.folder(ctx, rel)
		if err != nil {
			return out, err
		}
		out = append(out, hs...)
	}
	return out, nil
}

func (sc *Scraper) folder(ctx context.Context, rel string) ([]forum.PMHeader, error) {
	hs, _, err := sc.folderAt(ctx, rel)
	return hs, err
}

// folderAt lists a PM folder page and says when its request went out: the
// list holds every PM that arrived before then.
func (sc *Scraper) folderAt(ctx context.Context, rel string) ([]forum.PMHeader, time.Time, error) {
	pg, hs, err := sc.folderPage(ctx, rel)
	if err != nil {
		return nil, time.Time{}, err
	}
	return hs, pg.Sent, nil
}

// folderPage fetches and lists a PM folder page (a page cut short is
// ErrIncomplete).
func (sc *Scraper) folderPage(ctx context.Context, rel string) (*Page, []forum.PMHeader, error) {
	pg, err := sc.Session.FetchAs(ctx, rel, forum.PagePMFolder)
	if err != nil {
		return nil, nil, fmt.Errorf("PM folder: %w", err)
	}
	if !sc.Session.Parser.CompleteOn(forum.PagePMFolder, pg.Body, pg.Doc) {
		return nil, nil, fmt.Errorf("PM folder %s: %w", pg.URL, ErrIncomplete)
	}
	return pg, sc.Session.Parser.InboxAt(pg.Doc, pg.Fetch()), nil
}

// InboxAt is Inbox with the time its request went out. A page that does
// not show the profile's inbox marker (selectors.inbox_folder) is
// ErrNotInbox: whatever it lists, or that it lists nothing, says nothing of
// the bot's PMs.
func (sc *Scraper) InboxAt(ctx context.Context) ([]forum.PMHeader, time.Time, error) {
	pg, hs, err := sc.folderPage(ctx, sc.Session.Profile.URLs.Inbox)
	if err != nil {
		return nil, time.Time{}, err
	}
	if sel := sc.Session.Profile.Selectors.InboxFolder; strings.TrimSpace(sel) != "" && pg.Doc.Find(sel).Length() == 0 {
		return nil, time.Time{}, fmt.Errorf("%w: %s lacks selectors.inbox_folder (%s)", ErrNotInbox, pg.URL, pageSays(sc.Session.Parser, pg))
	}
	return hs, pg.Sent, nil
}

// ErrNotInbox: the page read as the bot's PM inbox is not one (it lacks
// the profile's selectors.inbox_folder): a board with private messages
// turned off, a profile's urls.inbox pointing elsewhere.
var ErrNotInbox = errors.New("not the bot's PM inbox")

// SentPages lists the sent PMs (the outbox first, where the engine has
// one) page by page, newest first, calling visit with each page's rows
// until visit returns false, a page adds nothing new, or maxPages pages of
// a folder were read. A folder without a paged URL (urls.sent_page,
// urls.outbox_page) has only its first page. ended says both lists were
// read to their ends (not stopped by visit or by maxPages): an outbox
// longer than was read (phpBB keeps a PM there until its recipient reads
// it) may hold the PM looked for. full says the sent folder's first page
// says the folder is full (profile sent_folder_full_text).
func (sc *Scraper) SentPages(ctx context.Context, maxPages int, visit func([]forum.PMHeader) bool) (ended, full bool, err error) {
	u := sc.Session.Profile.URLs
	outboxEnded := true
	if u.Outbox != "" {
		var stopped bool
		outboxEnded, stopped, _, err = sc.folderPages(ctx, u.Outbox, u.OutboxPage, maxPages, visit)
		if err != nil || stopped {
			return false, false, err
		}
	}
	sentEnded, stopped, first, err := sc.folderPages(ctx, u.Sent, u.SentPage, maxPages, visit)
	if first != nil {
		full = sc.Session.Profile.SaysSentFolderFull(first.Doc.Text())
	}
	if err != nil || stopped {
		return false, full, err
	}
	return outboxEnded && sentEnded, full, nil
}

// folderPages reads one folder's list (first, then paged's pages) for
// SentPages: ended, it was read to its end; stopped, visit stopped it; its
// first page for what it says. Every page read must show the profile's
// sent-folder marker, or nothing it lacks says anything.
func (sc *Scraper) folderPages(ctx context.Context, first, paged string, maxPages int, visit func([]forum.PMHeader) bool) (ended, stopped bool, firstPage *Page, err error) {
	seen := map[string]bool{}
	// The offset step: the profile's rows a page, or fewer if the board
	// showed fewer on a full first page (stepping further would skip PMs).
	per := max(sc.Session.Profile.URLs.SentPerPage, 1)
	for page := 1; page <= max(maxPages, 1); page++ {
		rel := first
		if page > 1 {
			if paged == "" {
				// The first page is all the profile can read: all there
				// is if the board never splits the folder
				// (urls.sent_one_page), else only if it was not full.
				return firstPage != nil && (sc.onePage(first) || len(seen) < per), false, firstPage, nil
			}
			rel = forum.Expand(paged, map[string]string{"page": strconv.Itoa(page), "start": strconv.Itoa((page - 1) * per)})
		}
		pg, hs, err := sc.folderPage(ctx, rel)
		if err != nil {
			return false, false, firstPage, err
		}
		if page == 1 {
			firstPage = pg
			if len(hs) > 0 && len(hs) < per && paged != "" {
				per = len(hs)
			}
		}
		fresh := hs[:0:0]
		for _, h := range hs {
			if !seen[h.ID] {
				seen[h.ID] = true
				fresh = append(fresh, h)
			}
		}
		if len(fresh) > 0 && !visit(fresh) {
			return false, true, firstPage, nil // found: proof wherever it was
		}
		if err := sc.sentFolder(pg); err != nil {
			return false, false, firstPage, err
		}
		if len(fresh) == 0 {
			return true, false, firstPage, nil // past the last page (boards repeat their last one, or show none)
		}
		if paged == "" && sc.onePage(first) {
			return true, false, firstPage, nil // the whole folder, read whole
		}
	}
	return false, false, firstPage, nil
}

// onePage: the folder at rel is the sent folder, which the board never
// splits into pages (urls.sent_one_page).
func (sc *Scraper) onePage(rel string) bool {
	u := sc.Session.Profile.URLs
	return u.SentOnePage && rel == u.Sent
}

// ErrNotSentFolder: a page read as the bot's sent folder (or outbox) does
// not show the profile's sent-folder marker (selectors.sent_folder), or
// the profile names none. What is missing from such a page may well have
// been sent (a profile's urls.sent pointing at another page, a PM form
// that was the board's e-mail form): it proves nothing.
var ErrNotSentFolder = fmt.Errorf("%w: not the bot's sent folder", forum.ErrNoProof)

// sentFolder checks that a page read as the sent folder is one.
func (sc *Scraper) sentFolder(pg *Page) error {
	sel := sc.Session.Profile.Selectors.SentFolder
	if strings.TrimSpace(sel) == "" {
		return fmt.Errorf("%w: the %s profile names no sent-folder marker (selectors.sent_folder), so no page can show a PM was not sent", ErrNotSentFolder, sc.Session.Profile.Name)
	}
	if pg.Doc.Find(sel).Length() == 0 {
		return fmt.Errorf("%w: %s does not show selectors.sent_folder %q (%s)", ErrNotSentFolder, pg.URL, sel, pageSays(sc.Session.Parser, pg))
	}
	return nil
}

// ReadPM reads one PM by id.
func (sc *Scraper) ReadPM(ctx context.Context, id string) (forum.PrivateMessage, error) {
	return sc.readPM(ctx, sc.Session.Profile.URLs.ReadPM, id)
}

// ReadSentPM reads one PM of the sent folder by id (the profile's
// read_sent_pm URL, or ReadPM's where the engine has one URL for both). A
// page cut short is ErrIncomplete (the marker, its last line, may be cut).
func (sc *Scraper) ReadSentPM(ctx context.Context, id string) (forum.PrivateMessage, error) {
	u := sc.Session.Profile.URLs.ReadSentPM
	if u == "" {
		u = sc.Session.Profile.URLs.ReadPM
	}
	return sc.readPM(ctx, u, id)
}

func (sc *Scraper) readPM(ctx context.Context, tmpl, id string) (forum.PrivateMessage, error) {
	pg, err := sc.Session.FetchAs(ctx, forum.Expand(tmpl, map[string]string{"pm": id}), forum.PagePM)
	if err != nil {
		return forum.PrivateMessage{}, fmt.Errorf("PM %s: %w", id, err)
	}
	if !sc.Session.Parser.CompleteOn(forum.PagePM, pg.Body, pg.Doc) {
		return forum.PrivateMessage{}, fmt.Errorf("PM %s: %w", id, ErrIncomplete)
	}
	m, ok := sc.Session.Parser.PMAt(pg.Doc, pg.Fetch())
	if !ok {
		return m, fmt.Errorf("PM %s: %w (%s)", id, ErrNotFound, errText(sc, pg))
	}
	if m.ID == "" {
		m.ID = id
	}
	return m, nil
}

// Member looks an account up on the board by name (the profile's Member
// page): found is false when the board has no such account. The name comes
// back as the board writes it, with the user id when the page shows one.
func (sc *Scraper) Member(ctx context.Context, name string) (forum.Author, bool, error) {
	tmpl := sc.Session.Profile.URLs.Member
	if tmpl == "" {
		return forum.Author{}, false, fmt.Errorf("the board's profile has no member page to look %q up on", name)
	}
	// In the query as a browser writes it from the board's pages: in
	// their charset (a legacy board looks the name up as its bytes),
	// known once a page has been read.
	cs, known := sc.Session.BoardCharset()
	if !known && !isASCII(name) {
		if _, err := sc.Session.Fetch(ctx, sc.Session.Profile.URLs.Index); err != nil {
			return forum.Author{}, false, fmt.Errorf("looking up member %q: %w", name, err)
		}
		cs, _ = sc.Session.BoardCharset()
	}
	q := parser.EncodeText(name, cs)
	pg, err := sc.Session.Fetch(ctx, forum.Expand(tmpl, map[string]string{"name": q}))
	if errors.Is(err, ErrNotFound) {
		return forum.Author{}, false, nil // a board answering "no such user" with a 404
	}
	if err != nil {
		return forum.Author{}, false, fmt.Errorf("looking up member %q: %w", name, err)
	}
	a, found, err := sc.Session.Parser.MemberAt(pg.Doc)
	if err != nil {
		return a, false, fmt.Errorf("looking up member %q: %w", name, err)
	}
	return a, found, nil
}

// TopicList reads page (1-based) of the topic list of a forum
// (urls.topic_list), with when its request went out: the marks hold every
// post made before then. ErrNoSignal when the profile has no topic list;
// a page cut short is ErrIncomplete (a thread missing from it proves
// nothing).
func (sc *Scraper) TopicList(ctx context.Context, forumID string, page int) (parser.TopicList, time.Time, error) {
	u := sc.Session.Profile.URLs
	if u.TopicList == "" || forumID == "" {
		return parser.TopicList{}, time.Time{}, forum.ErrNoSignal
	}
	page = max(page, 1)
	rel := forum.Expand(u.TopicList, map[string]string{"forum": forumID, "page": strconv.Itoa(page),
		"start": strconv.Itoa((page - 1) * max(u.TopicsPerPage, 1))})
	pg, err := sc.Session.Fetch(ctx, rel)
	if err != nil {
		return parser.TopicList{}, time.Time{}, fmt.Errorf("topic list of forum %s: %w", forumID, err)
	}
	if !sc.Session.Parser.Complete(pg.Body, pg.Doc) {
		return parser.TopicList{}, time.Time{}, fmt.Errorf("topic list of forum %s page %d: %w", forumID, page, ErrIncomplete)
	}
	l := sc.Session.Parser.Topics(pg.Doc)
	for i := range l.Marks {
		l.Marks[i].Listed = pg.Sent
	}
	return l, pg.Sent, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
