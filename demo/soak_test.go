package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// soakEnv asks for the long soak: FORUMGM_SOAK=20m keeps games of every
// kind going for 20 minutes (new ones start as old ones finish) and prints
// a summary; without it the short form plays one round of games.
const soakEnv = "FORUMGM_SOAK"

// TestSoak plays several games of every kind at once on local boards, all
// moderated by one real `forumgm run` process on one SQLite database that is
// killed with SIGKILL at random moments and restarted. At the end every
// thread and every inbox holds exactly the messages the outboxes called
// for (each marker once, none missing, none extra), and every game's state
// equals a clean replay of its journal through the game's own rules.
func TestSoak(t *testing.T) {
	t.Parallel()
	long := time.Duration(0)
	if v := os.Getenv(soakEnv); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s=%q: %v", soakEnv, v, err)
		}
		long = d
	}
	if testing.Short() && long == 0 {
		t.Skip("plays whole games in real time")
	}
	// The short form: one game of each kind, fewer faults and kills (each
	// restart logs in and reads again, and each post or PM waits out its
	// form's second, so those set the pace). Lives of 4-14 s: since sends
	// left the ticks the three games end in about a minute, and lives of
	// 6-20 s killed the runner only 4 times in it on a CI run.
	cfg := soakConfig{perKind: 1, speed: 1, seed: 1, faults: 0.5, minLife: 4000, maxLife: 14000}
	if long > 0 {
		cfg = soakConfig{perKind: 2, speed: 1, duration: long, seed: time.Now().UnixNano(), faults: 1, minLife: 3000, maxLife: 12000}
	}
	sum := runSoak(t, cfg)
	t.Logf("seed %d", cfg.seed)
	t.Log(sum)
	if long > 0 {
		fmt.Println(sum) // the long form's summary, for the README
	}
}

type soakConfig struct {
	perKind  int           // games of each kind at once
	speed    float64       // the demo tables' speed
	duration time.Duration // 0: one game per slot; else keep starting games until then
	seed     int64
	faults   float64 // random faults on every board at this multiple of soakFaults' rates (0: none), and boards down now and then
	// A runner lives between these many milliseconds before its kill -9
	// (one time in five less than 2 s: killed while starting).
	minLife, maxLife int
}

// soakFaults are the random faults on each board, on every request (the
// players' too: a move lost to one is the game's business), at rates that
// leave the games playable in real time: about one request in twelve
// fails somehow, and a post or PM's confirmation is lost one time in ten.
func soakFaults(scale float64) []forumsim.FaultRule {
	var rules []forumsim.FaultRule
	for _, k := range []forumsim.FaultKind{forumsim.Fault5xx, forumsim.Fault429, forumsim.Fault429Date, forumsim.FaultReset,
		forumsim.FaultTruncate, forumsim.FaultCut, forumsim.FaultSession, forumsim.FaultToken} {
		rules = append(rules, forumsim.FaultRule{Kind: k, Rate: 0.01 * scale, RetryAfter: time.Second})
	}
	return append(rules,
		forumsim.FaultRule{Kind: forumsim.FaultSlow, Rate: 0.005 * scale, Delay: 1500 * time.Millisecond},
		forumsim.FaultRule{Kind: forumsim.FaultLost, Method: "POST", Path: "posting.php", Rate: 0.05 * scale},
		forumsim.FaultRule{Kind: forumsim.FaultLostReset, Method: "POST", Path: "posting.php", Rate: 0.05 * scale},
		forumsim.FaultRule{Kind: forumsim.FaultLost, Method: "POST", Path: "mode=compose", Rate: 0.05 * scale},
		forumsim.FaultRule{Kind: forumsim.FaultLostReset, Method: "POST", Path: "mode=compose", Rate: 0.05 * scale},
		forumsim.FaultRule{Kind: forumsim.FaultFlood, Method: "POST", Rate: 0.03 * scale})
}

type soakSummary struct {
	games, finished, posts, pms, restarts, faults, downs, duplicates, lost, replayed int
	byKind                                                                           map[forumsim.FaultKind]int
	took                                                                             time.Duration
}

func (s soakSummary) String() string {
	var kinds []string
	for _, k := range forumsim.FaultKinds {
		if n := s.byKind[k]; n > 0 {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, n))
		}
	}
	if n := s.byKind[forumsim.FaultDown]; n > 0 {
		kinds = append(kinds, fmt.Sprintf("requests while down %d", n))
	}
	return fmt.Sprintf("soak: %d games (%d finished by their rules), %d messages (%d thread posts, %d PMs), %d faults (%s), %d board outages, %d restarts after kill -9, duplicates %d, lost %d, states equal to their journal's replay %d/%d, in %v",
		s.games, s.finished, s.posts+s.pms, s.posts, s.pms, s.faults, strings.Join(kinds, ", "), s.downs, s.restarts, s.duplicates, s.lost, s.replayed, s.games, s.took.Round(time.Second))
}

