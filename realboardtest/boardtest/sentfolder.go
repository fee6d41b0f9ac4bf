//go:build linux

package boardtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// CheckSentFolderMarker (issue 22 item 8): the engine's
// selectors.sent_folder is on its real sent folder page, empty and not
// (and on its outbox, where it has one), and on none of the pages a
// profile could point urls.sent at by mistake (the inbox, the thread, the
// index, the PM form); the marker check proves a PM absent from the real
// sent folder only, and with urls.sent at the inbox it answers
// scraper.ErrNotSentFolder (forum.ErrNoProof) instead of "not sent".
func CheckSentFolderMarker(t *testing.T, b *realboardtest.Board, c *forumconn.Conn) {
	t.Helper()
	ctx := context.Background()
	prof := c.Session.Profile
	shows := func(rel string) bool {
		t.Helper()
		pg, err := c.Session.Fetch(ctx, rel)
		if err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		return pg.Doc.Find(prof.Selectors.SentFolder).Length() > 0
	}
	folders := []string{prof.URLs.Sent}
	if prof.URLs.Outbox != "" {
		folders = append(folders, prof.URLs.Outbox)
	}
	for _, rel := range folders {
		if !shows(rel) {
			t.Errorf("%s: the empty folder %s does not show selectors.sent_folder %q", b.Engine, rel, prof.Selectors.SentFolder)
		}
	}
	alice := b.Player("Alice")
	key := "sentfolder.t0k/pm/" + b.Engine
	if _, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.SendPM(ctx, forum.Author{Name: alice.Name, ID: alice.IDString()}, "[game] a word", "Hello.", key)
	}); err != nil {
		t.Fatalf("PM: %v", err)
	}
	for _, rel := range folders {
		if !shows(rel) {
			t.Errorf("%s: %s, after a PM, does not show selectors.sent_folder %q", b.Engine, rel, prof.Selectors.SentFolder)
		}
	}
	others := []string{prof.URLs.Inbox, prof.ThreadPageURL(b.ThreadIDString(), 1), prof.URLs.Index,
		forum.Expand(prof.Forms.PM.Page, map[string]string{"user": alice.IDString(), "name": alice.Name})}
	for _, rel := range others {
		if shows(rel) {
			t.Errorf("%s: %s is no sent folder but shows selectors.sent_folder %q", b.Engine, rel, prof.Selectors.SentFolder)
		}
	}
	if _, ok, err := c.FindSentPM(ctx, key, time.Time{}); !ok || err != nil {
		t.Errorf("%s: the PM sent is not found: %v %v", b.Engine, ok, err)
	}
	if _, ok, err := c.FindSentPM(ctx, "sentfolder.t0k/pm/never", time.Time{}); ok || err != nil {
		t.Errorf("%s: a PM never sent: found %v, err %v; want proven absent", b.Engine, ok, err)
	}
	wrong := prof
	wrong.URLs.Sent, wrong.URLs.Outbox, wrong.URLs.SentPage = prof.URLs.Inbox, "", ""
	w, err := forumconn.Open(b.URL, wrong, forum.Credentials{Username: b.Bot.Name, Password: b.Bot.Password},
		scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond, Log: TestLog(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := w.FindSentPM(ctx, "sentfolder.t0k/pm/never", time.Time{}); ok || !errors.Is(err, scraper.ErrNotSentFolder) || !errors.Is(err, forum.ErrNoProof) {
		t.Errorf("%s: urls.sent at the inbox: found %v, err %v; want ErrNotSentFolder", b.Engine, ok, err)
	}
}
