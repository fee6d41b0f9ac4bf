//go:build linux

package realboardtest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/store/pgtest"
)

// NodeBB is the NodeBB 4.10.3 board (Node.js, PostgreSQL). Its boards are
// NodeBBBoards (StartNodeBB, NodeBBServer.Board), not Boards: they are
// reached over HTTP only.
const NodeBB = "nodebb"

// The NodeBB files in the engines directory (see its README).
const (
	nodebbArchive = "nodebb-4.10.3.tar.gz"
	nodebbPackage = "nodebb-4.10.3.package.json"
	nodebbLock    = "nodebb-4.10.3.package-lock.json"
	nodebbRoot    = "nodebb-4.10.3"
	// nodebbDump, inside the pristine install, is pg_dump's plain SQL of
	// the database `./nodebb setup` made, with the test board's settings.
	nodebbDump = ".realboard-nodebb.sql"
	// nodebbHarness is part of the cache key: bump it when an install
	// step changes.
	nodebbHarness = "1"
	nodebbAdmin   = "admin"
)

// nodebbSettings are a test board's settings (the config hash), written
// into the pristine database: off the network (no ActivityPub, no plugin
// usage reports), no post queue, no newbie delays; members may post every
// 2 s (postDelay, 10 by default) so phases of seconds can be played.
var nodebbSettings = map[string]any{
	"activitypubEnabled": 0, "submitPluginUsage": 0,
	"postQueue": 0, "newbiePostDelay": 0, "initialPostDelay": 0, "newbieChatMessageDelay": 0,
	"postDelay": 2,
}

// NodeBBOptions are a NodeBB board's options; zero values give the
// defaults in brackets.
type NodeBBOptions struct {
	Bot     string   // [GMBot]
	Players []string // [Alice, Bob, Carol]
	// Others are more accounts, not players ([]).
	Others []string
	// Subject and Opening are the game thread's title and its opening
	// post (Markdown), made by the board's admin.
	Subject, Opening string
	// BotAdmin makes the bot an administrator (exempt from delays and the
	// post queue, as a GM's bot account usually is).
	BotAdmin bool
	// Settings change the board's config hash before it starts (NodeBB
	// reads it at start): "postQueue": 1, "postDelay": 10, …. Only for
	// StartNodeBB (a board of its own).
	Settings map[string]any
	// PostQueue holds the members' posts in the board's category for a
	// moderator (NodeBB's queue is on where both the board's setting and
	// the category's are; a shared server's setting is on, its boards'
	// categories off unless this is set).
	PostQueue bool
	// Exclusive, on a restartable shared server (SharedNodeBB), has this
	// test alone on the server while it runs (it may change the board's
	// settings or stop it for everyone: chats off, maintenance mode); the
	// server's other tests wait for it, and it for them.
	Exclusive bool
}

// NodeBBServer is one running NodeBB process and its database. Boards
// (NodeBBBoard: a topic and accounts of their own) are made
// on it by Board; many tests share one (SharedNodeBB), side by side.
type NodeBBServer struct {
	URL   string // http://127.0.0.1:PORT/
	Admin Account

	dsn, conf, root, logf string
	shared                bool // boards' accounts get a serial suffix
	restartable           bool

	mu      sync.Mutex
	cmd     *exec.Cmd
	done    chan struct{}
	sess    map[string]*nodebbSession
	logins  map[string]*sync.Mutex // one login at a time per account
	catMu   sync.Mutex
	cats    map[bool]int // the boards' categories: with the post queue, without
	boards  int
	setting int           // boards being made now
	signups chan struct{} // registrations under way (at most its capacity)
	stop    sync.Once
	life    sync.RWMutex // Restart holds it, a board's setup shares it
	adminMu sync.Mutex   // the admin's writes, one at a time
	excl    sync.RWMutex // Exclusive boards hold it, the others share it
	cleanup func()
}

// NodeBBBoard is one test's board: its own topic (in a category it shares), its own bot
// and players, on a NodeBBServer it may share with other tests. Its fields
// are read-only.
type NodeBBBoard struct {
	URL           string // the server's: http://127.0.0.1:PORT/
	CategoryID    int
	ThreadID      int
	OpeningPostID int
	Admin         Account
	Bot           Account
	Players       []Account
	Others        []Account

	srv   *NodeBBServer
	given map[string]Account // by the names the options gave
}

// ThreadIDString is the thread id as the forum packages carry it.
func (b *NodeBBBoard) ThreadIDString() string { return strconv.Itoa(b.ThreadID) }

// Server is the NodeBB process the board is on.
func (b *NodeBBBoard) Server() *NodeBBServer { return b.srv }

// Player returns the player account the options named so (its board name
// may carry a suffix on a shared server), or with that board name.
func (b *NodeBBBoard) Player(name string) Account {
	if a, ok := b.given[name]; ok {
		return a
	}
	for _, p := range b.Players {
		if p.Name == name {
			return p
		}
	}
	panic("realboardtest: no player " + name)
}

// Names are the board names of accounts.
func Names(as []Account) []string {
	var out []string
	for _, a := range as {
		out = append(out, a.Name)
	}
	return out
}

