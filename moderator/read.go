package moderator

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signups"
	"github.com/forumgm/forumgm/store"
)

// readSlice is how long one tick reads thread pages before the rest of
// the game's work runs (what was read applied, its deadlines, its inbox,
// its sends): the game's poll period, at least a second. A long first
// read (a game started in a sign-up thread of hundreds of pages) that is
// still behind then goes on from where it stopped in the next tick, at
// once (Moderator.Backfilling: the worker does not wait for the next
// poll), so it runs at the board's pace (its requests_per_second, shared
// with the account's other games), not at a number of pages a poll.
func readSlice(l *loaded) time.Duration { return max(l.forum.Poll(), time.Second) }

var errPollFull = errors.New("enough thread pages for one tick")

// Backfilling says whether the game's last read stopped before the end of
// its thread (a long first read under way): its next tick should come at
// once, not at the next poll.
func (m *Moderator) Backfilling(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.backfilling[id]
}

func (m *Moderator) setBackfilling(id int64, behind bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !behind {
		delete(m.backfilling, id)
		return
	}
	if m.backfilling == nil {
		m.backfilling = map[int64]bool{}
	}
	m.backfilling[id] = true
}

// read records new posts, edits, deletions and new PMs. The thread is read
// page by page, each page recorded in its own transaction with the cursor
// after it (memory stays one page whatever the thread's length, and a
// crash loses at most that page's work), for at most readSlice; then the
// new PMs in one more. A read that stops before the thread's end leaves l
// behind: process applies and resolves only up to the last post recorded,
// and the next tick goes on at once.
//
// readAt, when the read began, is kept as each new message's FirstSeen: the
// thread read that starts then is complete up to then, so it is the latest a
// message with only a minute-precise time can be said to have been made.
// PMs from an inbox list shared with other games are bounded by when that
// list was asked for instead. It returns the time the read is complete up
// to: readAt, or that list's time when earlier.
func (m *Moderator) read(ctx context.Context, l *loaded, f forum.BoardReader, readAt time.Time) (time.Time, error) {
	var (
		unreadable []string
		news       int
		read       int
		prevLast   string // the last post of the page before: deletions between pages
		newest     time.Time
		last       forum.Post // the newest post read
		start      = -1
		slice      = readSlice(l)
	)
	l.behind, l.readTo, l.news = false, time.Time{}, false
	l.inboxDown, l.pmsTo = false, time.Time{}
	defer func() { m.setBackfilling(l.row.ID, l.behind); l.news = news > 0 }()
	// A hailed tick whose thread was read within its poll period reads
	// the inbox alone (hail.go).
	if known, ok := m.inboxOnly(ctx, l, readAt); ok {
		return m.readPMs(ctx, l, f, readAt, known, nil, &news)
	}
	// The change signal first (poll.go): a thread its topic list shows
	// unchanged since the last full read is not read again.
	skip, known, mark := m.unchanged(ctx, l, f, readAt)
	if skip {
		return m.readPMs(ctx, l, f, readAt, known, nil, &news) // the inbox only
	}
	err := f.ReadThread(readRank(ctx, l), l.forum.Thread, l.row.ThreadCursor, func(pg forum.ThreadPage) error {
		if err := m.crash("after-thread"); err != nil {
			return err
		}
		posts, n, pages := pg.Posts, pg.Number, pg.Pages
		m.noteForum(l.row.ID, l.forum.Account(), pg.Forum)
		th := threadRead{posts: posts, first: pg.First, last: pg.Last}
		if prevLast != "" {
			th.first = prevLast
			th.posts = append(posts[:len(posts):len(posts)], forum.Post{ID: prevLast})
		}
		_, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error {
			r := m.newIntake(tx, s, readAt, l.row.LastRead)
			defer func() { unreadable, news = append(unreadable, r.unreadable...), news+r.news }()
			for _, p := range posts {
				if err := r.post(p); err != nil {
					return err
				}
			}
			if !r.opened.IsZero() {
				// Its time as the board stamped it: the clock restarts
				// there if it had started earlier.
				cfg := s.l.cfg
				cfg.OpeningFound = false
				s.l.cfg, s.l.cfgChanged = cfg, true
				if err := m.startClock(tx, s, s.l.cfg.OpeningPost, r.opened); err != nil {
					return err
				}
			}
			if err := m.deletions(tx, s, th); err != nil {
				return err
			}
			if err := m.edits(r); err != nil {
				return err
			}
			s.ch.Progress = &store.ProgressChange{GameID: l.row.ID, Progress: store.ThreadProgress{Page: n, Pages: pages}}
			s.l.row.ThreadCursor = pg.Next
			return nil
		})
		if err != nil {
			return storeError{fmt.Errorf("recording page %d: %w", n, err)}
		}
		read++
		if start < 0 {
			start = n
		}
		for _, p := range posts {
			if st := stampOf(p.Stamp, p.Time); st.Known() && st.Earliest.After(newest) {
				newest = st.Earliest
			}
		}
		if len(posts) > 0 {
			prevLast = posts[len(posts)-1].ID
			last = posts[len(posts)-1]
		}
		if pages-start >= 2 {
			m.log().Info("thread backfill", "game", l.row.Name, "page", fmt.Sprintf("%d of %d", n, pages))
		}
		if n < pages && m.now().Sub(readAt) >= slice {
			l.behind, l.readTo = true, newest
			return errPollFull
		}
		return nil
	})
	if err != nil && !errors.Is(err, errPollFull) {
		var se storeError
		if errors.As(err, &se) {
			return readAt, storeError{fmt.Errorf("read %s: the thread: %w", l.row.Name, err)}
		}
		return readAt, fmt.Errorf("read %s: the thread: %w", l.row.Name, err)
	}
	if l.behind {
		m.log().Info("thread backfill goes on after the game's other work", "game", l.row.Name, "pages_this_tick", read)
	} else {
		m.fullRead(l, mark, readAt, last)
	}
	return m.readPMs(ctx, l, f, readAt, readAt, unreadable, &news)
}

