package moderator

import (
	"fmt"

	"github.com/forumgm/forumgm/referee"
	"github.com/forumgm/forumgm/rules"
)

// turnsDrawn is how many turns of the game's state are resolved, for a game
// with a map (rules.Drawer); -1 for others.
func (l *loaded) turnsDrawn(st rules.State) int {
	dr, ok := l.game.(rules.Drawer)
	if !ok || st == nil {
		return -1
	}
	return dr.Turns(st)
}

// withPicture adds the map's picture to the thread post of a step that
// resolved a turn (or opened the game), when the GM has opened the game's
// public page (public_url): the web desk serves the public PNG of each turn
// there, built only from what players may see. The text map stays in the
// post for boards that do not show images.
func (s *step) withPicture(r referee.Step) referee.Step {
	base := s.l.cfg.PublicURL
	if base == "" {
		return r
	}
	n := s.l.turnsDrawn(r.State)
	if n < 0 || n <= s.pictured {
		return r
	}
	s.pictured = n
	page := base + "/p/" + s.l.row.Name
	return referee.Picture(r, n, page, fmt.Sprintf("%s/map/%d.png", page, n))
}
