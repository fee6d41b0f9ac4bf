package moderator

import (
	"context"
	"fmt"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// drain sends a game's due outbox items in order. Exactly once: an item is
// marked "sending" (committed) before the forum is touched and "sent" after;
// an item found still "sending" was interrupted at an unknown point, so the
// thread or the sent folder is searched for its marker before any retry.
func (m *Moderator) drain(ctx context.Context, id int64, f Forum) error {
	l, err := m.view(ctx, id)
	if err != nil {
		return err
	}
	max := m.MaxAttempts
	if max <= 0 {
		max = 20
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		var it *store.OutboxItem
		if err := m.DB.View(ctx, func(tx *store.Tx) error {
			var err error
			it, err = tx.NextOutbox(id, m.now())
			return err
		}); err != nil {
			return err
		}
		if it == nil {
			return nil
		}
		if it.State == "sending" {
			fid, found, err := m.find(ctx, f, l, it)
			if err != nil {
				return fmt.Errorf("checking whether %s was sent: %w", it.Marker, err)
			}
			if found {
				m.log().Info("found an interrupted send already on the forum", "game", l.row.Name, "marker", it.Marker)
				if err := m.mark(ctx, it, "sent", fid, ""); err != nil {
					return err
				}
				continue
			}
		}
		if it.Attempts >= max {
			if err := m.mark(ctx, it, "failed", "", it.LastError); err != nil {
				return err
			}
			m.log().Error("giving up on a message after repeated failures", "game", l.row.Name, "marker", it.Marker)
			continue
		}
		it.Attempts++
		if err := m.mark(ctx, it, "sending", "", it.LastError); err != nil {
			return err
		}
		if err := m.crash("before-send"); err != nil {
			return err
		}
		var fid string
		if it.Kind == "post" {
			fid, err = f.Reply(ctx, l.forum.Thread, it.Body, it.Marker)
		} else {
			fid, err = f.SendPM(ctx, forum.Author{Name: it.RecipientName, ID: it.RecipientID}, it.Subject, it.Body, it.Marker)
		}
		if err != nil {
			// Stays "sending": whether it went out is unknown until the
			// marker check on the next try.
			it.LastError = err.Error()
			if merr := m.mark(ctx, it, "sending", "", it.LastError); merr != nil {
				return merr
			}
			return fmt.Errorf("sending %s: %w", it.Marker, err)
		}
		if err := m.crash("after-send"); err != nil {
			return err
		}
		if err := m.mark(ctx, it, "sent", fid, ""); err != nil {
			return err
		}
		m.log().Info("sent", "game", l.row.Name, "kind", it.Kind, "marker", it.Marker)
	}
}

func (m *Moderator) find(ctx context.Context, f Forum, l *loaded, it *store.OutboxItem) (string, bool, error) {
	if it.Kind == "post" {
		return f.FindPost(ctx, l.forum.Thread, it.Marker)
	}
	return f.FindSentPM(ctx, it.Marker)
}

func (m *Moderator) mark(ctx context.Context, it *store.OutboxItem, state, forumID, lastErr string) error {
	it.State, it.LastError = state, lastErr
	if forumID != "" {
		it.ForumID = forumID
	}
	if state == "sent" {
		it.SentAt = m.now()
	}
	return m.DB.Tx(ctx, func(tx *store.Tx) error { return tx.UpdateOutbox(it) })
}
