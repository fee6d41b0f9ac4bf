package smftest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// TestSentFolderPages: SMF opens a folder at its last page, oldest first,
// and rounds an offset down to a whole page of 15; the profile reads the
// sent folder newest first from its first page. With 35 sent PMs (three
// pages) the marker check finds the newest, one on the second page and
// the oldest, and a key the board never took is "not sent" only after
// the last page (the listing once read the newest page and the oldest,
// skipped the middle one and said "not sent" for a PM on it: a deferred
// check of a game's turn PMs on a page boundary met it).
func TestSentFolderPages(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.SMF, realboardtest.Options{Players: []string{"Alice"}})
	alice := b.Player("Alice")
	const n = 35
	var code string
	for i := range n {
		code += fmt.Sprintf("rb_pm(%d, %d, 'Turn %d #pages.t/%d#', 'Your turn. forumgm·pages.t/%d');\n", b.Bot.ID, alice.ID, i, i, i)
	}
	b.PHP(t, code)
	c := boardtest.Connect(t, b, b.Bot)
	for _, i := range []int{n - 1, 20, 0} {
		key := fmt.Sprintf("pages.t/%d", i)
		if id, ok, err := c.FindSentPM(ctx, key, time.Time{}); err != nil || !ok || id == "" {
			t.Errorf("PM %s (%d of %d, oldest first): %q %v %v; want found", key, i+1, n, id, ok, err)
		}
	}
	before := c.Session.Requests()
	if _, ok, err := c.FindSentPM(ctx, "pages.t/never", time.Time{}); ok || err != nil {
		t.Errorf("a PM never sent: found %v, %v; want not found", ok, err)
	}
	if got := c.Session.Requests() - before; got < 3 {
		t.Errorf("a PM never sent was called not sent after %d pages of the three", got)
	}
}