// nodebbServer is the test binary's PostgreSQL and the template database
// restored from the pristine dump (one per binary).
var (
	nodebbTplMu sync.Mutex
	nodebbTpl   string // DSN of the template database
)

// StartNodeBB starts a NodeBB server of the test's own, with the options'
// settings, and makes the board on it: for tests that need settings no
// other test may see before NodeBB starts. (Most tests take a board on a
// shared server: SharedNodeBB(t, …).Board.) It skips (fails under
// FORUMGM_REQUIRE_REALBOARDS=1) without node and npm, PostgreSQL or the
// archive.
func StartNodeBB(t testing.TB, opt NodeBBOptions) *NodeBBBoard {
	t.Helper()
	s := startNodeBBServer(t, opt.Settings, t.TempDir())
	t.Cleanup(s.Stop)
	s.restartable = true
	return s.Board(t, opt)
}

// The shared servers of the test binary, by key (StopNodeBB stops them).
var nodebbShared struct {
	sync.Mutex
	m map[string]*sharedNodeBB
}

type sharedNodeBB struct {
	once sync.Once
	s    *NodeBBServer
	err  string
}

// SharedNodeBB is the test binary's shared NodeBB server of that key,
// started by the first test that asks (with the settings it gives, over the
// test board's), stopped by StopNodeBB from TestMain. Its category queue
// setting is on (a board's category holds posts with PostQueue). Tests on a
// restartable server may Restart it (its other tests must bear a restart)
// and take it Exclusive; on the others neither.
func SharedNodeBB(t testing.TB, key string, restartable bool, settings map[string]any) *NodeBBServer {
	t.Helper()
	nodebbCheck(t)
	nodebbShared.Lock()
	if nodebbShared.m == nil {
		nodebbShared.m = map[string]*sharedNodeBB{}
	}
	e := nodebbShared.m[key]
	if e == nil {
		e = &sharedNodeBB{}
		nodebbShared.m[key] = e
	}
	nodebbShared.Unlock()
	e.once.Do(func() {
		dir, err := os.MkdirTemp("", "forumgm-nodebb-"+key+"-")
		if err != nil {
			e.err = err.Error()
			return
		}
		set := map[string]any{"postQueue": 1}
		for k, v := range settings {
			set[k] = v
		}
		ok := false
		defer func() {
			if !ok && e.err == "" {
				e.err = "starting the shared NodeBB server " + key + " failed in another test"
			}
		}()
		s := startNodeBBServer(t, set, dir)
		s.shared, s.restartable = true, restartable
		s.cleanup = func() { os.RemoveAll(dir) }
		e.s, ok = s, true
	})
	if e.s == nil {
		t.Fatalf("realboardtest: %s", e.err)
	}
	return e.s
}

// StopNodeBB stops the test binary's shared NodeBB servers: call it from
// TestMain after m.Run (before the PostgreSQL server stops).
func StopNodeBB() {
	nodebbShared.Lock()
	defer nodebbShared.Unlock()
	for _, e := range nodebbShared.m {
		if e.s != nil {
			e.s.Stop()
			e.s.cleanup()
		}
	}
	nodebbShared.m = nil
}

// nodebbCheck skips (or fails) the test without node 20, npm or the
// engines' files, and returns node's path and the files.
func nodebbCheck(t testing.TB) (string, map[string]string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		unavailableNodeBB(t, "no node on PATH (NodeBB needs Node.js 20 and npm: apt-get install nodejs npm)")
	}
	if _, err := exec.LookPath("npm"); err != nil {
		unavailableNodeBB(t, "no npm on PATH (apt-get install npm)")
	}
	if v, err := exec.Command(node, "-p", "process.versions.node").Output(); err != nil {
		unavailableNodeBB(t, "node does not run: %v", err)
	} else if major, _ := strconv.Atoi(strings.Split(strings.TrimSpace(string(v)), ".")[0]); major < 20 {
		unavailableNodeBB(t, "node %s is older than NodeBB 4.10.3 needs (20 or newer)", strings.TrimSpace(string(v)))
	}
	dir, err := EnginesDir()
	if err != nil {
		unavailableNodeBB(t, "%v", err)
	}
	files := map[string]string{}
	for _, f := range []string{nodebbArchive, nodebbPackage, nodebbLock} {
		p := filepath.Join(dir, f)
		if _, err := os.Stat(p); err != nil {
			unavailableNodeBB(t, "no %s: %v", f, err)
		}
		files[f] = p
	}
	if _, err := pgtest.TryDSN(t); err != nil {
		if pgtest.Required() || Required() {
			t.Fatalf("realboardtest: NodeBB needs PostgreSQL: %v", err)
		}
		t.Skipf("realboardtest: skipping, NodeBB needs PostgreSQL: %v", err)
	}
	return node, files
}

