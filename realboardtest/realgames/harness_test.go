// Package realgames plays forumgm games on real phpBB 3.3.10 and MyBB
// 1.8.37 boards (realboardtest): the moderator `forumgm run` uses, its
// forum connection and a SQLite store on one side; players logged in with
// their own accounts, using the boards' own login, reply, edit and PM forms
// on the other. The tests are in _test files only: the package has no API.
package realgames

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// player is a player's own session on the board: what they post and PM
// goes through the board's forms, unmarked (players' posts carry no bot
// marker).
func player(t testing.TB, b *realboardtest.Board, a realboardtest.Account, flood time.Duration) *forumconn.Conn {
	c := boardtest.Connect(t, b, a)
	c.Poster.Unmarked = true
	c.Poster.SetFlood(flood)
	// phpBB's post review sends a reply back with the form when someone
	// else posted since the form was loaded; with seven players answering
	// the same post each round of resubmits gets one through, so a player
	// needs more rounds than the bot's six.
	c.Poster.Attempts = 60
	return c
}

// players send simulated players' moves through their own sessions. Each
// player has a queue and a goroutine, so one player's flood wait or login
// holds up only that player, as with people.
type players struct {
	t      testing.TB
	b      *realboardtest.Board
	conns  map[string]*forumconn.Conn
	mu     sync.Mutex
	n      int
	queues map[string]chan move
	wg     sync.WaitGroup
	errs   []error
	// last is each player's last post on the board and when (MyBB).
	last map[*forumconn.Conn]posted
	// said is when each player last posted each text (MyBB).
	said map[*forumconn.Conn]map[string]time.Time
}

type posted struct {
	text string
	at   time.Time
}

type move struct {
	text    string
	private bool
}

func newPlayers(t testing.TB, b *realboardtest.Board, flood time.Duration) *players {
	ps := &players{t: t, b: b, conns: map[string]*forumconn.Conn{}, queues: map[string]chan move{}}
	for _, a := range b.Players {
		ps.conns[a.Name] = player(t, b, a, flood)
	}
	return ps
}

func (ps *players) enqueue(ctx context.Context, name string, mv move) error {
	c, ok := ps.conns[name]
	if !ok {
		return errors.New("no account for " + name)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	q, ok := ps.queues[name]
	if !ok {
		q = make(chan move, 64)
		ps.queues[name] = q
		ps.wg.Add(1)
		go func() {
			defer ps.wg.Done()
			for mv := range q {
				if err := ps.send(ctx, c, mv); err != nil && ctx.Err() == nil {
					ps.mu.Lock()
					ps.errs = append(ps.errs, fmt.Errorf("%s's %q: %w", name, mv.text, err))
					ps.mu.Unlock()
				}
			}
		}()
	}
	select {
	case q <- mv:
		return nil
	default:
		return errors.New(name + " is too far behind")
	}
}

func (ps *players) send(ctx context.Context, c *forumconn.Conn, mv move) error {
	ps.mu.Lock()
	ps.n++
	n := ps.n
	ps.mu.Unlock()
	key := fmt.Sprintf("player.%d", n)
	if mv.private {
		// A numbered subject: MyBB refuses the same subject and text to
		// the same person within five hours (two rounds' DEFEND).
		// Marked, unlike posts: MyBB's "message sent" page names no PM,
		// so an unmarked PM cannot be confirmed and would be resubmitted
		// (the board refuses the repeats); the marker lets the poster find
		// it in the player's sent folder. Marker lines are never commands.
		c.Poster.Unmarked = false
		defer func() { c.Poster.Unmarked = true }()
		_, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
			return c.Poster.SendPM(ctx, forum.Author{Name: ps.b.Bot.Name, ID: ps.b.Bot.IDString()}, key, fmt.Sprintf("orders %d", n), mv.text)
		})
		return err
	}
	if ps.b.Engine == realboardtest.MyBB {
		// MyBB refuses a reply the same as the player's own within ten
		// minutes ("already submitted"): a simulated player who moves
		// again before the bot has read his move (a Nations CIV) would
		// post it twice. A person would not; the repeat is left out.
		ps.mu.Lock()
		l := ps.last[c]
		ps.mu.Unlock()
		if l.text == mv.text && time.Since(l.at) < 10*time.Minute {
			ps.t.Logf("a repeat of a post MyBB would refuse, left out: %q", mv.text)
			return nil
		}
		// The same words as an earlier post of his within the ten minutes
		// (a Resistance vote in the next proposal) MyBB refuses too; a
		// person would word it differently, so the text gets a line of its
		// own, no command (not bold).
		ps.mu.Lock()
		text := mv.text
		if at, ok := ps.said[c][text]; ok && time.Since(at) < 10*time.Minute {
			mv.text = fmt.Sprintf("%s\n\n(move %d)", text, n)
		}
		if ps.said == nil {
			ps.said = map[*forumconn.Conn]map[string]time.Time{}
		}
		if ps.said[c] == nil {
			ps.said[c] = map[string]time.Time{}
		}
		ps.said[c][text] = time.Now()
		ps.mu.Unlock()
		defer func() {
			ps.mu.Lock()
			if ps.last == nil {
				ps.last = map[*forumconn.Conn]posted{}
			}
			ps.last[c] = posted{text, time.Now()}
			ps.mu.Unlock()
		}()
	}
	// Players wait out their flood limit, as people do.
	_, err := poster.Patiently(ctx, clock.Real{}, func() (string, error) {
		return c.Poster.Reply(ctx, ps.b.ThreadIDString(), key, "", mv.text)
	})
	return err
}

