package moderator

import (
	"errors"
	"regexp"
	"strconv"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// MyBB appends a member's post to their previous one when nobody posted in
// between ("\n[hr]\n" + the new text) instead of making a new post. Read as
// an edit, the new commands would be judged as a change of the old ones;
// so text appended after the separator to a post already read is recorded
// as a message of its own, "<pid>+1" (then "+2", ...), made between the
// read before this one and this one. A post first seen already holding a
// separator is one message (a player may type [hr] too).

// post records one thread post, splitting off text a board appended to it.
func (r *intake) post(p forum.Post) error {
	st := stampOf(p.Stamp, p.Time)
	if r.merge == nil {
		return r.observe(forum.KindPost, p.ID, p.Author, st, postBody(p))
	}
	stored, err := r.tx.MessageByForumID(r.s.l.row.ID, forum.KindPost, p.ID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && stored.Hash == r.s.l.site.Reader.Hash(p.BodyHTML)) {
		return r.observe(forum.KindPost, p.ID, p.Author, st, postBody(p))
	}
	if err != nil {
		return err
	}
	known := 0
	for {
		if _, err := r.tx.MessageByForumID(r.s.l.row.ID, forum.KindPost, mergedID(p.ID, known+1)); err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			break
		}
		known++
	}
	head, parts, ok := splitMerged(r.merge, r.s.l.site.Reader.Hash, stored.Hash, p.BodyHTML, known)
	if !ok {
		return r.observe(forum.KindPost, p.ID, p.Author, st, postBody(p))
	}
	if err := r.observe(forum.KindPost, p.ID, p.Author, st, body{html: head}); err != nil {
		return err
	}
	// Appended after the last read that saw the post without it (and after
	// the post itself), before this read.
	lo := r.lastRead
	if stored.Stamp.Known() && stored.Stamp.Earliest.After(lo) {
		lo = stored.Stamp.Earliest
	}
	appended := forum.Stamp{Earliest: lo, Latest: r.seen, Precision: forum.PrecisionSecond,
		Text: "appended to post " + p.ID + " between " + when(lo) + " and " + when(r.seen)}
	if lo.IsZero() || !lo.Before(r.seen) {
		appended = forum.ExactStamp(r.seen, appended.Text)
	}
	for i, part := range parts {
		id := mergedID(p.ID, i+1)
		if i >= known {
			r.s.warn("text appended to a post read as a new message", "post", p.ID, "as", id)
		}
		if err := r.observe(forum.KindPost, id, p.Author, appended, body{html: part}); err != nil {
			return err
		}
	}
	return nil
}

func mergedID(pid string, part int) string { return pid + "+" + strconv.Itoa(part) }

// splitMerged splits a post's new body into the part the bot had read
// (head) and the parts appended after it. The head is the text before the
// first separator whose text before it is what was stored (by hash); when
// none is (the old part was edited too), the last known parts are kept in
// place and what precedes them is the head. ok is false when the body is
// no merge.
func splitMerged(sep *regexp.Regexp, hash func(string) string, storedHash, body string, known int) (head string, parts []string, ok bool) {
	locs := sep.FindAllStringIndex(body, -1)
	if len(locs) == 0 {
		return "", nil, false
	}
	cut := -1
	for i, loc := range locs {
		if hash(body[:loc[0]]) == storedHash {
			cut = i
			break
		}
	}
	if cut < 0 {
		if known == 0 || len(locs) < known {
			return "", nil, false
		}
		cut = len(locs) - known
	}
	head = body[:locs[cut][0]]
	for i := cut; i < len(locs); i++ {
		end := len(body)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		parts = append(parts, body[locs[i][1]:end])
	}
	return head, parts, true
}
