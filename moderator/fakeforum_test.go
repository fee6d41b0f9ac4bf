package moderator

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
	"github.com/forumgm/forumgm/scraper"
)

// fakeForum is an in-memory forum for the moderator's own tests: one thread,
// the bot's inbox and sent folder. The end-to-end tests use forumsim over
// HTTP instead; this one makes crash tests at every point fast.
type fakeForum struct {
	mu    sync.Mutex
	clk   clock.Clock
	posts []forum.Post
	// missing names accounts the board does not have (Member).
	missing   map[string]bool
	memberIDs map[string]string
	inbox     []forum.PrivateMessage
	sent      []forum.PrivateMessage
	nextID    int
	// lose makes the next n sends succeed on the forum but report an error
	// (the answer was lost), as a timeout after the post went through does.
	lose int
	// down makes every call fail, as a forum that is down does.
	down bool
	// refuse names a recipient the board will not PM (an unknown user).
	refuse string
	// finds counts FindPost calls (the forum-side marker search).
	finds int
	// minutes makes the board stamp posts and PMs to the minute (as MyBB
	// does), not to the second.
	minutes bool
	// failPM: PMs to these names fail with the error, nothing sent.
	failPM map[string]error
	// pmCalls counts SendPM calls by recipient.
	pmCalls map[string]int
	// maxLen refuses longer posts and PMs (marker line included) as too
	// long, with the limit, as a phpBB board does; longRefusals counts it.
	maxLen       int
	longRefusals int
	// unconfirm makes the next n sends go out but come back unconfirmed
	// (the board's success page, the marker check failed).
	unconfirm int
	// findFail makes the next n marker checks fail.
	findFail int
	// noProof: the sent folder cannot show PMs to these names (full).
	noProof map[string]bool
}

// refuseLong is the board's answer to a message too long for it.
func (f *fakeForum) refuseLong(text string) error {
	if f.maxLen > 0 && len(text) > f.maxLen {
		f.longRefusals++
		return fmt.Errorf("%w: %w", forum.ErrPermanent, &forum.TooLongError{Max: f.maxLen,
			Said: fmt.Sprintf("Your message contains %d characters. The maximum number of allowed characters is %d.", len(text), f.maxLen)})
	}
	return nil
}

// lost is the error of a send that went out but was not confirmed, if any.
func (f *fakeForum) lost() error {
	if f.unconfirm > 0 {
		f.unconfirm--
		return fmt.Errorf("%w: the board said it was sent (This message has been sent successfully.), but the marker check failed: connection reset", forum.ErrUnconfirmed)
	}
	if f.lose > 0 {
		f.lose--
		return errors.New("timeout awaiting response")
	}
	return nil
}

// stamp is the board's stamp of a message made at t.
func (f *fakeForum) stamp(t time.Time) forum.Stamp {
	if !f.minutes {
		return forum.ExactStamp(t.Truncate(time.Second), t.Format(time.TimeOnly))
	}
	m := t.Truncate(time.Minute)
	return forum.Stamp{Earliest: m, Latest: m.Add(time.Minute), Precision: forum.PrecisionMinute, Text: m.Format("15:04")}
}

var phpbb = func() *parser.Parser {
	p, _ := forum.Builtin("phpbb")
	return parser.MustNew(p)
}()

func (f *fakeForum) id() string { f.nextID++; return strconv.Itoa(f.nextID) }

func (f *fakeForum) Post(ctx context.Context, player, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.stamp(f.clk.Now())
	f.posts = append(f.posts, forum.Post{ID: f.id(), Author: forum.Author{Name: player, ID: "u-" + player}, Time: st.Earliest, Stamp: st, BodyHTML: bbcode.Render(text, bbcode.Options{})})
	return nil
}

func (f *fakeForum) PM(ctx context.Context, player, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.stamp(f.clk.Now())
	f.inbox = append(f.inbox, forum.PrivateMessage{ID: f.id(), From: forum.Author{Name: player, ID: "u-" + player}, Time: st.Earliest, Stamp: st, BodyHTML: bbcode.Render(text, bbcode.Options{})})
	return nil
}

