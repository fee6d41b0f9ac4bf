package parser

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/forumgm/forumgm/forum"
)

// TestTopicLists: the saved topic lists of the real boards (the bot's view,
// a game thread with two replies beside the board's welcome topic) read as
// each topic's id and mark: the last post's id where the list shows it
// (phpBB, SMF), else its time and poster (MyBB), with the replies count.
func TestTopicLists(t *testing.T) {
	for _, c := range []struct {
		file, engine string
		x            *Parser
		want         []forum.ThreadMark
	}{
		{"real/phpbb3310_viewforum.html", "phpbb", nil, []forum.ThreadMark{
			{Thread: "2", Sign: "post 4, replies 2"}, {Thread: "1", Sign: "post 1, replies 0"}}},
		{"real/mybb1837_forumdisplay.html", "mybb", nil, []forum.ThreadMark{
			{Thread: "1", Sign: "last 12-01-2026, 11:14 PM Last Post: Bob, replies 2"}}},
		{"real/smf214_messageindex.html", "smf", nil, []forum.ThreadMark{
			{Thread: "2", Sign: "post 4, replies 2"}, {Thread: "1", Sign: "last Today at 08:30 PM by Simple Machines, replies 0"}}},
	} {
		t.Run(c.file, func(t *testing.T) {
			x := c.x
			if x == nil {
				x = MustNew(mustProfile(t, c.engine))
			}
			b, err := os.ReadFile(filepath.Join("testdata", c.file))
			if err != nil {
				t.Fatal(err)
			}
			doc, err := Doc(b)
			if err != nil {
				t.Fatal(err)
			}
			l := x.Topics(doc)
			if !reflect.DeepEqual(l.Marks, c.want) || l.Page != 1 || l.Pages != 1 {
				t.Errorf("page %d of %d, marks\n%q\nwant\n%q", l.Page, l.Pages, l.Marks, c.want)
			}
		})
	}
}
