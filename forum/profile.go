package forum

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Profile describes one forum engine as data: where its pages are, how to
// find things in them, and how to fill its forms. A GM with a customised
// board overrides only what differs (LoadProfile).
//
// URL templates are relative to the board root and use the placeholders
// {topic}, {post}, {page}, {start}, {pm}, {user}, {name}.
type Profile struct {
	Name string `yaml:"name"`
	// Base names the built-in profile a profile file starts from.
	Base string `yaml:"base,omitempty"`
	// API is how the bot talks to the board: "" for its HTML pages and
	// forms (phpBB, MyBB, SMF), "nodebb" for NodeBB's JSON API (topics as
	// JSON, the write API, chats for private messages). Only the body
	// reader's selectors, the marker markup, the message limit and the
	// refusal texts of the profile apply to an API board.
	API string `yaml:"api"`

	PostsPerPage int `yaml:"posts_per_page"`
	// FloodSeconds is the board's minimum interval between two posts (or
	// PMs) by the same account, used when the error page names no wait.
	FloodSeconds int `yaml:"flood_seconds"`
	// FormWaitSeconds is how long to wait between fetching a form and
	// submitting it (phpBB rejects a token used in the second it was made).
	// FormTimeField names the form's field holding when it was made, in
	// Unix seconds of the board's clock (phpBB: creation_time): the wait is
	// then only until the board's clock has passed that second, as its Date
	// headers place it (FormWaitSeconds until they have).
	FormWaitSeconds int    `yaml:"form_wait_seconds"`
	FormTimeField   string `yaml:"form_time_field"`
	// PostingLock: the board takes a form's token once and makes one a
	// second for each kind of form and account, so forms fetched in one
	// second share it and all but one are refused. The bot then fetches
	// one form of a kind a second, each in its own second. Learned from
	// the board's first such refusal when not set.
	PostingLock bool `yaml:"posting_lock"`
	// PMFloodApart: the board counts its flood interval for PMs apart
	// from posts' (MyBB's pmfloodsecs and postfloodsecs, SMF's log types
	// pm and post): a PM right after a post is no flood, and proves no
	// exemption. Else one interval spaces posts and PMs together (phpBB).
	PMFloodApart bool `yaml:"pm_flood_apart"`
	// AssumeFlood: an account whose flood status is not known yet is
	// spaced by flood_seconds from its first message, not tried as
	// exempt (for an SMF on MySQL: 5 s, whose refusal comes without the
	// form, so it costs a whole send more; SMF on PostgreSQL has no flood
	// control, so not the built-in default). Such an account never
	// learns it is exempt.
	AssumeFlood bool `yaml:"assume_flood"`
	// PMQuotaText: substrings (case-insensitive) of the board's refusal of
	// a PM over its cap on PMs an account sends in an hour (SMF's
	// pm_posts_per_hour, 20 for members who are not moderators: "You have
	// exceeded the limit of 20 personal messages per hour"), the cap the
	// first number in it. The PM, and every PM after it, waits until the
	// oldest of that many PMs the bot sent is an hour old; posts go on.
	PMQuotaText []string `yaml:"pm_quota_text"`
	// SendDepth is how many submissions a flood-exempt bot account may have
	// under way at once (a form fetched while another waits out its form
	// wait or is confirmed) [1: one at a time]. An account with a flood
	// interval, or not known yet, always sends one at a time.
	SendDepth int `yaml:"send_depth"`
	// MaxMessageBytes is the longest post or PM body the board takes, in
	// bytes of BBCode (0: no limit known). Longer messages go out in parts.
	MaxMessageBytes int `yaml:"max_message_bytes"`
	// MaxPMBytes is the longest PM body the board takes where PMs have a
	// lower limit than posts (NodeBB's chat messages: 1,000 characters),
	// in the same bytes (0: MaxMessageBytes).
	MaxPMBytes int `yaml:"max_pm_bytes"`
	// TimeZone in which the board renders textual times for the bot
	// account (its profile setting): an IANA name ("America/New_York") or a
	// fixed offset ("UTC-5", "+05:30", as MyBB's offsets are). Default UTC;
	// machine-readable attributes do not need it.
	TimeZone string `yaml:"time_zone"`
	// TimeLayouts are Go layouts tried in order on absolute textual times;
	// relative ones ("Today at 08:15 PM", "9 hours ago") are read without
	// layouts, resolved against the time the page was fetched.
	TimeLayouts []string `yaml:"time_layouts"`
	// ClockSkewSeconds is how far the board's clock may be from the bot's;
	// relative times are widened by it. Pages that show the board's own
	// current time (Selectors.PageTime) do not need it.
	ClockSkewSeconds int `yaml:"clock_skew_seconds"`
	// Charset is the charset the board's pages and forms are in, for a
	// board that does not declare it or declares it wrong ("ISO-8859-1",
	// "windows-1252"). Empty: each page's own declaration (its HTTP
	// Content-Type, <meta charset>, <meta http-equiv>), as a browser reads
	// it, and each form submitted in its page's charset.
	Charset string `yaml:"charset"`

	// UserIDs is how the board tells its members apart: "" by the numeric
	// ids selectors.author_id_* find, "names" where no page shows one (the
	// member's name is then their id, as the board writes it, and {user}
	// in a URL is the name).
	UserIDs string `yaml:"user_ids"`

	URLs      URLs      `yaml:"urls"`
	Selectors Selectors `yaml:"selectors"`
	// PageMarks are the logged-in, page-end and error marks of one kind
	// of page, where its template differs from the rest of the board's
	// (PM pages without a logout link); each unset mark is the one of
	// Selectors.
	PageMarks PageMarks `yaml:"page_marks"`
	Forms     Forms     `yaml:"forms"`
	// FloodText: substrings (case-insensitive) of the board's flood-control
	// error; FloodWaitRegexp's first matching group is the seconds still to
	// wait, or the board's whole interval if the group is named "interval".
	FloodText       []string `yaml:"flood_text"`
	FloodWaitRegexp string   `yaml:"flood_wait_regexp"`
	// TooLongText: substrings (case-insensitive) of the board's refusal of
	// a message as too long; TooLongLimitRegexp's first group is the limit
	// the refusal names, if it names one. Learned from, so a longer message
	// goes out in parts under the board's own limit.
	TooLongText        []string `yaml:"too_long_text"`
	TooLongLimitRegexp string   `yaml:"too_long_limit_regexp"`
	// SentText: substrings (case-insensitive) of the page the board shows
	// once it has taken a post or PM. Such a page is a success, never read
	// as a refusal, even when the marker check after it fails.
	SentText []string `yaml:"sent_text"`
	// SentLocationRegexp matches where the board sends a browser once it
	// has taken a post or PM (its redirect's Location) when that names no
	// id (SMF: a reply's topic or board, a PM's folder with done=sent):
	// a success, confirmed later under forum.ConfirmLater.
	SentLocationRegexp string `yaml:"sent_location_regexp"`
	// ConfirmLater: a post or PM the board answers with its success but
	// no id is confirmed later, with others (forum.ConfirmLater), not at
	// once: a request fewer a message where the board's sent folder lists
	// the newest first and small (MyBB, SMF). Off for phpBB, whose unread
	// PMs wait in an outbox that a listing for many keys reads whole.
	ConfirmLater bool `yaml:"confirm_later"`
	// LoginRefusedText: substrings (case-insensitive) of the board's answer
	// to a wrong name or password. Only such an answer holds further logins
	// back (boards lock accounts after a few); a stale token or an
	// unexpected page is retried as usual. Empty: any error on the login
	// answer counts as a refusal.
	LoginRefusedText []string `yaml:"login_refused_text"`
	// ClosedText: substrings (case-insensitive) of the page a board shows
	// members instead of its content while its admin has closed it for
	// maintenance. Such a page is the board being away, like a 503: reads
	// fail for now, a send stays queued; never "no posts", never a refusal
	// that fails a message for good. An admin's own closed message needs
	// adding here unless the board also shows its standard wording.
	ClosedText []string `yaml:"closed_text"`
	// MaxSubjectChars is the longest PM subject the board keeps (in
	// characters); the marker key goes at its end (0: 80).
	MaxSubjectChars int `yaml:"max_subject_chars"`
	// MaxSubjectBytes is the longest subject (a PM's, a reply's) the board
	// takes in bytes of its charset, each character the charset lacks
	// counted as its numeric reference (a 64-byte column: "Ł" is the 6
	// bytes of "&#321;" in ISO-8859-1); 0: no byte limit.
	MaxSubjectBytes int `yaml:"max_subject_bytes"`
	// SentFolderSize is how many PMs the bot's sent folder keeps before
	// the board deletes the oldest (phpBB's default full_folder_action;
	// 0: it deletes none). A full folder whose oldest PM is newer than a
	// message proves nothing by not holding it.
	SentFolderSize int `yaml:"sent_folder_size"`
	// SentFolderFullText: substrings (case-insensitive) of the sent
	// folder's page saying it is full, whatever limit the board's admin
	// set (phpBB's status line; MyBB's quota warning, after which it keeps
	// no copy of a sent PM). A full folder, so said, proves nothing by not
	// holding a PM sent since it filled.
	SentFolderFullText []string `yaml:"sent_folder_full_text"`
	// RefusedText: substrings (case-insensitive) of the board's refusal
	// of a post or PM that comes with the form again but that no
	// resubmission changes (SMF: the recipient's inbox is full). Such an
	// answer is a rejection, not a stale form to submit again.
	RefusedText []string `yaml:"refused_text"`
	// StaleText: substrings (case-insensitive) of the board's refusal of
	// a form whose token or session has ended (MyBB's "Authorization code
	// mismatch", SMF's "Your session timed out while posting"). The board
	// did not take the message: it is submitted again at once on a fresh
	// form, with no marker check between.
	StaleText []string `yaml:"stale_text"`
	// MergeSeparator is a regexp over a post body's HTML matching what the
	// board puts between a post and a member's next post it appends to it
	// (MyBB merges a member's consecutive posts: "\n[hr]\n", rendered
	// <hr>). Text found after it in a post already read is a new message.
	// Empty: the board does not merge posts.
	MergeSeparator string `yaml:"merge_separator"`
	// MarkerMarkup is the BBCode the marker line under every bot post and
	// PM is written in, {marker} standing for the marker: small print
	// where the board has a size tag, in its units (phpBB a percentage,
	// MyBB a keyword, SMF em). Empty: the plain marker, for a board whose
	// BBCode has no such tag (it would show raw under every post).
	MarkerMarkup string `yaml:"marker_markup"`
	// MergeWindowSeconds is how long after a member's post the board may
	// still append their next one to it (MyBB's postmergemins, 60 minutes
	// by default). Such an append changes nothing in the topic list, so
	// the change signal proves nothing about a thread whose last post is
	// younger (docs/polling.md).
	MergeWindowSeconds int `yaml:"merge_window_seconds"`
}

