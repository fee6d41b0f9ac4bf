package moderator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/parser"
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

// Games on one board profile share its compiled body reader; a game whose
// settings change the profile (here its time zone) has its own. Each
// game still reads its PMs with it.
func TestGamesShareTheirProfilesReader(t *testing.T) {
	si := newSharedInbox(t, []string{"http://fake/"}, []string{"GMbot"}, []string{"r1", "r2"}, [][]string{{"Alice", "Bob"}, {"Carol", "Dave"}})
	fc := gameconfig.ForumConfig{URL: "http://fake/", Engine: "phpbb", Thread: "1", Bot: "GMbot", PasswordEnv: "X", TimeZone: "UTC-5"}
	row, err := si.m.Create(context.Background(), "r3", "nations", gameconfig.GameConfig{Players: []string{"Erin", "Fay"},
		Options: map[string]any{"rounds": 2, "round_minutes": 10}, Seed: 1, Start: start}, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	ids := append(si.ids, row.ID)
	readers := map[int64]*parser.BodyReader{}
	for _, id := range ids {
		l, err := si.m.view(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		readers[id] = l.site.Reader
	}
	if readers[ids[0]] == nil || readers[ids[0]] != readers[ids[1]] {
		t.Errorf("two games on one profile: readers %p and %p, want one", readers[ids[0]], readers[ids[1]])
	}
	if readers[ids[2]] == readers[ids[0]] {
		t.Error("a game in another time zone shares the others' reader")
	}
	si.ff.PMSubject("Alice", "orders", "PROSPER")
	si.ff.PMSubject("Erin", "orders", "PROSPER")
	for _, id := range ids {
		if err := si.m.Tick(context.Background(), id); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []int64{ids[0], ids[2]} {
		var cs []store.CommandRow
		si.db.View(context.Background(), func(tx *store.Tx) error { cs, err = tx.Commands(id, store.CommandFilter{}); return err })
		if len(cs) != 1 || !strings.Contains(strings.ToUpper(cs[0].Text), "PROSPER") {
			t.Errorf("game #%d's commands: %+v, want its player's PROSPER", id, cs)
		}
	}
}
