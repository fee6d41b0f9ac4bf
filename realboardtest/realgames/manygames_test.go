package realgames

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestManyGamesOneAccount: 20 Resistance games of 5 players, each in its own
// thread, on one bot account (the board's admin, flood-exempt) of a real
// board, under `forumgm run`'s loop with its shared sessions: 20 opening
// posts and 100 role PMs to send at once. Each reaches the board exactly
// once (the board's own database says), at the board's pace.
func TestManyGamesOneAccount(t *testing.T) {
	// Beside the others, on boards of its own: run alone first, it held
	// every parallel test of the package back for 3.5 minutes of a loaded
	// CI run (20 s on a quiet machine), the longest whole games with them.
	t.Parallel()
	if testing.Short() {
		t.Skip("20 games on a real board")
	}
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			manyGames(t, engine)
		})
	}
}

func manyGames(t *testing.T, engine string) {
	const games = 20
	g, err := rules.Lookup("resistance")
	if err != nil {
		t.Fatal(err)
	}
	demo := g.(rules.Demo).DemoTable(1)
	players := demo.Players[:5]
	b := realboardtest.Start(t, engine, realboardtest.Options{Players: players, Subject: "Game 0", Opening: "Sign-ups are closed."})
	b.ExemptBot(t)
	fl := newFleet(t, b, games, "Game")
	threads, pwFile, db, m := fl.threads, fl.pwFile, fl.db, fl.m
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	zero := 0.0
	var ps []store.Player
	for _, a := range b.Players {
		ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
	}
	var ids []int64
	for i, th := range threads {
		fc := gameconfig.ForumConfig{URL: b.URL, Engine: b.Engine, Thread: strconv.Itoa(th), Bot: b.Bot.Name,
			PasswordFile: pwFile, PollSeconds: 5, FloodSeconds: &zero, RequestsPerSecond: 50}
		gc := gameconfig.GameConfig{Players: players, Options: demo.Options, Setup: demo.Setup, Seed: int64(i + 1), Start: time.Now().UTC()}
		row, err := m.Create(ctx, fmt.Sprintf("g%02d", i), "resistance", gc, fc, ps)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, row.ID)
	}
	start := time.Now()
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	q := boardQueries[engine]
	var opened time.Duration
	for {
		posts := 0
		for _, r := range threadsRows(t, b, threads) {
			if r.Author == b.Bot.ID && len(markersIn([]boardRow{r})) > 0 {
				posts++
			}
		}
		if posts >= games && opened == 0 {
			opened = time.Since(start)
		}
		sent := len(queryRows(t, b, fmt.Sprintf(q.sentPMs, b.Bot.ID)))
		if opened > 0 && sent >= games*len(players) && setupSent(t, db, ids) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("not done in 10 minutes: %d opening posts, %d PMs on the board", posts, sent)
		}
		time.Sleep(time.Second)
	}
	all := time.Since(start)
	t.Logf("%s: %d games opened in %s, their %d role PMs sent in %s", engine, games, opened.Round(time.Millisecond), games*len(players), all.Round(time.Millisecond))
	// Exactly once, by the board's own tables.
	thread := markersIn(threadsRows(t, b, threads))
	sent := markersIn(queryRows(t, b, fmt.Sprintf(q.sentPMs, b.Bot.ID)))
	inbox := map[string]int{}
	for _, a := range b.Players {
		for k, n := range markersIn(queryRows(t, b, fmt.Sprintf(q.userPMs, a.ID))) {
			inbox[k] += n
		}
	}
	items := 0
	for _, id := range ids {
		for _, it := range simtest.Outbox(t, db, id) {
			if !strings.Contains(it.Marker, "/setup/") {
				continue // the game went on meanwhile
			}
			items++
			switch {
			case it.State != store.OutboxSent:
				t.Errorf("%s: %s", it.Marker, it.State)
			case string(it.Kind) == "post" && thread[it.Marker] != 1:
				t.Errorf("post %s in the threads %d times", it.Marker, thread[it.Marker])
			case string(it.Kind) == "pm" && (sent[it.Marker] != 1 || inbox[it.Marker] != 1):
				t.Errorf("PM %s: %d in the sent folder, %d in the recipient's inbox", it.Marker, sent[it.Marker], inbox[it.Marker])
			}
		}
	}
	setups := 0
	for k, n := range thread {
		if strings.Contains(k, "/setup/") {
			setups += n
		}
	}
	for k, n := range sent {
		if strings.Contains(k, "/setup/") {
			setups += n
		}
	}
	if setups != items || items != games*(1+len(players)) {
		t.Errorf("%d setup messages on the board, %d in the outboxes; want %d", setups, items, games*(1+len(players)))
	}
}

// setupSent: every game's start (its opening post and role PMs) is sent.
func setupSent(t *testing.T, db *store.DB, ids []int64) bool {
	for _, id := range ids {
		for _, it := range simtest.Outbox(t, db, id) {
			if strings.Contains(it.Marker, "/setup/") && it.State != store.OutboxSent {
				return false
			}
		}
	}
	return true
}

// fleet is many games' threads on one board and the moderator `forumgm run`
// would start for them: the bot's password in a file only its owner
// reads, a SQLite store, shared sessions, 8 workers.
type fleet struct {
	threads []int // the board's game thread first
	pwFile  string
	db      *store.DB
	m       *moderator.Moderator
}

// newFleet makes games-1 more threads beside the board's, each opened by
// the bot with name's number. The store closes with the test.
func newFleet(t testing.TB, b *realboardtest.Board, games int, name string) *fleet {
	t.Helper()
	f := &fleet{threads: []int{b.ThreadID}}
	for i := 1; i < games; i++ {
		var topic int
		b.PHPJSON(t, fmt.Sprintf("[$t, $p] = rb_post(%d, %d, 0, '%s %d', 'Sign-ups are closed.'); echo json_encode($t);", b.Bot.ID, b.ForumID, name, i), &topic)
		f.threads = append(f.threads, topic)
	}
	dir := t.TempDir()
	f.pwFile = filepath.Join(dir, "bot.password")
	if err := os.WriteFile(f.pwFile, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), filepath.Join(dir, "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "realgames-test"}
	f.m = &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board, Pool: &moderator.Pool{Workers: 8, Stagger: 10 * time.Millisecond},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))}
	return f
}