// Post and PM implement simplayers.Sender.
func (ps *players) Post(ctx context.Context, name, text string) error {
	return ps.enqueue(ctx, name, move{text: text})
}
func (ps *players) PM(ctx context.Context, name, text string) error {
	return ps.enqueue(ctx, name, move{text: text, private: true})
}

// close waits for the queued moves and returns the players' failures.
func (ps *players) close() []error {
	ps.mu.Lock()
	for _, q := range ps.queues {
		close(q)
	}
	ps.queues = map[string]chan move{}
	ps.mu.Unlock()
	ps.wg.Wait()
	return ps.errs
}

// table is a game set up on a board and moderated by a running moderator.
type table struct {
	t    testing.TB
	b    *realboardtest.Board
	db   *store.DB
	m    *moderator.Moderator
	g    *store.Game
	eng  rules.Game
	gc   gameconfig.GameConfig
	fc   gameconfig.ForumConfig
	stop func()
}

// setup creates a game on the board the way `forumgm new` does (bot
// password in a file only its owner reads) and starts the moderator as
// `forumgm run` does, on a SQLite store; the test's cleanup stops it.
// The bot polls once a second: with sixteen boards at once, their PHP
// answering the bots' polls is most of the package's CPU.
// edit (if any) changes the bot's forum settings before the game is created.
func setup(t testing.TB, b *realboardtest.Board, kind string, gc gameconfig.GameConfig, botFlood *float64, edit ...func(*gameconfig.ForumConfig)) *table {
	t.Helper()
	var ps []store.Player
	for _, a := range b.Players {
		ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
	}
	return setupPlayers(t, b, kind, gc, botFlood, ps, edit...)
}