var errDown = errors.New("connection refused")

func (f *fakeForum) ReadThread(ctx context.Context, thread string, cursor []byte, visit func(forum.Post) error) ([]byte, string, string, error) {
	f.mu.Lock()
	if f.down {
		f.mu.Unlock()
		return nil, "", "", errDown
	}
	posts := append([]forum.Post(nil), f.posts...)
	f.mu.Unlock()
	var last int
	json.Unmarshal(cursor, &last)
	// Like a real board: re-read the cursor's "page" (the last 3 posts seen).
	from := 0
	for i, p := range posts {
		if n, _ := strconv.Atoi(p.ID); n >= last {
			from = max(0, i-3)
			break
		}
		from = len(posts)
	}
	if from > len(posts) {
		from = len(posts)
	}
	first, lastID := "", ""
	for _, p := range posts[from:] {
		if first == "" {
			first = p.ID
		}
		lastID = p.ID
		if err := visit(p); err != nil {
			return nil, "", "", err
		}
	}
	if lastID == "" {
		return cursor, "", "", nil
	}
	n, _ := strconv.Atoi(lastID)
	b, _ := json.Marshal(n)
	return b, first, lastID, nil
}

func (f *fakeForum) NewPMs(ctx context.Context, cursor []byte) ([]forum.PrivateMessage, []byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return nil, nil, errDown
	}
	var last int
	json.Unmarshal(cursor, &last)
	var out []forum.PrivateMessage
	for _, pm := range f.inbox {
		if n, _ := strconv.Atoi(pm.ID); n > last {
			out = append(out, pm)
			last = n
		}
	}
	b, _ := json.Marshal(last)
	return out, b, nil
}

func (f *fakeForum) Segments(body string) []string { return phpbb.Segments(body) }
func (f *fakeForum) Hash(body string) string       { return scraper.BodyHash(body) }
func (f *fakeForum) Lines(body string) []string    { return phpbb.Lines(body) }

func marked(body, key string) string { return body + "\n[size=85]forumgm·" + key + "[/size]" }

func (f *fakeForum) Reply(ctx context.Context, thread, body, key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return "", errDown
	}
	if err := f.refuseLong(marked(body, key)); err != nil {
		return "", err
	}
	id := f.id()
	st := f.stamp(f.clk.Now())
	f.posts = append(f.posts, forum.Post{ID: id, Author: forum.Author{Name: "GMbot", ID: "u-bot"}, Time: st.Earliest, Stamp: st, BodyHTML: bbcode.Render(marked(body, key), bbcode.Options{})})
	if err := f.lost(); err != nil {
		return "", err
	}
	return id, nil
}

func (f *fakeForum) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return "", errDown
	}
	if f.pmCalls == nil {
		f.pmCalls = map[string]int{}
	}
	f.pmCalls[to.Name]++
	if to.Name == f.refuse {
		return "", fmt.Errorf("%w: the board says: no such user", forum.ErrPermanent)
	}
	if err := f.failPM[to.Name]; err != nil {
		return "", err
	}
	if err := f.refuseLong(marked(body, key)); err != nil {
		return "", err
	}
	id := f.id()
	f.sent = append(f.sent, forum.PrivateMessage{ID: id, Subject: subject, From: to, Time: f.clk.Now(), BodyHTML: bbcode.Render(marked(body, key), bbcode.Options{})})
	if err := f.lost(); err != nil {
		return "", err
	}
	return id, nil
}

func (f *fakeForum) FindPost(ctx context.Context, thread, key string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finds++
	if f.findFail > 0 {
		f.findFail--
		return "", false, errors.New("GET viewtopic.php: forum unavailable")
	}
	for _, p := range f.posts {
		if strings.Contains(p.BodyHTML, "forumgm·"+key+"<") {
			return p.ID, true, nil
		}
	}
	return "", false, nil
}