// startNodeBBServer installs NodeBB (once per archive and lock file, cached
// under the same directory as the other engines), makes the server's
// database a copy of the pristine one with the settings, and starts it on
// loopback, its config and log in dir.
func startNodeBBServer(t testing.TB, settings map[string]any, dir string) *NodeBBServer {
	t.Helper()
	node, files := nodebbCheck(t)
	root, cost, err := nodebbPristine(t, files)
	if err != nil {
		t.Fatalf("realboardtest: installing NodeBB: %v", err)
	}
	t0 := time.Now()
	tpl, err := nodebbTemplate(t, root)
	if err != nil {
		t.Fatalf("realboardtest: NodeBB's template database: %v", err)
	}
	dsn, err := copyDB(t, tpl)
	if err != nil {
		t.Fatalf("realboardtest: NodeBB's database: %v", err)
	}
	if len(settings) > 0 {
		if err := setConfig(dsn, settings); err != nil {
			t.Fatalf("realboardtest: NodeBB's settings: %v", err)
		}
	}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &NodeBBServer{URL: fmt.Sprintf("http://127.0.0.1:%d/", port), dsn: dsn, root: root,
		conf: filepath.Join(dir, "config.json"), logf: filepath.Join(dir, "nodebb.log"),
		Admin: Account{Name: nodebbAdmin, Password: password(nodebbAdmin), ID: 1}, sess: map[string]*nodebbSession{},
		signups: make(chan struct{}, 4)}
	u, _ := url.Parse(dsn)
	pgPort, _ := strconv.Atoi(u.Port())
	// bcrypt_rounds 4 (12 by default): a test board's accounts are made
	// and logged in at once, many boards side by side.
	conf := map[string]any{"url": strings.TrimSuffix(s.URL, "/"), "port": port, "bind_address": "127.0.0.1", "bcrypt_rounds": 4,
		"secret": "realboard-" + strconv.Itoa(port), "database": "postgres",
		"postgres": map[string]any{"host": u.Hostname(), "port": pgPort, "username": u.User.Username(), "password": "",
			"database": strings.TrimPrefix(u.Path, "/"), "ssl": false}}
	cj, _ := json.MarshalIndent(conf, "", "  ")
	if err := os.WriteFile(s.conf, cj, 0o644); err != nil {
		t.Fatal(err)
	}
	tDB := time.Since(t0)
	if err := s.start(node); err != nil {
		s.Stop()
		t.Fatalf("realboardtest: starting NodeBB: %v\n%s", err, s.ServerLog())
	}
	t.Logf("realboardtest: nodebb server at %s (database %.1fs, start %.1fs; install %s)", s.URL,
		tDB.Seconds(), (time.Since(t0) - tDB).Seconds(), cost)
	return s
}

// Board makes a test's board on the server: its accounts (on a shared
// server each name with the board's serial number, "Alice7": Player finds
// them by the names given) and the game thread, in the server's category
// with the post queue on or off as opt.PostQueue says.
func (s *NodeBBServer) Board(t testing.TB, opt NodeBBOptions) *NodeBBBoard {
	t.Helper()
	if len(opt.Settings) > 0 && s.shared {
		t.Fatalf("realboardtest: a board on a shared NodeBB server cannot have settings of its own (StartNodeBB)")
	}
	if s.shared && s.restartable {
		if opt.Exclusive {
			s.excl.Lock()
			t.Cleanup(s.excl.Unlock)
		} else {
			s.excl.RLock()
			t.Cleanup(s.excl.RUnlock)
		}
	}
	if opt.Bot == "" {
		opt.Bot = "GMBot"
	}
	if len(opt.Players) == 0 {
		opt.Players = []string{"Alice", "Bob", "Carol"}
	}
	if opt.Subject == "" {
		opt.Subject = "Game thread"
	}
	if opt.Opening == "" {
		opt.Opening = "Welcome to the game. Vote in **bold**; orders by chat."
	}
	s.mu.Lock()
	s.boards++
	n := s.boards
	s.setting++
	s.mu.Unlock()
	made := false
	defer func() {
		s.mu.Lock()
		s.setting--
		s.mu.Unlock()
		if made {
			s.settle(t)
		}
	}()
	suffix := ""
	if s.shared {
		suffix = strconv.Itoa(n)
	}
	// No restart while the board is made (its requests would fail).
	s.life.RLock()
	defer s.life.RUnlock()
	t0 := time.Now()
	b := &NodeBBBoard{URL: s.URL, Admin: s.Admin, srv: s, given: map[string]Account{}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// The accounts are made side by side (one request each).
	names := append(append([]string{opt.Bot}, opt.Players...), opt.Others...)
	accts := make([]Account, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			accts[i], errs[i] = s.register(ctx, name+suffix)
		}()
	}
	wg.Wait()
	tAcc := time.Since(t0)
	for i, name := range names {
		if errs[i] != nil {
			t.Fatalf("realboardtest: registering %s: %v\n%s", name+suffix, errs[i], s.ServerLog())
		}
		b.given[name] = accts[i]
	}
	b.Bot = accts[0]
	b.Players = accts[1 : 1+len(opt.Players)]
	b.Others = accts[1+len(opt.Players):]
	if opt.BotAdmin {
		b.MakeAdmin(t, b.Bot)
	}
	admin, err := s.Session(ctx, s.Admin)
	if err != nil {
		t.Fatal(err)
	}
	cid, err := s.category(ctx, admin, opt.PostQueue)
	if err != nil {
		t.Fatalf("realboardtest: the board's category: %v", err)
	}
	b.CategoryID = cid
	// An administrator opens the thread: neither the post queue nor a
	// member's post delay holds it back. An administrator bot opens its
	// own (boards side by side); else the admin does, one board's at a
	// time: NodeBB refuses an account's post while another of its posts is
	// under way ("You are already posting").
	var topic struct {
		TID     int `json:"tid"`
		MainPid int `json:"mainPid"`
	}
	opener := admin
	if opt.BotAdmin {
		if opener, err = s.Session(ctx, b.Bot); err != nil {
			t.Fatal(err)
		}
	} else {
		s.adminMu.Lock()
		defer s.adminMu.Unlock()
	}
	if err := opener.API(ctx, http.MethodPost, "api/v3/topics", map[string]any{"cid": b.CategoryID, "title": opt.Subject, "content": opt.Opening}, &topic); err != nil {
		t.Fatalf("realboardtest: opening the thread: %v", err)
	}
	b.ThreadID, b.OpeningPostID = topic.TID, topic.MainPid
	made = true
	t.Logf("realboardtest: nodebb board %d at %s: category %d, topic %d, bot %s (accounts %.1fs, category and topic %.1fs)", n, s.URL,
		b.CategoryID, b.ThreadID, b.Bot.Name, tAcc.Seconds(), (time.Since(t0) - tAcc).Seconds())
	return b
}

