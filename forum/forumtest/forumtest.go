// Package forumtest is the one in-memory board (forum.Board) for tests: a
// thread read page by page, the bot's inbox and sent folder, and knobs for
// what a real board cannot do on demand (go down, lose a send's answer,
// refuse a message as too long, fill the sent folder). The moderator's and
// the desk's tests drive the moderator through it with the very code
// `forumgm run` reads and sends with; the end-to-end tests use forumsim or
// a real board over HTTP instead.
//
// Bodies are rendered from BBCode as phpBB renders them (bbcode.Render),
// so a game on it reads them with phpBB's body reader (engine "phpbb").
package forumtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// The fake is the port's other implementation, checked here.
var _ forum.Board = (*Board)(nil)

// reader reads the commands of the board's bodies, as a page read of a
// phpBB board does.
var reader = func() *parser.BodyReader {
	p, _ := forum.Builtin("phpbb")
	return parser.MustBodyReader(p)
}()

// Bot is the bot account's name on the fake board: its posts are by it.
const Bot = "GMbot"

// Board is an in-memory board. Its knobs may be set before it is used, or
// while a moderator runs under its lock (Board embeds sync.Mutex, which
// every method takes).
type Board struct {
	sync.Mutex
	clk clock.Clock

	posts  []forum.Post
	inbox  []forum.PrivateMessage
	sent   []sentPM
	nextID int

	// PerPage is the thread's posts per page [10].
	PerPage int
	// Made is a number of posts the thread starts with, made up by
	// MadePost(i) when a page is served and numbered 1..Made (a long
	// thread that takes no memory of its own); the board's own ids then
	// start after them.
	Made     int
	MadePost func(i int) forum.Post
	// Fetches counts the thread pages served.
	Fetches int
	// ListedAt, when set, is the time the inbox list is said to have been
	// asked for (a list shared by the account's games, older than the
	// read); zero: the board's clock at the read.
	ListedAt time.Time
	// Minutes makes the board stamp posts and PMs to the minute (as MyBB
	// does), not to the second.
	Minutes bool
	// NoIDs: the board answers a send made under forum.ConfirmLater with
	// its success but no id (as SMF does, and MyBB for PMs): the send ends
	// with forum.ErrConfirmLater. Drop: such a send's message is not kept
	// (a post held for a moderator's approval), though the board said so.
	NoIDs, Drop bool
	// NoImg: the board's admin turned [img] off in the thread's forum:
	// the bot's posts show the tag as text (bbcode.Options.NoImg).
	NoImg bool
	// NoCommands serves posts and PMs without their commands (a read that
	// did not take them from the page, as rows recorded before they were
	// kept): the moderator then reads them from the stored body. Otherwise
	// they come with them, read by phpBB's body reader as a page read
	// does.
	NoCommands bool

	// NoSignal: the board has no topic list (Mark is ErrNoSignal). Marks
	// counts the Mark calls; a thread's mark is its last post's id and
	// its posts' count, as a topic list shows them (an edit changes
	// neither, as on a real board).
	NoSignal bool
	Marks    int
	// Forum is the forum the thread's pages name as holding it (a board's
	// breadcrumbs; "": none); MarkForum the forum the last Mark asked for.
	Forum, MarkForum string

	// Down makes every call fail, as a board that is down does.
	Down bool
	// InboxErr, when set, is what reading the inbox fails with (the
	// thread reads): a profile's inbox URL gone wrong, PMs turned off.
	InboxErr error
	// Skipped counts the PMs NewPMs left out.
	Skipped int
	// Reads and Pings record when ReadThread and Ping were called; OnRead,
	// when set, hears of each read (down: it failed).
	Reads, Pings []time.Time
	OnRead       func(down bool)
	// Lose makes the next n sends succeed on the board but report an error
	// (the answer was lost), as a timeout after the post went through does.
	Lose int
	// Unconfirm makes the next n sends go out but come back unconfirmed
	// (the board's success page, the marker check failed).
	Unconfirm int
	// SaidSent makes the next n sends go out with their marker garbled
	// past recognition (its "·" as "¿", as a board in a charset forumgm
	// was not told of might keep it), and come back as the board's success
	// page whose marker was not found (forum.ErrSaidSent).
	SaidSent int
	// FindFail makes the next n marker checks fail.
	FindFail int
	// Finds counts FindPost calls (the board-side marker search);
	// SentFinds FindSentPM calls.
	Finds, SentFinds int
	// Refuse names a recipient the board will not PM (an unknown user).
	Refuse string
	// FailPM: PMs to these names fail with the error, nothing sent.
	FailPM map[string]error
	// PMCalls counts SendPM calls by recipient.
	PMCalls map[string]int
	// MaxLen refuses longer posts and PMs (marker line included) as too
	// long, with the limit, as a phpBB board does; LongRefusals counts it.
	MaxLen       int
	LongRefusals int
	// NoProof: the sent folder cannot show PMs to these names (full).
	NoProof map[string]bool
	// Missing names accounts the board does not have (Member); MemberIDs
	// gives the others' user ids.
	Missing   map[string]bool
	MemberIDs map[string]string
}