// soakGame is one game on its own board.
type soakGame struct {
	name  string
	kind  string
	b     *Board
	send  *Senders
	table *simplayers.Table
	start time.Time
	// ctx carries the players' moves; cancelled when the game is over, so
	// moves still queued are dropped rather than sent one form at a time.
	ctx    context.Context
	cancel context.CancelFunc
}

func runSoak(t *testing.T, cfg soakConfig) soakSummary {
	t0 := time.Now()
	dir := t.TempDir()
	bin := buildForumgm(t)
	dbPath := filepath.Join(dir, "soak.db")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	db, err := store.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The test creates the games in the database the runner works, as
	// `forumgm new` would; it never connects to a board itself.
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}}
	rng := rand.New(rand.NewPCG(uint64(cfg.seed), 11))
	sum := soakSummary{byKind: map[forumsim.FaultKind]int{}}
	n := 0
	quiet := func(string, ...any) {} // a player's failed move is the game's business, not the test's

	newGame := func(kind string) *soakGame {
		n++
		b, err := NewBoard(kind, "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		// The password in an owner-only file: games created after the
		// runner started are read by it too (an environment variable
		// would reach only the next process).
		pwFile := filepath.Join(dir, fmt.Sprintf("bot%d.pw", n))
		if err := os.WriteFile(pwFile, []byte(b.BotPW), 0o600); err != nil {
			t.Fatal(err)
		}
		if cfg.faults > 0 {
			if err := b.Sim.SetFaults(cfg.seed+int64(n), soakFaults(cfg.faults)...); err != nil {
				t.Fatal(err)
			}
		}
		fc := b.ForumConfig("", cfg.speed)
		fc.PasswordEnv, fc.PasswordFile = "", pwFile
		seed := cfg.seed + int64(n)
		name := fmt.Sprintf("soak-%s-%d", kind, n)
		if _, err := m.Create(ctx, name, kind, b.GameConfig(cfg.speed, seed, time.Now()), fc, b.Players()); err != nil {
			t.Fatal(err)
		}
		send, err := b.Senders(false, quiet)
		if err != nil {
			t.Fatal(err)
		}
		eng, _ := rules.Lookup(kind)
		sum.games++
		gctx, gcancel := context.WithCancel(ctx)
		return &soakGame{name: name, kind: kind, b: b, send: send, table: &simplayers.Table{Game: eng, Seed: seed}, start: time.Now(), ctx: gctx, cancel: gcancel}
	}

	var slots []*soakGame
	var closing sync.WaitGroup
	defer closing.Wait()
	for _, kind := range Games() {
		for range cfg.perKind {
			slots = append(slots, newGame(kind))
		}
	}
	defer func() {
		for _, g := range slots {
			if g != nil {
				g.cancel()
				g.send.Close()
				g.b.Stop()
			}
		}
	}()

	// The runner, killed and restarted.
	var proc *exec.Cmd
	var logs syncBuffer
	var killAt time.Time
	var logTo io.Writer = &logs
	if f := os.Getenv("FORUMGM_SOAK_LOG"); f != "" { // the runner's whole log, for a failure's post-mortem
		lf, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer lf.Close()
		logTo = io.MultiWriter(&logs, lf)
	}
	start := func() {
		proc = exec.Command(bin, "run", "--db", dbPath)
		proc.Stderr = logTo
		if err := proc.Start(); err != nil {
			t.Fatal(err)
		}
		// Anywhere from during its start and login (one time in four) to
		// well into its work.
		life := cfg.minLife + rng.IntN(cfg.maxLife-cfg.minLife)
		if rng.IntN(5) == 0 {
			life = 100 + rng.IntN(1900)
		}
		killAt = time.Now().Add(time.Duration(life) * time.Millisecond)
	}
	defer func() {
		if proc != nil {
			proc.Process.Kill()
			proc.Wait()
		}
	}()

	// A game still not done this long after it began is stuck: a demo
	// table takes about a minute, and every message a few seconds at most
	// (a form is a second old before it may be sent, and each restart logs
	// in again).
	limit := time.Duration(float64(10*time.Minute) / cfg.speed)
	for {
		live := 0
		for i, g := range slots {
			if g == nil {
				continue
			}
			row := soakRow(t, db, g.name)
			if (row.Status == moderator.Finished || row.Status == moderator.Ended) && isDrained(t, ctx, db, row.ID) {
				checkSoakGame(t, db, g, row, &sum)
				st := g.b.Sim.Faults()
				sum.faults += st.Total
				for k, n := range st.ByKind {
					sum.byKind[k] += n
				}
				// Its players may still be sending (a late move): the
				// board goes when they are done, while the runner goes on.
				closing.Add(1)
				g.cancel()
				go func() { defer closing.Done(); g.send.Close(); g.b.Stop() }()
				slots[i] = nil
				if cfg.duration > 0 && time.Since(t0) < cfg.duration {
					slots[i] = newGame(g.kind)
					live++
				}
				continue
			}
			live++
			// Now and then a board goes down for a few seconds.
			if cfg.faults > 0 && rng.IntN(int(1200/cfg.faults)) == 0 && g.b.Sim.DownUntil().IsZero() {
				g.b.Sim.DownFor(time.Duration(2+rng.IntN(10)) * time.Second)
				sum.downs++
			}
			if time.Since(g.start) > limit {
				t.Fatalf("%s is still %s after %v (%d kills); its unsent messages: %s\nthe runner's warnings:\n%s\nits log for the game:\n%s", g.name, row.Status, limit, sum.restarts, unsent(db, row.ID), warnings(logs.String()), linesWith(logs.String(), g.name+" ", 60))
			}
			if st, err := g.table.Game.Decode(row.State); err == nil {
				g.table.Act(g.ctx, st, g.send)
			}
		}
		if live == 0 {
			break
		}
		if proc == nil {
			start()
		} else if time.Now().After(killAt) {
			proc.Process.Signal(syscall.SIGKILL)
			proc.Wait()
			proc = nil
			sum.restarts++
			continue
		}
		time.Sleep(150 * time.Millisecond)
	}
	if proc != nil {
		proc.Process.Signal(syscall.SIGTERM)
		if err := proc.Wait(); err != nil {
			t.Errorf("forumgm run did not stop cleanly on SIGTERM: %v", err)
		}
		proc = nil
	}
	if sum.restarts < 5 {
		t.Errorf("only %d kills: the soak did not test much", sum.restarts)
	}
	if strings.Contains(logs.String(), "panic") {
		t.Errorf("the runner panicked:\n%s", tail(logs.String(), 4000))
	}
	sum.took = time.Since(t0)
	return sum
}