// readPMs is a read's last part: the inbox, recorded with the read's time,
// or, when the inbox fails on its own, the read going on without it
// (inbox.go). The thread is known complete up to threadTo (readAt, or
// when its topic list showed it unchanged), so the read is complete up to
// the earlier of that and the inbox list's time. unreadable are the
// thread's messages nested too deeply to read, warned of with the PMs'.
func (m *Moderator) readPMs(ctx context.Context, l *loaded, f forum.BoardReader, readAt, threadTo time.Time, unreadable []string, news *int) (time.Time, error) {
	in, err := m.readInbox(ctx, l, f, readAt)
	if err != nil {
		if !inboxTrouble(ctx, err) {
			return readAt, err
		}
		m.warnUnreadable(l, unreadable)
		to, err := m.withoutInbox(ctx, l, readAt, err)
		if err == nil && threadTo.Before(to) {
			to = threadTo
		}
		return to, err
	}
	if threadTo.Before(in.complete) {
		in.complete = threadTo
	}
	if len(in.pms) == 0 && l.active() && m.wasHealthy(l.row.ID) {
		// Nothing to route (most polls): what the read leaves (the PM
		// cursor, the time it is complete up to, the board's health) is
		// recorded by the tick's last step, which loads and saves the game
		// anyway (process), rather than by a step of its own. A crash
		// before then leaves the read to be made again. Not a read that
		// ends a failure: that is saved at once, so that an outage it
		// ends is acted on once, whatever happens next.
		l.inbox = &pendingInbox{in: in, readAt: readAt}
		m.warnUnreadable(l, unreadable)
		return in.complete, nil
	}
	s, err := m.runStep(ctx, l, func(tx *store.Tx, s *step) error {
		r := m.newIntake(tx, s, readAt, l.row.LastRead)
		defer func() { unreadable, *news = append(unreadable, r.unreadable...), *news+r.news }()
		return m.recordInbox(r, in, readAt)
	})
	if err != nil {
		return readAt, storeError{fmt.Errorf("read %s: recording: %w", l.row.Name, err)}
	}
	m.noteHealth(l.row.ID, s)
	m.warnUnreadable(l, unreadable)
	return in.complete, nil
}

// threadRead is one page of the thread as recorded: its posts (with the
// last post of the page before, when there was one) and the range of post
// ids it covered without gaps.
type threadRead struct {
	posts       []forum.Post
	first, last string
}

// inboxRead is one read of the bot's new PMs: at, when their list was asked
// for (a list shared by games may be older than this game's read), and
// complete, the time the whole read is complete up to.
type inboxRead struct {
	pms          []forum.PrivateMessage
	next         []byte
	at, complete time.Time
}