// URLs of an engine's pages.
type URLs struct {
	// Thread is the first page of a topic; page N adds PageParam. When
	// PageIsOffset the parameter is the 0-based post offset (phpBB start=),
	// otherwise the 1-based page number (MyBB page=).
	Thread       string `yaml:"thread"`
	PageParam    string `yaml:"page_param"`
	PageIsOffset bool   `yaml:"page_is_offset"`
	// LastPage is a URL that always shows a topic's last page.
	LastPage string `yaml:"last_page"`
	// Post jumps to the page holding one post.
	Post string `yaml:"post"`
	// PostIDRegexp finds a post id in a URL (the redirect after a reply).
	PostIDRegexp string `yaml:"post_id_regexp"`
	Index        string `yaml:"index"`
	Login        string `yaml:"login"`
	Inbox        string `yaml:"inbox"`
	Sent         string `yaml:"sent"`
	// Outbox holds sent PMs not yet read by the recipient (phpBB moves
	// them to Sent only then); empty where the engine has no outbox.
	Outbox string `yaml:"outbox"`
	// OutboxPage is page N of the outbox, as SentPage (at SentPerPage PMs
	// a page); empty: the first page only, and an outbox that fills it may
	// hold more than it shows.
	OutboxPage string `yaml:"outbox_page"`
	// SentPage is page N of the sent folder ({page}: 1-based, {start}: the
	// offset at SentPerPage PMs a page), for finding a sent PM once newer
	// ones pushed it off the first page; empty: the first page only.
	SentPage    string `yaml:"sent_page"`
	SentPerPage int    `yaml:"sent_per_page"`
	// SentOnePage: the sent folder is one page that lists every sent PM,
	// never split into pages, so its first page read whole is all of it.
	SentOnePage bool `yaml:"sent_one_page"`
	// SentNewestFirst: the sent folder (with no outbox) lists the newest
	// PM first, with its time, so a check for a PM queued at a time needs
	// read only back to then: a longer folder proves its absence too.
	SentNewestFirst bool   `yaml:"sent_newest_first"`
	ReadPM          string `yaml:"read_pm"`
	// ReadSentPM reads one PM of the sent folder, where the engine needs
	// another URL for it (SMF: f=sent); empty means ReadPM.
	ReadSentPM string `yaml:"read_sent_pm"`
	// PMIDRegexp finds a PM id in a link of the inbox or sent folder.
	PMIDRegexp string `yaml:"pm_id_regexp"`
	Compose    string `yaml:"compose"`
	// Member is the page that shows the account named {name}: its profile,
	// or a member search for exactly that name (how `replace` checks that
	// a new player's account exists on the board).
	Member string `yaml:"member"`
	Reply  string `yaml:"reply"`
	// TopicList is a page of the topic list of the forum {forum}, newest
	// last post first ({page}: 1-based; {start}: the offset at
	// TopicsPerPage topics a page): the change signal that lets a poll
	// skip a thread that has not changed (docs/polling.md). Empty: the
	// engine has none, and every poll reads the thread.
	TopicList     string `yaml:"topic_list"`
	TopicsPerPage int    `yaml:"topics_per_page"`
}

