// Package demo plays a whole game on a local forum: it starts forumsim,
// signs up simulated players, creates the game, lets the players play it
// through the forum's own web forms (login, reply, PM) and moderates it to
// the end with the real scraper, parser, moderator and poster. It is the
// README's "run the main job" and the end-to-end tests' harness.
package demo

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/forumgm/forumgm"
	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/scraper"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// Config says what to play.
type Config struct {
	Game  string  // one of Games() (default: DefaultGame)
	Speed float64 // 1: about a minute; 2: twice as fast; 0.5: half
	DSN   string  // database; "" = a SQLite file in a temporary folder
	Addr  string  // where the forum listens ("127.0.0.1:0": any free port)
	Seed  int64   // the game's seed (0: 1)
	Out   io.Writer
	// Keep leaves the forum up after the game until ctx ends.
	Keep bool
	// Timeout ends the game by GM command if it has not finished (0: 5
	// minutes at speed 1).
	Timeout time.Duration
	// Verbose also prints every player post and PM.
	Verbose bool
	// Started, when set, hears the board's URL once it is up.
	Started func(base, thread string)
}

// Result is how the demo ended.
type Result struct {
	Game      string
	Status    rules.Status
	ThreadURL string
	BotPosts  []forumsim.Post // the bot's posts in the thread, in order
	BotPMs    []forumsim.PM   // the PMs the bot sent
	Outbox    []store.OutboxItem
	EndedByGM bool
	DB        *store.DB // open until ctx ends when Keep; closed otherwise
}

// Seat is a simulated player's forum account.
type Seat struct {
	Name, Password string
	ID             int
}

// Board is a local forum set up for one game: the bot's account, the
// players' accounts and the game thread.
type Board struct {
	Game  string
	Sim   *forumsim.Server
	Base  string
	Topic int
	BotID int
	BotPW string
	Seats []Seat
	stop  func(context.Context) error
}

// NewBoard starts a local forum for a game on addr.
func NewBoard(game, addr string) (*Board, error) {
	su, err := table(game, 1)
	if err != nil {
		return nil, err
	}
	// Post review off (a board setting many forums use): a dozen simulated
	// players answering within the same second would otherwise keep bouncing
	// each other's replies, which real threads are far too slow to do.
	b := &Board{Game: game, Sim: forumsim.New(forumsim.Options{FloodInterval: time.Second, Sitename: "forumgm demo board", NoPostReview: true})}
	b.BotPW = secret()
	if b.BotID, err = b.Sim.AddUser(BotName, b.BotPW, true); err != nil {
		return nil, err
	}
	for _, p := range su.Players {
		pw := secret()
		id, err := b.Sim.AddUser(p, pw, false)
		if err != nil {
			return nil, err
		}
		b.Seats = append(b.Seats, Seat{p, pw, id})
	}
	fid := b.Sim.AddForum("Forum Games", "Mafia, Resistance and other games run in threads")
	if b.Topic, _, err = b.Sim.AddTopic(fid, b.BotID, su.Title, "Sign-ups are closed. The game starts below; forumgm is your GM."); err != nil {
		return nil, err
	}
	if b.Base, b.stop, err = b.Sim.Start(addr); err != nil {
		return nil, err
	}
	return b, nil
}

// Stop shuts the forum down.
func (b *Board) Stop() { b.stop(context.Background()) }

// ThreadURL is the game thread's address.
func (b *Board) ThreadURL() string { return fmt.Sprintf("%sviewtopic.php?t=%d", b.Base, b.Topic) }

// Players are the game's players with their forum ids.
func (b *Board) Players() []store.Player {
	var ps []store.Player
	for _, s := range b.Seats {
		ps = append(ps, store.Player{Slot: s.Name, ForumName: s.Name, ForumUserID: fmt.Sprint(s.ID)})
	}
	return ps
}

// GameConfig is the game's setup at a speed (1: about a minute).
func (b *Board) GameConfig(speed float64, seed int64, start time.Time) gameconfig.GameConfig {
	su, _ := table(b.Game, speed) // NewBoard checked the game
	return gameconfig.GameConfig{Players: su.Players, Options: su.Options, Setup: su.Setup, Seed: seed, Start: start.UTC()}
}

// ForumConfig is how the bot reaches the board; its password is in the
// environment variable envName.
func (b *Board) ForumConfig(envName string, speed float64) gameconfig.ForumConfig {
	zero := 0.0 // the bot's account is in the flood-exempt group
	return gameconfig.ForumConfig{URL: b.Base, Engine: "phpbb", Thread: fmt.Sprint(b.Topic), Bot: BotName, PasswordEnv: envName,
		PollSeconds: 0.4 / speed, FloodSeconds: &zero, RequestsPerSecond: 50,
		DeadlineUnitSeconds: &zero} // phases of seconds: no whole-minute deadlines
}

