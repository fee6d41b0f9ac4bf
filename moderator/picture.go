package moderator

import (
	"fmt"
	"html"
	"regexp"
	"strings"

	"github.com/forumgm/forumgm/forum"
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
	if base == "" || !s.l.forum.ShowsPictures() || s.l.cfg.PicturesAsText != "" {
		// A board that shows [img] as text (forum: pictures: false, or
		// seen in the bot's own post: pictureShownAsText) gets the text
		// map alone.
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

// imgSrc is an <img> tag's address in a rendered body.
var imgSrc = regexp.MustCompile(`(?i)<img\b[^>]*?\ssrc\s*=\s*["']([^"']*)["']`)

// pictureShownAsText notes a post of the bot's, read back from the board,
// that holds the address of one of the game's pictures but no picture of
// it (the probe's rule: the tag left as text, the address linked or not;
// MyBB writes "[Image: address]"): the thread's forum does not render
// [img] (an admin's setting), so the game's later posts go without
// pictures (withPicture), and the GM hears it in the log, on the desk and
// in `forumgm status`. Only the game's own pictures count: another [img]
// of the bot's in the thread (the probe's test reply) is not the game's.
func (r *intake) pictureShownAsText(forumID string, a forum.Author, bodyHTML string) {
	cfg := r.s.l.cfg
	if cfg.PublicURL == "" || cfg.PicturesAsText != "" || !strings.EqualFold(a.Name, r.s.l.forum.Bot) {
		return
	}
	if !imgAsText(bodyHTML, cfg.PublicURL+"/p/"+r.s.l.row.Name+"/map/") {
		return
	}
	// The board's post (text the board merged into an earlier post of
	// the bot's is read as "ID+N").
	cfg.PicturesAsText, _, _ = strings.Cut(forumID, "+")
	r.s.l.cfg, r.s.l.cfgChanged = cfg, true
	r.s.warn("the board shows the game's [img] pictures as text: later posts carry the text map alone (ask the board's admin to allow [img] in the thread's forum, or set forum: pictures: false)",
		"post", forumID)
}

// imgAsText says whether a rendered body holds an address under prefix
// without showing any picture from under it.
func imgAsText(bodyHTML, prefix string) bool {
	prefix = strings.ToLower(prefix)
	if !strings.Contains(strings.ToLower(html.UnescapeString(bodyHTML)), prefix) {
		return false
	}
	for _, m := range imgSrc.FindAllStringSubmatch(bodyHTML, -1) {
		if strings.HasPrefix(strings.ToLower(html.UnescapeString(m[1])), prefix) {
			return false
		}
	}
	return true
}