// settle waits (at most two minutes) until no board is being made on the
// server: the tests side by side make their boards at once, and a game
// begun while a dozen others were made on its one NodeBB thread waited
// more than 15 s for its writes, past its phases' times (a CI run's
// TestEditsAndDeletions, TestReminders, TestSharedChatList). Called with
// no lock held: a Restart waits for a board's making, not the others'.
func (s *NodeBBServer) settle(t testing.TB) {
	t0 := time.Now()
	for {
		s.mu.Lock()
		busy := s.setting
		s.mu.Unlock()
		if busy == 0 {
			break
		}
		if time.Since(t0) > 2*time.Minute {
			t.Logf("realboardtest: %d boards still being made on %s after 2 min; starting anyway", busy, s.URL)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	if d := time.Since(t0); d > time.Second {
		t.Logf("realboardtest: waited %.1fs for the other boards on %s to be made", d.Seconds(), s.URL)
	}
}

// category is the server's category for boards with (queue) or without
// the post queue, made by the admin for the first board that asks: the
// boards' topics share them (a category of each board's own was, with a
// dozen boards at once, most of their setup).
func (s *NodeBBServer) category(ctx context.Context, admin *nodebbSession, queue bool) (int, error) {
	s.catMu.Lock()
	defer s.catMu.Unlock()
	if cid := s.cats[queue]; cid != 0 {
		return cid, nil
	}
	name, q := "Games", 0
	if queue {
		name, q = "Games, post queue on", 1
	}
	var cat struct {
		CID int `json:"cid"`
	}
	if err := admin.API(ctx, http.MethodPost, "api/v3/categories", map[string]any{"name": name, "description": "the tests' games"}, &cat); err != nil {
		return 0, err
	}
	if err := admin.API(ctx, http.MethodPut, "api/v3/categories/"+strconv.Itoa(cat.CID), map[string]any{"postQueue": q}, nil); err != nil {
		return 0, fmt.Errorf("the category's post queue: %w", err)
	}
	if s.cats == nil {
		s.cats = map[bool]int{}
	}
	s.cats[queue] = cat.CID
	return cat.CID, nil
}

// NewTopic opens another topic in the board's category (the admin's, as
// the game thread is) and returns its id: a second game on the board.
func (b *NodeBBBoard) NewTopic(t testing.TB, subject, opening string) int {
	t.Helper()
	ctx := context.Background()
	admin, err := b.srv.Session(ctx, b.Admin)
	if err != nil {
		t.Fatal(err)
	}
	b.srv.adminMu.Lock()
	defer b.srv.adminMu.Unlock()
	var topic struct {
		TID int `json:"tid"`
	}
	if err := admin.API(ctx, http.MethodPost, "api/v3/topics", map[string]any{"cid": b.CategoryID, "title": subject, "content": opening}, &topic); err != nil {
		t.Fatalf("realboardtest: opening a topic: %v", err)
	}
	return topic.TID
}

func unavailableNodeBB(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		t.Fatalf("realboardtest: real boards are required (%s=1) but NodeBB is unavailable: %s", EnvRequire, msg)
	}
	t.Skipf("realboardtest: skipping NodeBB, %s (set %s to the engines' directory)", msg, EnvEngines)
}

// start runs NodeBB (one process, production mode, from the pristine
// install with the server's own config file) and waits until it answers.
func (s *NodeBBServer) start(node string) error {
	logf, err := os.OpenFile(s.logf, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(node, "app.js", "--config="+s.conf)
	cmd.Dir = s.root
	cmd.Env = append(filterEnv(os.Environ(), "NODE_ENV"), "NODE_ENV=production")
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	s.mu.Lock()
	s.cmd, s.done = cmd, done
	s.mu.Unlock()
	hc := &http.Client{Timeout: 5 * time.Second}
	end := time.Now().Add(90 * time.Second)
	for time.Now().Before(end) {
		select {
		case <-done:
			return fmt.Errorf("NodeBB exited")
		default:
		}
		if resp, err := hc.Get(s.URL + "api/config"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(150 * time.Millisecond)
	}
	return fmt.Errorf("NodeBB did not answer within 90 s")
}

// Stop stops the server's process (its database goes with the test
// binary's PostgreSQL).
func (s *NodeBBServer) Stop() {
	s.stop.Do(func() { s.kill() })
}

func (s *NodeBBServer) kill() {
	s.mu.Lock()
	cmd, done := s.cmd, s.done
	s.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
}

// Restart stops NodeBB with SIGKILL and starts it again on the same port
// and database (a board restarted mid-send): every board on the server
// goes with it, so only on a restartable server.
func (b *NodeBBBoard) Restart(t testing.TB) {
	t.Helper()
	s := b.srv
	if !s.restartable {
		t.Fatalf("realboardtest: the NodeBB server at %s is shared by tests that do not bear a restart", s.URL)
	}
	s.life.Lock()
	defer s.life.Unlock()
	s.kill()
	node, _ := exec.LookPath("node")
	if err := s.start(node); err != nil {
		t.Fatalf("realboardtest: restarting NodeBB: %v\n%s", err, s.ServerLog())
	}
}

// ServerLog is the end of NodeBB's output.
func (s *NodeBBServer) ServerLog() string {
	out, _ := os.ReadFile(s.logf)
	return tail(string(out), 4000)
}

// ServerLog is the end of the server's output.
func (b *NodeBBBoard) ServerLog() string { return b.srv.ServerLog() }

// SetSetting changes one of the board's settings at once, through the
// admin's write API (PUT /api/v3/admin/settings/…), as an admin does in
// the ACP: the whole server sees it (Exclusive boards only, on a shared
// server).
func (b *NodeBBBoard) SetSetting(t testing.TB, name string, value any) {
	t.Helper()
	ctx := context.Background()
	s, err := b.srv.Session(ctx, b.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.API(ctx, http.MethodPut, "api/v3/admin/settings/"+url.PathEscape(name), map[string]any{"value": value}, nil); err != nil {
		t.Fatalf("realboardtest: setting %s: %v", name, err)
	}
}

// Query runs SQL on the server's database (every board's on it).
func (b *NodeBBBoard) Query(t testing.TB, q string, args ...any) []map[string]any {
	t.Helper()
	db, err := sql.Open("postgres", b.srv.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("realboardtest: %s: %v", q, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []map[string]any
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]any{}
		for i, c := range cols {
			if bs, ok := vals[i].([]byte); ok {
				vals[i] = string(bs)
			}
			m[c] = vals[i]
		}
		out = append(out, m)
	}
	return out
}

// BotRooms is the SQL condition on a chat message's row (legacy_hash's
// data) that it is in one of the rooms of the user $1: the chat messages
// of a board's bot, among every board's on the server.
const BotRooms = `data->>'roomId' IN (SELECT substring(_key from 'chat:room:([0-9]+):uids') FROM legacy_zset WHERE _key LIKE 'chat:room:%:uids' AND value = $1)`

// MakeAdmin adds an account to the administrators group (through the
// admin's write API).
func (b *NodeBBBoard) MakeAdmin(t testing.TB, a Account) {
	t.Helper()
	ctx := context.Background()
	s, err := b.srv.Session(ctx, b.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.API(ctx, http.MethodPut, "api/v3/groups/administrators/membership/"+a.IDString(), nil, nil); err != nil {
		t.Fatalf("realboardtest: making %s an administrator: %v", a.Name, err)
	}
}

// nodebbSession is a member's logged-in session on a server (its cookies
// and CSRF token).
type nodebbSession struct {
	s    *NodeBBServer
	a    Account
	hc   *http.Client
	mu   sync.Mutex
	csrf string
}

// NodeBBUser is a member's own logged-in session on a board: what a
// player posts and chats goes through it, as through a browser.
type NodeBBUser struct {
	*nodebbSession
	b *NodeBBBoard
}

// Session is a's logged-in session on the board (one per account and
// server, reused).
func (b *NodeBBBoard) Session(ctx context.Context, a Account) (*NodeBBUser, error) {
	s, err := b.srv.Session(ctx, a)
	if err != nil {
		return nil, err
	}
	return &NodeBBUser{nodebbSession: s, b: b}, nil
}

// Session is a's logged-in session on the server (one per account, reused).
func (s *NodeBBServer) Session(ctx context.Context, a Account) (*nodebbSession, error) {
	s.mu.Lock()
	u := s.sess[a.Name]
	if s.logins == nil {
		s.logins = map[string]*sync.Mutex{}
	}
	lm := s.logins[a.Name]
	if lm == nil {
		lm = &sync.Mutex{}
		s.logins[a.Name] = lm
	}
	s.mu.Unlock()
	if u != nil {
		return u, nil
	}
	// One login per account at a time: the admin's, asked by every board
	// at once, would otherwise be many (NodeBB locks an account after a
	// few logins in a row).
	lm.Lock()
	defer lm.Unlock()
	s.mu.Lock()
	u = s.sess[a.Name]
	s.mu.Unlock()
	if u != nil {
		return u, nil
	}
	u = s.newSession(a)
	tok, err := u.token(ctx)
	if err != nil {
		return nil, err
	}
	form := url.Values{"username": {a.Name}, "password": {a.Password}, "_csrf": {tok}}
	if _, err := u.form(ctx, "login", form, tok); err != nil {
		return nil, fmt.Errorf("logging %s in: %w", a.Name, err)
	}
	if _, err := u.token(ctx); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if old := s.sess[a.Name]; old != nil {
		u = old
	} else {
		s.sess[a.Name] = u
	}
	s.mu.Unlock()
	return u, nil
}

func (s *NodeBBServer) newSession(a Account) *nodebbSession {
	jar, _ := cookiejar.New(nil)
	// The tests' own sessions (the admin's setup, the players' posts and
	// chats) wait as a person would on a board the suite keeps busy; the
	// bot's requests have forumgm's own timeouts.
	return &nodebbSession{s: s, a: a, hc: &http.Client{Jar: jar, Timeout: 90 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// register makes a member's account through the admin's write API (POST
// /api/v3/users, as the ACP's "New user" does: one request, where a
// person's /register and its consent step are four and a rendered page,
// which was most of a board's setup with many boards at once), consenting
// for them, and returns it with its user id. The member logs in on first
// use (Session).
func (s *NodeBBServer) register(ctx context.Context, name string) (Account, error) {
	a := Account{Name: name, Password: password(name)}
	// A few at a time: with a dozen boards' accounts at once on a loaded
	// machine, NodeBB's one thread let some wait past the client's
	// timeout (a clean-clone run's registrations failed so).
	select {
	case s.signups <- struct{}{}:
		defer func() { <-s.signups }()
	case <-ctx.Done():
		return a, ctx.Err()
	}
	admin, err := s.Session(ctx, s.Admin)
	if err != nil {
		return a, err
	}
	var got struct {
		UID int `json:"uid"`
	}
	// No email: NodeBB would render and try to send a validation mail
	// for each (half a second of its one thread, every account in turn).
	if err := admin.API(ctx, http.MethodPost, "api/v3/users", map[string]any{"username": name, "password": a.Password,
		"gdpr_consent": true}, &got); err != nil {
		return a, fmt.Errorf("registering %s: %w", name, err)
	}
	if got.UID == 0 {
		return a, fmt.Errorf("registering %s: no uid in the answer", name)
	}
	a.ID = got.UID
	return a, nil
}

func (u *nodebbSession) token(ctx context.Context) (string, error) {
	var cfg struct {
		CSRF string `json:"csrf_token"`
	}
	if err := u.get(ctx, "api/config", &cfg); err != nil {
		return "", err
	}
	u.mu.Lock()
	u.csrf = cfg.CSRF
	u.mu.Unlock()
	return cfg.CSRF, nil
}

func (u *nodebbSession) do(req *http.Request) (int, []byte, error) {
	req.Header.Set("User-Agent", nodebb.UserAgent("realboardtest"))
	resp, err := u.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, body, err
}

func (u *nodebbSession) get(ctx context.Context, rel string, out any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.s.URL+rel, nil)
	if err != nil {
		return err
	}
	st, body, err := u.do(req)
	if err != nil {
		return err
	}
	if st != http.StatusOK {
		return fmt.Errorf("GET %s: HTTP %d: %.300s", rel, st, body)
	}
	return json.Unmarshal(body, out)
}

func (u *nodebbSession) form(ctx context.Context, rel string, vals url.Values, tok string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.s.URL+rel, strings.NewReader(vals.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("x-csrf-token", tok)
	st, body, err := u.do(req)
	if err != nil {
		return nil, err
	}
	if st != http.StatusOK && st != http.StatusFound {
		return nil, fmt.Errorf("POST %s: HTTP %d: %.300s", rel, st, body)
	}
	return body, nil
}

// APIError is the board's refusal of a write API call.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Message) }

// API calls the write API (/api/v3/…) as the member; out (may be nil)
// gets the answer's response.
func (u *nodebbSession) API(ctx context.Context, method, rel string, in, out any) error {
	var rd io.Reader
	if in != nil {
		bs, _ := json.Marshal(in)
		rd = bytes.NewReader(bs)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.s.URL+rel, rd)
	if err != nil {
		return err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	u.mu.Lock()
	req.Header.Set("x-csrf-token", u.csrf)
	u.mu.Unlock()
	st, body, err := u.do(req)
	if err != nil {
		return err
	}
	var env struct {
		Status struct {
			Message string `json:"message"`
		} `json:"status"`
		Response json.RawMessage `json:"response"`
	}
	json.Unmarshal(body, &env)
	if st != http.StatusOK {
		msg := env.Status.Message
		if msg == "" {
			msg = strings.TrimSpace(string(body))
		}
		return &APIError{Status: st, Message: msg}
	}
	if out != nil {
		return json.Unmarshal(env.Response, out)
	}
	return nil
}

// Post replies in the game thread with Markdown and returns the post id.
func (u *NodeBBUser) Post(ctx context.Context, markdown string) (int, error) {
	var p struct {
		PID int `json:"pid"`
	}
	err := u.API(ctx, http.MethodPost, "api/v3/topics/"+u.b.ThreadIDString(), map[string]any{"content": markdown}, &p)
	return p.PID, err
}

// Edit replaces a post's text.
func (u *NodeBBUser) Edit(ctx context.Context, pid int, markdown string) error {
	return u.API(ctx, http.MethodPut, "api/v3/posts/"+strconv.Itoa(pid), map[string]any{"content": markdown}, nil)
}

// Delete deletes a post (NodeBB keeps it, restorable).
func (u *NodeBBUser) Delete(ctx context.Context, pid int) error {
	return u.API(ctx, http.MethodDelete, "api/v3/posts/"+strconv.Itoa(pid)+"/state", nil, nil)
}

// Chat sends a chat message to an account, in their one-to-one room
// (opened when there is none), and returns its message id.
func (u *NodeBBUser) Chat(ctx context.Context, to Account, text string) (int, error) {
	var room struct {
		RoomID *int `json:"roomId"`
	}
	if err := u.API(ctx, http.MethodGet, "api/v3/users/"+to.IDString()+"/chat", nil, &room); err != nil {
		return 0, err
	}
	if room.RoomID == nil {
		if err := u.API(ctx, http.MethodPost, "api/v3/chats", map[string]any{"uids": []int{to.ID}}, &room); err != nil {
			return 0, err
		}
	}
	var m struct {
		MID int `json:"mid"`
	}
	err := u.API(ctx, http.MethodPost, "api/v3/chats/"+strconv.Itoa(*room.RoomID), map[string]any{"message": text}, &m)
	return m.MID, err
}

// nodebbPristine is the installed NodeBB tree, installing it the first
// time: under the engines' cache directory, keyed by the archive's and
// the lock file's checksums, locked so concurrent test binaries install it
// once. npm's cache sits beside it, keyed by the lock file. The install
// runs `./nodebb setup` against a database of this binary's PostgreSQL,
// sets the test board's settings and keeps its dump.
func nodebbPristine(t testing.TB, files map[string]string) (string, string, error) {
	archiveSum, err := fileHash(files[nodebbArchive])
	if err != nil {
		return "", "", err
	}
	lockSum, err := fileHash(files[nodebbLock])
	if err != nil {
		return "", "", err
	}
	pkgSum, err := fileHash(files[nodebbPackage])
	if err != nil {
		return "", "", err
	}
	base := filepath.Join(os.TempDir(), "forumgm-realboard")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", "", err
	}
	key := fmt.Sprintf("nodebb-v%s-%s-%s-%s", nodebbHarness, archiveSum[:12], lockSum[:12], pkgSum[:8])
	final := filepath.Join(base, key)
	unlock, err := lockPath(final)
	if err != nil {
		return "", "", err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(final, nodebbDump)); err == nil {
		return final, "cached", nil
	}
	os.RemoveAll(final)
	t0 := time.Now()
	work := fmt.Sprintf("%s.tmp%d", final, os.Getpid())
	os.RemoveAll(work)
	fail := func(err error) (string, string, error) {
		os.RemoveAll(work)
		return "", "", err
	}
	if err := extract(files[nodebbArchive], work, nodebbRoot); err != nil {
		return fail(err)
	}
	for src, dst := range map[string]string{files[nodebbPackage]: "package.json", files[nodebbLock]: "package-lock.json"} {
		if err := copyFile(src, filepath.Join(work, dst), 0o644); err != nil {
			return fail(err)
		}
	}
	prepared, err := takeNodeBBModules(base, lockSum, pkgSum, work)
	if err != nil {
		return fail(err)
	}
	// With a prepared tree, npm install only checks it (a second).
	npmCache := filepath.Join(base, "npm-cache-"+lockSum[:12])
	npm := exec.Command("npm", "install", "--omit=dev", "--no-audit", "--no-fund", "--cache", npmCache)
	npm.Dir = work
	npm.Env = append(filterEnv(os.Environ(), "NODE_ENV"), "NODE_ENV=production")
	if out, err := npm.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("npm install: %v\n%s", err, tail(string(out), 3000)))
	}
	tNpm := time.Since(t0)
	dsn, err := pgtest.TryDSN(t)
	if err != nil {
		return fail(err)
	}
	u, _ := url.Parse(dsn)
	pgPort, _ := strconv.Atoi(u.Port())
	setupPort, err := freePort()
	if err != nil {
		return fail(err)
	}
	setup, _ := json.Marshal(map[string]any{
		"url": fmt.Sprintf("http://127.0.0.1:%d", setupPort), "port": setupPort, "secret": "realboard-setup",
		"database": "postgres", "postgres:host": u.Hostname(), "postgres:port": pgPort,
		"postgres:username": u.User.Username(), "postgres:password": "", "postgres:database": strings.TrimPrefix(u.Path, "/"),
		"admin:username": nodebbAdmin, "admin:password": password(nodebbAdmin), "admin:password:confirm": password(nodebbAdmin),
		"admin:email": nodebbAdmin + "@example.org"})
	cmd := exec.Command("./nodebb", "setup", string(setup))
	cmd.Dir = work
	cmd.Env = append(filterEnv(os.Environ(), "NODE_ENV"), "NODE_ENV=production")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fail(fmt.Errorf("nodebb setup: %v\n%s", err, tail(string(out), 3000)))
	}
	// It exits 0 even when a value is missing: the config file says.
	if _, err := os.Stat(filepath.Join(work, "config.json")); err != nil {
		return fail(fmt.Errorf("nodebb setup wrote no config.json:\n%s", tail(string(out), 3000)))
	}
	os.Remove(filepath.Join(work, "config.json")) // each board has its own
	if err := setConfig(dsn, nodebbSettings); err != nil {
		return fail(err)
	}
	pgDump, err := pgTool("pg_dump")
	if err != nil {
		return fail(err)
	}
	dump := exec.Command(pgDump, "--no-owner", "--no-privileges", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(),
		"-f", filepath.Join(work, nodebbDump), strings.TrimPrefix(u.Path, "/"))
	if out, err := dump.CombinedOutput(); err != nil {
		return fail(fmt.Errorf("pg_dump: %v: %s", err, out))
	}
	if err := os.Rename(work, final); err != nil {
		return fail(err)
	}
	how := ""
	if prepared {
		how = ", its node_modules prepared before the tests"
	}
	cost := fmt.Sprintf("%s (npm install %s%s)", time.Since(t0).Round(100*time.Millisecond), tNpm.Round(100*time.Millisecond), how)
	t.Logf("realboardtest: installed NodeBB in %s", cost)
	return final, cost, nil
}

// takeNodeBBModules moves a node_modules tree prepared for this lock file
// and package.json (by .ci/nodebb-modules, started before the tests so that
// npm does not run on a machine busy with them) into the install at work,
// waiting for its preparation to end; false when there is none.
func takeNodeBBModules(base, lockSum, pkgSum, work string) (bool, error) {
	dir := filepath.Join(base, "nodebb-modules-"+lockSum[:12]+"-"+pkgSum[:8])
	unlock, err := lockPath(dir)
	if err != nil {
		return false, err
	}
	defer unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules")); err != nil {
		return false, nil
	}
	if err := os.Rename(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		return false, err
	}
	return true, os.RemoveAll(dir)
}

// nodebbTemplate restores the pristine dump into a template database of
// this binary's PostgreSQL, once per binary, and returns its DSN.
func nodebbTemplate(t testing.TB, root string) (string, error) {
	nodebbTplMu.Lock()
	defer nodebbTplMu.Unlock()
	if nodebbTpl != "" {
		return nodebbTpl, nil
	}
	dsn, err := pgtest.TryDSN(t)
	if err != nil {
		return "", err
	}
	u, _ := url.Parse(dsn)
	psql, err := pgTool("psql")
	if err != nil {
		return "", err
	}
	cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", u.Hostname(), "-p", u.Port(), "-U", u.User.Username(),
		"-d", strings.TrimPrefix(u.Path, "/"), "-f", filepath.Join(root, nodebbDump))
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("restoring the NodeBB dump: %v: %s", err, tail(string(out), 2000))
	}
	nodebbTpl = dsn
	return dsn, nil
}

var nodebbDBs struct {
	sync.Mutex
	n int
}

// copyDB makes a new database as a copy of the template (one at a time:
// PostgreSQL copies a template no one else is connected to).
func copyDB(t testing.TB, tpl string) (string, error) {
	u, _ := url.Parse(tpl)
	tplName := strings.TrimPrefix(u.Path, "/")
	nodebbDBs.Lock()
	defer nodebbDBs.Unlock()
	nodebbDBs.n++
	name := fmt.Sprintf("nodebb_%d_%d", os.Getpid(), nodebbDBs.n)
	admin := *u
	admin.Path = "/postgres"
	db, err := sql.Open("postgres", admin.String())
	if err != nil {
		return "", err
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE DATABASE ` + name + ` TEMPLATE ` + tplName); err != nil {
		return "", err
	}
	out := *u
	out.Path = "/" + name
	return out.String(), nil
}

// setConfig merges settings into NodeBB's config hash (read at its start).
func setConfig(dsn string, settings map[string]any) error {
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	js, _ := json.Marshal(settings)
	res, err := db.Exec(`UPDATE legacy_hash SET data = data || $1::jsonb WHERE _key = 'config'`, string(js))
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("no config hash in NodeBB's database")
	}
	return nil
}