// sentPM is a PM the bot sent.
type sentPM struct {
	ID, Subject string
	To          forum.Author
	Time        time.Time
	BodyHTML    string
}

// New is an empty board on clk.
func New(clk clock.Clock) *Board { return &Board{clk: clk} }

// ErrDown is every call's error while the board is Down.
var ErrDown = errors.New("connection refused")

func (b *Board) id() string { b.nextID++; return strconv.Itoa(b.Made + b.nextID) }

// Stamp is the board's stamp of a message made at t.
func (b *Board) Stamp(t time.Time) forum.Stamp {
	if !b.Minutes {
		return forum.ExactStamp(t.Truncate(time.Second), t.Format(time.TimeOnly))
	}
	m := t.Truncate(time.Minute)
	return forum.Stamp{Earliest: m, Latest: m.Add(time.Minute), Precision: forum.PrecisionMinute, Text: m.Format("15:04")}
}

func render(text string) string { return bbcode.Render(text, bbcode.Options{}) }

// markup is the marker's markup on the fake board: phpBB's, as it renders.
var markup = func() string { p, _ := forum.Builtin("phpbb"); return p.MarkerMarkup }()

func player(name string) forum.Author { return forum.Author{Name: name, ID: "u-" + name} }

// Post makes a player's thread post of BBCode text, now.
func (b *Board) Post(_ context.Context, who, text string) error {
	b.add(forum.Post{Author: player(who), BodyHTML: render(text)}, time.Time{})
	return nil
}

// PostAt makes a player's thread post that shows only a time, at, and
// returns its id.
func (b *Board) PostAt(who, text string, at time.Time) string {
	return b.add(forum.Post{Author: player(who), BodyHTML: render(text)}, at)
}

// add puts p in the thread (see next).
func (b *Board) add(p forum.Post, at time.Time) string {
	b.Lock()
	defer b.Unlock()
	p.ID, p.Time, p.Stamp = b.next(at)
	b.posts = append(b.posts, p)
	return p.ID
}

// next is a new post's or PM's id and time: stamped by the board now, or
// (at set) showing only that time.
func (b *Board) next(at time.Time) (string, time.Time, forum.Stamp) {
	if !at.IsZero() {
		return b.id(), at, forum.Stamp{}
	}
	st := b.Stamp(b.clk.Now())
	return b.id(), st.Earliest, st
}

// PM sends the bot a player's PM of BBCode text, now.
func (b *Board) PM(_ context.Context, who, text string) error {
	b.receive(forum.PrivateMessage{From: player(who), BodyHTML: render(text)}, time.Time{})
	return nil
}

// PMSubject sends the bot a PM with a subject, now (to the second).
func (b *Board) PMSubject(who, subject, text string) {
	b.receive(forum.PrivateMessage{Subject: subject, From: player(who), BodyHTML: render(text)}, b.clk.Now().Truncate(time.Second))
}

// PMAt sends the bot a PM that shows only a time, t.
func (b *Board) PMAt(who, text string, t time.Time) {
	b.receive(forum.PrivateMessage{Subject: "orders", From: player(who), BodyHTML: render(text)}, t)
}

// receive puts pm in the bot's inbox (see next).
func (b *Board) receive(pm forum.PrivateMessage, at time.Time) {
	b.Lock()
	defer b.Unlock()
	pm.ID, pm.Time, pm.Stamp = b.next(at)
	b.inbox = append(b.inbox, pm)
}

// Edit replaces a post's text.
func (b *Board) Edit(id, text string) {
	b.Lock()
	defer b.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == id {
			b.posts[i].BodyHTML = render(text)
		}
	}
}

// Remove deletes a post.
func (b *Board) Remove(id string) {
	b.Lock()
	defer b.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == id {
			b.posts = append(b.posts[:i], b.posts[i+1:]...)
			return
		}
	}
}