// Selectors are goquery (CSS) selectors, each with the attribute and
// regexp that pull a value out where one is needed.
type Selectors struct {
	// MemberName matches where the Member page names the account found
	// (the first with text counts; none: no such account); MemberID the
	// element whose MemberIDAttr matched by MemberIDRegexp is its user id.
	MemberName string `yaml:"member_name"`
	// MemberNameOwn takes only MemberName's own text, not its children's
	// (SMF's profile heading holds the member's group in a span).
	MemberNameOwn  bool   `yaml:"member_name_own"`
	MemberID       string `yaml:"member_id"`
	MemberIDAttr   string `yaml:"member_id_attr"`
	MemberIDRegexp string `yaml:"member_id_regexp"`

	// Post matches a post node on a thread page; its PostIDAttr matched by
	// PostIDRegexp (first group) is the post id. Nodes that do not match
	// the regexp are not posts.
	Post         string `yaml:"post"`
	PostIDAttr   string `yaml:"post_id_attr"`
	PostIDRegexp string `yaml:"post_id_regexp"`
	// PostID (within the post's node) is the element carrying PostIDAttr,
	// where the node itself does not (the <a name="pidN"> anchor in the
	// first row of a post); empty: the post's node.
	PostID string `yaml:"post_id"`
	// PostSpan is how far a post runs past the node Post matched, for a
	// layout with no one element around each post: "next" (the node and
	// its following siblings up to the next post node), or a number N (the
	// node and the N-1 element siblings after it: phpBB 2's rows). Empty:
	// the node alone is the post.
	PostSpan string `yaml:"post_span"`
	// Author (within a post) is the name node; a link's AuthorIDAttr
	// matched by AuthorIDRegexp is the user id (absent for guests).
	Author         string `yaml:"author"`
	AuthorIDAttr   string `yaml:"author_id_attr"`
	AuthorIDRegexp string `yaml:"author_id_regexp"`
	// Time (within a post): TimeAttr names a machine-readable attribute
	// (RFC 3339); when empty the node's text is parsed with TimeLayouts,
	// preferring a TimeTitle descendant's title (MyBB's relative dates).
	Time      string `yaml:"time"`
	TimeAttr  string `yaml:"time_attr"`
	TimeTitle string `yaml:"time_title"`
	// TimeRegexp extracts the time text from the node's text when there
	// is no attribute (phpBB 3.0: "by Alice » Mon Nov 30, 2026 10:00 am").
	TimeRegexp string `yaml:"time_regexp"`
	// TimeStrip (within the time node) is removed before reading its text.
	TimeStrip string `yaml:"time_strip"`
	// PageTime is a node whose TimeAttr (RFC 3339) is the board's own
	// current time when it rendered the page (SMF's header); relative
	// times are then resolved against it instead of the fetch time.
	PageTime   string `yaml:"page_time"`
	Body       string `yaml:"body"`
	EditNotice string `yaml:"edit_notice"`
	// EditNoticeRegexp matches an edit notice the board writes as text
	// inside the body ("[Edited on 6-12-2026 by carol]"): a post showing
	// it reads as edited, and the notice is never part of a command.
	EditNoticeRegexp string `yaml:"edit_notice_regexp"`
	// PageCurrent is the current page number in the pagination; PageLinks
	// are numbered page links (the highest number is the page count).
	PageCurrent string `yaml:"page_current"`
	PageLinks   string `yaml:"page_links"`
	// PageEnd is the board's page footer, rendered after every post: a
	// page without it was cut short, so a marker's absence there proves
	// nothing (empty: only the closing </html> is checked).
	PageEnd string `yaml:"page_end"`
	// LoggedIn is present only on pages seen by a logged-in account.
	LoggedIn string `yaml:"logged_in"`
	// Error is a board error or notice box (login failure, form errors).
	Error string `yaml:"error"`
	// Captcha (on a form page) is a verification control the bot cannot
	// answer (SMF asks members with fewer than 5 posts for one before a
	// PM): the submission is refused as ErrCaptcha, not retried.
	Captcha string `yaml:"captcha"`

	Bold    string `yaml:"bold"`
	Quote   string `yaml:"quote"`
	Spoiler string `yaml:"spoiler"`
	Code    string `yaml:"code"`
	Strike  string `yaml:"strike"`

	// SentFolder is what only the bot's sent folder page shows (and its
	// outbox's, where the engine keeps one), empty or not: a page without
	// it is not the sent folder, so a PM's absence from it proves nothing.
	// Empty: no page proves a PM absent.
	SentFolder string `yaml:"sent_folder"`
	// InboxFolder is what only the bot's PM inbox page shows, empty or
	// not: a page without it is not the inbox (a board with private
	// messages turned off answers every PM page with a notice), so its
	// having no PMs says nothing and the inbox read fails, naming the
	// page. Empty: any page is read as the inbox.
	InboxFolder string `yaml:"inbox_folder"`

	// Inbox (PM folder list) rows and their parts.
	InboxRow       string `yaml:"inbox_row"`
	InboxLink      string `yaml:"inbox_link"`
	InboxFrom      string `yaml:"inbox_from"`
	InboxTime      string `yaml:"inbox_time"`
	InboxTimeRegex string `yaml:"inbox_time_regexp"`
	InboxUnread    string `yaml:"inbox_unread"`

	// PM page: the message node, subject, the header holding sender and
	// time, and the body. PMTimeRegexp extracts the time text from the
	// header (a <br> reads as a newline).
	PM           string `yaml:"pm"`
	PMIDAttr     string `yaml:"pm_id_attr"`
	PMIDRegexp   string `yaml:"pm_id_regexp"`
	PMSubject    string `yaml:"pm_subject"`
	PMFrom       string `yaml:"pm_from"`
	PMTime       string `yaml:"pm_time"`
	PMTimeTitle  string `yaml:"pm_time_title"`
	PMTimeRegexp string `yaml:"pm_time_regexp"`
	PMBody       string `yaml:"pm_body"`

	// The topic list (urls.topic_list): TopicRow is one topic's row;
	// TopicID the node in it whose TopicIDAttr, matched by TopicIDRegexp
	// (first group), is the topic id; TopicLastPost the row's last-post
	// node: the first link in it whose href TopicLastPostRegexp matches
	// gives the last post's id, and where it shows none, its text (with
	// each TimeTitle's title in place of its text: MyBB's "5 minutes ago")
	// stands for the last post; TopicReplies the replies count's node, its
	// text read through TopicRepliesRegexp when set. The pagination is the
	// thread pages' (PageCurrent, PageLinks).
	TopicRow            string `yaml:"topic_row"`
	TopicID             string `yaml:"topic_id"`
	TopicIDAttr         string `yaml:"topic_id_attr"`
	TopicIDRegexp       string `yaml:"topic_id_regexp"`
	TopicLastPost       string `yaml:"topic_last_post"`
	TopicLastPostRegexp string `yaml:"topic_last_post_regexp"`
	TopicReplies        string `yaml:"topic_replies"`
	TopicRepliesRegexp  string `yaml:"topic_replies_regexp"`

	// The forum holding a thread, from its page (outside posts): the last
	// ThreadForum node's ThreadForumAttr, matched by ThreadForumRegexp
	// (first group), is the forum's id in the topic list's URL: so a game
	// gets the change signal without naming its forum (docs/polling.md).
	ThreadForum       string `yaml:"thread_forum"`
	ThreadForumAttr   string `yaml:"thread_forum_attr"`
	ThreadForumRegexp string `yaml:"thread_forum_regexp"`
}

// PageKind is a kind of page the bot reads, for its marks (PageMarks).
type PageKind string

// The kinds of page with marks of their own. "" is any page.
const (
	PageThread   PageKind = "thread"    // a thread page
	PagePMFolder PageKind = "pm_folder" // the PM inbox, sent folder, outbox
	PagePM       PageKind = "pm"        // one PM's page
	PagePMForm   PageKind = "pm_form"   // the PM form's page, and the board's answer to it
	PagePostForm PageKind = "post_form" // the reply form's page, and the board's answer to it
)

// PageKinds lists the kinds PageMarks has.
var PageKinds = []PageKind{PageThread, PagePMFolder, PagePM, PagePMForm, PagePostForm}

// Marks are a page's logged-in, page-end and error marks (selectors, as
// Selectors.LoggedIn, PageEnd and Error).
type Marks struct {
	LoggedIn string `yaml:"logged_in"`
	PageEnd  string `yaml:"page_end"`
	Error    string `yaml:"error"`
}

// PageMarks are the marks of each kind of page.
type PageMarks struct {
	Thread   Marks `yaml:"thread"`
	PMFolder Marks `yaml:"pm_folder"`
	PM       Marks `yaml:"pm"`
	PMForm   Marks `yaml:"pm_form"`
	PostForm Marks `yaml:"post_form"`
}

// MarksOf are the marks of a kind of page: those page_marks gives it, the
// rest from selectors (logged_in, page_end, error). Key names the key
// each comes from, for messages ("page_marks.pm_folder.logged_in").
func (p Profile) MarksOf(kind PageKind) (m Marks, key Marks) {
	var own Marks
	switch kind {
	case PageThread:
		own = p.PageMarks.Thread
	case PagePMFolder:
		own = p.PageMarks.PMFolder
	case PagePM:
		own = p.PageMarks.PM
	case PagePMForm:
		own = p.PageMarks.PMForm
	case PagePostForm:
		own = p.PageMarks.PostForm
	}
	pick := func(own, def, name string) (string, string) {
		if strings.TrimSpace(own) != "" {
			return own, "page_marks." + string(kind) + "." + name
		}
		return def, "selectors." + name
	}
	m.LoggedIn, key.LoggedIn = pick(own.LoggedIn, p.Selectors.LoggedIn, "logged_in")
	m.PageEnd, key.PageEnd = pick(own.PageEnd, p.Selectors.PageEnd, "page_end")
	m.Error, key.Error = pick(own.Error, p.Selectors.Error, "error")
	return m, key
}