// Senders logs every player in (on first use) for sending moves through
// the forum's forms.
func (b *Board) Senders(verbose bool, say func(string, ...any)) (*Senders, error) {
	prof, _ := forum.Builtin("phpbb")
	conns := map[string]*forumconn.Conn{}
	for _, s := range b.Seats {
		c, err := forumconn.Open(b.Base, prof, forum.Credentials{Username: s.Name, Password: s.Password},
			scraper.Options{MinInterval: 20 * time.Millisecond, UserAgent: "forumgm-demo-player"})
		if err != nil {
			return nil, err
		}
		c.Poster.SetFlood(time.Second)
		c.Poster.Unmarked = true // players' posts carry no bot marker
		conns[s.Name] = c
	}
	return &Senders{conns: conns, topic: fmt.Sprint(b.Topic), bot: forum.Author{Name: BotName, ID: fmt.Sprint(b.BotID)}, verbose: verbose, say: say}, nil
}

// Games lists the registered games the demo can play: those that implement
// rules.Demo.
func Games() []string {
	var out []string
	for _, n := range rules.Names() {
		if g, _ := rules.Lookup(n); g != nil {
			if _, ok := g.(rules.Demo); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// DefaultGame is what the demo plays when told no game.
const DefaultGame = "resistance"

// table is the demo's setup of a game at a speed (1: about a minute).
func table(game string, speed float64) (rules.DemoTable, error) {
	g, _ := rules.Lookup(game) // nil when unknown: no demo either
	d, ok := g.(rules.Demo)
	if !ok {
		return rules.DemoTable{}, fmt.Errorf("no demo for %q (try %s)", game, strings.Join(Games(), ", "))
	}
	return d.DemoTable(speed), nil
}

// BotName is the bot's account on the demo board.
const BotName = "GameMaster"

// Run plays one game to its end.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Game == "" {
		cfg.Game = DefaultGame
	}
	if cfg.Speed <= 0 {
		cfg.Speed = 1
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Seed == 0 {
		cfg.Seed = 1
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Duration(float64(5*time.Minute) / cfg.Speed)
	}
	say := func(f string, a ...any) { fmt.Fprintf(cfg.Out, f+"\n", a...) }
	sp := func(d time.Duration) time.Duration { return time.Duration(float64(d) / cfg.Speed) }

	b, err := NewBoard(cfg.Game, cfg.Addr)
	if err != nil {
		return nil, err
	}
	defer b.Stop()
	sim, base, topic, botID := b.Sim, b.Base, b.Topic, b.BotID
	threadURL := b.ThreadURL()
	say("forumgm demo: %s with %d simulated players", cfg.Game, len(b.Seats))
	say("open the thread in a browser: %s", threadURL)
	if cfg.Started != nil {
		cfg.Started(base, fmt.Sprint(topic))
	}

	// The database.
	dsn := cfg.DSN
	if dsn == "" {
		dir, err := os.MkdirTemp("", "forumgm-demo-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		dsn = filepath.Join(dir, "demo.db")
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	closeDB := true
	defer func() {
		if closeDB {
			db.Close()
		}
	}()

	// The bot's password is handed over the way a GM would: in an
	// environment variable the game settings name.
	envName := "FORUMGM_DEMO_PASSWORD_" + strings.ToUpper(cfg.Game) + "_" + secret()[:6]
	os.Setenv(envName, b.BotPW)
	defer os.Unsetenv(envName)
	fc := b.ForumConfig(envName, cfg.Speed)
	gc := b.GameConfig(cfg.Speed, cfg.Seed, time.Now())
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, fc gameconfig.ForumConfig) (moderator.Forum, error) {
		return forumconn.Connect(fc, clock.Real{}, forumgm.Version)
	}}
	name := "demo-" + cfg.Game
	g, err := m.Create(ctx, name, cfg.Game, gc, fc, b.Players())
	if err != nil {
		return nil, err
	}
	eng, _ := rules.Lookup(cfg.Game)

	// The moderator runs as `forumgm run` would.
	runCtx, stopRun := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); m.Run(runCtx) }()
	defer func() { stopRun(); wg.Wait() }()

	// The players: each logs in with their own account and uses the forms.
	send, err := b.Senders(cfg.Verbose, say)
	if err != nil {
		return nil, err
	}
	defer send.Close()
	table := &simplayers.Table{Game: eng, Seed: cfg.Seed}

	deadline := time.Now().Add(cfg.Timeout)
	printed := 0
	endedByGM := false
	var last *store.Game
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var row *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.GameByID(g.ID); return err }); err != nil {
			return nil, err
		}
		last = row
		st, err := eng.Decode(row.State)
		if err != nil {
			return nil, err
		}
		// Show what the bot posted in the thread since last time.
		for _, p := range botPostsOf(sim, topic, BotName)[printed:] {
			say("\n── %s posts in the thread ──\n%s", BotName, indent(plain(p.Source)))
			printed++
		}
		if row.Status == moderator.Finished || row.Status == moderator.Ended {
			if drained(ctx, db, g.ID) {
				break
			}
		} else if time.Now().After(deadline) {
			say("\n(the demo ran out of time: the GM ends the game)")
			if err := m.End(ctx, name); err != nil {
				return nil, err
			}
			endedByGM = true
		} else if _, err := table.Act(ctx, st, send); err != nil {
			say("(a player's move failed: %v)", err)
		}
		if err := sleep(ctx, sp(700*time.Millisecond)); err != nil {
			return nil, err
		}
	}
	for _, p := range botPostsOf(sim, topic, BotName)[printed:] {
		say("\n── %s posts in the thread ──\n%s", BotName, indent(plain(p.Source)))
	}
	st, _ := eng.Decode(last.State)
	res := &Result{Game: cfg.Game, Status: eng.Status(st), ThreadURL: threadURL, BotPosts: botPostsOf(sim, topic, BotName), BotPMs: sim.Sent(botID), EndedByGM: endedByGM}
	db.View(ctx, func(tx *store.Tx) error { res.Outbox, err = tx.Outbox(g.ID); return err })
	say("\n== the game is over: %s", summary(res.Status))
	say("   %d posts in the thread by the bot, %d PMs sent; audit: every command and why is in the database", len(res.BotPosts), len(res.BotPMs))
	if cfg.Keep {
		// The address only while the board is there to open it.
		say("   thread: %s — the forum stays up until you press Ctrl-C", threadURL)
		stopRun()
		<-ctx.Done()
	}
	res.DB = db
	closeDB = false // the caller closes it
	return res, nil
}