func (f *fakeForum) FindSentPM(ctx context.Context, key string, since time.Time) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.findFail > 0 {
		f.findFail--
		return "", false, errors.New("GET ucp.php?i=pm&folder=sentbox: forum unavailable")
	}
	for _, p := range f.sent {
		if strings.Contains(p.BodyHTML, "forumgm·"+key+"<") && f.noProof[p.From.Name] {
			return "", false, fmt.Errorf("the sent folder is full (50 PMs): %w", forum.ErrNoProof)
		}
	}
	for _, p := range f.sent {
		if strings.Contains(p.BodyHTML, "forumgm·"+key+"<") {
			return p.ID, true, nil
		}
	}
	return "", false, nil
}

// botPosts are the bot's thread posts (bodies), in order.
func (f *fakeForum) botPosts() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, p := range f.posts {
		if p.Author.Name == "GMbot" {
			out = append(out, p.BodyHTML)
		}
	}
	return out
}

// sentTo are the PMs the bot sent, by recipient.
func (f *fakeForum) sentTo() map[string][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string][]string{}
	for _, p := range f.sent {
		out[p.From.Name] = append(out[p.From.Name], p.BodyHTML)
	}
	return out
}

func (f *fakeForum) String() string {
	return fmt.Sprintf("%d posts, %d PMs in, %d sent", len(f.posts), len(f.inbox), len(f.sent))
}

func (f *fakeForum) edit(id, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.posts {
		if f.posts[i].ID == id {
			f.posts[i].BodyHTML = bbcode.Render(text, bbcode.Options{})
		}
	}
}

func (f *fakeForum) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.posts {
		if f.posts[i].ID == id {
			f.posts = append(f.posts[:i], f.posts[i+1:]...)
			return
		}
	}
}

func (f *fakeForum) lastID() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strconv.Itoa(f.nextID)
}

// PMSubject sends the bot a PM with a subject.
func (f *fakeForum) PMSubject(player, subject, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inbox = append(f.inbox, forum.PrivateMessage{ID: f.id(), Subject: subject, From: forum.Author{Name: player, ID: "u-" + player},
		Time: f.clk.Now().Truncate(time.Second), BodyHTML: bbcode.Render(text, bbcode.Options{})})
}

// PMAt sends the bot a PM stamped at t (to the second).
func (f *fakeForum) PMAt(player, text string, t time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.inbox = append(f.inbox, forum.PrivateMessage{ID: f.id(), Subject: "orders", From: forum.Author{Name: player, ID: "u-" + player},
		Time: t, BodyHTML: bbcode.Render(text, bbcode.Options{})})
}

func fakePost(f *fakeForum, player, text string, at time.Time) forum.Post {
	return forum.Post{ID: f.id(), Author: forum.Author{Name: player, ID: "u-" + player}, Time: at, BodyHTML: bbcode.Render(text, bbcode.Options{})}
}

// merge appends text to a post as MyBB does with a member's consecutive
// post ("\n[hr]\n" between them).
func (f *fakeForum) merge(id, text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.posts {
		if f.posts[i].ID == id {
			f.posts[i].BodyHTML += "<br>\n<hr class=\"mycode_hr\" />\n" + bbcode.Render(text, bbcode.Options{})
			f.posts[i].Edited = true
		}
	}
}

// unreadable gives a post a time the parser could not read.
func (f *fakeForum) unreadable(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.posts {
		if f.posts[i].ID == id {
			f.posts[i].Time, f.posts[i].Stamp = time.Time{}, forum.UnreadableStamp("Smarch 32", errors.New("no layout reads it"))
		}
	}
}

// Member finds every name except those in missing (accounts the board does
// not have), with its id from memberIDs when set there.
func (f *fakeForum) Member(_ context.Context, name string) (forum.Author, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.down {
		return forum.Author{}, false, errDown
	}
	if f.missing[name] {
		return forum.Author{}, false, nil
	}
	return forum.Author{Name: name, ID: f.memberIDs[name]}, true, nil
}
