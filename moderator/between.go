package moderator

import (
	"context"
	"fmt"
	"time"

	"github.com/forumgm/forumgm/between"
	"github.com/forumgm/forumgm/store"
)

// The GM's work between deadlines (counts, reminders, prods) is package
// between's; the loop calls it at four points of its steps, each time
// with the step as that work sees it (forBetween): a post applied in the
// thread (countRequests), the tick's last step after its resolutions
// (m.between), the GM's count (Count), and a step that closed phases,
// before it is saved (commit: closeOff).

// forBetween is the step as package between sees it; done takes back what
// it changed of the game's settings, which the step then saves.
func (s *step) forBetween() (bs *between.Step, done func()) {
	l := s.l
	bs = &between.Step{Tx: s.tx, Row: l.row, Rules: l.game, State: l.state, Config: &l.cfg, Site: l.site,
		Marker: l.markerName(), Opened: s.opened, Behind: l.behind, Changes: &s.ch, Emit: s.emit}
	return bs, func() {
		if bs.ConfigChanged {
			l.cfgChanged = true
		}
	}
}

// countRequests takes the requests for a count out of a thread post's
// segments (between.Work.Requests).
func (s *step) countRequests(msg store.Message, slot, phase string, segs []string) []string {
	bs, done := s.forBetween()
	defer done()
	return s.work.Requests(bs, msg, slot, phase, segs)
}

// between does what is due at t between deadlines (between.Work.Due), in
// the tick's last step, after its resolutions.
func (m *Moderator) between(s *step, t time.Time) error {
	bs, done := s.forBetween()
	defer done()
	if err := m.work.Due(bs, t); err != nil {
		return err
	}
	if bs.ConfigChanged {
		// A crash here, inside the step's transaction, must undo what it
		// queued with the state that says it was done.
		return m.crash("in-between")
	}
	return nil
}

// closeOff settles what the step's closed phases leave behind, before the
// step is saved (between.Work.Close).
func (m *Moderator) closeOff(s *step) error {
	if len(s.closings) == 0 {
		return nil
	}
	bs, done := s.forBetween()
	defer done()
	return m.work.Close(bs, s.closings)
}

// Count posts a count of a game's current phase now, at the GM's word
// (`forumgm count`, the desk's button), whatever the gap and whether it has
// changed; it answers the requests waiting for one. It returns the count's
// number in the phase.
func (m *Moderator) Count(ctx context.Context, name string) (int, error) {
	n := 0
	err := m.control(ctx, "count", name, func(_ *store.Tx, s *step) error {
		if err := active(s.l); err != nil {
			return err
		}
		if s.l.game.Status(s.l.state).Finished {
			return fmt.Errorf("game %s is over", name)
		}
		bs, done := s.forBetween()
		defer done()
		var err error
		n, err = m.work.Count(bs, m.now())
		return err
	})
	return n, err
}