func summary(st rules.Status) string {
	s := "winners: " + strings.Join(st.Winners, ", ")
	if len(st.Winners) == 0 {
		s = "no winner"
	}
	if side, ok := st.Extra["winner_side"]; ok && side != "" {
		s += fmt.Sprintf(" (%v)", side)
	}
	return s
}

// Drained reports whether game id has nothing left to send.
func Drained(ctx context.Context, db *store.DB, id int64) bool { return drained(ctx, db, id) }

// BotPosts are the bot's posts in the board's game thread (those with a
// marker), in thread order.
func (b *Board) BotPosts() []forumsim.Post { return botPostsOf(b.Sim, b.Topic, BotName) }

// BotPMs are the PMs the bot sent on the board.
func (b *Board) BotPMs() []forumsim.PM { return b.Sim.Sent(b.BotID) }

// ExactlyOnce compares a game's outbox with what the bot put on the board:
// every item sent; the thread holds the bot's posts exactly in the
// outbox's order, each once; every PM of the outbox was sent once and no
// other. It returns what is wrong (nothing: all is right); the end-to-end
// and multi-process tests check with it.
func ExactlyOnce(out []store.OutboxItem, posts []forumsim.Post, pms []forumsim.PM) []string {
	var bad []string
	var wantPosts, wantPMs []string
	for _, it := range out {
		if it.State != store.OutboxSent {
			bad = append(bad, fmt.Sprintf("outbox item %s is %s (%s)", it.Marker, it.State, it.LastError))
		}
		if it.Kind == "post" {
			wantPosts = append(wantPosts, it.Marker)
		} else {
			wantPMs = append(wantPMs, it.Marker)
		}
	}
	var gotPosts []string
	for _, p := range posts {
		ks := poster.FindMarkers(p.HTML)
		if len(ks) != 1 {
			return append(bad, fmt.Sprintf("bot post %d has markers %v", p.ID, ks))
		}
		gotPosts = append(gotPosts, ks[0])
	}
	if strings.Join(gotPosts, " ") != strings.Join(wantPosts, " ") {
		bad = append(bad, fmt.Sprintf("thread has the bot's posts\n  %v\nwant exactly, in order\n  %v", gotPosts, wantPosts))
	}
	seen := map[string]int{}
	for _, pm := range pms {
		for _, k := range poster.FindMarkers(pm.HTML) {
			seen[k]++
		}
	}
	for _, k := range wantPMs {
		if seen[k] != 1 {
			bad = append(bad, fmt.Sprintf("PM %s was sent %d times", k, seen[k]))
		}
		delete(seen, k)
	}
	for k, n := range seen {
		bad = append(bad, fmt.Sprintf("PM %s sent %d times but not in the outbox", k, n))
	}
	if len(wantPosts) < 3 || len(wantPMs) < 1 {
		bad = append(bad, fmt.Sprintf("suspiciously little: %d posts, %d PMs", len(wantPosts), len(wantPMs)))
	}
	return bad
}

