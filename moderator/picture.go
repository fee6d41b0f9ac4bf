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

// withPicture adds the turn's picture to the thread post of a step that
// resolved a turn (or opened the game), when the GM has opened the game's
// public page (public_url): the web desk serves the public PNG of each turn
// there, built only from what players may see (a Charter's from the time
// its report is posted, which is when this post goes out). The text map or
// scores stay in the post for boards that do not show images; a forum
// set to pictures: false gets no [img] at all.
func (s *step) withPicture(r referee.Step) referee.Step {
	base := s.l.cfg.PublicURL
	if base == "" || !s.l.forum.ShowsPictures() {
		// A board that shows [img] as text (forum: pictures: false)
		// gets the text map alone.
		return r
	}
	n := s.l.turnsDrawn(r.State)
	if n < 0 || n <= s.pictured {
		return r
	}
	s.pictured = n
	page := base + "/p/" + s.l.row.Name
	img := fmt.Sprintf("%s/map/%d.png", page, n)
	if ch, ok := s.l.game.(rules.Charter); ok {
		title, key := ch.Caption(r.State, n)
		if title == "" {
			return r
		}
		return referee.Picture(r, fmt.Sprintf("[b]%s[/b] (also on [url=%s]the game's page[/url]):", title, page), img, key)
	}
	what := fmt.Sprintf("after turn %d", n)
	if n == 0 {
		what = "at the start"
	}
	return referee.Picture(r, fmt.Sprintf("[b]The map %s, as a picture[/b] (every turn's is on [url=%s]the game's page[/url]):", what, page), img, "")
}