// setupPlayers is setup with these players (none: a game filled by
// sign-ups in its thread).
func setupPlayers(t testing.TB, b *realboardtest.Board, kind string, gc gameconfig.GameConfig, botFlood *float64, ps []store.Player, edit ...func(*gameconfig.ForumConfig)) *table {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "bot.password")
	if err := os.WriteFile(pwFile, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	fc := gameconfig.ForumConfig{URL: b.URL, Engine: b.Engine, Thread: b.ThreadIDString(), Bot: b.Bot.Name,
		PasswordFile: pwFile, PollSeconds: 1, FloodSeconds: botFlood, RequestsPerSecond: 50}
	for _, e := range edit {
		e(&fc)
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
			return forumconn.Connect(site, clock.Real{}, "realgames-test")
		}}
	g, err := m.Create(ctx, kind+"-"+b.Engine, kind, gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	eng, _ := rules.Lookup(kind)
	tb := &table{t: t, b: b, db: db, m: m, g: g, eng: eng, gc: gc, fc: fc}
	tb.run()
	t.Cleanup(func() { tb.stop(); db.Close() })
	return tb
}

// run starts the moderator (again, after stop: a restarted `forumgm run`).
func (tb *table) run() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); tb.m.Run(ctx) }()
	var once sync.Once
	tb.stop = func() { once.Do(func() { cancel(); <-done }) }
}

// testWriter sends the moderator's log to the test's log.
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// row is the game's stored row now.
func (tb *table) row() *store.Game {
	var row *store.Game
	err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		row, err = tx.GameByID(tb.g.ID)
		return err
	})
	if err != nil {
		tb.t.Fatal(err)
	}
	return row
}

func (tb *table) state() rules.State {
	st, err := tb.eng.Decode(tb.row().State)
	if err != nil {
		tb.t.Fatal(err)
	}
	return st
}

// opened waits until the opening post is on the board and returns the
// current phase's deadline: the game's clock starts with that post, and a
// post made before it is sign-up chatter, not the game's.
func (tb *table) opened() time.Time {
	tb.t.Helper()
	waitFor(tb.t, "the opening post on the board", 60*time.Second, func() bool {
		box := tb.outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	return tb.eng.Status(tb.state()).Deadline
}

// stalled says what a game that stopped moving was doing, for the log of
// a failure that happens once in many runs: its outbox by state, its last
// commands, and the stacks of the bot's goroutines (the moderator, its
// sender and its forum sessions), so a wait that never ends shows where.
func (tb *table) stalled() string {
	var b strings.Builder
	states := map[string]int{}
	for _, it := range tb.outbox() {
		states[string(it.State)]++
	}
	fmt.Fprintf(&b, "outbox by state: %v\n", states)
	cs := tb.commands(store.CommandFilter{})
	fmt.Fprintf(&b, "%d commands recorded", len(cs))
	for _, c := range cs[max(0, len(cs)-5):] {
		fmt.Fprintf(&b, "; %s %s %s %s", c.Phase, c.Player, c.Kind, c.Status)
	}
	// Does the board answer at all (php -S serves one request at a time)?
	hc := &http.Client{Timeout: 10 * time.Second}
	t0 := time.Now()
	if resp, err := hc.Get(tb.b.URL); err != nil {
		fmt.Fprintf(&b, "\nthe board's index: %v", err)
	} else {
		resp.Body.Close()
		fmt.Fprintf(&b, "\nthe board's index: %s in %v", resp.Status, time.Since(t0).Round(time.Millisecond))
	}
	lg := tb.b.ServerLog()
	fmt.Fprintf(&b, "\nthe server log's end:\n%s", lg[max(0, len(lg)-3000):])
	buf := make([]byte, 8<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "forumgm/moderator") || strings.Contains(g, "forumgm/scraper") || strings.Contains(g, "forumgm/poster") {
			b.WriteString("\n\n" + g)
		}
	}
	return b.String()
}

// drained: nothing left in the outbox to send.
func (tb *table) drained() bool {
	var it *store.OutboxItem
	tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(tb.g.ID, time.Now().Add(time.Hour))
		return err
	})
	return it == nil
}

func (tb *table) outbox() []store.OutboxItem {
	var out []store.OutboxItem
	err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Outbox(tb.g.ID)
		return err
	})
	if err != nil {
		tb.t.Fatal(err)
	}
	return out
}