// Merge appends text to a post as MyBB does with a member's consecutive
// post ("\n[hr]\n" between them).
func (b *Board) Merge(id, text string) {
	b.Lock()
	defer b.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == id {
			b.posts[i].BodyHTML += "<br>\n<hr class=\"mycode_hr\" />\n" + render(text)
			b.posts[i].Edited = true
		}
	}
}

// Unreadable gives a post a time the parser could not read.
func (b *Board) Unreadable(id string) {
	b.Lock()
	defer b.Unlock()
	for i := range b.posts {
		if b.posts[i].ID == id {
			b.posts[i].Time, b.posts[i].Stamp = time.Time{}, forum.UnreadableStamp("Smarch 32", errors.New("no layout reads it"))
		}
	}
}

// LastID is the id of the last post or PM made on the board.
func (b *Board) LastID() string {
	b.Lock()
	defer b.Unlock()
	return strconv.Itoa(b.Made + b.nextID)
}

// Posts are the thread's posts (not the made-up ones), in order.
func (b *Board) Posts() []forum.Post {
	b.Lock()
	defer b.Unlock()
	return append([]forum.Post(nil), b.posts...)
}

// Inbox is the bot's inbox, in order.
func (b *Board) Inbox() []forum.PrivateMessage {
	b.Lock()
	defer b.Unlock()
	return append([]forum.PrivateMessage(nil), b.inbox...)
}

// BotPosts are the bot's thread posts (bodies), in order.
func (b *Board) BotPosts() []string {
	b.Lock()
	defer b.Unlock()
	var out []string
	for _, p := range b.posts {
		if p.Author.Name == Bot {
			out = append(out, p.BodyHTML)
		}
	}
	return out
}

// SentTo are the bodies of the PMs the bot sent, by recipient.
func (b *Board) SentTo() map[string][]string {
	b.Lock()
	defer b.Unlock()
	out := map[string][]string{}
	for _, p := range b.sent {
		out[p.To.Name] = append(out[p.To.Name], p.BodyHTML)
	}
	return out
}

func (b *Board) String() string {
	b.Lock()
	defer b.Unlock()
	return fmt.Sprintf("%d posts, %d PMs in, %d sent", len(b.posts), len(b.inbox), len(b.sent))
}

// threadCursor is the fake's thread cursor: the last post read.
type threadCursor struct {
	Last int `json:"last"`
}

// ReadThread serves the thread as a board does (forum.BoardReader): page
// by page from the page holding the cursor's post (read again, for its
// edits; an earlier page when deletions moved the post there).
// Ping is the cheap check of a backed-off worker: it fails while Down.
func (b *Board) Ping(context.Context) error {
	b.Lock()
	defer b.Unlock()
	b.Pings = append(b.Pings, b.clk.Now())
	if b.Down {
		return ErrDown
	}
	return nil
}

func (b *Board) ReadThread(_ context.Context, _ string, cursor []byte, page func(forum.ThreadPage) error) error {
	b.Lock()
	b.Reads = append(b.Reads, b.clk.Now())
	down, onRead := b.Down, b.OnRead
	made, posts, per, cmds := b.Made, append([]forum.Post(nil), b.posts...), b.PerPage, !b.NoCommands
	b.Unlock()
	if onRead != nil {
		onRead(down)
	}
	if down {
		return ErrDown
	}
	if per <= 0 {
		per = 10
	}
	var cur threadCursor
	json.Unmarshal(cursor, &cur)
	total := made + len(posts)
	at := func(i int) forum.Post {
		if i < made {
			return b.MadePost(i)
		}
		return posts[i-made]
	}
	from := 0 // the cursor post's index, or the next post's where it is gone
	if cur.Last > 0 {
		from = total
		for i := range total {
			if n, _ := strconv.Atoi(at(i).ID); n >= cur.Last {
				from = i
				break
			}
		}
		from = min(from, max(total-1, 0))
	}
	pages := max(1, (total+per-1)/per)
	buf := make([]forum.Post, 0, per)
	for n := from/per + 1; n <= pages; n++ {
		b.Lock()
		b.Fetches++
		b.Unlock()
		buf = buf[:0]
		for i := (n - 1) * per; i < min(n*per, total); i++ {
			p := at(i)
			if cmds {
				p.Commands, p.CommandsRead = reader.Segments(p.BodyHTML), true
			}
			buf = append(buf, p)
		}
		pg := forum.ThreadPage{Posts: buf, Number: n, Pages: pages, Forum: b.Forum}
		if len(buf) > 0 {
			pg.First, pg.Last = buf[0].ID, buf[len(buf)-1].ID
			cur.Last, _ = strconv.Atoi(pg.Last)
		}
		if n == pages && pg.First != "" {
			pg.Last = strconv.Itoa(1 << 62) // past every id: a deleted last post is inside the read
		}
		pg.Next, _ = json.Marshal(cur)
		if err := page(pg); err != nil {
			return err
		}
	}
	return nil
}

