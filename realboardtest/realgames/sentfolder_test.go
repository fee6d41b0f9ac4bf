package realgames

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestSentFolderFull: the bot's sent folder limited to 3 PMs on the board
// (phpBB: its group's message limit, whose sent folder then drops its
// oldest; MyBB: its group's pmquota, past which no copy is kept), a
// Resistance game sending its five role PMs, and a sixth to eighth PM sent
// from the same bot account by another game while the first role PM's send
// is interrupted (a crash after the board took it, before it was recorded).
// Every PM is in its recipient's inbox exactly once, none twice: a PM the
// folder no longer shows (dropped, or never copied) stays unconfirmed,
// with the board's word "full" as the reason, and is never resent, through
// the moderator's later checks (past its 30 s back-off); the game's other
// messages go on.
func TestSentFolderFull(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the outbox's 30 s back-off in real time")
	}
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			sentFolderFull(t, engine)
		})
	}
}

func sentFolderFull(t *testing.T, engine string) {
	ctx := context.Background()
	names := []string{"Alice", "Bob", "Carol", "Dave", "Erin"}
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: names})
	b.ExemptBot(t)
	switch engine {
	case realboardtest.PhpBB:
		// The bot's group (global moderators): its sent folder keeps 3.
		// The players keep the board's 50 (their inboxes must not fill).
		b.Query(t, "UPDATE {prefix}groups SET group_message_limit = 3 WHERE group_name = 'GLOBAL_MODERATORS'")
	case realboardtest.MyBB:
		b.PHP(t, "global $db, $cache; $db->update_query('usergroups', ['pmquota' => 3], 'gid=3'); $cache->update_usergroups();")
	}
	other := boardtest.Connect(t, b, b.Bot) // another game's connection on the bot's account
	readers := map[string]*forumconn.Conn{}
	for _, n := range names {
		readers[n] = player(t, b, b.Player(n), 0)
		// Logged in now, not in the interlude: on a loaded machine a
		// phpBB login took 7-9 s, and five of them there used up most of
		// the wait below before the bot could go on.
		if _, err := readers[n].NewPMs(ctx, nil, nil); err != nil {
			t.Fatalf("%s reads the inbox: %v", n, err)
		}
	}

	dir := t.TempDir()
	pwFile := filepath.Join(dir, "bot.password")
	if err := os.WriteFile(pwFile, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	zero := 0.0
	fc := gameconfig.ForumConfig{URL: b.URL, Engine: b.Engine, Thread: b.ThreadIDString(), Bot: b.Bot.Name,
		PasswordFile: pwFile, PollSeconds: 0.5, FloodSeconds: &zero, RequestsPerSecond: 50}
	var ps []store.Player
	for _, a := range b.Players {
		ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
	}
	var g *store.Game
	outbox := func() ([]store.OutboxItem, error) {
		var out []store.OutboxItem
		err := db.View(ctx, func(tx *store.Tx) error {
			var err error
			out, err = tx.Outbox(g.ID)
			return err
		})
		return out, err
	}

	// The interlude, at the first role PM's send: the board has it, the
	// store does not know yet. Another game sends three PMs; everyone
	// reads their inbox (phpBB moves the bot's copies from its outbox to
	// its sent folder only then, and drops the oldest past the limit).
	var mu sync.Mutex
	var interrupted string
	var extras []string
	var interludeErr error
	interlude := func(sending store.OutboxItem) error {
		for i := 0; i < 3; i++ {
			key := fmt.Sprintf("other.game/pm/%d", i)
			_, err := other.SendPM(ctx, forum.Author{Name: "Bob", ID: b.Player("Bob").IDString()}, "other game", fmt.Sprintf("Another game's PM %d.", i), key)
			t.Logf("the other game's PM %s: %v", key, err)
			extras = append(extras, key)
		}
		for _, n := range names {
			if _, err := readers[n].NewPMs(ctx, nil, nil); err != nil {
				return fmt.Errorf("%s reads the inbox: %w", n, err)
			}
		}
		return nil
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
			return forumconn.Connect(site, clock.Real{}, "sentfolder-test")
		},
		Crash: func(point string) error {
			if point != "after-send" {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if interrupted != "" {
				return nil
			}
			box, err := outbox()
			if err != nil {
				return err
			}
			for _, it := range box {
				if it.Kind == "pm" && it.State == store.OutboxSending {
					interrupted = it.Marker
					interludeErr = interlude(it)
					return moderator.ErrCrash
				}
			}
			return nil // the opening post
		}}
	gc := gameconfig.GameConfig{Players: names, Seed: 3, Start: time.Now().UTC(), Options: rules.Options{"phase_hours": 2}}
	if g, err = m.Create(ctx, "resistance-"+engine, "resistance", gc, fc, ps); err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); m.Run(runCtx) }()
	stop := func() { cancel(); <-done }
	defer stop()

	// Until nothing is left to send but what stays unconfirmed, then past
	// the back-off after which an answered check would resend (MyBB's
	// sends come back unconfirmed: 30 s; phpBB's interrupted one is
	// checked again on every tick).
	settle := map[string]time.Duration{realboardtest.PhpBB: 10 * time.Second, realboardtest.MyBB: 40 * time.Second}[engine]
	var settled time.Time
	waitFor(t, "every message sent or unconfirmed, and a while on", 3*time.Minute, func() bool {
		box, err := outbox()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range box {
			if it.State != store.OutboxSent && it.State != store.OutboxUnconfirmed && it.State != store.OutboxTaken {
				settled = time.Time{}
				return false
			}
		}
		if settled.IsZero() {
			settled = time.Now()
		}
		return time.Since(settled) > settle
	})
	stop()
	mu.Lock()
	defer mu.Unlock()
	if interludeErr != nil {
		t.Fatal(interludeErr)
	}
	if interrupted == "" {
		t.Fatal("no role PM's send was interrupted")
	}

	q := boardQueries[engine]
	box, _ := outbox()
	pms, unconfirmed := 0, 0
	inboxes := map[string]map[string]int{}
	inbox := func(name string) map[string]int {
		if inboxes[name] == nil {
			inboxes[name] = markersIn(queryRows(t, b, fmt.Sprintf(q.userPMs, b.Player(name).ID)))
		}
		return inboxes[name]
	}
	for _, it := range box {
		if it.Kind != "pm" {
			continue
		}
		pms++
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		if n := inbox(it.RecipientName)[key]; n != 1 {
			t.Errorf("PM %s (%s) is in %s's inbox %d times, want once", key, it.State, it.RecipientName, n)
		}
		if it.State == store.OutboxUnconfirmed || it.State == store.OutboxTaken {
			unconfirmed++
			if !strings.Contains(it.LastError, "full") {
				t.Errorf("PM %s unconfirmed for another reason than a full folder: %s", key, it.LastError)
			}
		}
		t.Logf("PM %s to %s: %s %s", key, it.RecipientName, it.State, it.LastError)
	}
	for _, k := range extras {
		if n := inbox("Bob")[k]; n != 1 {
			t.Errorf("the other game's PM %s is in Bob's inbox %d times, want once", k, n)
		}
	}
	if pms != len(names) {
		t.Errorf("%d role PMs in the outbox, want %d", pms, len(names))
	}
	sentQ := q.sentPMs
	if engine == realboardtest.PhpBB { // the sent folder itself, not the outbox
		sentQ = strings.Replace(sentQ, "IN (-1, -2)", "= -1", 1)
	}
	sent := markersIn(queryRows(t, b, fmt.Sprintf(sentQ, b.Bot.ID)))
	t.Logf("the bot's sent folder on the board: %v; %d of %d role PMs unconfirmed", sent, unconfirmed, pms)
	if len(sent) > 3 {
		t.Errorf("the bot's sent folder holds %d PMs: the limit of 3 was not in force", len(sent))
	}
	if unconfirmed == 0 {
		t.Errorf("no PM was left unconfirmed: the full folder was not met")
	}
}

