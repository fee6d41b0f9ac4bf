package replay

import (
	"github.com/forumgm/forumgm/bbcode"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
)

// The board a replay imitates: phpBB 3.3 markup, read with its own profile.
var board = func() *parser.BodyReader {
	p, ok := forum.Builtin("phpbb")
	if !ok {
		panic("replay: no built-in phpbb profile")
	}
	return parser.MustBodyReader(p)
}()

// PostSegments is what the bot reads from a thread post typed as text: the
// BBCode rendered as the forum would show it, then the bold runs outside
// quotes, spoilers and code, minus struck text.
func PostSegments(text string) []string {
	return board.Segments(bbcode.Render(text, bbcode.Options{}))
}

// PMLines is what the bot reads from a PM typed as text: every line.
func PMLines(text string) []string {
	return board.Lines(bbcode.Render(text, bbcode.Options{}))
}