func (m *Moderator) readInbox(ctx context.Context, l *loaded, f forum.BoardReader, readAt time.Time) (inboxRead, error) {
	box, err := m.newPMs(ctx, l, f)
	if err != nil {
		return inboxRead{}, fmt.Errorf("read %s: the inbox: %w", l.row.Name, err)
	}
	in := inboxRead{pms: box.PMs, next: box.Next, at: box.ListedAt.UTC().Truncate(time.Microsecond)}
	in.complete = readAt
	if in.at.Before(in.complete) {
		in.complete = in.at
	}
	return in, nil
}

// wasHealthy says whether game id's last read recorded by this moderator
// left its board and inbox readable with no outage waiting.
func (m *Moderator) wasHealthy(id int64) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.healthy[id]
}

// noteHealth keeps whether committed step s, which recorded a read, left
// the board and inbox readable with no outage waiting (wasHealthy).
func (m *Moderator) noteHealth(id int64, s *step) {
	h := s.ch.Health
	m.setHealthy(id, h != nil && !h.Failing() && !h.InboxFailing() && !h.Outage())
}

func (m *Moderator) setHealthy(id int64, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !ok {
		delete(m.healthy, id)
		return
	}
	if m.healthy == nil {
		m.healthy = map[int64]bool{}
	}
	m.healthy[id] = true
}

// recordPending records a read's inbox left for later (readPMs) in step s,
// as its own step would have, before anything else in s. (Only a read
// after a healthy one is left for later: it ends no outage, which the
// step, begun before it, would not act on.)
func (m *Moderator) recordPending(tx *store.Tx, s *step, l *loaded) error {
	p := l.inbox
	if p == nil {
		return nil
	}
	l.inbox = nil
	return m.recordInbox(m.newIntake(tx, s, p.readAt, s.l.row.LastRead), p.in, p.readAt)
}

// newPMs reads the inbox's new PMs. Where many games share the inbox, a
// game leaves unread the PMs its list shows from a player of another game
// who is not one of its own (routePMs would pass them by): at 1,000
// games, every game read and routed every other game's PMs, and nearly
// every poll during a burst had PMs to record. The games are as the
// tick's view found them; should any game's status, settings or roster
// have changed since (store.Tx.GamesVersion), the PMs are read again
// unfiltered, so a PM is never passed by on an old roster.
func (m *Moderator) newPMs(ctx context.Context, l *loaded, f forum.BoardReader) (forum.Inbox, error) {
	if l.sibs == nil || len(l.sibs.games) < 2 {
		return f.NewPMs(ctx, l.row.PMCursor, nil)
	}
	roster, ix, id := l.state.Roster(), l.sibs, l.row.ID
	skipped := false
	var others []int64 // the games of the players whose PMs it passes by
	box, err := f.NewPMs(ctx, l.row.PMCursor, func(from forum.Author) bool {
		if _, mine := roster.Author(from.Name); mine {
			return false
		}
		skip := ix.elsewhere(from.Name, id)
		if skip {
			for _, g := range ix.also(from.Name, id) {
				others = append(others, g.id)
			}
		}
		skipped = skipped || skip
		return skip
	})
	if err == nil {
		listed := box.ListedAt
		if listed.IsZero() {
			listed = m.now()
		}
		m.noteListRead(id, listed)
		m.hail(others, listed) // their games read them now, not at their turn
	}
	if err != nil || !skipped {
		return box, err // nothing left out: nothing to check
	}
	var now int64
	if err := m.DB.View(ctx, func(tx *store.Tx) (err error) { now, err = tx.GamesVersion(); return err }); err != nil {
		return forum.Inbox{}, storeError{err}
	}
	if now != l.sibsAt {
		return f.NewPMs(ctx, l.row.PMCursor, nil)
	}
	return box, nil
}

// recordInbox is a read's last step: the new PMs routed (first seen when
// their list was asked for), edits, the PM cursor, the read's time, the
// forum health.
func (m *Moderator) recordInbox(r *intake, in inboxRead, readAt time.Time) error {
	if len(in.pms) > 0 {
		r.seen = in.at // the PMs were made before their list was asked for
		err := m.routePMs(r, in.pms)
		r.seen = readAt
		if err != nil {
			return err
		}
	}
	if err := m.edits(r); err != nil {
		return err
	}
	r.s.l.row.PMCursor, r.s.l.row.LastRead = in.next, in.complete
	if err := m.readOK(r.tx, r.s, readAt); err != nil {
		return err
	}
	m.inboxOK(r.s)
	return nil
}

