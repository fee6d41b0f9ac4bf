package moderator

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/gameconfig"
)

// Polling that follows the game (docs/polling.md).
//
// The period: a game polls every poll_seconds, halved or doubled within
// poll_min_seconds and poll_max_seconds: about ten polls in the last
// stretch before a deadline (the period at most a tenth of the time left),
// and after a quiet while a period of a quarter of the quiet (a new post
// or PM, or a new phase, ends it). Only poll_seconds times a power of two,
// from the account's shared cycle (Pool.nextPoll): so the turns of a
// slower game are turns of every faster one on the account, and one inbox
// list and one topic list serve all the games polling at a turn, however
// their periods differ.
//
// The change signal: where the game names the forum holding its thread
// and the board's profile has a topic list, a poll first takes the
// thread's mark from that list (one list for the account's games) and
// skips reading the thread when the mark is the one taken just before the
// last full read: no post was made or deleted since, as far as the list
// shows. The thread page stays the source of truth, so it is still read
// whenever the list cannot prove that:
//   - at least every full_read_seconds (edits and hidden posts change no
//     mark), a game's own interval cut by up to a quarter by its id so the
//     account's games do not all read at once;
//   - in the last full_read_seconds before a deadline (every edit made
//     before a deadline is then seen before it, as without the signal),
//     and after it until the phase closes (it closes by its time limit only
//     after a read that began after the deadline: docs/times.md);
//   - while the board may still append a member's next post to the
//     thread's last one (profile merge_window_seconds: MyBB's merges
//     change no mark);
//   - while a long first read is behind, and with no mark to compare.

// pollState is what the moderator keeps of a game's polls between ticks,
// in memory: a restart begins again with a full read.
type pollState struct {
	active   time.Time // when something last happened: a new message, a new phase
	deadline time.Time // the deadline last seen (another one: a new phase)
	// The signal: the mark taken just before the last full read that
	// reached the thread's end, when that read began, and the newest
	// post then (for the merge window; merger: a player's, not the bot's).
	base     forum.ThreadMark
	fullAt   time.Time
	newest   time.Time
	newestID string
	merger   bool
	noSignal bool   // the board has none
	forum    string // the forum the thread's pages name as holding it
	skipped  int    // polls answered by the mark since the last full read
	// The bot's own posts in the thread since the base was taken: how
	// many, the last one's id, and when each was confirmed made.
	own []ownPost
}

// ownPost is one of the bot's replies, as its send returned it.
type ownPost struct {
	id string
	at time.Time // the send returned: made before then
}

func (m *Moderator) pollStateOf(id int64) *pollState {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.polls == nil {
		m.polls = map[int64]*pollState{}
	}
	st := m.polls[id]
	if st == nil {
		st = &pollState{}
		m.polls[id] = st
	}
	return st
}

