package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// confirmPostAfter is how long a post sent under forum.ConfirmLater waits
// for the game's reads to record it before the board's thread is read for
// its marker alone (a read that skipped the thread, or is behind).
const confirmPostAfter = 2 * time.Minute

// confirmLater looks for the markers of the game's sent items that the
// board took without naming their ids (forum.ErrConfirmLater): a post
// among the thread's posts the reads recorded (no request), or on the
// board once confirmPostAfter has passed; the PMs all at once, so that
// they share one listing of the sent folder. Found, an item gets its id.
// Not found where the board would show it, it is taken: never sent again
// by itself, and the GM is told, as when a check right after the send
// finds nothing, or when the board cannot show it (forum.ErrNoProof: a
// full sent folder). A check that fails (the board down) is made again
// later (takenRecheck).
func (m *Moderator) confirmLater(ctx context.Context, f forum.BoardSender, l *loaded) error {
	var items []store.OutboxItem
	if err := m.DB.View(ctx, func(tx *store.Tx) (err error) { items, err = tx.ToConfirm(l.row.ID); return err }); err != nil {
		return err
	}
	type found struct {
		id  string
		ok  bool
		err error
	}
	out := make([]found, len(items))
	look := make([]bool, len(items))
	var stored map[string]string // the bot's recorded posts, by marker key
	var wg sync.WaitGroup
	now := m.now()
	for i := range items {
		it := &items[i]
		m.mu.Lock()
		due := m.takenAt[it.ID]
		m.mu.Unlock()
		if due.After(now) {
			continue
		}
		if it.Kind == forum.KindPost {
			if stored == nil {
				var err error
				if stored, err = m.storedPosts(ctx, l, oldestPost(items).Add(-storedSlack)); err != nil {
					return err
				}
			}
			switch id := stored[it.Marker]; {
			case id != "":
				out[i], look[i] = found{id: id, ok: true}, true
			case now.Sub(it.SentAt) >= confirmPostAfter:
				out[i].id, out[i].ok, out[i].err = f.FindPost(ctx, l.forum.Thread, it.Marker)
				look[i] = true
			}
			continue
		}
		look[i] = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i].id, out[i].ok, out[i].err = f.FindSentPM(ctx, it.Marker, it.CreatedAt)
		}()
	}
	wg.Wait()
	for i := range items {
		it, r := &items[i], out[i]
		switch {
		case !look[i]:
		case r.err != nil && errors.Is(r.err, forum.ErrNoProof):
			// The board cannot show it (a full sent folder): taken, as
			// when the check right after the send could not tell.
			if err := m.take(ctx, l, it, fmt.Errorf("%w: the board took it (its success named no id), but the check for its marker cannot tell: %w", forum.ErrSaidSent, r.err)); err != nil {
				return err
			}
		case r.err != nil:
			if ctx.Err() != nil {
				return ctx.Err()
			}
			m.recheckAt(it.ID)
			m.log().Info("a sent message's marker could not be looked for; again later", "game", l.row.Name, "marker", it.Marker, "err", r.err)
		case r.ok:
			it.ForumID, it.LastError = r.id, ""
			if err := m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.UpdateOutbox(it) }); err != nil {
				return fmt.Errorf("confirming %s: %w", it.Marker, err)
			}
		default:
			if err := m.take(ctx, l, it, fmt.Errorf("%w: the board took it (its success named no id), but its marker is not on the board", forum.ErrSaidSent)); err != nil {
				return err
			}
		}
	}
	return nil
}

// storedSlack is how long before a post was queued a read that records it
// may have begun (a read of many pages, the post landing on its last).
const storedSlack = time.Hour

// oldestPost is when the earliest post among items was queued.
func oldestPost(items []store.OutboxItem) time.Time {
	var t time.Time
	for _, it := range items {
		if it.Kind == forum.KindPost && (t.IsZero() || it.CreatedAt.Before(t)) {
			t = it.CreatedAt
		}
	}
	return t
}

// storedPosts are the ids of the bot's posts among the thread's posts the
// reads recorded, first seen at or after since (zero: ever), by the marker
// keys they carry. A confirmation asks for the recent ones only: loading
// the whole thread at every drain while a post waits made a long game's
// drains read every message it ever recorded.
func (m *Moderator) storedPosts(ctx context.Context, l *loaded, since time.Time) (map[string]string, error) {
	ids := map[string]string{}
	err := m.DB.View(ctx, func(tx *store.Tx) error {
		msgs, err := tx.PostsSeenSince(l.row.ID, since)
		for _, msg := range msgs {
			if strings.EqualFold(msg.AuthorName, l.forum.Bot) {
				for _, k := range forum.Markers(msg.BodyHTML) {
					ids[k] = msg.ForumID
				}
			}
		}
		return err
	})
	return ids, err
}