// Mark is the thread's row in its forum's topic list (forum.BoardReader):
// its last post's id and replies, listed now.
func (b *Board) Mark(_ context.Context, forumID, thread string) (forum.ThreadMark, error) {
	b.Lock()
	defer b.Unlock()
	b.MarkForum = forumID
	if b.Down {
		return forum.ThreadMark{}, ErrDown
	}
	if b.NoSignal {
		return forum.ThreadMark{}, forum.ErrNoSignal
	}
	b.Marks++
	m := forum.ThreadMark{Thread: thread, Listed: b.clk.Now()}
	n := b.Made + len(b.posts)
	last := ""
	if len(b.posts) > 0 {
		last = b.posts[len(b.posts)-1].ID
	} else if b.Made > 0 {
		last = strconv.Itoa(b.Made)
	}
	if n > 0 {
		m.Sign = forum.PostSign(last, strconv.Itoa(n-1))
	}
	return m, nil
}

// NewPMs returns the inbox PMs newer than the cursor (forum.BoardReader).

// NewPMs is the inbox after the cursor without the PMs whose sender skip
// refuses, as a real inbox list shows the sender; Skipped counts
// them.
func (b *Board) NewPMs(_ context.Context, cursor []byte, skip func(forum.Author) bool) (forum.Inbox, error) {
	b.Lock()
	defer b.Unlock()
	if b.Down {
		return forum.Inbox{}, ErrDown
	}
	if b.InboxErr != nil {
		return forum.Inbox{}, b.InboxErr
	}
	var last int
	json.Unmarshal(cursor, &last)
	box := forum.Inbox{ListedAt: b.ListedAt}
	if box.ListedAt.IsZero() {
		box.ListedAt = b.clk.Now()
	}
	for _, pm := range b.inbox {
		if n, _ := strconv.Atoi(pm.ID); n > last {
			if skip != nil && skip(pm.From) {
				b.Skipped++
				last = n
				continue
			}
			if !b.NoCommands {
				pm.Commands, pm.CommandsRead = reader.Lines(pm.BodyHTML), true
			}
			box.PMs = append(box.PMs, pm)
			last = n
		}
	}
	box.Next, _ = json.Marshal(last)
	return box, nil
}

// Member finds every name except those in Missing, with its id from
// MemberIDs when set there (forum.BoardReader).
func (b *Board) Member(_ context.Context, name string) (forum.Author, bool, error) {
	b.Lock()
	defer b.Unlock()
	if b.Down {
		return forum.Author{}, false, ErrDown
	}
	if b.Missing[name] {
		return forum.Author{}, false, nil
	}
	return forum.Author{Name: name, ID: b.MemberIDs[name]}, true, nil
}

// refuseLong is the board's answer to a message too long for it.
func (b *Board) refuseLong(text string) error {
	if b.MaxLen > 0 && len(text) > b.MaxLen {
		b.LongRefusals++
		return fmt.Errorf("%w: %w", forum.ErrPermanent, &forum.TooLongError{Max: b.MaxLen,
			Said: fmt.Sprintf("Your message contains %d characters. The maximum number of allowed characters is %d.", len(text), b.MaxLen)})
	}
	return nil
}

// garble is text as the board keeps it, and the error its send comes back
// with: with SaidSent, the marker's "·" garbled past recognition, and the
// board's success page.
func (b *Board) garble(text string) (string, error) {
	if b.SaidSent <= 0 {
		return text, nil
	}
	b.SaidSent--
	return strings.ReplaceAll(text, "·", "¿"), fmt.Errorf("%w (%w): the board said it was sent (This message has been sent successfully.), but its marker was not found", forum.ErrUnconfirmed, forum.ErrSaidSent)
}

// lost is the error of a send that went out but was not confirmed, if any.
func (b *Board) lost() error {
	if b.Unconfirm > 0 {
		b.Unconfirm--
		return fmt.Errorf("%w: the board said it was sent (This message has been sent successfully.), but the marker check failed: connection reset", forum.ErrUnconfirmed)
	}
	if b.Lose > 0 {
		b.Lose--
		return errors.New("timeout awaiting response")
	}
	return nil
}