func drained(ctx context.Context, db *store.DB, id int64) bool {
	var it *store.OutboxItem
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(id, time.Now().Add(time.Hour))
		return err
	})
	return it == nil
}

func botPostsOf(sim *forumsim.Server, topic int, bot string) []forumsim.Post {
	var out []forumsim.Post
	for _, p := range sim.Posts(topic) {
		if p.AuthorName == bot && strings.Contains(p.Source, forum.MarkerPrefix) {
			out = append(out, p)
		}
	}
	return out
}

func sleep(ctx context.Context, d time.Duration) error { return clock.Real{}.Sleep(ctx, d) }

func secret() string {
	b := make([]byte, 9)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// plain shows a post's BBCode to a terminal: tags dropped, the marker line too.
func plain(src string) string {
	var lines []string
	for _, l := range strings.Split(src, "\n") {
		if strings.Contains(l, forum.MarkerPrefix) {
			continue
		}
		lines = append(lines, l)
	}
	s := strings.Join(lines, "\n")
	for _, t := range []string{"[b]", "[/b]", "[i]", "[/i]", "[u]", "[/u]", "[list]", "[/list]", "[code]", "[/code]"} {
		s = strings.ReplaceAll(s, t, "")
	}
	s = strings.ReplaceAll(s, "[*]", "• ")
	return strings.ReplaceAll(strings.TrimSpace(s), "\u200b", "")
}

func indent(s string) string { return "  " + strings.ReplaceAll(s, "\n", "\n  ") }

// Senders send the simulated players' moves through the forum's forms. Each
// player has their own queue and goroutine, so a slow form (a login, a flood
// wait) holds up only that player, as with people.
type Senders struct {
	conns   map[string]*forumconn.Conn
	topic   string
	bot     forum.Author
	verbose bool
	say     func(string, ...any)

	mu     sync.Mutex
	n      int
	queues map[string]chan job
	wg     sync.WaitGroup
}

type job struct {
	text    string
	private bool
}

func (s *Senders) enqueue(ctx context.Context, player string, j job) error {
	c, ok := s.conns[player]
	if !ok {
		return errors.New("no account for " + player)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queues == nil {
		s.queues = map[string]chan job{}
	}
	q, ok := s.queues[player]
	if !ok {
		q = make(chan job, 64)
		s.queues[player] = q
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			for j := range q {
				if err := s.send(ctx, c, player, j); err != nil && ctx.Err() == nil {
					s.say("   (%s's move failed: %v)", player, err)
				}
			}
		}()
	}
	select {
	case q <- j:
		return nil
	default:
		return errors.New(player + " is too far behind")
	}
}

func (s *Senders) send(ctx context.Context, c *forumconn.Conn, player string, j job) error {
	s.mu.Lock()
	s.n++
	key := fmt.Sprintf("sim.%d", s.n)
	s.mu.Unlock()
	if j.private {
		if s.verbose {
			s.say("   %s sends the GM a PM", player)
		}
		_, err := poster.Patiently(ctx, c.Session.Clock(), func() (string, error) {
			return c.Poster.SendPM(ctx, s.bot, key, "orders", j.text)
		})
		return err
	}
	if s.verbose {
		s.say("   %s posts: %s", player, oneLine(j.text))
	}
	_, err := poster.Patiently(ctx, c.Session.Clock(), func() (string, error) {
		return c.Poster.Reply(ctx, s.topic, key, "", j.text)
	})
	return err
}

// Close stops the queues and waits for what is being sent.
func (s *Senders) Close() {
	s.mu.Lock()
	for _, q := range s.queues {
		close(q)
	}
	s.queues = nil
	s.mu.Unlock()
	s.wg.Wait()
}

func (s *Senders) Post(ctx context.Context, player, text string) error {
	return s.enqueue(ctx, player, job{text: text})
}

func (s *Senders) PM(ctx context.Context, player, text string) error {
	return s.enqueue(ctx, player, job{text: text, private: true})
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