func (m *Moderator) warnUnreadable(l *loaded, unreadable []string) {
	for _, u := range unreadable {
		m.log().Warn("a message nested too deeply to read: recorded as unreadable, none of its commands read; a player's author is told by PM to send it again",
			"game", l.row.Name, "message", u)
	}
}

// newIntake starts recording one read's messages in a step.
func (m *Moderator) newIntake(tx *store.Tx, s *step, readAt, lastRead time.Time) *intake {
	return &intake{tx: tx, s: s, seen: readAt, lastRead: lastRead, merge: s.l.site.Reader.MergeSeparator(),
		prev: map[forum.MessageKind]*store.Message{}}
}

// deletions marks the stored posts inside the read's range that the read
// did not see.
func (m *Moderator) deletions(tx *store.Tx, s *step, th threadRead) error {
	if th.first == "" || th.last == "" {
		return nil
	}
	ids, err := tx.PostIDsBetween(s.l.row.ID, th.first, th.last)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, p := range th.posts {
		seen[p.ID] = true
	}
	for _, pid := range ids {
		if base, _, merged := strings.Cut(pid, "+"); merged && seen[base] {
			continue // text a board appended to a post that is still there
		}
		if !seen[pid] {
			s.ch.Deleted = append(s.ch.Deleted, store.Deletion{GameID: s.l.row.ID, Kind: forum.KindPost, ForumID: pid, Seen: m.now()})
			m.log().Info("post deleted; its commands stand unless the GM voids them", "game", s.l.row.Name, "post", pid)
		}
	}
	return nil
}

// intake keeps the posts and PMs of one read as first seen, and the
// edits among them for the step to judge.
type intake struct {
	tx       *store.Tx
	s        *step
	seen     time.Time // when the read began
	lastRead time.Time // when the read before it began
	merge    *regexp.Regexp
	prev     map[forum.MessageKind]*store.Message // the last message of each kind observed
	edited   []store.Message
	// unreadable are the new or changed messages the parser could not
	// take (forum.UnreadableBody): recorded as such, flagged to the GM.
	unreadable []string
	news       int // messages new or edited
	// opened is when the game's opening post went up, at the earliest,
	// when this read recorded it first and the post had been found on the
	// board by its marker before (zero: not so): the game's clock started
	// at a guess then (openingPosted, gameconfig's OpeningFound).
	opened time.Time
}

// observe records one post or PM. It is the store's one upsert per message:
// whether it is new, unchanged or edited is known only once compared with
// what is stored. A new message's stamp is narrowed by what the bot saw: it
// was made before this read began, and not before the message of its kind
// with the next smaller id (posts are numbered as they are made, and so
// are a board's PMs).
func (r *intake) observe(kind forum.MessageKind, forumID string, a forum.Author, st forum.Stamp, b body) error {
	st = r.narrow(kind, forumID, st)
	body := b.html
	msg := &store.Message{GameID: r.s.l.row.ID, Kind: kind, ForumID: forumID, AuthorName: a.Name, AuthorID: a.ID,
		Time: st.Earliest, Stamp: st, BodyHTML: body, Hash: r.s.l.site.Reader.Hash(body), FirstSeen: r.seen,
		Commands: b.cmds, CommandsRead: b.read}
	ch, err := r.tx.RecordMessage(msg)
	if err != nil {
		return fmt.Errorf("%s %s: %w", kind, forumID, err)
	}
	if ch != store.Unchanged {
		r.news++
	}
	if ch == store.New && kind == forum.KindPost && r.s.l.cfg.OpeningFound && forumID == r.s.l.cfg.OpeningPost && st.Known() {
		r.opened = st.Earliest.Truncate(time.Second)
	}
	if ch == store.New && kind == forum.KindPost {
		r.pictureShownAsText(forumID, a, body)
	}
	if ch != store.Unchanged && forum.IsUnreadable(body) {
		r.unreadable = append(r.unreadable, string(kind)+" "+forumID+" by "+a.Name)
	}
	if ch == store.Edited && msg.Status != store.MessageNew {
		// (Not read yet: the new body is what will be read.)
		r.edited = append(r.edited, *msg)
	}
	r.prev[kind] = msg
	return nil
}