func (tb *table) commands(f store.CommandFilter) []store.CommandRow {
	var out []store.CommandRow
	err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		out, err = tx.Commands(tb.g.ID, f)
		return err
	})
	if err != nil {
		tb.t.Fatal(err)
	}
	return out
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up after %v waiting for %s; the bot's goroutines then:\n%s", limit, what, botStacks())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// boardUnix is a board's Unix time column (phpBB's post_time,
// message_time) as Query returned it.
func boardUnix(v any) (time.Time, error) {
	s, err := strconv.ParseFloat(fmt.Sprint(v), 64)
	return time.Unix(int64(s), 0), err
}

// botStacks are the stacks of the goroutines in the bot's own packages
// (the moderator, its board connections, the scraper and poster): where a
// bot that should have acted waits.
func botStacks() string {
	var buf bytes.Buffer
	pprof.Lookup("goroutine").WriteTo(&buf, 2)
	var out []string
	for _, g := range strings.Split(buf.String(), "\n\n") {
		if strings.Contains(g, "forumgm/moderator.") || strings.Contains(g, "forumgm/scraper.") || strings.Contains(g, "forumgm/forumconn.") {
			out = append(out, g)
		}
	}
	return strings.Join(out, "\n\n")
}

// replayJournal rebuilds the game from its seed and the journal the
// moderator kept (accepted commands, resolves, deadlines, ends), with the
// game's own rules and nothing of the moderator's, strictly (journal.Strict:
// an entry that does not replay, a command that no longer applies, fails):
// the final state must come out the same.
func (tb *table) replayJournal() rules.State {
	t := tb.t
	var j []journal.Entry
	err := tb.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		j, err = tx.Journal(tb.g.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := journal.Replay(tb.eng, tb.gc.Rules(), j, journal.Strict)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// boardQueries are the SQL the checks run on each engine's own database.
var boardQueries = map[string]struct {
	threadBodies, userPMs, sentPMs, posts string
}{
	realboardtest.PhpBB: {
		threadBodies: "SELECT post_id AS id, poster_id AS author, post_text AS body FROM {prefix}posts WHERE topic_id = %d ORDER BY post_id",
		// The recipient's copies (inbox, or not yet placed in a folder).
		userPMs: "SELECT p.msg_id AS id, p.message_text AS body FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d AND t.user_id <> p.author_id",
		// The sender's copies: outbox (-2) until delivered, then sent (-1).
		sentPMs: "SELECT p.msg_id AS id, p.message_text AS body FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d AND t.author_id = %[1]d AND t.folder_id IN (-1, -2)",
	},
	realboardtest.MyBB: {
		threadBodies: "SELECT pid AS id, uid AS author, message AS body FROM {prefix}posts WHERE tid = %d ORDER BY pid",
		userPMs:      "SELECT pmid AS id, message AS body FROM {prefix}privatemessages WHERE uid = %d AND folder = 1",
		sentPMs:      "SELECT pmid AS id, message AS body FROM {prefix}privatemessages WHERE uid = %d AND fromid = %[1]d AND folder = 2",
	},
}

type boardRow = boardtest.Row

func queryRows(t testing.TB, b *realboardtest.Board, sql string) []boardRow {
	var out []boardRow
	for _, r := range b.Query(t, sql) {
		var br boardRow
		fmt.Sscan(fmt.Sprint(r["id"]), &br.ID)
		if a, ok := r["author"]; ok {
			fmt.Sscan(fmt.Sprint(a), &br.Author)
		}
		br.Body = fmt.Sprint(r["body"])
		out = append(out, br)
	}
	return out
}

// threadsRows are the posts of several threads in one query (each query
// is a PHP process that boots the board: a loop over twenty threads twice
// a second kept a core busy beside the other boards).
func threadsRows(t testing.TB, b *realboardtest.Board, threads []int) []boardRow {
	ids := make([]string, len(threads))
	for i, th := range threads {
		ids[i] = strconv.Itoa(th)
	}
	q := boardQueries[b.Engine].threadBodies
	if !strings.Contains(q, "= %d") {
		t.Fatalf("%s's thread query names no thread: %s", b.Engine, q)
	}
	return queryRows(t, b, strings.Replace(q, "= %d", "IN ("+strings.Join(ids, ", ")+")", 1))
}

func threadRows(t testing.TB, b *realboardtest.Board) []boardRow {
	return queryRows(t, b, fmt.Sprintf(boardQueries[b.Engine].threadBodies, b.ThreadID))
}

// markersIn counts each marker key in the bodies (a body may carry one).
func markersIn(rows []boardRow) map[string]int {
	n := map[string]int{}
	for _, r := range rows {
		for _, k := range forum.Markers(r.Body) {
			n[k]++
		}
	}
	return n
}

// checkExactlyOnce checks every outbox item against the board's own
// database: sent, each post in the thread once, each PM once in its
// recipient's inbox and once in the bot's sent folder, and nothing marked
// on the board that the outbox does not hold.
func (tb *table) checkExactlyOnce() (posts, pms int) {
	t, b := tb.t, tb.b
	q := boardQueries[b.Engine]
	thread := markersIn(threadRows(t, b))
	sent := markersIn(queryRows(t, b, fmt.Sprintf(q.sentPMs, b.Bot.ID)))
	inbox := map[string]map[string]int{}
	want := map[string]bool{}
	for _, it := range tb.outbox() {
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		want[key] = true
		if it.State == store.OutboxSplit {
			continue // refused as too long: its parts, items of their own, went instead
		}
		if it.State == store.OutboxLapsed {
			// A reminder whose phase closed first: never sent (checked below
			// for the thread and the sent folder; a PM in an inbox here).
			var id int
			fmt.Sscan(it.RecipientID, &id)
			if it.Kind == "pm" && markersIn(queryRows(t, b, fmt.Sprintf(q.userPMs, id)))[key] != 0 {
				t.Errorf("the lapsed PM %s is in %s's inbox", key, it.RecipientName)
			}
			want[key] = false
			continue
		}
		if it.State != store.OutboxSent {
			t.Errorf("outbox %s (%s to %q) is %s: %s", it.Marker, it.Kind, it.RecipientName, it.State, it.LastError)
			continue
		}
		switch it.Kind {
		case "post":
			posts++
			if thread[key] != 1 {
				t.Errorf("post %s is in the thread %d times, want once", key, thread[key])
			}
		case "pm":
			pms++
			// phpBB keeps pm_max_msgs (50) in the sent folder and drops
			// the oldest beyond it (full_folder_action); the recipient's
			// inbox below is where every PM must be, once.
			if sent[key] > 1 || (sent[key] == 0 && b.Engine != realboardtest.PhpBB) {
				t.Errorf("PM %s is in the bot's sent folder %d times, want once", key, sent[key])
			}
			if inbox[it.RecipientID] == nil {
				var id int
				fmt.Sscan(it.RecipientID, &id)
				inbox[it.RecipientID] = markersIn(queryRows(t, b, fmt.Sprintf(q.userPMs, id)))
			}
			if n := inbox[it.RecipientID][key]; n != 1 {
				t.Errorf("PM %s is in %s's inbox %d times, want once", key, it.RecipientName, n)
			}
		}
	}
	for k, n := range thread {
		if !want[k] {
			t.Errorf("the thread has %d posts marked %s that the outbox does not hold", n, k)
		}
	}
	for k, n := range sent {
		if !want[k] {
			t.Errorf("the bot's sent folder has %d PMs marked %s that the outbox does not hold", n, k)
		}
	}
	return posts, pms
}

// markupOf is the engine's marker markup (its profile's marker_markup).
func markupOf(engine string) string {
	p, _ := forum.Builtin(engine)
	return p.MarkerMarkup
}
