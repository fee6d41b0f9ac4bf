package smftest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// setUpBot sets the bot account up as a GM would on SMF: a global
// moderator (flood waits of 2 s), 5 posts (SMF asks members with fewer for
// a PM captcha) and seconds in its time format (with SMF's default, to the
// minute, a message in the minute a phase opened in could be from before
// it, and the moderator would count it as late).
func setUpBot(t *testing.T, b *realboardtest.Board) {
	t.Helper()
	b.ExemptBot(t)
	b.Query(t, fmt.Sprintf("UPDATE {prefix}members SET posts = 5, time_format = '%%b %%d, %%Y, %%I:%%M:%%S %%p' WHERE id_member = %d", b.Bot.ID))
}

// startGame creates a game of kind on the board's thread and runs the
// moderator on it as `forumgm run` does (real clock, real login through
// SMF's form, the password in an owner-only file) until stop or the test's
// end. SMFTEST_KEEP_DB=DIR keeps the game's database as DIR/NAME.db.
// edit (if any) changes the bot's forum settings before the game is created.
func startGame(t *testing.T, b *realboardtest.Board, name, kind string, gc gameconfig.GameConfig, edit ...func(*gameconfig.ForumConfig)) *smfTable {
	t.Helper()
	var players []store.Player
	for _, p := range b.Players {
		players = append(players, store.Player{Slot: p.Name, ForumName: p.Name, ForumUserID: p.IDString()})
	}
	return startGameWith(t, b, name, kind, gc, players, edit...)
}

// startGameWith is startGame with these players (none: a game filled by
// sign-ups in its thread).
func startGameWith(t *testing.T, b *realboardtest.Board, name, kind string, gc gameconfig.GameConfig, players []store.Player, edit ...func(*gameconfig.ForumConfig)) *smfTable {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "game.db")
	if keep := os.Getenv("SMFTEST_KEEP_DB"); keep != "" {
		dbPath = filepath.Join(keep, name+".db")
	}
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	pw := filepath.Join(dir, "bot.password")
	if err := os.WriteFile(pw, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	fc := gameconfig.ForumConfig{URL: b.URL, Engine: "smf", Thread: b.ThreadIDString(), Bot: b.Bot.Name, PasswordFile: pw,
		PollSeconds: 0.5, FloodSeconds: &zero, RequestsPerSecond: 50}
	for _, e := range edit {
		e(&fc)
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return forumconn.Connect(site, clock.Real{}, "test")
	}}
	g, err := m.Create(ctx, name, kind, gc, fc, players)
	if err != nil {
		t.Fatal(err)
	}
	tl := &smfTable{t: t, b: b, db: db, g: g, m: m}
	tl.run()
	t.Cleanup(func() { tl.stop(); db.Close() })
	return tl
}

// run starts the moderator (again, after stop: a restarted `forumgm run`).
func (tl *smfTable) run() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); tl.m.Run(ctx) }()
	var once sync.Once
	tl.stop = func() { once.Do(func() { cancel(); wg.Wait() }) }
}

// smfTable is the game's store and board, for the checks.
type smfTable struct {
	t  *testing.T
	b  *realboardtest.Board
	db *store.DB
	g  *store.Game
	m  *moderator.Moderator
	// stop ends the moderator (and waits for it).
	stop func()
}

func (tl *smfTable) row() *store.Game {
	var row *store.Game
	if err := tl.db.View(context.Background(), func(tx *store.Tx) error { var err error; row, err = tx.GameByID(tl.g.ID); return err }); err != nil {
		tl.t.Fatal(err)
	}
	return row
}

func (tl *smfTable) state(g rules.Game) rules.State {
	st, err := g.Decode(tl.row().State)
	if err != nil {
		tl.t.Fatal(err)
	}
	return st
}

func (tl *smfTable) outbox() []store.OutboxItem {
	var out []store.OutboxItem
	if err := tl.db.View(context.Background(), func(tx *store.Tx) error { var err error; out, err = tx.Outbox(tl.g.ID); return err }); err != nil {
		tl.t.Fatal(err)
	}
	return out
}

func (tl *smfTable) drained() bool {
	var it *store.OutboxItem
	tl.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(tl.g.ID, time.Now().Add(time.Hour))
		return err
	})
	return it == nil
}

func (tl *smfTable) waitFor(what string, limit time.Duration, cond func() bool) {
	tl.t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			tl.t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// checkExactlyOnce: every outbox item sent (a split one: by its parts) and
// on the board once, in the thread or the bot's sent PMs; a lapsed one
// (a reminder whose phase closed first) never.
func (tl *smfTable) checkExactlyOnce() {
	t, b := tl.t, tl.b
	posts := b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}messages WHERE id_topic = %d AND id_member = %d", b.ThreadID, b.Bot.ID))
	pms := b.Query(t, fmt.Sprintf("SELECT body FROM {prefix}personal_messages WHERE id_member_from = %d", b.Bot.ID))
	all := append(posts, pms...)
	for _, it := range tl.outbox() {
		if it.State == store.OutboxSplit {
			continue // its parts went instead
		}
		n := 0
		for _, r := range all {
			if forum.HasMarker(fmt.Sprint(r["body"]), it.Marker) {
				n++
			}
		}
		switch {
		case it.State == store.OutboxLapsed:
			// A reminder whose phase closed first: never to go out.
			if n != 0 {
				t.Errorf("the lapsed %s is on the board %d times", it.Marker, n)
			}
		case it.State != store.OutboxSent:
			t.Errorf("outbox %s is %s: %s", it.Marker, it.State, it.LastError)
		case n != 1:
			t.Errorf("outbox %s is on the board %d times", it.Marker, n)
		}
	}
}

// markupOf is the engine's marker markup (its profile's marker_markup).
func markupOf(engine string) string {
	p, _ := forum.Builtin(engine)
	return p.MarkerMarkup
}
