package moderator

import (
	"time"

	"github.com/forumgm/forumgm/referee"
)

// zone is the board's time zone for the bot account, which every time a
// player or GM reads is written in. A zone that no longer loads (a profile
// file gone since the game was created, which checked it) falls back to UTC:
// the times stay right, only their zone differs (gameconfig.Site.Err).
func (l *loaded) zone() *time.Location { return l.site.Zone }

// withDeadline ends a step's phase-opening thread post with the deadline.
func (s *step) withDeadline(phase string, r referee.Step, at time.Time) referee.Step {
	return referee.Deadline(s.l.game, r, phase, at, s.l.zone())
}
