package moderator

import (
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// The time model (README "Times on the board"):
//   - every message keeps the interval its board stamp allows, narrowed by
//     what the bot saw: made before the read that first found it, and in a
//     thread not before the post with the next smaller id;
//   - messages are applied in one order: thread posts by post id, PMs by id,
//     a post and a PM by their intervals, and when those overlap the PM goes
//     after the posts seen in the same read or earlier (orderMessages);
//   - a message surely made after a deadline first closes that phase; one
//     that may have been made before it counts in it; a phase closes by its
//     time limit otherwise only after a read that began past the deadline;
//   - an "everyone has acted" close takes effect at the message that
//     completed the set: what comes after it in the order is the next phase's.

// stampOf is a message's stamp as read, or an exact one made of a time for
// a forum connection that gives only a time.
func stampOf(st forum.Stamp, t time.Time) forum.Stamp {
	if st.Known() || st.Err != "" {
		return st
	}
	if t.IsZero() {
		return forum.UnreadableStamp(st.Text, nil)
	}
	return forum.ExactStamp(t, st.Text)
}

// postKey splits a thread post id into its number and, for text the board
// appended to it (MyBB's merges, "123+1"), the part.
func postKey(id string) (n int64, part int, ok bool) {
	base, p, merged := strings.Cut(id, "+")
	n, err := strconv.ParseInt(base, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	if merged {
		if part, err = strconv.Atoi(p); err != nil {
			return 0, 0, false
		}
	}
	return n, part, true
}

// comparePosts orders two posts of the thread as they were made: by post
// id (a part appended by a merge right after its post), else by stamps.
func comparePosts(a, b store.Message) int {
	an, ap, aok := postKey(a.ForumID)
	bn, bp, bok := postKey(b.ForumID)
	if aok && bok {
		switch {
		case an != bn:
			if an < bn {
				return -1
			}
			return 1
		case ap != bp:
			if ap < bp {
				return -1
			}
			return 1
		}
		return 0
	}
	return forum.ComparePosts(forum.Post{ID: a.ForumID, Stamp: a.Stamp}, forum.Post{ID: b.ForumID, Stamp: b.Stamp})
}

// pmFirst says whether a PM goes before a thread post: when their intervals
// say so; when they overlap, only if the bot saw the PM in an earlier read
// (the post was then not yet on the board when that read began).
func pmFirst(pm, post store.Message) bool {
	switch forum.CompareStamps(pm.Stamp, post.Stamp) {
	case -1:
		return true
	case 1:
		return false
	}
	return pm.FirstSeen.Before(post.FirstSeen)
}

// orderMessages is the order messages are applied in: thread posts by post
// id, PMs by id, the two merged by pmFirst.
func orderMessages(msgs []store.Message) []store.Message {
	var posts, pms []store.Message
	for _, m := range msgs {
		if m.Kind == forum.KindPM {
			pms = append(pms, m)
		} else {
			posts = append(posts, m)
		}
	}
	sort.SliceStable(posts, func(i, j int) bool { return comparePosts(posts[i], posts[j]) < 0 })
	sort.SliceStable(pms, func(i, j int) bool { return forum.CompareIDs(pms[i].ForumID, pms[j].ForumID) < 0 })
	out := make([]store.Message, 0, len(msgs))
	i, j := 0, 0
	for i < len(posts) && j < len(pms) {
		if pmFirst(pms[j], posts[i]) {
			out = append(out, pms[j])
			j++
		} else {
			out = append(out, posts[i])
			i++
		}
	}
	out = append(out, posts[i:]...)
	return append(out, pms[j:]...)
}

// deadlineUnit is what deadlines are rounded up to on the game's board (a
// minute where the board stamps to the minute; a minute too when the board
// is not known, which costs nothing). The game's forum settings may set it
// (deadline_unit_seconds; 0: none).
func (l *loaded) deadlineUnit() time.Duration { return l.site.DeadlineUnit }

// when formats a time for players and the audit log.
func when(t time.Time) string { return t.UTC().Format("Mon 2 Jan 15:04:05 MST") }
