package forumsim

import "fmt"

// Theme is what a board's style calls the parts of a topic's posts. The
// zero Theme is prosilver's (div.post, the author's name in a <strong>);
// a customised style renames them, which is what a GM's own profile file
// is for (docs/profiles.md).
type Theme struct {
	// PostClass is the class of each post's container [post].
	PostClass string
	// AuthorClass, when set, wraps the author link in the byline in a
	// <span> of that class instead of prosilver's <strong>.
	AuthorClass string
}

// RenamedTheme is a customised style: posts are div.topic-entry and the
// author link sits in span.poster-name, so the built-in phpBB profile
// finds no posts (`forumgm sim --theme renamed`).
var RenamedTheme = Theme{PostClass: "topic-entry", AuthorClass: "poster-name"}

// Themes are the styles `forumgm sim --theme` offers.
var Themes = map[string]Theme{"prosilver": {}, "renamed": RenamedTheme}

func (t Theme) postClass() string {
	if t.PostClass == "" {
		return "post"
	}
	return t.PostClass
}

// byline wraps the author's name as the style does.
func (t Theme) byline(author string) string {
	if t.AuthorClass == "" {
		return "<strong>" + author + "</strong>"
	}
	return fmt.Sprintf(`<span class="%s">%s</span>`, e(t.AuthorClass), author)
}