// Form names one form of the board: the page that holds it, a selector for
// the form, the fields the bot fills, and fixed extra fields.
type Form struct {
	Page     string `yaml:"page"`
	Selector string `yaml:"selector"`
	// Field names.
	User      string `yaml:"user,omitempty"`
	Password  string `yaml:"password,omitempty"`
	Subject   string `yaml:"subject,omitempty"`
	Message   string `yaml:"message,omitempty"`
	Recipient string `yaml:"recipient,omitempty"` // by name (MyBB "to"); empty when the page URL names the recipient by id
	// Extra fields set on submit (the submit button's name and value, flags).
	Extra map[string]string `yaml:"extra,omitempty"`
}

// Forms of an engine.
type Forms struct {
	Login Form `yaml:"login"`
	Reply Form `yaml:"reply"`
	PM    Form `yaml:"pm"`
}

// Builtin returns a copy of a built-in profile by name.
func Builtin(name string) (Profile, bool) {
	switch strings.ToLower(name) {
	case "phpbb", "phpbb3":
		return phpBB(), true
	case "mybb":
		return myBB(), true
	case "smf", "smf2", "smf21":
		return smf(), true
	case "nodebb":
		return nodeBB(), true
	}
	return Profile{}, false
}

// BuiltinNames lists the built-in profiles.
func BuiltinNames() []string { return []string{"phpbb", "mybb", "smf", "nodebb"} }

// APINodeBB is Profile.API of a NodeBB board.
const APINodeBB = "nodebb"

// Validate checks that the regexps compile, the time zone exists and the
// essential selectors are set.
func (p Profile) Validate() error {
	for name, re := range map[string]string{
		"urls.post_id_regexp":              p.URLs.PostIDRegexp,
		"urls.pm_id_regexp":                p.URLs.PMIDRegexp,
		"selectors.post_id_regexp":         p.Selectors.PostIDRegexp,
		"selectors.author_id_regexp":       p.Selectors.AuthorIDRegexp,
		"selectors.pm_id_regexp":           p.Selectors.PMIDRegexp,
		"selectors.pm_time_regexp":         p.Selectors.PMTimeRegexp,
		"selectors.inbox_time_regexp":      p.Selectors.InboxTimeRegex,
		"flood_wait_regexp":                p.FloodWaitRegexp,
		"too_long_limit_regexp":            p.TooLongLimitRegexp,
		"sent_location_regexp":             p.SentLocationRegexp,
		"merge_separator":                  p.MergeSeparator,
		"selectors.topic_id_regexp":        p.Selectors.TopicIDRegexp,
		"selectors.topic_last_post_regexp": p.Selectors.TopicLastPostRegexp,
		"selectors.topic_replies_regexp":   p.Selectors.TopicRepliesRegexp,
		"selectors.edit_notice_regexp":     p.Selectors.EditNoticeRegexp,
	} {
		if _, err := regexp.Compile(re); err != nil {
			return fmt.Errorf("profile %s: %s: %w", p.Name, name, err)
		}
	}
	if _, err := p.Location(); err != nil {
		return fmt.Errorf("profile %s: time_zone: %w", p.Name, err)
	}
	if _, _, err := p.Span(); err != nil {
		return fmt.Errorf("profile %s: selectors.post_span: %w", p.Name, err)
	}
	if u := p.UserIDs; u != "" && u != UserIDsNames {
		return fmt.Errorf("profile %s: user_ids %q: leave it out for numeric ids, or %q", p.Name, u, UserIDsNames)
	}
	if err := CheckMarkerMarkup(p.MarkerMarkup); err != nil {
		return fmt.Errorf("profile %s: marker_markup: %w", p.Name, err)
	}
	for name, v := range map[string]string{
		"selectors.post": p.Selectors.Post, "selectors.body": p.Selectors.Body,
		"selectors.bold": p.Selectors.Bold, "urls.thread": p.URLs.Thread,
	} {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("profile %s: %s is empty", p.Name, name)
		}
	}
	if p.PostsPerPage <= 0 {
		return fmt.Errorf("profile %s: posts_per_page must be positive", p.Name)
	}
	return nil
}

// UserIDsNames is Profile.UserIDs of a board whose members are known by
// name only.
const UserIDsNames = "names"

// NamesAreIDs reports whether the board's members are known by name only
// (user_ids: names).
func (p Profile) NamesAreIDs() bool { return p.UserIDs == UserIDsNames }

// Span reads selectors.post_span: toNext for "next", else rows, the
// element siblings a post spans with its own node (1: the node alone).
func (p Profile) Span() (rows int, toNext bool, err error) {
	v := strings.TrimSpace(p.Selectors.PostSpan)
	switch {
	case v == "":
		return 1, false, nil
	case strings.EqualFold(v, "next"):
		return 1, true, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 50 {
		return 0, false, fmt.Errorf("%q: \"next\", or how many sibling elements a post spans (1 to 50)", v)
	}
	return n, false, nil
}

// Location is the profile's time zone (UTC when unset): an IANA name or a
// fixed offset from UTC ("UTC+2", "GMT-5", "+05:30", "-0330").
func (p Profile) Location() (*time.Location, error) {
	z := strings.TrimSpace(p.TimeZone)
	if z == "" {
		return time.UTC, nil
	}
	if m := offsetRe.FindStringSubmatch(z); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins := 0
		if m[3] != "" {
			mins, _ = strconv.Atoi(m[3])
		}
		if h > 14 || mins > 59 {
			return nil, fmt.Errorf("offset %q out of range", z)
		}
		off := h*3600 + mins*60
		if m[1] == "-" {
			off = -off
		}
		return time.FixedZone(z, off), nil
	}
	return time.LoadLocation(z)
}

var offsetRe = regexp.MustCompile(`^(?i:UTC|GMT)?\s*([+-])(\d{1,2})(?::?(\d{2}))?$`)

// LayoutUnit is the finest unit a Go time layout shows: a second, a
// minute, an hour or a day (found by formatting instants that differ by
// each, so any spelling of the fields is recognised).
func LayoutUnit(layout string) time.Duration {
	ref := time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)
	for _, u := range []time.Duration{time.Second, time.Minute, time.Hour} {
		if ref.Format(layout) != ref.Add(u).Format(layout) {
			return u
		}
	}
	return 24 * time.Hour
}

// DeadlineUnit is the unit deadlines should fall on for this board: the
// coarsest of its textual layouts that show a time of day (phpBB's PM
// pages and MyBB's posts: a minute). Date-only layouts are fallbacks and
// do not count; a board with no such layout gets a minute.
func (p Profile) DeadlineUnit() time.Duration {
	var unit time.Duration
	for _, l := range p.TimeLayouts {
		if u := LayoutUnit(l); u < 24*time.Hour && u > unit {
			unit = u
		}
	}
	if unit == 0 {
		return time.Minute
	}
	return unit
}

// Expand fills a URL template's placeholders (values are query-escaped).
func Expand(tmpl string, vars map[string]string) string {
	out := tmpl
	for k, v := range vars {
		out = strings.ReplaceAll(out, "{"+k+"}", url.QueryEscape(v))
	}
	return out
}

