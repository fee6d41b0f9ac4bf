package moderator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// A game's board is resolved once and held: a profile file that goes away
// under a running process changes nothing. One that is gone when a process
// loads the game makes its ticks fail, saying so, as the board's failure;
// a GM control still works, writing times in UTC; and once the file is
// back, the next tick of the same process reads the board again.
func TestProfileFileGoneAndBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "board.profile.yaml")
	if err := os.WriteFile(path, []byte("base: phpbb\ntime_zone: UTC-5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newNationsOn(t, storetest.SQLite(t), func(fc *gameconfig.ForumConfig) { fc.Engine, fc.Profile = "", path })
	away := path + ".away"
	if err := os.Rename(path, away); err != nil {
		t.Fatal(err)
	}
	r.clk.Advance(time.Minute)
	r.tick() // the board as loaded

	// A new process (a restart) while the file is away.
	m := &Moderator{DB: r.db, Clock: r.clk, Connect: r.m.Connect}
	err := m.Tick(r.ctx, r.id)
	if err == nil || !strings.Contains(err.Error(), "profile file") {
		t.Fatalf("a tick without the profile file: %v", err)
	}
	var h store.Health
	r.db.View(r.ctx, func(tx *store.Tx) error { h, err = tx.Health(r.id); return err })
	if !h.Failing() || !strings.Contains(h.LastError, "profile file") {
		t.Errorf("forum health %+v, want the profile's failure", h)
	}
	if _, err := m.Extend(r.ctx, "n1", 5*time.Minute); err != nil {
		t.Fatalf("extend without the profile file: %v", err)
	}
	var box []store.OutboxItem
	r.db.View(r.ctx, func(tx *store.Tx) error { box, err = tx.Outbox(r.id); return err })
	if last := box[len(box)-1].Body; !strings.Contains(last, "extended") || !strings.Contains(last, "UTC") || strings.Contains(last, "UTC-5") {
		t.Errorf("the extend's post without the board's zone: %q", last)
	}
	if err := os.Rename(away, path); err != nil {
		t.Fatal(err)
	}
	if err := m.Tick(r.ctx, r.id); err != nil {
		t.Fatalf("a tick once the file is back: %v", err)
	}
	r.db.View(r.ctx, func(tx *store.Tx) error { h, err = tx.Health(r.id); return err })
	if h.Failing() {
		t.Errorf("still failing once the file is back: %+v", h)
	}
}
