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
func (m *Moderator) openingPosted(tx *store.Tx, l *loaded, it *store.OutboxItem, up wentUp) error {
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
	// interrupted send found among the stored posts), else the moment its
	// request left, else the start of the read that came just before the
	// send; boards keep whole seconds. The earliest, so that nothing made
	// after it is taken for earlier.
	posted := m.now()
	if lr := s.l.row.LastRead; !lr.IsZero() && lr.Before(posted) {
		posted = lr
	}
	if !up.left.IsZero() && up.left.After(posted) && !up.left.After(m.now()) {
		// A read long before the send (a process restarted since):
		// the post went up after its request left.
		posted = up.left
	}
	stamped := false
	if msg, err := tx.MessageByForumID(it.GameID, forum.KindPost, it.ForumID); err == nil && msg.Stamp.Known() {
		posted, stamped = msg.Stamp.Earliest, true
	}
	posted = posted.Truncate(time.Second)
	cfg := s.l.cfg
	cfg.OpeningPost = it.ForumID
	// Found by its marker, not yet read: it went up at some time since
	// its last submission, which may be long after the read before (a
	// crash loop's wait); the read that records it restarts the clock.
	cfg.OpeningFound = up.found && !stamped
	s.l.cfg, s.l.cfgChanged = cfg, true
	if err := m.startClock(tx, s, it.ForumID, posted); err != nil {
		return err
	}
	return m.commit(tx, s)
}

// openingOnItsWay says whether the game's opening post is still to go up
// (queued, or sent and not yet confirmed): its clock has not started, so
// no deadline of it resolves. A bot that crashed again and again while the
// post's last submission could still land (issue 42's crash loop) had
// resolved two rounds on the clock of the game's creation before the post
// was up, with no orders. An opening post that failed for good (or that
// the board said it took) holds nothing up.
func openingOnItsWay(tx *store.Tx, s *step) (bool, error) {
	if s.l.cfg.OpeningPost != "" || s.l.cfg.SigningUp() {
		return false, nil
	}
	items, err := tx.Outbox(s.l.row.ID)
	if err != nil {
		return false, err
	}
	var first *store.OutboxItem
	for i := range items {
		if it := &items[i]; it.Kind == forum.KindPost && !signupItem(it) {
			first = it
			break
		}
	}
	if first == nil {
		return false, nil
	}
	if first.State != store.OutboxSplit {
		return first.State.Unsent(), nil
	}
	for i := range items { // cut into parts: its first part is the post
		if it := &items[i]; it.PartOf == first.ID {
			return it.State.Unsent(), nil
		}
	}
	return false, nil
}

// startClock starts the game's clock at posted, when its opening post went
// up, if that is later than the start it has and no phase has closed
// since: the start moves there, the state is rebuilt as the new start sets
// it up, and the deadline moves by the delay (a slot a schedule announced
// stands). The settings are saved with the step (saveSettings).
func (m *Moderator) startClock(tx *store.Tx, s *step, postID string, posted time.Time) error {
	cfg := s.l.cfg
	shift := posted.Sub(cfg.Start)
	if shift <= 0 || s.closed != "" {
		return nil
	}
	cfg.Start = posted
	s.l.cfg, s.l.cfgChanged = cfg, true
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
	m.log().Info("the opening post is up: the game's clock starts now", "game", s.l.row.Name, "post", postID, "late_by", shift)
	return nil
}
