package nodebb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/scraper"
)

// Private messages are chats: a player's orders are their messages in a
// room with the bot, the bot's PMs its messages in the one-to-one room
// with the player (opened once, then reused). Chat message ids (mid) are
// the board's, one sequence for all rooms, so one cursor covers them all.

type apiRoom struct {
	RoomID    json.Number `json:"roomId"`
	GroupChat bool        `json:"groupChat"`
	Teaser    *struct {
		FromUID   json.Number `json:"fromuid"`
		Timestamp int64       `json:"timestamp"`
	} `json:"teaser"`
}

type apiMessage struct {
	MID       json.Number `json:"mid"`
	MessageID json.Number `json:"messageId"`
	FromUID   json.Number `json:"fromuid"`
	Timestamp int64       `json:"timestamp"`
	Content   string      `json:"content"`
	System    flag        `json:"system"`
	Deleted   flag        `json:"deleted"`
	Index     int         `json:"index"`
	FromUser  struct {
		Username string `json:"username"`
	} `json:"fromUser"`
}

func (m apiMessage) id() int64 {
	s := m.MID.String()
	if s == "" {
		s = m.MessageID.String()
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// roomsPerPage is how many rooms one list request asks for; maxRoomPages
// bounds one inbox read (rooms come newest activity first).
const (
	roomsPerPage = 50
	maxRoomPages = 20
	// messagesPerPage is the board's page of a room's messages (counted
	// back from the newest).
	messagesPerPage = 50
	maxMessagePages = 40
)

// pmSlack: a room whose last message is older than the cursor's newest
// message by more than this holds nothing new (message ids and times are
// given a few milliseconds apart).
const pmSlack = 5 * time.Second

// rooms lists the bot's rooms with messages, newest activity first: every
// room on the pages it asks for, until a page ends with a room whose last
// message is older than since (0: every page), and how far back the list
// reaches: the list holds every room with activity at or after reach (0:
// every room; the board's list ended). A page's rooms are all kept, not
// only those at or after since: a list asked for one game's cursor then
// also serves the account's games whose cursors are a little older (on a
// board with fewer rooms than a page, every game's), at no extra request.
// boardAt is the board's clock when it answered the first page (zero:
// unknown).
func (c *Client) rooms(ctx context.Context, since int64) (rooms []apiRoom, reach int64, boardAt time.Time, err error) {
	// Until a page shows a room's last message, the list is known to reach
	// no time back at all.
	reach = math.MaxInt64
	for p := 0; p < maxRoomPages; p++ {
		var list struct {
			Rooms     []apiRoom `json:"rooms"`
			NextStart int       `json:"nextStart"`
		}
		start := p * roomsPerPage
		at, err := c.getJSONDated(ctx, fmt.Sprintf("api/v3/chats?start=%d&stop=%d", start, start+roomsPerPage-1), &list)
		if err != nil {
			return nil, 0, time.Time{}, err
		}
		if p == 0 {
			boardAt = at
		}
		oldest := int64(-1)
		for _, r := range list.Rooms {
			if r.Teaser == nil {
				continue // no messages yet
			}
			rooms = append(rooms, r)
			oldest = r.Teaser.Timestamp
		}
		if len(list.Rooms) < roomsPerPage {
			return rooms, 0, boardAt, nil
		}
		if oldest < 0 {
			continue // a page of rooms without messages: no news of how far back
		}
		// Rooms on later pages are no newer than this page's last: a room
		// with activity after it is listed; one at its very millisecond
		// may be on the next page.
		reach = oldest + 1
		if since > 0 && oldest < since {
			break
		}
	}
	return rooms, reach, boardAt, nil
}

// messages reads a room's messages newest page first while more says the
// oldest read so far may not be the oldest wanted; oldest first.
func (c *Client) messages(ctx context.Context, room string, more func(oldest apiMessage) bool) ([]apiMessage, error) {
	var all []apiMessage
	for p := 0; p < maxMessagePages; p++ {
		var page struct {
			Messages []apiMessage `json:"messages"`
		}
		if err := c.getJSON(ctx, fmt.Sprintf("api/v3/chats/%s/messages?start=%d", url.PathEscape(room), p*messagesPerPage), &page); err != nil {
			return nil, err
		}
		all = append(all, page.Messages...)
		if len(page.Messages) < messagesPerPage {
			break
		}
		oldest := page.Messages[0]
		for _, m := range page.Messages {
			if m.id() < oldest.id() {
				oldest = m
			}
		}
		if !more(oldest) {
			break
		}
	}
	slices.SortFunc(all, func(a, b apiMessage) int {
		switch {
		case a.id() < b.id():
			return -1
		case a.id() > b.id():
			return 1
		}
		return 0
	})
	return slices.CompactFunc(all, func(a, b apiMessage) bool { return a.id() == b.id() }), nil
}

// pmCursor is how far the chats are read: every message up to (At, Last)
// in (time, id) order. Not by id alone: ids are given as messages are
// made, and a message may be stored a moment after one with a higher id
// in another room was read.
type pmCursor struct {
	Last int64 `json:"last"` // the id of the last message read
	At   int64 `json:"at"`   // its time on the board's clock, ms
	// Listed is when the room list of the game's last read was asked for
	// (the bot's clock, ms; 0: unknown): a list asked for since is as
	// fresh as the game's own next one could be (listShared).
	Listed int64 `json:"listed,omitempty"`
}

// listShared is the oldest room list a game's read may take: one asked for
// within ListAge, or, on a machine or board slow enough that the games'
// reads come round further apart than that, one asked for since the
// game's last read listed (a list newer than the game's own last one is
// news to it; a message sent after it comes with the next read, as after
// a list of its own), but never one older than three ListAges. Without it
// two games polling every 2 s whose reads took 3 s each listed nearly
// every time. With no ListAge, none is shared.
func listShared(now time.Time, age time.Duration, cur pmCursor) time.Time {
	notBefore := now.Add(-age)
	if age <= 0 || cur.Listed == 0 {
		return notBefore
	}
	since := time.UnixMilli(cur.Listed).Add(time.Millisecond)
	if floor := now.Add(-3 * age); since.Before(floor) {
		since = floor
	}
	if since.Before(notBefore) {
		return since
	}
	return notBefore
}

// after says whether m comes after the cursor.
func (cur pmCursor) after(m apiMessage) bool {
	return m.Timestamp > cur.At || m.Timestamp == cur.At && m.id() > cur.Last
}

// settle is how long a chat message may take to be stored after its time
// is taken: a read takes only messages older than this on the board's clock
// when its room list was asked for, so none stored later is passed over;
// the newer ones are the next read's.
const settle = 3 * time.Second

// NewPMs returns the chat messages sent to the bot after the cursor, oldest
// first (forum.BoardReader): the rooms with activity since the cursor, and
// their messages after it, up to settle before the board's time of the room
// list (Inbox.ListedAt is that moment on the bot's clock: the read holds
// every message sent before it). The bot's own messages are not PMs to it;
// nor are those whose sender skip says is another game's (the cursor
// passes them; nil skips none).
func (c *Client) NewPMs(ctx context.Context, cursor []byte, skip func(from forum.Author) bool) (forum.Inbox, error) {
	var cur pmCursor
	if len(cursor) > 0 {
		if err := json.Unmarshal(cursor, &cur); err != nil {
			return forum.Inbox{}, fmt.Errorf("PM cursor: %w", err)
		}
	}
	_, uid, err := c.session(ctx)
	if err != nil {
		return forum.Inbox{}, err
	}
	since := int64(0) // every room
	if cur.At != 0 {
		since = cur.At - pmSlack.Milliseconds()
	}
	lb, err := c.chats.get(ctx, c, listShared(c.opt.Clock.Now(), c.opt.ListAge, cur), since)
	if err != nil {
		return forum.Inbox{}, err
	}
	listed, boardAt := lb.listed, lb.boardAt
	var rooms []apiRoom
	for _, r := range lb.rooms {
		if r.Teaser.Timestamp >= since {
			rooms = append(rooms, r)
		}
	}
	// The board's Date is to the second (its clock is up to a second
	// past it): a second more is left to the next read. Without a Date,
	// the bot's clock stands for the board's.
	cutoff, complete := boardAt.Add(-settle), listed.Add(-settle-time.Second)
	if boardAt.IsZero() {
		cutoff, complete = listed.Add(-settle-time.Second), listed.Add(-settle-time.Second)
	}
	var out []forum.PrivateMessage
	next := cur
	for _, r := range rooms {
		ms, err := lb.messages(ctx, c, r, cur)
		if err != nil {
			// A partial read must not look complete.
			return forum.Inbox{}, fmt.Errorf("reading chat room %s: %w", r.RoomID, err)
		}
		for _, m := range ms {
			id := m.id()
			if !cur.after(m) || m.Timestamp > cutoff.UnixMilli() {
				continue // read before, or the next read's
			}
			if next.after(m) {
				next = pmCursor{Last: id, At: m.Timestamp}
			}
			if m.FromUID.String() == uid || m.System || m.Deleted {
				continue
			}
			from := forum.Author{Name: m.FromUser.Username, ID: m.FromUID.String()}
			if skip != nil && from.Name != "" && skip(from) {
				continue
			}
			at := time.UnixMilli(m.Timestamp).UTC()
			out = append(out, forum.PrivateMessage{ID: strconv.FormatInt(id, 10), Subject: "chat",
				From: from,
				Time: at, Stamp: forum.ExactStamp(at, at.Format(time.RFC3339Nano)), BodyHTML: m.Content})
		}
	}
	slices.SortFunc(out, func(a, b forum.PrivateMessage) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return forum.CompareIDs(a.ID, b.ID)
	})
	next.Listed = listed.UnixMilli()
	b, _ := json.Marshal(next)
	return forum.Inbox{PMs: out, Next: b, ListedAt: complete}, nil
}

// roomListing shares the bot's room list among the account's games (one
// Client serves them all: forumconn's Sessions), as forumconn's listing
// shares a classic board's inbox: a game's read takes a list asked for no
// earlier than its notBefore that reaches back to its cursor, and the room
// reads made with it; games arriving while a list is under way join it.
// With N games on one account, a poll costs one list, not N, and a room
// with news one read, not one per game.
type roomListing struct {
	mu   sync.Mutex
	cur  *roomBatch // the list under way
	last *roomBatch // the newest list in
}

// roomBatch is one room list: every room with activity since since (0:
// all of them; the list may hold older ones too), the board's clock when
// it answered (zero: unknown) and the bot's when it was asked for, and the
// rooms' reads made with it.
type roomBatch struct {
	done    chan struct{}
	since   int64
	rooms   []apiRoom
	boardAt time.Time
	listed  time.Time
	err     error

	mu    sync.Mutex
	reads map[string]*roomRead
}

// roomRead is a room's messages read once for the batch's callers: every
// message newer than its oldest, or all of them (whole).
type roomRead struct {
	done  chan struct{}
	ms    []apiMessage
	whole bool
	err   error
}

// covers says whether the batch lists every room a read from since needs.
func (b *roomBatch) covers(since int64) bool { return b.since == 0 || since != 0 && b.since <= since }

func (l *roomListing) get(ctx context.Context, c *Client, notBefore time.Time, since int64) (*roomBatch, error) {
	for {
		l.mu.Lock()
		if lb := l.last; lb != nil && !lb.listed.Before(notBefore) && lb.covers(since) {
			l.mu.Unlock()
			return lb, nil
		}
		b, lead := l.cur, false
		if b == nil || !b.covers(since) {
			b, lead = &roomBatch{done: make(chan struct{}), since: since, reads: map[string]*roomRead{}}, true
			if l.cur == nil {
				l.cur = b
			}
		}
		l.mu.Unlock()
		if lead {
			b.listed = c.opt.Clock.Now()
			rooms, reach, boardAt, err := c.rooms(ctx, since)
			l.mu.Lock()
			// Under the lock: other reads ask covers of it once it is last.
			b.rooms, b.since, b.boardAt, b.err = rooms, reach, boardAt, err
			if l.cur == b {
				l.cur = nil
			}
			if b.err == nil && (l.last == nil || !b.listed.Before(l.last.listed)) {
				l.last = b
			}
			l.mu.Unlock()
			close(b.done)
			return b, b.err
		}
		select {
		case <-b.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if b.err == nil && !b.listed.Before(notBefore) {
			return b, nil
		}
		// Its list failed, or came too early for this caller: again.
	}
}

// messages is room r's messages after cur, oldest first: the batch's read
// of the room when it reaches back to cur, else one of the caller's own
// (kept for the batch's next callers when it reaches further back).
func (b *roomBatch) messages(ctx context.Context, c *Client, r apiRoom, cur pmCursor) ([]apiMessage, error) {
	room := r.RoomID.String()
	b.mu.Lock()
	rr := b.reads[room]
	lead := rr == nil
	if lead {
		rr = &roomRead{done: make(chan struct{})}
		b.reads[room] = rr
	}
	b.mu.Unlock()
	if !lead {
		select {
		case <-rr.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if rr.err == nil && (rr.whole || len(rr.ms) > 0 && !cur.after(rr.ms[0])) {
			return rr.ms, nil
		}
	}
	ms, err := c.messages(ctx, room, func(oldest apiMessage) bool { return cur.after(oldest) })
	if lead {
		// Whole when one short page held the room; else it reaches back
		// to its oldest message (at or before cur).
		rr.ms, rr.whole, rr.err = ms, len(ms) < messagesPerPage, err
		if err != nil {
			b.mu.Lock()
			delete(b.reads, room) // a failed read is not kept
			b.mu.Unlock()
		}
		close(rr.done)
	}
	return ms, err
}

// roomCache keeps the one-to-one room of each recipient once found.
type roomCache struct {
	mu    sync.Mutex
	rooms map[string]string // uid → room id
}

func (rc *roomCache) get(uid string) string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.rooms[uid]
}

func (rc *roomCache) put(uid, room string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.rooms == nil {
		rc.rooms = map[string]string{}
	}
	rc.rooms[uid] = room
}

// room is the bot's one-to-one room with uid, opened when there is none.
func (c *Client) room(ctx context.Context, uid string) (string, error) {
	if r := c.roomOf.get(uid); r != "" {
		return r, nil
	}
	var got struct {
		RoomID json.Number `json:"roomId"`
	}
	if err := c.getJSON(ctx, "api/v3/users/"+url.PathEscape(uid)+"/chat", &got); err != nil {
		return "", err
	}
	if r := got.RoomID.String(); r != "" {
		c.roomOf.put(uid, r)
		return r, nil
	}
	if n := c.flood.next(); n.After(c.opt.Clock.Now()) {
		return "", &forum.FloodError{Until: n}
	}
	// Opening a room sends nothing to anyone: no submission yet.
	n, _ := strconv.Atoi(uid)
	r, err := c.call(ctx, http.MethodPost, "api/v3/chats", map[string]any{"uids": []int{n}}, false)
	if err != nil {
		return "", err
	}
	if r.status != http.StatusOK {
		said := refusalText(r.body)
		if r.status < 500 && forum.Mentions(said, c.prof.FloodText) != "" {
			return "", &forum.FloodError{Until: c.flood.refused(said, true, c.opt.Clock.Now()), Said: said}
		}
		if r.status == http.StatusBadRequest {
			return "", fmt.Errorf("opening a chat with user %s: %w: %w", uid, forum.ErrPermanent, &Refusal{Status: r.status, Message: said})
		}
		return "", statusErr("api/v3/chats", r)
	}
	var env envelope
	if err := json.Unmarshal(r.body, &env); err == nil {
		if err := json.Unmarshal(env.Response, &got); err == nil && got.RoomID.String() != "" {
			c.roomOf.put(uid, got.RoomID.String())
			return got.RoomID.String(), nil
		}
	}
	return "", fmt.Errorf("%w: opening a chat with user %s: no room id in the answer", scraper.ErrUnavailable, uid)
}

// SendPM sends a chat message to the recipient, in their one-to-one room
// with the bot: the subject in bold, the body as Markdown, the marker line
// (forum.BoardSender).
func (c *Client) SendPM(ctx context.Context, to forum.Author, subject, body, key string) (string, error) {
	if !forum.ValidMarkerKey(key) {
		return "", fmt.Errorf("%w: invalid marker key %q", forum.ErrPermanent, key)
	}
	ctx = forum.Later(ctx)
	uid := to.ID
	if uid == "" {
		a, found, err := c.Member(ctx, to.Name)
		if err != nil {
			return "", err
		}
		if !found {
			return "", fmt.Errorf("%w: no member %q on the board", forum.ErrPermanent, to.Name)
		}
		uid = a.ID
	}
	room, err := c.room(ctx, uid)
	if err != nil {
		return "", err
	}
	text := Markdown(body) + "\n\n" + markerLine(key)
	if subject != "" {
		text = "**" + escape(subject) + "**\n\n" + text
	}
	began := c.opt.Clock.Now()
	return c.write(ctx, "chat message", "api/v3/chats/"+url.PathEscape(room), map[string]string{"message": text}, true,
		func(ctx context.Context) (string, bool, error) {
			return c.findInRoom(ctx, room, key, began.Add(-time.Minute))
		},
		func(raw json.RawMessage) (string, error) {
			var m apiMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				return "", err
			}
			if m.id() == 0 {
				return "", errors.New("no mid")
			}
			return strconv.FormatInt(m.id(), 10), nil
		})
}

// findInRoom looks for the bot's message with the marker key in a room,
// back to since (zero: the whole room, as far as maxMessagePages reach).
func (c *Client) findInRoom(ctx context.Context, room, key string, since time.Time) (string, bool, error) {
	_, uid, err := c.session(ctx)
	if err != nil {
		return "", false, err
	}
	ms, err := c.messages(ctx, room, func(oldest apiMessage) bool {
		return since.IsZero() || oldest.Timestamp >= since.UnixMilli()
	})
	if err != nil {
		return "", false, err
	}
	for _, m := range ms {
		if m.FromUID.String() == uid && forum.HasMarker(m.Content, key) {
			return strconv.FormatInt(m.id(), 10), true, nil
		}
	}
	return "", false, nil
}

// FindSentPM looks for the bot's chat message with this marker key in the
// rooms with activity since it was queued (since; zero: every room), a
// minute's slack for the clocks (forum.BoardSender).
func (c *Client) FindSentPM(ctx context.Context, key string, since time.Time) (string, bool, error) {
	from := time.Time{}
	if !since.IsZero() {
		from = since.Add(-time.Minute)
	}
	var fromMS int64
	if !from.IsZero() {
		fromMS = from.UnixMilli()
	}
	rooms, _, _, err := c.rooms(ctx, fromMS)
	if err != nil {
		return "", false, err
	}
	for _, r := range rooms {
		if r.Teaser.Timestamp < fromMS {
			break // newest activity first: none after this is recent enough
		}
		id, ok, err := c.findInRoom(ctx, r.RoomID.String(), key, from)
		if err != nil || ok {
			return id, ok, err
		}
	}
	return "", false, nil
}

func isNotFound(err error) bool { return errors.Is(err, scraper.ErrNotFound) }
