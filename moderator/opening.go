package moderator

import (
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/store"
)

// openingPosted starts the game's clock when its opening post is on the
// board (it is called, in the same transaction, when an outbox item is
// confirmed sent): the opening post's id is remembered (a thread post
// after it belongs to the game, whatever minute its stamp shows), Start
// becomes when it went up, and the first phase's deadline moves by as
// much as the post was late (unless the GM's schedule set it: the slot the
// post announced stands). The new deadline is journalled like a GM's,
// so a rebuild has it. Nothing moves once a phase has closed, nor for a
// game whose planned start is later than the post.
func (m *Moderator) openingPosted(tx *store.Tx, l *loaded, it *store.OutboxItem) error {
	if it.Kind != forum.KindPost || it.ForumID == "" {
		return nil
	}
	s, err := m.begin(tx, l)
	if err != nil {
		return err
	}
	if s.l.cfg.OpeningPost != "" || s.l.cfg.SigningUp() || signupItem(it) {
		return nil // known already, or a post of the sign-ups before the game
	}
	items, err := tx.Outbox(it.GameID)
	if err != nil {
		return err
	}
	for _, o := range items {
		if o.Kind == forum.KindPost && !signupItem(&o) {
			if o.ID != it.ID && o.ID != it.PartOf {
				return nil // not the game's first post (nor its first part)
			}
			break
		}
	}
	// When it went up, at the earliest: the stamp the bot read it with (an
	// interrupted send found among the stored posts), else the start of
	// the read that came just before the send; boards keep whole seconds.
	// The earliest, so that nothing made after it is taken for earlier.
	posted := m.now()
	if lr := s.l.row.LastRead; !lr.IsZero() && lr.Before(posted) {
		posted = lr
	}
	if msg, err := tx.MessageByForumID(it.GameID, forum.KindPost, it.ForumID); err == nil && msg.Stamp.Known() {
		posted = msg.Stamp.Earliest
	}
	posted = posted.Truncate(time.Second)
	cfg := s.l.cfg
	cfg.OpeningPost = it.ForumID
	shift := posted.Sub(cfg.Start)
	moved := shift > 0 && s.closed == ""
	if moved {
		cfg.Start = posted
	}
	s.l.cfg = cfg
	s.ch.Settings = &store.SettingsChange{GameID: s.l.row.ID, Config: mustJSON(cfg), Forum: s.l.row.Forum}
	if moved {
		dl := s.l.game.Status(s.l.state).Deadline
		// The state as the new Start sets it up (what a rebuild will do),
		// then the deadline moved by the delay.
		if err := rebuild(tx, s, nil); err != nil {
			return err
		}
		_, sched := scheduled(s, posted)
		switch {
		case dl.IsZero():
		case sched:
			// The slot the opening post announced stands: players read
			// a clock time, which a late post does not move.
			if !s.l.game.Status(s.l.state).Deadline.Equal(dl) {
				m.setDeadline(s, dl)
			}
		default:
			m.setDeadline(s, dl.Add(shift))
		}
		s.opened = posted
		m.log().Info("the opening post is up: the game's clock starts now", "game", s.l.row.Name, "post", it.ForumID, "late_by", shift)
	}
	return m.commit(tx, s)
}
