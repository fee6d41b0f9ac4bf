package parser

import (
	"strings"
	"testing"
)

// A thread page names the forum holding it (selectors.thread_forum), so a
// game gets the change signal without naming its forum: the breadcrumbs'
// last forum on phpBB (not the category before it, nor the jump box), the
// navigation's last forum link on MyBB, the head's rel=index on SMF; never
// what a post holds.
func TestThreadForum(t *testing.T) {
	// MyBB 1.8's nav and nav_bit templates, as showthread.php fills them.
	mybbNav := `<html><body><div id="container"><div class="navigation">
<a href="http://127.0.0.1/index.php">Board</a> &rsaquo; <a href="forumdisplay.php?fid=1">Category</a> &rsaquo; <a href="forumdisplay.php?fid=2">Games</a><br /><span class="active">Nations</span>
</div>` + mybbPostMarkup + `<div class="navigation"><a href="http://127.0.0.1/index.php">Board</a> &rsaquo; <a href="forumdisplay.php?fid=1">Category</a> &rsaquo; <a href="forumdisplay.php?fid=2">Games</a></div></body></html>`
	// A post quoting another board's breadcrumbs: not the thread's forum.
	hostile := `<html><body><div class="navigation"><a href="forumdisplay.php?fid=2">Games</a></div>` +
		strings.Replace(mybbPostMarkup, "post body", `<div class="navigation"><a href="forumdisplay.php?fid=99">Elsewhere</a></div>`, 1) + `</body></html>`
	for _, c := range []struct {
		name, engine, page string
		want               string
	}{
		{"phpBB 3.3.10", "phpbb", string(readFixture(t, "real", "phpbb3310_thread_p1.html")), "2"},
		{"SMF 2.1.4", "smf", string(readFixture(t, "real", "smf214_thread_p1.html")), "1"},
		{"MyBB 1.8 navigation", "mybb", mybbNav, "2"},
		{"MyBB, a post's own navigation", "mybb", hostile, "2"},
		{"a page without it", "phpbb", string(readFixture(t, "phpbb33_thread.html")), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			doc, err := Doc([]byte(c.page))
			if err != nil {
				t.Fatal(err)
			}
			if got := MustNew(mustProfile(t, c.engine)).Thread(doc).Forum; got != c.want {
				t.Errorf("Forum = %q, want %q", got, c.want)
			}
		})
	}
}

// mybbPostMarkup is one MyBB post (postbit), for pages built in tests.
const mybbPostMarkup = `<div class="post" id="post_7"><div class="post_author"><a href="member.php?action=profile&amp;uid=3">Ann</a></div>
<div class="post_content"><div class="post_body scaleimages" id="pid_7">post body</div></div></div>`