// body is a message's body as read, with its commands when the read took
// them from the page (forum.Post.Commands): recorded with it, so applying
// the message does not parse the body again.
type body struct {
	html string
	cmds []string
	read bool
}

func postBody(p forum.Post) body { return body{p.BodyHTML, p.Commands, p.CommandsRead} }

func pmBody(pm forum.PrivateMessage) body { return body{pm.BodyHTML, pm.Commands, pm.CommandsRead} }

// narrow bounds a stamp by the read (made before it began) and by the
// message before it in id order.
func (r *intake) narrow(kind forum.MessageKind, forumID string, st forum.Stamp) forum.Stamp {
	if !st.Known() {
		if st.Err != "" {
			r.s.warn("a message's time could not be read", "kind", kind, "id", forumID, "time", st.Text, "err", st.Err)
		}
		return st
	}
	var lo time.Time
	if strings.Contains(forumID, "+") {
		// Text appended to a post: its interval is already what the reads allow.
		if n, ok := st.Narrow(time.Time{}, r.seen); ok {
			return n
		}
		return st
	}
	prev := r.prev[kind]
	if prev == nil || forum.CompareIDs(prev.ForumID, forumID) >= 0 {
		prev = nil
		if p, err := r.tx.LastMessageBefore(r.s.l.row.ID, kind, forumID); err == nil {
			prev = p
		}
	}
	if prev != nil && prev.Stamp.Known() {
		lo = prev.Stamp.Earliest
	}
	if n, ok := st.Narrow(lo, r.seen); ok {
		return n
	}
	if n, ok := st.Narrow(time.Time{}, r.seen); ok {
		return n
	}
	// The board's clock and the bot's disagree: keep what the board says.
	r.s.warn("a message's time is after the read that found it (is the board's clock ahead?)", "kind", kind, "id", forumID, "time", st.Text)
	return st
}

// edits judges the edits of messages already read. One seen while the phase
// it was made in is still open replaces its commands (they are superseded
// and the message is read again); a later one is only flagged for the GM.
func (m *Moderator) edits(r *intake) error {
	if len(r.edited) == 0 {
		return nil
	}
	s := r.s
	st := s.l.game.Status(s.l.state)
	// Seen only after the deadline: it cannot be shown to predate it, so it
	// does not change the phase (nor does an edit of an earlier phase's post).
	late := s.l.row.Status == Running && !st.Deadline.IsZero() && !r.seen.Before(st.Deadline)
	voided := map[int64]bool{}
	again := false
	for _, msg := range r.edited {
		earlier := s.closed != "" && msg.Stamp.Before(s.opened) == forum.Yes // made in a phase already closed
		signing := s.l.cfg.Signups != nil && (s.l.cfg.SigningUp() || beforeGame(s.l, msg) != "")
		if st.Finished || late || earlier || signing {
			reason := "edited after its phase's deadline: the edit does not change that phase"
			if signing {
				reason = signups.Edit
			}
			s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: s.l.row.ID, MessageID: msg.ID, Phase: st.Phase, Player: msg.AuthorName,
				Channel: string(channelOf(msg.Kind)), Text: "(edit)", Kind: "edit", Status: store.CommandIgnored, Time: m.now(),
				Reason: reason})
			continue
		}
		cmds, err := r.tx.Commands(s.l.row.ID, store.CommandFilter{MessageID: msg.ID})
		if err != nil {
			return fmt.Errorf("commands of %s %s: %w", msg.Kind, msg.ForumID, err)
		}
		for _, c := range cmds {
			if c.Status == store.CommandSuperseded || c.Status == store.CommandVoided {
				continue
			}
			s.ch.CommandStatuses = append(s.ch.CommandStatuses, store.CommandStatusChange{ID: c.ID, Status: store.CommandSuperseded,
				Reason: "the post was edited before the deadline; the edit replaces it"})
			voided[c.ID] = true
		}
		s.setMessage(msg.ID, store.MessageNew)
		again = true
	}
	if !again {
		return nil
	}
	return rebuild(r.tx, s, voided)
}