// buildForumgm builds the forumgm binary once for the test binary, for
// tests that run it as a user would (side by side: one build, not one each).
func buildForumgm(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "forumgm-demo-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir = dir
		built.bin = filepath.Join(dir, "forumgm")
		if out, err := exec.Command("go", "build", "-o", built.bin, "../cmd/forumgm").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("building forumgm: %v", built.err)
	}
	return built.bin
}

var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

func soakRow(t *testing.T, db *store.DB, name string) *store.Game {
	t.Helper()
	var row *store.Game
	if err := db.View(context.Background(), func(tx *store.Tx) error { var err error; row, err = tx.Game(name); return err }); err != nil {
		t.Fatal(err)
	}
	return row
}

// checkSoakGame checks one finished game: the thread holds the outbox's
// posts once each and in order, every player's inbox the PMs meant for
// them once each (and no one else's), and the state is its journal's
// replay.
func checkSoakGame(t *testing.T, db *store.DB, g *soakGame, row *store.Game, sum *soakSummary) {
	t.Helper()
	ctx := context.Background()
	var out []store.OutboxItem
	var entries []journal.Entry
	err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		if out, err = tx.Outbox(row.ID); err != nil {
			return err
		}
		entries, err = tx.Journal(row.ID)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dup, lost := tally(t, g, out)
	sum.duplicates += dup
	sum.lost += lost
	for _, it := range out {
		if it.Kind == "post" {
			sum.posts++
		} else {
			sum.pms++
		}
	}
	if row.Status == moderator.Finished {
		sum.finished++
	}

	eng := g.table.Game
	var gc gameconfig.GameConfig
	if err := json.Unmarshal(row.Config, &gc); err != nil {
		t.Fatal(err)
	}
	// Through the game's rules alone (nothing of the moderator's): every
	// accepted command must apply again.
	replayed, err := journal.Replay(eng, gc.Rules(), entries, journal.Strict)
	if err != nil {
		t.Errorf("%s: %v", g.name, err)
		return
	}
	live, err := eng.Decode(row.State)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(replayed)
	b, _ := json.Marshal(live)
	if !bytes.Equal(a, b) {
		t.Errorf("%s: the stored state is not its journal's replay:\nstored   %s\nreplayed %s", g.name, b, a)
		return
	}
	sum.replayed++
}

