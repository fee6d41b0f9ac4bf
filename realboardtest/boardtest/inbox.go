//go:build linux

package boardtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// CheckInboxMarker (issue 22 item 7): the engine's selectors.inbox_folder
// is on its real PM inbox, empty and not, and on none of the pages a
// profile could point urls.inbox at by mistake (the sent folder, the
// thread, the index); with private messages turned off on the board
// (disable, when the engine has such a setting), the inbox read fails
// (MyBB's notice page, HTTP 200, is scraper.ErrNotInbox; phpBB answers
// 503), never an empty inbox.
func CheckInboxMarker(t *testing.T, b *realboardtest.Board, c *forumconn.Conn, disable func(t testing.TB)) {
	t.Helper()
	ctx := context.Background()
	prof := c.Session.Profile
	shows := func(rel string) bool {
		t.Helper()
		pg, err := c.Session.Fetch(ctx, rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return pg.Doc.Find(prof.Selectors.InboxFolder).Length() > 0
	}
	if !shows(prof.URLs.Inbox) {
		t.Errorf("%s: the empty inbox %s does not show selectors.inbox_folder %q", b.Engine, prof.URLs.Inbox, prof.Selectors.InboxFolder)
	}
	b.PM(t, b.Player("Alice"), b.Bot, "orders", "PROSPER")
	if !shows(prof.URLs.Inbox) {
		t.Errorf("%s: the inbox, with a PM, does not show selectors.inbox_folder %q", b.Engine, prof.Selectors.InboxFolder)
	}
	if box, err := c.NewPMs(ctx, nil, nil); err != nil || len(box.PMs) != 1 {
		t.Errorf("%s: the inbox read: %d PMs, %v; want Alice's", b.Engine, len(box.PMs), err)
	}
	for _, rel := range []string{prof.URLs.Sent, prof.ThreadPageURL(b.ThreadIDString(), 1), prof.URLs.Index} {
		if shows(rel) {
			t.Errorf("%s: %s is no inbox but shows selectors.inbox_folder %q", b.Engine, rel, prof.Selectors.InboxFolder)
		}
	}
	if disable == nil {
		return
	}
	disable(t)
	// The setting may take a moment to reach every request (PHP's opcache
	// revalidates the settings file every 2 s): wait, with a bound.
	var err error
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		if _, _, err = c.Scraper.InboxAt(ctx); err != nil {
			break
		}
	}
	switch {
	case err == nil:
		t.Errorf("%s: with private messages turned off the inbox still reads (as empty)", b.Engine)
	case b.Engine == realboardtest.MyBB && !errors.Is(err, scraper.ErrNotInbox):
		t.Errorf("%s: with private messages turned off the inbox read is %v; want ErrNotInbox", b.Engine, err)
	default:
		t.Logf("%s, private messages off: %v", b.Engine, err)
	}
}