// submitting is the moment a real port's request leaves: the sender's
// hook runs (forum.Submitting); a hook's error leaves the message
// unsubmitted, as the real ports report it. ended is the hook's, for when
// the request has ended.
func (b *Board) submitting(ctx context.Context) (ended func(), err error) {
	ended, err = forum.Submitting(ctx)
	if err != nil {
		return ended, fmt.Errorf("%w: %w", forum.ErrNotSubmitted, err)
	}
	return ended, nil
}

// Reply posts as the bot, with the marker line (forum.BoardSender).
func (b *Board) Reply(ctx context.Context, _, body, key string) (string, error) {
	b.Lock()
	defer b.Unlock()
	ended, err := b.submitting(ctx)
	defer ended()
	if err != nil {
		return "", err
	}
	if b.Down {
		return "", ErrDown
	}
	text, said := b.garble(forum.WithMarker(markup, body, key))
	if err := b.refuseLong(text); err != nil {
		return "", err
	}
	id := b.id()
	st := b.Stamp(b.clk.Now())
	later := b.NoIDs && forum.ConfirmsLater(ctx)
	if !later || !b.Drop {
		b.posts = append(b.posts, forum.Post{ID: id, Author: forum.Author{Name: Bot, ID: "u-bot"}, Time: st.Earliest, Stamp: st, BodyHTML: bbcode.Render(text, bbcode.Options{NoImg: b.NoImg})})
	}
	if later {
		return "", fmt.Errorf("reply: %w", forum.ErrConfirmLater)
	}
	if said != nil {
		return "", said
	}
	if err := b.lost(); err != nil {
		return "", err
	}
	return id, nil
}

// SendPM sends a PM as the bot, with the marker line (forum.BoardSender).
func (b *Board) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	b.Lock()
	defer b.Unlock()
	ended, err := b.submitting(ctx)
	defer ended()
	if err != nil {
		return "", err
	}
	if b.Down {
		return "", ErrDown
	}
	if b.PMCalls == nil {
		b.PMCalls = map[string]int{}
	}
	b.PMCalls[to.Name]++
	if to.Name == b.Refuse {
		return "", fmt.Errorf("%w: the board says: no such user", forum.ErrPermanent)
	}
	if err := b.FailPM[to.Name]; err != nil {
		return "", err
	}
	text, said := b.garble(forum.WithMarker(markup, body, key))
	if err := b.refuseLong(text); err != nil {
		return "", err
	}
	id := b.id()
	later := b.NoIDs && forum.ConfirmsLater(ctx)
	if !later || !b.Drop {
		b.sent = append(b.sent, sentPM{ID: id, Subject: subject, To: to, Time: b.clk.Now(), BodyHTML: render(text)})
	}
	if later {
		return "", fmt.Errorf("PM: %w", forum.ErrConfirmLater)
	}
	if said != nil {
		return "", said
	}
	if err := b.lost(); err != nil {
		return "", err
	}
	return id, nil
}

// FindPost looks for the bot's post with the marker (forum.BoardSender).
func (b *Board) FindPost(_ context.Context, _, key string) (string, bool, error) {
	b.Lock()
	defer b.Unlock()
	b.Finds++
	if b.FindFail > 0 {
		b.FindFail--
		return "", false, errors.New("GET viewtopic.php: forum unavailable")
	}
	for _, p := range b.posts {
		if p.Author.Name == Bot && forum.HasMarker(p.BodyHTML, key) {
			return p.ID, true, nil
		}
	}
	return "", false, nil
}

// FindSentPM looks for a sent PM with the marker (forum.BoardSender).
func (b *Board) FindSentPM(_ context.Context, key string, _ time.Time) (string, bool, error) {
	b.Lock()
	defer b.Unlock()
	b.SentFinds++
	if b.FindFail > 0 {
		b.FindFail--
		return "", false, errors.New("GET ucp.php?i=pm&folder=sentbox: forum unavailable")
	}
	for _, p := range b.sent {
		if forum.HasMarker(p.BodyHTML, key) && b.NoProof[p.To.Name] {
			return "", false, fmt.Errorf("the sent folder is full (50 PMs): %w", forum.ErrNoProof)
		}
	}
	for _, p := range b.sent {
		if forum.HasMarker(p.BodyHTML, key) {
			return p.ID, true, nil
		}
	}
	return "", false, nil
}

// Flood is what the fake board has taught of its flood control: nothing
// (it has none) (forum.BoardSender).
func (b *Board) Flood() forum.FloodStatus { return forum.FloodStatus{State: forum.FloodUnknown} }