// routePMs records the new PMs meant for this game. The bot's inbox may be
// shared by several games on the same board: a PM from someone who plays
// in more than one must name its game.
func (m *Moderator) routePMs(r *intake, pms []forum.PrivateMessage) error {
	s := r.s
	sibs, err := m.siblings(r.tx, s.l)
	if err != nil {
		return err
	}
	// The roster as it is now (a GM may have just replaced someone).
	roster := s.l.state.Roster()
	for _, pm := range pms {
		slot, ok := roster.Author(pm.From.Name)
		also := sibs.also(pm.From.Name, s.l.row.ID) // the other games they play in
		if !ok {
			if len(also) == 0 && !strings.EqualFold(pm.From.Name, s.l.forum.Bot) {
				// Nobody's player: keep it in the audit log (a replacement
				// writing before the GM's replace, a stranger).
				if err := r.observe(forum.KindPM, pm.ID, pm.From, stampOf(pm.Stamp, pm.Time), pmBody(pm)); err != nil {
					return err
				}
			}
			continue
		}
		switch pmFor(s.l, also, pm) {
		case notMine:
			continue
		case ambiguous:
			// This game (the oldest the player is in) tells them once.
			if err := askWhichGame(r, also, slot, pm); err != nil {
				return err
			}
			continue
		}
		if err := r.observe(forum.KindPM, pm.ID, pm.From, stampOf(pm.Stamp, pm.Time), pmBody(pm)); err != nil {
			return err
		}
	}
	return nil
}

type pmRoute int

const (
	mine pmRoute = iota
	notMine
	ambiguous // the sender plays in several games and the subject names none
)

// pmFor decides whether a PM from one of this game's players is for this
// game: always, unless the sender also plays in a sibling game (also, by
// id); then the subject must name the game ("[name]", as the bot's own PM
// subjects do, so a reply to the bot finds its game by itself).
func pmFor(l *loaded, also []*sibling, pm forum.PrivateMessage) pmRoute {
	if len(also) == 0 {
		return mine
	}
	subj := strings.ToLower(pm.Subject)
	names := func(name string) bool { return strings.Contains(subj, "["+strings.ToLower(name)+"]") }
	if names(l.row.Name) {
		return mine
	}
	for _, o := range also {
		if names(o.name) {
			return notMine
		}
	}
	for _, o := range also {
		if o.id < l.row.ID {
			return notMine // the oldest game answers
		}
	}
	return ambiguous
}

// askWhichGame records an unroutable PM in the audit log and asks its sender
// to name the game (this one or one of also, the others they play in).
func askWhichGame(r *intake, also []*sibling, slot string, pm forum.PrivateMessage) error {
	s := r.s
	st := r.narrow(forum.KindPM, pm.ID, stampOf(pm.Stamp, pm.Time))
	msg := &store.Message{GameID: s.l.row.ID, Kind: forum.KindPM, ForumID: pm.ID, AuthorName: pm.From.Name, AuthorID: pm.From.ID,
		Time: st.Earliest, Stamp: st, BodyHTML: pm.BodyHTML, Hash: r.s.l.site.Reader.Hash(pm.BodyHTML), FirstSeen: r.seen}
	ch, err := r.tx.RecordMessage(msg)
	if err != nil {
		return fmt.Errorf("pm %s: %w", pm.ID, err)
	}
	if ch != store.New {
		return nil
	}
	names := []string{"[" + s.l.row.Name + "]"}
	for _, o := range also {
		names = append(names, "["+o.name+"]")
	}
	reason := "you play in several games here: put the game's name in the subject (" + strings.Join(names, ", ") + ") and send it again"
	phase := s.l.phase()
	s.ch.Commands = append(s.ch.Commands, store.CommandRow{GameID: s.l.row.ID, MessageID: msg.ID, Player: slot, Channel: string(rules.Private),
		Text: "(" + pm.Subject + ")", Status: store.CommandRejected, Reason: reason, Time: msg.Time, Phase: phase})
	s.setMessage(msg.ID, store.MessageIgnored)
	s.emit(store.SendAnswers, phase, referee.Step{Out: []referee.Outgoing{{To: slot, Subject: "which game?", Text: "Your PM “" + rules.Esc(pm.Subject) + "” was not read: " + reason + "."}}}, msg.Time)
	return nil
}