// TestLongOutbox: phpBB keeps a sent PM in the bot's outbox until its
// recipient reads it. With 30 PMs to a player who never logs in, the
// first is on the outbox's second page and in no sent folder: the marker
// check finds it there (urls.outbox_page). Reading the outbox's first page
// only, it once said "not sent", and an unconfirmed PM went out twice.
func TestLongOutbox(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	b := realboardtest.Start(t, realboardtest.PhpBB, realboardtest.Options{Players: []string{"Alice"}})
	b.ExemptBot(t)
	c := boardtest.Connect(t, b, b.Bot)
	c.Poster.SetFlood(0)
	alice := b.Player("Alice")
	to := forum.Author{Name: alice.Name, ID: alice.IDString()}
	const pms = 30
	for i := range pms {
		if _, err := c.SendPM(ctx, to, "Your role", "You are a spy.", fmt.Sprintf("outbox.t/%d", i)); err != nil {
			t.Fatalf("PM %d: %v", i, err)
		}
	}
	id, found, err := c.FindSentPM(ctx, "outbox.t/0", time.Time{})
	if err != nil || !found || id == "" {
		t.Fatalf("the first of %d undelivered PMs: found %v (%q), err %v; want it found in the outbox", pms, found, id, err)
	}
	if _, found, err := c.FindSentPM(ctx, "outbox.t/99", time.Time{}); found || err != nil {
		t.Errorf("a PM never sent: found %v, err %v; want absent once the whole outbox was read", found, err)
	}
}