// ThreadPageURL is the relative URL of page (1-based) of a topic.
func (p Profile) ThreadPageURL(topic string, page int) string {
	u := Expand(p.URLs.Thread, map[string]string{"topic": topic})
	if page <= 1 || p.URLs.PageParam == "" {
		return u
	}
	n := page
	if p.URLs.PageIsOffset {
		n = (page - 1) * p.PostsPerPage
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + p.URLs.PageParam + "=" + strconv.Itoa(n)
}

// Resolve makes a profile-relative URL absolute against the board root.
func Resolve(base, rel string) (string, error) {
	b, err := url.Parse(base)
	if err != nil {
		return "", fmt.Errorf("bad board URL %q: %w", base, err)
	}
	if !strings.HasSuffix(b.Path, "/") {
		b.Path += "/"
	}
	r, err := url.Parse(rel)
	if err != nil {
		return "", fmt.Errorf("bad URL %q: %w", rel, err)
	}
	return b.ResolveReference(r).String(), nil
}

// BoldSelector is the union of the ways engines render [b] (<strong>, <b>,
// Discourse's span.bbcode-b, MyBB's span.mycode_b, and the inline bold
// styles of older phpBB and MyBB); profiles use it unless a board needs
// another.
const BoldSelector = `strong, b, span.bbcode-b, span.mycode_b, span[style*="font-weight: bold"], span[style*="font-weight:bold"], span[style*="font-weight: 700"], span[style*="font-weight:700"]`

// Selectors of markup whose text never counts. phpBB has no core [s] or
// [spoiler]: the common custom BBCodes and extensions are covered.
const (
	QuoteSelector   = `blockquote, aside.quote, .bbCodeBlock--quote, .ipsQuote, .mycode_quote, .quoteheader, .quotefooter`
	SpoilerSelector = `.spoiler, .spoilertag, .spoiler-body, .spoiler_body, details, div.bbCodeSpoiler, span.bbcode-spoiler`
	CodeSelector    = `div.codebox, div.codeblock, pre, code`
	StrikeSelector  = `s, strike, del, .mycode_s, .bbcode-s, span[style*="line-through"]`
)

func phpBB() Profile {
	return Profile{
		Name: "phpbb",
		// phpBB 3.3.10 keeps a PM subject's first 60 characters (seen
		// on the real board: a 70-character subject comes back cut).
		MaxSubjectChars: 60,
		// pm_max_msgs 50 a folder (or the group's message limit): past it
		// the sent folder loses its oldest (functions_privmsgs.php
		// clean_sentbox, whatever full_folder_action says), and its page
		// says so (ucp.php FOLDER_STATUS_MSG: "Folder is 100% full (3 out
		// of 3 messages stored)") at any limit.
		SentFolderSize:     50,
		SentFolderFullText: []string{"Folder is 100% full"},
		PostsPerPage:       10,
		FloodSeconds:       15,
		// max_post_chars (install/schemas/schema_data.sql: 60000),
		// counted in characters for posts and PMs alike
		// (message_parser.php); bytes are never fewer.
		MaxMessageBytes: 60000,
		FormWaitSeconds: 1,
		FormTimeField:   "creation_time",
		SendDepth:       128,
		TimeZone:        "UTC",
		// The board default "D M d, Y g:i a" first, then the other formats
		// phpBB offers its users (language/en/common.php 'dateformats'; an
		// ordinal "1st" is read as "1"). PM pages and lists have no
		// machine-readable time.
		TimeLayouts: []string{"Mon Jan 02, 2006 3:04 pm", "Mon Jan 2, 2006 3:04 pm",
			"02 Jan 2006, 15:04", "02 Jan 2006 15:04", "Jan 2, '06, 15:04", "January 2, 2006, 3:04 pm",
			time.RFC3339},
		URLs: URLs{
			Thread:       "viewtopic.php?t={topic}",
			PageParam:    "start",
			PageIsOffset: true,
			LastPage:     "viewtopic.php?t={topic}&start=999999",
			Post:         "viewtopic.php?p={post}#p{post}",
			PostIDRegexp: `[?&]p=(\d+)`,
			Index:        "index.php",
			Login:        "ucp.php?mode=login",
			Inbox:        "ucp.php?i=pm&folder=inbox",
			Sent:         "ucp.php?i=pm&folder=sentbox",
			Outbox:       "ucp.php?i=pm&folder=outbox",
			OutboxPage:   "ucp.php?i=pm&folder=outbox&start={start}",
			// topics_per_page (25 by default) rows a page; reading with a
			// smaller step than the board's only overlaps.
			SentPage:    "ucp.php?i=pm&folder=sentbox&start={start}",
			SentPerPage: 25,
			ReadPM:      "ucp.php?i=pm&mode=view&p={pm}",
			PMIDRegexp:  `[?&]p=(\d+)`,
			Compose:     "ucp.php?i=pm&mode=compose&u={user}",
			Member:      "memberlist.php?mode=viewprofile&un={name}",
			Reply:       "posting.php?mode=reply&t={topic}",
			// viewforum.php, topics_per_page (25) a page, by last post.
			TopicList:     "viewforum.php?f={forum}&start={start}",
			TopicsPerPage: 25,
		},
		Selectors: Selectors{
			Post:           "div.post",
			PostIDAttr:     "id",
			PostIDRegexp:   `^p(\d+)$`,
			Author:         "p.author strong",
			AuthorIDAttr:   "href",
			AuthorIDRegexp: `[?&]u=(\d+)`,
			Time:           "p.author",
			TimeAttr:       "datetime",
			TimeRegexp:     `»\s*([^\n»]+?)\s*$`,
			Body:           "div.content",
			EditNotice:     "div.notice",
			PageCurrent:    "div.pagination li.active span, div.pagination > span > strong",
			PageLinks:      "div.pagination li a, div.pagination li.active span, div.pagination > span > a, div.pagination > span > strong",
			PageEnd:        "div#page-footer",
			LoggedIn:       `a[href*="mode=logout"], div.header-profile`,
			Error:          "div.error, p.error, .panel .inner .error, #message p",
			Bold:           BoldSelector,
			Quote:          QuoteSelector,
			Spoiler:        SpoilerSelector,
			Code:           CodeSelector,
			Strike:         StrikeSelector,
			InboxRow:       "li.row",
			InboxLink:      "a.topictitle",
			InboxFrom:      ".username, .username-coloured",
			InboxTime:      "div.list-inner",
			InboxTimeRegex: `»\s*([^\n»]+?)\s*$`,
			InboxUnread:    "a.row-item-link",
			PM:             "div.post.pm",
			PMIDAttr:       "id",
			PMIDRegexp:     `^post-(\d+)$`,
			PMSubject:      "h3",
			PMFrom:         "p.author .username, p.author .username-coloured, p.author a[href*=\"mode=viewprofile\"]",
			// The profile page: "Username:" is the first entry of its details.
			MemberName:     "dl.profile-details dd span",
			MemberID:       "a[href*=\"mode=compose\"], a[href*=\"author_id=\"]",
			MemberIDAttr:   "href",
			MemberIDRegexp: `(?:[?&]u=|author_id=)(\d+)`,
			PMTime:         "p.author",
			PMTimeRegexp:   `Sent:\s*([^\n]+)`,
			PMBody:         "div.content",
			// ucp_header.html marks the folder shown in the control panel's
			// menu (functions_privmsgs.php get_folder: S_CUR_FOLDER,
			// U_FOLDER ...&folder=sentbox, or outbox).
			SentFolder: `#cp-menu li.active-subsection a[href*="folder=sentbox"], #cp-menu li.active-subsection a[href*="folder=outbox"]`,
			// The same menu, the inbox current.
			InboxFolder: `#cp-menu li.active-subsection a[href*="folder=inbox"]`,
			// viewforum_body.html: the last post's link carries its id.
			TopicRow:            "ul.topiclist.topics li.row",
			TopicID:             "a.topictitle",
			TopicIDAttr:         "href",
			TopicIDRegexp:       `[?&]t=(\d+)`,
			TopicLastPost:       "dd.lastpost",
			TopicLastPostRegexp: `[?&]p=(\d+)`,
			TopicReplies:        "dd.posts",
			TopicRepliesRegexp:  `([\d,.]+)`,
			// The breadcrumbs (navbar_header.html): category, then forum.
			ThreadForum:       "span.crumb[data-forum-id]",
			ThreadForumAttr:   "data-forum-id",
			ThreadForumRegexp: `^(\d+)$`,
		},
		Forms: Forms{
			Login: Form{Page: "ucp.php?mode=login", Selector: `form#login, form:has(input[name="password"])`,
				User: "username", Password: "password",
				Extra: map[string]string{"autologin": "on", "login": "Login"}},
			Reply: Form{Page: "posting.php?mode=reply&t={topic}", Selector: `form#postform, form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message",
				Extra: map[string]string{"post": "Submit"}},
			PM: Form{Page: "ucp.php?i=pm&mode=compose&u={user}", Selector: `form#postform, form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message",
				Extra: map[string]string{"post": "Submit"}},
		},
		FloodText:       []string{"You cannot make another post so soon after your last"},
		FloodWaitRegexp: `(\d+)\s*seconds?`,
		// language/en/posting.php TOO_MANY_CHARS, CHARS_POST_CONTAINS +
		// TOO_MANY_CHARS_LIMIT ("Your message contains 69075 characters.<br
		// />The maximum number of allowed characters is 60000.").
		TooLongText:        []string{"Your message contains too many characters", "maximum number of allowed characters is"},
		TooLongLimitRegexp: `maximum number of allowed characters is\s*([\d,.]+)`,
		// ucp.php MESSAGE_STORED; posting.php POST_STORED.
		SentText: []string{"This message has been sent successfully", "This message has been posted successfully"},
		// language/en/common.php FORM_INVALID: shown with the form again.
		StaleText: []string{"The submitted form was invalid"},
		// language/en/common.php LOGIN_ERROR_USERNAME, _PASSWORD, _ATTEMPTS.
		LoginRefusedText: []string{"incorrect username", "incorrect password", "maximum allowed number of login attempts"},
		// language/en/common.php BOARD_DISABLE (members see it, HTTP 200,
		// unless the admin wrote a message of their own), BOARD_DISABLED
		// (the notice staff see over the pages).
		ClosedText: []string{"Sorry but this board is currently unavailable", "This board is currently disabled"},
		// [size=N] is a percentage (styles/prosilver/template/bbcode.html:
		// font-size: {SIZE}%), within the board's max_font_size.
		MarkerMarkup: "[size=85]{marker}[/size]",
	}
}

func myBB() Profile {
	return Profile{
		Name:            "mybb",
		MaxSubjectChars: 85,
		PostsPerPage:    10,
		// postfloodsecs and pmfloodsecs, 60 each, counted apart
		// (datahandlers/post.php, pm.php); super moderators and admins
		// are exempt. A post MyBB merges into the account's last one
		// (below) is not flood-checked at all.
		FloodSeconds: 60,
		PMFloodApart: true,
		// No form wait (my_post_key is the session's, posthash any string),
		// so nothing for several submissions to overlap: the account's
		// requests go one at a time (SendDepth 1).
		// maxmessagelength (install/resources/settings.xml: 65535 bytes)
		// for posts; PMs are capped at 65535 bytes (datahandlers/pm.php).
		MaxMessageBytes: 65535,
		// postmergesep, default "[hr]" (inc/datahandlers/post.php), between
		// newlines: the parser turns it into <hr class="mycode_hr" /> with
		// the line breaks around it.
		MergeSeparator: `(?:\s*<br\s*/?>)*\s*<hr\b[^>]*>(?:\s*<br\s*/?>)*\s*`,
		// postmergemins, default 60 (install/resources/settings.xml).
		MergeWindowSeconds: 3600,
		TimeZone:           "UTC",
		// Defaults dateformat m-d-Y, timeformat h:i A, joined by ", "
		// (install/resources/settings.xml); "01-02-2006" alone is the
		// title of a "Today"/"Yesterday" span when no time follows.
		TimeLayouts: []string{"01-02-2006, 03:04 PM", "01-02-2006 03:04 PM", "01-02-2006"},
		URLs: URLs{
			Thread:       "showthread.php?tid={topic}",
			PageParam:    "page",
			LastPage:     "showthread.php?tid={topic}&page=last",
			Post:         "showthread.php?pid={post}#pid{post}",
			PostIDRegexp: `[?&]pid=(\d+)`,
			Index:        "index.php",
			Login:        "member.php?action=login",
			Inbox:        "private.php",
			Sent:         "private.php?fid=2",
			SentPage:     "private.php?fid=2&page={page}",
			ReadPM:       "private.php?action=read&pmid={pm}",
			PMIDRegexp:   `[?&]pmid=(\d+)`,
			Compose:      "private.php?action=send",
			Member:       "memberlist.php?username={name}", // an exact, case-blind name search
			Reply:        "newreply.php?tid={topic}",
			// forumdisplay.php, threadsperpage (20) a page, by last post.
			TopicList:     "forumdisplay.php?fid={forum}&page={page}",
			TopicsPerPage: 20,
		},
		Selectors: Selectors{
			Post:           "div.post",
			PostIDAttr:     "id",
			PostIDRegexp:   `^post_(\d+)$`,
			Author:         "div.author_information .largetext",
			AuthorIDAttr:   "href",
			AuthorIDRegexp: `[?&]uid=(\d+)`,
			Time:           "span.post_date",
			TimeTitle:      "span[title]",
			TimeStrip:      "span.post_edit",
			Body:           "div.post_body",
			EditNotice:     "span.edited_post",
			PageCurrent:    "div.pagination span.pagination_current",
			PageLinks:      "div.pagination a, div.pagination span.pagination_current",
			PageEnd:        "div#footer",
			LoggedIn:       "a.logout",
			Error:          "div.error, .error, #content > .wrapper > table.tborder:only-of-type > tbody > tr > td.trow1", // td.trow1: an error page's one cell (error(), error_no_permission())
			Bold:           BoldSelector,
			Quote:          QuoteSelector,
			Spoiler:        SpoilerSelector,
			Code:           CodeSelector,
			Strike:         StrikeSelector,
			InboxRow:       `tr:has(a[href*="action=read"])`,
			InboxLink:      `a[href*="action=read"]`,
			InboxFrom:      `a[href*="action=profile"]`,
			InboxTime:      "span.smalltext",
			InboxUnread:    "a.new_pm",
			PM:             "div.post:has(div.post_body)",
			// Real MyBB: the usercp menu ("Menu") comes first in td.thead.
			PMSubject: "table.tborder:not(:has(.usercp_nav_item)) td.thead strong",
			PMFrom:    "div.author_information .largetext",
			// The member list's rows link each name to its profile (the
			// header's own profile link is outside any table cell).
			MemberName:     "td a[href*=\"action=profile\"]",
			MemberID:       "td a[href*=\"action=profile\"]",
			MemberIDAttr:   "href",
			MemberIDRegexp: `[?&]uid=(\d+)`,
			PMTime:         "span.post_date",
			PMTimeTitle:    "span[title]",
			PMBody:         "div.post_body",
			// The private template's sort links name the folder shown
			// (private.php?fid={$fid}&amp;sortby=...): 2 is Sent Items.
			SentFolder: `form[name="pmForm"] td.tcat a[href*="fid=2&sortby="]`,
			// The inbox: private.php shows fid 0 (fid=1 the same folder).
			InboxFolder: `form[name="pmForm"] td.tcat a[href*="fid=0&sortby="], form[name="pmForm"] td.tcat a[href*="fid=1&sortby="]`,
			// forumdisplay_thread: no post id in the list; its last post
			// is told by its time (to the minute, in the span's title) and
			// poster, with the replies count (and, for moderators, the
			// unapproved count after it).
			TopicRow:           "tr.inline_row",
			TopicID:            `span[id^="tid_"]`,
			TopicIDAttr:        "id",
			TopicIDRegexp:      `^tid_(\d+)$`,
			TopicLastPost:      "span.lastpost",
			TopicReplies:       `td:has(a[href*="action=whoposted"])`,
			TopicRepliesRegexp: `([\d,.]+)`,
			// The navigation (nav, nav_bit): category, then forum, then
			// the thread, not a link.
			ThreadForum:       `div.navigation a[href*="forumdisplay.php?fid="]`,
			ThreadForumAttr:   "href",
			ThreadForumRegexp: `[?&]fid=(\d+)`,
		},
		Forms: Forms{
			Login: Form{Page: "member.php?action=login", Selector: `form:has(input[name="password"])`,
				User: "username", Password: "password",
				Extra: map[string]string{"remember": "yes", "action": "do_login"}},
			Reply: Form{Page: "newreply.php?tid={topic}", Selector: `form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message",
				Extra: map[string]string{"action": "do_newreply", "submit": "Post Reply"}},
			PM: Form{Page: "private.php?action=send", Selector: `form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message", Recipient: "to",
				Extra: map[string]string{"action": "do_send", "submit": "Send Message", "options[savecopy]": "1"}},
		},
		// Posts; PMs ("You are trying to send a message too quickly after
		// sending a previous message. Please wait 61 more seconds.").
		FloodText: []string{"only allowed to post once every", "you must wait", "message too quickly"},
		// datahandler_post/datahandler_pm postdata_message_too_long,
		// pmdata_message_too_long; messages.lang.php error_messagelength.
		TooLongText:        []string{"The message is too long", "your message is too long and cannot be posted"},
		TooLongLimitRegexp: `shorter than\s*([\d,.]+)\s*characters`,
		// private.lang.php redirect_pmsent; newreply.lang.php redirect_newreply,
		// redirect_newreply_moderation (taken, awaiting a moderator); and
		// the duplicate checks (newreply.php, private.php): the same reply
		// in the thread within 10 minutes, the same PM to the same
		// recipient within 5 hours: the board has it already.
		SentText: []string{"your private message has successfully been sent", "your reply has been posted",
			"all new posts require moderation",
			"You have already posted this reply", "You have already submitted the same private message"},
		ConfirmLater: true,
		// global.lang.php invalid_post_code: my_post_key is the session's.
		StaleText: []string{"Authorization code mismatch"},
		// Refusals no resubmission changes. With the form again
		// (datahandler_pm.lang.php): an unknown recipient, one who takes no
		// PMs, ignores the bot or whose box is full, too many recipients.
		// As an error page: newreply.lang.php redirect_threadclosed,
		// messages.lang.php error_nopermission_user_1 (a banned account,
		// one awaiting activation, a group that may not post or send PMs),
		// global.lang.php error_banned, private.lang.php pms_disabled,
		// error_pmsturnedoff, error_recipientpmturnedoff.
		RefusedText: []string{"are not registered usernames", "has private messaging disabled",
			"has reached their private message quota", "because you're on their ignore list",
			"because you're not on their buddy list", "You are only allowed to send messages to",
			"has been closed by a moderator", "You do not have permission to access this page",
			"but you are banned", "private messaging functionality as it has been disabled",
			"You currently have private messages disabled", "has chosen not to receive private messages"},
		FloodWaitRegexp: `(\d+)\s*more\s*seconds?|once every\s*(?P<interval>\d+)\s*seconds?`,
		// inc/languages/english/member.lang.php error_invalidpworusername,
		// and the lockout after too many attempts.
		// After failedcaptchalogincount (3) failures every login, the right
		// password too, must solve a captcha (global.lang.php
		// invalid_captcha_verify) until failedlogincount (10) locks it out.
		LoginRefusedText: []string{"invalid username/password", "invalid username and password", "failed to login", "image verification code"},
		// private.lang.php reached_warning: the account's PMs (all folders)
		// reached the group's pmquota; a PM sent now is delivered but no
		// copy is kept (datahandlers/pm.php clears savecopy).
		SentFolderFullText: []string{"You have reached your message limit"},
		// global.lang.php error_boardclosed (members see it, HTTP 200, the
		// admin's reason after it), bbclosed_warning (what staff see).
		ClosedText: []string{"This bulletin board is currently closed", "Your board status is currently set to closed"},
		// [size=x-small]: a keyword (inc/class_parser.php); a number is
		// points (mycode_size_int: font-size: Npt, up to 50), so phpBB's
		// [size=85] would be 50pt here.
		MarkerMarkup: "[size=x-small]{marker}[/size]",
	}
}

// smf is SMF 2.1 with its default theme (Curve2) and settings: 15 posts a
// page, times as text ("Nov 30, 2026, 08:17 PM", or "Today at 08:15 PM"
// read against the board time the header shows), URLs with ';', forms
// with randomly named hidden fields (all copied). The PM form takes the
// recipient by name; its honeypot field is left empty as found. SMF has no
// core spoiler tag; the spoiler selector still covers the common mods.
func smf() Profile {
	return Profile{
		Name:            "smf",
		MaxSubjectChars: 100,
		PostsPerPage:    15,
		// spamWaitTime 5 s, counted per IP, for posts and PMs each apart
		// (Security.php spamProtection: log types post and pm);
		// moderators 2 s.
		FloodSeconds: 5,
		PMFloodApart: true,
		// Errors.english.php pm_too_many_per_hour (pm_spam_settings'
		// third number, 20; admins and moderators are not capped).
		PMQuotaText: []string{"personal messages per hour"},
		TimeZone:    "UTC",
		// The default "%b %d, %Y, %I:%M %p", then the long month name.
		TimeLayouts: []string{"Jan 02, 2006, 03:04 PM", "January 02, 2006, 03:04 PM", "Jan 02, 2006, 03:04:05 PM"},
		URLs: URLs{
			// topic=ID&start=N is read as topic=ID.N (QueryString.php).
			Thread:       "index.php?topic={topic}",
			PageParam:    "start",
			PageIsOffset: true,
			// msg past the last one: the page holding the last post.
			LastPage:     "index.php?topic={topic}.msg2147483647",
			Post:         "index.php?msg={post}",
			PostIDRegexp: `[?;&]msg=(\d+)|\.msg(\d+)`,
			Index:        "index.php",
			Login:        "index.php?action=login",
			Inbox:        "index.php?action=pm;f=inbox",
			// Newest first from the start (PersonalMessage.php
			// MessageFolder: by default a folder opens at its last
			// page, oldest first, and an offset is rounded down to a
			// whole page of defaultMaxMessages, 15: a listing read as
			// pages of 10 from that last page skipped every page
			// between it and the first).
			Sent:        "index.php?action=pm;f=sent;sort=date;desc;start=0",
			SentPage:    "index.php?action=pm;f=sent;sort=date;desc;start={start}",
			SentPerPage: 15,
			ReadPM:      "index.php?action=pm;f=inbox;pmsg={pm}",
			ReadSentPM:  "index.php?action=pm;f=sent;pmsg={pm}",
			PMIDRegexp:  `msg(\d+)`,
			Compose:     "index.php?action=pm;sa=send",
			// The profile by login name (Profile.php: loadMemberData by
			// member_name); no such member: SMF's "not a user" error page.
			Member: "index.php?action=profile;user={name}",
			Reply:  "index.php?action=post;topic={topic}.0",
			// MessageIndex.php, defaultMaxTopics (20) a page, by last post.
			TopicList:     "index.php?board={forum}.{start}",
			TopicsPerPage: 20,
		},
		Selectors: Selectors{
			// The profile summary's heading: the name, then the group.
			MemberName:     "#basicinfo div.username h4",
			MemberNameOwn:  true,
			MemberID:       `link[rel="canonical"]`, // the member's own profile
			MemberIDAttr:   "href",
			MemberIDRegexp: `[?;&]u=(\d+)`,
			Post:           "div.windowbg",
			PostIDAttr:     "id",
			PostIDRegexp:   `^msg(\d+)$`,
			Author:         "div.poster h4",
			AuthorIDAttr:   "href",
			AuthorIDRegexp: `[?;&]u=(\d+)`,
			Time:           "div.postinfo a.smalltext",
			PageTime:       "div.user time",
			TimeAttr:       "",
			Body:           "div.inner",
			EditNotice:     "span.modified.mvisible",
			PageCurrent:    "div.pagelinks span.current_page",
			PageLinks:      "div.pagelinks a.nav_page, div.pagelinks span.current_page",
			PageEnd:        "div#footer",
			LoggedIn:       `a[href*="action=logout"]`,
			Error:          "#fatal_error div.windowbg, div.errorbox, #errors, div.windowbg > span.error", // span.error: the PM send report's failed recipients
			Captcha:        `input[name$="_vv[code]"], input[name*="_vv[q]"]`,
			Bold:           BoldSelector,
			Quote:          QuoteSelector,
			Spoiler:        SpoilerSelector,
			Code:           CodeSelector,
			Strike:         StrikeSelector,
			InboxRow:       "tr:has(td.pm_time)",
			InboxLink:      "td.pm_subject a",
			InboxFrom:      "td.pm_from_to a",
			InboxTime:      "td.pm_time",
			InboxUnread:    "span.new_posts",
			PM:             `div.windowbg[id^="msg"]`,
			PMIDAttr:       "id",
			PMIDRegexp:     `^msg(\d+)$`,
			PMSubject:      "h5",
			PMFrom:         "div.poster h4",
			PMTime:         "div.postinfo span.smalltext",
			PMTimeRegexp:   `on:\s*([^\n]+)`,
			PMBody:         "div.inner",
			// template_folder's form names the folder in its action
			// (PersonalMessage.template.php: ...;sa=pmactions;f=sent;start=N).
			SentFolder: `form#pmFolder[action*="f=sent;"]`,
			// The same form, the inbox's.
			InboxFolder: `form#pmFolder[action*="f=inbox;"]`,
			// MessageIndex.template.php: the last post's link carries its
			// id (topic=T.msgM#new, #msgM for guests) unless the topic has
			// no replies; "Replies: N<br>Views: N" in one paragraph.
			TopicRow:            "#topic_container div.windowbg",
			TopicID:             `span[id^="msg_"] a`,
			TopicIDAttr:         "href",
			TopicIDRegexp:       `[?;&]topic=(\d+)`,
			TopicLastPost:       "div.lastpost",
			TopicLastPostRegexp: `\.msg(\d+)|#msg(\d+)`,
			TopicReplies:        "div.board_stats p",
			TopicRepliesRegexp:  `(?i)replies:\s*([\d,.]+)`,
			// Display.template.php's head: <link rel="index"> is the board.
			ThreadForum:       `link[rel="index"]`,
			ThreadForumAttr:   "href",
			ThreadForumRegexp: `[?;&]board=(\d+)`,
		},
		Forms: Forms{
			Login: Form{Page: "index.php?action=login", Selector: `form#frmLogin, form:has(input[name="passwrd"])`,
				User: "user", Password: "passwrd"},
			Reply: Form{Page: "index.php?action=post;topic={topic}.0", Selector: `form#postmodify, form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message",
				Extra: map[string]string{"post": "Post"}},
			PM: Form{Page: "index.php?action=pm;sa=send", Selector: `form#postmodify, form:has(textarea[name="message"])`,
				Subject: "subject", Message: "message", Recipient: "to",
				Extra: map[string]string{"post": "Send message", "outbox": "1"}},
		},
		FloodText: []string{"seconds ago. Please try again later"},
		// Errors.english.php error_long_message, error_post_too_long;
		// Post.english.php post_too_long.
		TooLongText:        []string{"exceeds the maximum allowed length", "Your message is too long"},
		TooLongLimitRegexp: `maximum allowed length \(([\d,.]+) characters\)`,
		// PersonalMessage.english.php pm_sent, pm_successfully_sent.
		SentText: []string{"Your message has been sent successfully", "PM successfully sent to"},
		// Post.php post2's redirectexit after a reply (the topic's new
		// posts with goback, else the board) and PersonalMessage.php
		// MessagePost2's (the folder, done=sent): never the new id.
		SentLocationRegexp: `[?;&](?:topic=\d+\.new|board=\d+\.0|done=sent)(?:[;#&]|$)`,
		ConfirmLater:       true,
		FloodWaitRegexp:    `less than (?P<interval>\d+) seconds? ago`,
		// Themes/default/languages/Login.english.php incorrect_password,
		// username_no_exist; a session's failed_login_threshold-th (3)
		// failure redirects to the password reminder (LogInOut.php), then
		// Errors.english.php login_threshold_fail, login_threshold_brute_fail.
		LoginRefusedText: []string{"password incorrect", "username does not exist", "action=reminder", "out of login chances", "login attempts threshold"},
		// PersonalMessage.english.php pm_error_data_limit_reached: the
		// recipient's inbox is at their group's max_messages (the sender's
		// sent copies are never dropped).
		// Refusals no resubmission changes (Errors.english.php,
		// PersonalMessage.english.php, index.english.php): a recipient's
		// full inbox, an unknown one (pm_error_user_not_found, error_bad_to),
		// a locked topic, no permission to reply or to send PMs, a ban.
		RefusedText: []string{"as their inbox is full", "Unable to find member", "recipients could not be found",
			"This topic is locked", "You are not permitted to post replies", "You are not allowed to post replies",
			"You are not allowed to send personal messages", "You are not allowed to access this section",
			"you are banned from"},
		// Errors.english.php session_timeout, error_session_timeout,
		// session_verify_fail, token_verify_fail: the form's session or
		// token ended.
		StaleText: []string{"Your session timed out while posting", "Session verification failed", "Token verification failed"},
		// Login.english.php in_maintain_mode (members see it, HTTP 503);
		// index.english.php forum_in_maintenance (what admins see).
		ClosedText: []string{"This forum is in Maintenance Mode", "Your forum is in Maintenance Mode"},
		// [size=0.8em]: SMF takes px/pt, keywords, em (one decimal below
		// 1) or 1-7 (Sources/Subs.php parse_bbc 'size'); phpBB's
		// [size=85] matches none and would show raw.
		MarkerMarkup: "[size=0.8em]{marker}[/size]",
	}
}

// nodeBB is NodeBB 4 (its JSON API; package nodebb talks to it): posts
// are Markdown rendered to HTML (<strong>, <s>, <blockquote>; no spoiler in
// core), private messages are one-to-one chats of at most 1,000
// characters, and refusals are HTTP 400 with the board's words. Only the
// body reader's selectors, the message limit, the marker markup and the
// refusal texts are used; the URLs are the API's, in package nodebb.
func nodeBB() Profile {
	return Profile{
		Name: "nodebb",
		API:  APINodeBB,
		// The default topic page size (a user setting, postsPerPage).
		PostsPerPage: 20,
		// postDelay: 10 s between two posts by a member.
		FloodSeconds: 10,
		// A post holds at most 32,767 characters (maximumPostLength), a
		// chat message 1,000 (maximumChatMessageLength): a PM is cut to fit
		// a chat, with room for its subject line, the Markdown's escapes
		// and its marker (forum.SplitMessage keeps SplitReserve/2 free).
		MaxMessageBytes: 30000,
		MaxPMBytes:      850,
		MaxSubjectChars: 100,
		TimeZone:        "UTC",
		URLs: URLs{
			Thread:    "topic/{topic}",
			PageParam: "page",
			Post:      "post/{post}",
			Index:     "",
			Login:     "login",
			Member:    "api/user/username/{name}",
		},
		// The server-rendered topic page (Harmony), for `forumgm parse` of
		// a saved page; the bot itself reads the topic's JSON.
		Selectors: Selectors{
			Post:           `li[component="post"]`,
			PostIDAttr:     "data-pid",
			PostIDRegexp:   `^(\d+)$`,
			Author:         `a[data-username][data-uid]`,
			AuthorIDAttr:   "data-uid",
			AuthorIDRegexp: `^(\d+)$`,
			Time:           `meta[itemprop="datePublished"]`,
			TimeAttr:       "content",
			Body:           `[component="post/content"]`,
			Bold:           BoldSelector,
			Quote:          QuoteSelector,
			Spoiler:        SpoilerSelector,
			Code:           CodeSelector,
			Strike:         StrikeSelector,
		},
		// src/posts and src/messaging: "You can only post once every %1
		// second(s)", "You have sent too many messages, please wait awhile."
		FloodText:       []string{"You can only post once every", "too many messages", "please wait before posting again"},
		FloodWaitRegexp: `once every (?P<interval>\d+) second`,
		// [[error:content-too-long, N]], [[error:chat-message-too-long, N]].
		TooLongText:        []string{"Please enter a shorter post", "Chat messages can not be longer than", "too long"},
		TooLongLimitRegexp: `(?:shorter post|longer than)[^\d]*([\d,.]+)`,
		LoginRefusedText:   []string{"invalid-login-credentials", "Invalid login credentials", "Username and/or password"},
		// No size tag in Markdown, and raw HTML is escaped: the plain marker.
		MarkerMarkup: "",
	}
}

// Depth is how many submissions a flood-exempt account keeps under way on
// a board that allows rps requests a second (0: the default, 1): the
// profile's send_depth, at most one for each 2 requests a second. A
// submission takes two requests (its form, its submission; confirmations
// are batched) and about a second, its form's wait included: so many keep
// the board's rate busy, and a queue at the account's session stays under
// a second (deeper, it would spend the submissions' send budgets
// waiting). BenchmarkBurst: at one for each 4, 1,000 replies went at 50 a
// second, 100 requests a second of the 200.
func (p Profile) Depth(rps float64) int {
	if rps <= 0 {
		rps = 1
	}
	return min(max(p.SendDepth, 1), max(int(rps)/2, 1))
}