// notePolled records what a tick saw: news (new or edited messages) and
// the game's deadline after it.
func (m *Moderator) notePolled(id int64, now, deadline time.Time, news bool) {
	st := m.pollStateOf(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if news || st.active.IsZero() || !deadline.Equal(st.deadline) {
		st.active = now
	}
	st.deadline = deadline
}

// pollPeriod is the game's period now: poll_seconds halved or doubled
// within its bounds, toward about ten polls in a deadline's last stretch,
// or a quarter of a quiet while.
func pollPeriod(fc gameconfig.ForumConfig, active, deadline, now time.Time) time.Duration {
	p := fc.Poll()
	lo, hi := fc.PollBounds()
	t := p
	if !active.IsZero() {
		if q := now.Sub(active) / 4; q > t {
			t = q
		}
	}
	if !deadline.IsZero() {
		if r := deadline.Sub(now); r > 0 && r/10 < t {
			t = r / 10
		}
	}
	t = min(max(t, lo), hi)
	g := p
	for g > t && g/2 >= lo {
		g /= 2
	}
	for g*2 <= t && g*2 <= hi {
		g *= 2
	}
	return g
}

// pollWait is how long a game's worker waits before its next tick: none
// while a long first read is under way (Backfilling: it goes on at the
// board's pace), else until the turn of its account's cycle its period
// (pollPeriod) comes to.
func (m *Moderator) pollWait(id int64, account forum.Account, fc gameconfig.ForumConfig) time.Duration {
	if m.Backfilling(id) {
		return 0
	}
	now := m.now()
	st := m.pollStateOf(id)
	m.mu.Lock()
	active, deadline := st.active, st.deadline
	m.mu.Unlock()
	return m.Pool.nextPoll(account, pollPeriod(fc, active, deadline, now), now)
}

// lastStretch: the last stretch before the game's deadline (edits count
// until it), and past it until the phase closes (it closes by its time
// limit only after a read that began after the deadline), where every poll
// reads the thread.
func lastStretch(l *loaded, now time.Time) bool {
	dl := l.row.Deadline
	return l.row.Status == Running && !dl.IsZero() && dl.Sub(now) <= l.forum.FullRead()
}

// signalForum is the forum whose topic list is a game's change signal:
// the one its game file names, else the one its thread's pages named at
// its last read (seen), else, not read yet, the one the pages of its
// account's other games named last (theirs); none with forum: off.
func signalForum(named, seen, theirs string) string {
	switch {
	case named == gameconfig.ForumOff:
		return ""
	case named != "":
		return named
	case seen != "":
		return seen
	}
	return theirs
}

// noteForum keeps the forum a page of the game's thread names as holding
// it (a thread moved names its new forum at the next full read), and as
// the account's latest.
func (m *Moderator) noteForum(id int64, account forum.Account, forumID string) {
	if forumID == "" {
		return
	}
	st := m.pollStateOf(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	st.forum = forumID
	if m.forumOf == nil {
		m.forumOf = map[forum.Account]string{}
	}
	m.forumOf[account] = forumID
}

// fullReadEvery is the game's own full-read interval: full_read_seconds,
// less up to a quarter by its id.
func fullReadEvery(l *loaded) time.Duration {
	f := l.forum.FullRead()
	return f - f/4*time.Duration(l.row.ID%8)/8
}

// unchanged takes the thread's mark and says whether it proves the
// thread unchanged since the last full read (the read may be skipped; the
// thread is then known complete up to complete), or why not. mark is
// what the read that follows should keep as its base (empty: none).
func (m *Moderator) unchanged(ctx context.Context, l *loaded, f forum.BoardReader, now time.Time) (skip bool, complete time.Time, mark forum.ThreadMark) {
	st := m.pollStateOf(l.row.ID)
	m.mu.Lock()
	// A list that shows the thread is its forum's (a moved thread's
	// pointer has an id of its own), so the other games' forum is a safe
	// guess: a list that does not show it has the thread read.
	noSignal, forumID := st.noSignal, signalForum(l.forum.Forum, st.forum, m.forumOf[l.forum.Account()])
	m.mu.Unlock()
	if noSignal || forumID == "" || lastStretch(l, now) {
		// In a deadline's last stretch every poll reads the thread: the
		// list would be a request spent for nothing (the base it would
		// give is taken again at the first poll after the stretch).
		return false, time.Time{}, mark
	}
	mark, err := f.Mark(ctx, forumID, l.forum.Thread)
	if errors.Is(err, forum.ErrNoSignal) {
		m.mu.Lock()
		st.noSignal = true
		m.mu.Unlock()
		return false, time.Time{}, forum.ThreadMark{}
	}
	if err != nil {
		if ctx.Err() == nil {
			m.log().Debug("the topic list could not be read; reading the thread", "game", l.row.Name, "err", err)
		}
		return false, time.Time{}, forum.ThreadMark{}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	window := time.Duration(l.site.Profile.MergeWindowSeconds) * time.Second
	switch {
	case mark.Sign == "" || st.base.Sign == "" || mark.Sign != st.base.Sign && !ownOnly(st.base, mark, st.own):
	case now.Sub(st.fullAt) >= fullReadEvery(l):
	case l.site.Reader.MergeSeparator() != nil && st.merger && st.fullAt.Before(st.newest.Add(window)):
		// The board may still append a post to the last one.
	default:
		st.skipped++
		return true, later(mark.Listed, st.fullAt), mark
	}
	return false, time.Time{}, mark
}

// fullRead records a full read that reached the thread's end: began at
// readAt, after mark was taken; newest is the thread's newest post.
func (m *Moderator) fullRead(l *loaded, mark forum.ThreadMark, readAt time.Time, newest forum.Post) {
	st := m.pollStateOf(l.row.ID)
	m.mu.Lock()
	defer m.mu.Unlock()
	st.base, st.fullAt, st.skipped = mark, readAt, 0
	// The bot's posts the new base may not hold yet stay counted: a post
	// the list already held then only makes the next mark differ, and the
	// thread is read.
	st.own = slices.DeleteFunc(st.own, func(p ownPost) bool { return !p.at.After(mark.Listed) })
	if stamp := stampOf(newest.Stamp, newest.Time); stamp.Known() {
		st.newest = stamp.Latest
	} else if newest.ID != st.newestID {
		st.newest = readAt // made before this read, at the latest
	}
	st.newestID = newest.ID
	st.merger = newest.ID != "" && !strings.EqualFold(newest.Author.Name, l.forum.Bot)
}

// ownPosted records a reply of the bot's own in the game's thread, made
// before at (when its send returned).
func (m *Moderator) ownPosted(id int64, post string, at time.Time) {
	st := m.pollStateOf(id)
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(st.own) < 64 { // more before a full read: the thread is read
		st.own = append(st.own, ownPost{id: post, at: at})
	}
}

// ownOnly says whether mark differs from base by the bot's own posts
// alone: its last post is the bot's last one, and its replies are base's
// and one per post of the bot's since. Only lists that show the last
// post's id can tell (phpBB, SMF: "post 123, replies 5"); MyBB's shows a
// minute and a name, which a member's post could share.
//
// The one change this cannot see, a member's post made while another post
// was deleted, the next full read does (full_read_seconds), as it does an
// edit; and every poll in a deadline's last stretch reads all the same.
func ownOnly(base, mark forum.ThreadMark, own []ownPost) bool {
	if len(own) == 0 {
		return false
	}
	_, b, ok := base.LastPost()
	post, n, ok2 := mark.LastPost()
	return ok && ok2 && post == own[len(own)-1].id && n == b+len(own)
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
