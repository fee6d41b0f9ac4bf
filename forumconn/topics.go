package forumconn

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// maxTopicPages bounds one read of a forum's topic list (at 25 topics a
// page, 5,000 topics): a thread further down is told as not shown, and
// its game reads it.
const maxTopicPages = 200

// wantedFor is how long a thread asked for is looked for in its forum's
// list without being asked for again (a game that ended, moved, paused).
const wantedFor = 10 * time.Minute

// topicLists shares the topic lists of an account's forums among its
// games: the first game of a poll cycle to ask reads its forum's list,
// page after page (newest last post first) until every thread the
// account's games asked for lately is found or the list ends, and the
// others polling within the list's age take their marks from it. So a
// cycle of N games in one forum costs one request per page of topics
// that holds them, not one per game.
type topicLists struct {
	mu    sync.Mutex
	lists map[string]*topicList // by forum id
}

type topicList struct {
	wanted map[string]time.Time // threads asked for, and when last
	cur    *topicBatch          // the read under way
	last   *topicBatch          // the newest read in
}

type topicBatch struct {
	done  chan struct{}
	marks map[string]string // thread → sign ("" where two pages disagreed)
	sent  time.Time         // when its first page was asked for
	ended bool              // read to the list's end
	err   error
}

// mark is thread's mark in forumID's list, from a list asked for no
// earlier than notBefore; fetch reads one page of the list.
func (ts *topicLists) mark(ctx context.Context, forumID, thread string, now, notBefore time.Time,
	fetch func(ctx context.Context, page int) (parser.TopicList, time.Time, error)) (forum.ThreadMark, error) {
	for {
		ts.mu.Lock()
		if ts.lists == nil {
			ts.lists = map[string]*topicList{}
		}
		l := ts.lists[forumID]
		if l == nil {
			l = &topicList{wanted: map[string]time.Time{}}
			ts.lists[forumID] = l
		}
		l.wanted[thread] = now
		if b := l.last; b != nil && !b.sent.Before(notBefore) {
			if m, ok := b.markOf(thread); ok {
				ts.mu.Unlock()
				return m, nil
			}
		}
		b, lead := l.cur, false
		if b == nil {
			b, lead = &topicBatch{done: make(chan struct{}), marks: map[string]string{}}, true
			l.cur = b
		}
		var want map[string]bool
		if lead {
			want = map[string]bool{}
			for th, at := range l.wanted {
				if now.Sub(at) > wantedFor {
					delete(l.wanted, th)
				} else {
					want[th] = true
				}
			}
		}
		ts.mu.Unlock()
		if lead {
			b.read(ctx, want, fetch)
			ts.mu.Lock()
			l.cur = nil
			if b.err == nil && (l.last == nil || b.sent.After(l.last.sent)) {
				l.last = b
			}
			ts.mu.Unlock()
			close(b.done)
		} else {
			select {
			case <-b.done:
			case <-ctx.Done():
				return forum.ThreadMark{}, ctx.Err()
			}
		}
		if b.err != nil {
			if !lead && (errors.Is(b.err, context.Canceled) || errors.Is(b.err, context.DeadlineExceeded)) {
				continue // the leader gave up; this caller has not
			}
			return forum.ThreadMark{}, b.err
		}
		if !b.sent.Before(notBefore) {
			if m, ok := b.markOf(thread); ok {
				return m, nil
			}
		}
		// A list from before this caller's bound, or one that stopped
		// before it reached a thread asked for only since: another.
	}
}

// markOf is the thread's mark in the batch: found, or known absent (the
// list was read to its end); ok is false when the batch cannot say.
func (b *topicBatch) markOf(thread string) (forum.ThreadMark, bool) {
	m := forum.ThreadMark{Thread: thread, Listed: b.sent}
	sign, found := b.marks[thread]
	if found || b.ended {
		m.Sign = sign
		return m, true
	}
	return m, false
}

// read reads the list page by page until every wanted thread is found, the
// list ends, or maxTopicPages.
func (b *topicBatch) read(ctx context.Context, want map[string]bool, fetch func(ctx context.Context, page int) (parser.TopicList, time.Time, error)) {
	missing := len(want)
	for page := 1; page <= maxTopicPages; page++ {
		l, sent, err := fetch(ctx, page)
		if err != nil {
			b.err = err
			return
		}
		if page == 1 {
			b.sent = sent
		}
		for _, m := range l.Marks {
			if old, seen := b.marks[m.Thread]; seen {
				if old != m.Sign {
					// Seen on two pages with two marks (the list moved
					// between them): it cannot be said unchanged.
					b.marks[m.Thread] = ""
				}
				continue
			}
			b.marks[m.Thread] = m.Sign
			if want[m.Thread] {
				missing--
			}
		}
		if l.Page >= l.Pages || len(l.Marks) == 0 {
			b.ended = true
			return
		}
		if missing <= 0 {
			return
		}
	}
}

// Mark is the thread's mark in its forum's topic list (forum.BoardReader),
// from the account's latest list when it is recent enough (the inbox
// list's age: one list serves the games polling within it), else from a
// list asked for now.
func (c *Conn) Mark(ctx context.Context, forumID, thread string) (forum.ThreadMark, error) {
	if c.Session.Profile.URLs.TopicList == "" || forumID == "" {
		return forum.ThreadMark{}, forum.ErrNoSignal
	}
	now := c.Session.Clock().Now()
	return c.acct.topics.mark(ctx, forumID, thread, now, now.Add(-c.acct.inboxAge), func(ctx context.Context, page int) (parser.TopicList, time.Time, error) {
		return c.acct.scraper.TopicList(ctx, forumID, page)
	})
}