// tally counts, by marker, what the board holds against the outbox: each
// thread post once and in order, each PM once in its recipient's inbox and
// in the bot's sent folder, nothing the outbox does not have.
func tally(t *testing.T, g *soakGame, out []store.OutboxItem) (dup, lost int) {
	t.Helper()
	sim := g.b.Sim
	var wantPosts []string
	pmTo := map[string]string{} // marker → recipient's forum id
	lapsed := 0
	for _, it := range out {
		if it.State == store.OutboxLapsed {
			// A reminder whose phase closed first: never to go out, so it
			// is counted neither lost nor wanted, and any copy of it on the
			// board is one too many (none of its markers is wanted below).
			lapsed++
			continue
		}
		if it.State != store.OutboxSent {
			t.Errorf("%s: outbox item %s is %s (%s)", g.name, it.Marker, it.State, it.LastError)
		}
		if it.Kind == "post" {
			wantPosts = append(wantPosts, it.Marker)
		} else {
			pmTo[it.Marker] = it.RecipientID
		}
	}
	if len(wantPosts) < 3 || len(pmTo) < 1 {
		t.Errorf("%s: suspiciously little: %d posts, %d PMs (%d lapsed)", g.name, len(wantPosts), len(pmTo), lapsed)
	}

	var gotPosts []string
	for _, p := range sim.Posts(g.b.Topic) {
		if p.AuthorID == g.b.BotID {
			gotPosts = append(gotPosts, poster.FindMarkers(p.HTML)...)
		}
	}
	posted := count(gotPosts)
	for _, k := range wantPosts {
		switch n := posted[k]; {
		case n == 0:
			lost++
			t.Errorf("%s: post %s is not in the thread", g.name, k)
		case n > 1:
			dup += n - 1
			t.Errorf("%s: post %s is in the thread %d times", g.name, k, n)
		}
		delete(posted, k)
	}
	for k, n := range posted {
		dup += n
		t.Errorf("%s: the thread has %d posts marked %s the outbox does not have", g.name, n, k)
	}
	if dup == 0 && lost == 0 && strings.Join(gotPosts, " ") != strings.Join(wantPosts, " ") {
		t.Errorf("%s: the thread has the bot's posts out of order\n  %v\nwant\n  %v", g.name, gotPosts, wantPosts)
	}

	var sentMarkers []string
	for _, pm := range sim.Sent(g.b.BotID) {
		sentMarkers = append(sentMarkers, poster.FindMarkers(pm.HTML)...)
	}
	sent := count(sentMarkers)
	for _, s := range g.b.Seats {
		inbox := map[string]int{}
		for _, pm := range sim.Inbox(s.ID) {
			if pm.FromID == g.b.BotID {
				for _, k := range poster.FindMarkers(pm.HTML) {
					inbox[k]++
				}
			}
		}
		for k, n := range inbox {
			if to, ok := pmTo[k]; !ok || to != fmt.Sprint(s.ID) {
				t.Errorf("%s: %s's inbox has PM %s (×%d), meant for user %q", g.name, s.Name, k, n, to)
				dup += n
			}
		}
		for k, to := range pmTo {
			if to != fmt.Sprint(s.ID) {
				continue
			}
			switch n := inbox[k]; {
			case n == 0:
				lost++
				t.Errorf("%s: PM %s is not in %s's inbox", g.name, k, s.Name)
			case n > 1:
				dup += n - 1
				t.Errorf("%s: PM %s is in %s's inbox %d times", g.name, k, s.Name, n)
			}
		}
	}
	for k := range pmTo {
		if sent[k] != 1 {
			t.Errorf("%s: PM %s is in the bot's sent folder %d times", g.name, k, sent[k])
		}
		delete(sent, k)
	}
	for k, n := range sent {
		dup += n
		t.Errorf("%s: the bot sent %d PMs marked %s the outbox does not have", g.name, n, k)
	}
	return dup, lost
}

func count(ks []string) map[string]int {
	n := map[string]int{}
	for _, k := range ks {
		n[k]++
	}
	return n
}

// unsent lists a game's outbox items not yet sent, for a failure message.
func unsent(db *store.DB, id int64) string {
	var out []store.OutboxItem
	db.View(context.Background(), func(tx *store.Tx) error { var err error; out, err = tx.Outbox(id); return err })
	var b strings.Builder
	for _, it := range out {
		if it.State != store.OutboxSent {
			fmt.Fprintf(&b, "\n  %s %s to %q, %d attempts, not before %v: %s", it.Marker, it.State, it.RecipientName, it.Attempts, it.NotBefore, it.LastError)
		}
	}
	return b.String()
}

// linesWith are the log's last n lines that hold s.
func linesWith(log, s string, n int) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return strings.Join(out[max(0, len(out)-n):], "\n")
}

// warnings are the log's lines above INFO, the last 40.
func warnings(log string) string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if l != "" && !strings.Contains(l, "level=INFO") {
			out = append(out, l)
		}
	}
	return strings.Join(out[max(0, len(out)-40):], "\n")
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// isDrained is drained for the tests: a database error fails the test.
func isDrained(t *testing.T, ctx context.Context, db *store.DB, id int64) bool {
	t.Helper()
	done, err := drained(ctx, db, id)
	if err != nil {
		t.Fatal(err)
	}
	return done
}
