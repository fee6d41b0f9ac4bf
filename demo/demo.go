// Package demo plays a whole game on a local forum: it starts forumsim,
// signs up simulated players, creates the game, lets the players play it
// through the forum's own web forms (login, reply, PM) and moderates it to
// the end with the real scraper, parser, moderator and poster. It is the
// README's "run the main job" and the end-to-end tests' harness.
package demo

import (
	"context"
	"crypto/rand"
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
	// DB is the game's database when Config.DSN named one, open for the
	// caller to read and close; nil when the demo's was temporary.
	DB *store.DB
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
	eng   rules.Demo
	stop  func(context.Context) error
}

// NewBoard starts a local forum for a game on addr.
func NewBoard(game, addr string) (*Board, error) {
	eng, err := demoOf(game)
	if err != nil {
		return nil, err
	}
	su := eng.DemoTable(1)
	// Post review off (a board setting many forums use): a dozen simulated
	// players answering within the same second would otherwise keep bouncing
	// each other's replies, which real threads are far too slow to do.
	b := &Board{Game: game, eng: eng, Sim: forumsim.New(forumsim.Options{FloodInterval: time.Second, Sitename: "forumgm demo board", NoPostReview: true})}
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
func (b *Board) Stop() error { return b.stop(context.Background()) }

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

// GameConfig is the game's setup at a speed (1: about a minute). Counts
// and reminders are the defaults, which suit phases of seconds as they
// suit phases of days; the reminders also go into the thread, where the
// demo shows them.
func (b *Board) GameConfig(speed float64, seed int64, start time.Time) gameconfig.GameConfig {
	su := b.eng.DemoTable(speed)
	return gameconfig.GameConfig{Players: su.Players, Options: su.Options, Setup: su.Setup, Seed: seed, Start: start.UTC(),
		Reminders: &gameconfig.Reminders{Thread: true}}
}

// ForumConfig is how the bot reaches the board; its password is in the
// environment variable envName (or, with envName "", wherever the caller
// sets: PasswordFile, as WritePassword writes it).
func (b *Board) ForumConfig(envName string, speed float64) gameconfig.ForumConfig {
	zero := 0.0 // the bot's account is in the flood-exempt group
	return gameconfig.ForumConfig{URL: b.Base, Engine: "phpbb", Thread: fmt.Sprint(b.Topic), Bot: BotName, PasswordEnv: envName,
		PollSeconds: 0.4 / speed, FloodSeconds: &zero, RequestsPerSecond: 50,
		DeadlineUnitSeconds: &zero} // phases of seconds: no whole-minute deadlines
}

// WritePassword writes the bot's password to a file only its owner can
// read, as a GM keeps one for a game file's password_file.
func (b *Board) WritePassword(path string) error {
	return os.WriteFile(path, []byte(b.BotPW), 0o600)
}

// Senders logs every player in (on first use) for sending moves through
// the forum's forms.
func (b *Board) Senders(verbose bool, say func(string, ...any)) (*Senders, error) {
	prof, ok := forum.Builtin("phpbb")
	if !ok {
		return nil, errors.New("no built-in phpbb profile")
	}
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
		if _, ok := asDemo(n); ok {
			out = append(out, n)
		}
	}
	return out
}

// DefaultGame is what the demo plays when told no game.
const DefaultGame = "resistance"

// demoOf is a game that has a demo.
func demoOf(game string) (rules.Demo, error) {
	d, ok := asDemo(game)
	if !ok {
		return nil, fmt.Errorf("no demo for %q (try %s)", game, strings.Join(Games(), ", "))
	}
	return d, nil
}

// asDemo is the game's demo, if it is a registered game that has one.
func asDemo(game string) (rules.Demo, bool) {
	g, err := rules.Lookup(game)
	if err != nil {
		return nil, false // an unknown game has no demo
	}
	d, ok := g.(rules.Demo)
	return d, ok
}

// BotName is the bot's account on the demo board.
const BotName = "GameMaster"

// withDefaults fills in what cfg leaves out.
func (cfg Config) withDefaults() Config {
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
	return cfg
}

// Run plays one game to its end: a local board, the game created on it as
// a GM would (the bot's password in an owner-only file the game settings
// name), the moderator running as `forumgm run` does, and the simulated
// players playing until the game is over.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	cfg = cfg.withDefaults()
	say := func(f string, a ...any) { fmt.Fprintf(cfg.Out, f+"\n", a...) }

	b, err := NewBoard(cfg.Game, cfg.Addr)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, b.Stop()) }()
	say("forumgm demo: %s with %d simulated players", cfg.Game, len(b.Seats))
	say("open the thread in a browser: %s", b.ThreadURL())
	if cfg.Started != nil {
		cfg.Started(b.Base, fmt.Sprint(b.Topic))
	}

	// The demo's own folder (only its owner may read it): the bot's
	// password file and, unless cfg.DSN names one, the database.
	dir, err := os.MkdirTemp("", "forumgm-demo-")
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, os.RemoveAll(dir)) }()
	dsn := cfg.DSN
	if dsn == "" {
		dsn = filepath.Join(dir, "demo.db")
	}
	db, err := store.Open(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer func() {
		// A database the caller named is theirs to read and close; a
		// temporary one goes with its folder.
		if err == nil && cfg.DSN != "" {
			res.DB = db
			return
		}
		err = errors.Join(err, db.Close())
	}()

	p := &play{cfg: cfg, b: b, db: db, say: say, name: "demo-" + cfg.Game}
	p.m = &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: connector()}
	if p.game, err = p.create(ctx, filepath.Join(dir, "bot.password")); err != nil {
		return nil, err
	}
	stopModerator := p.runModerator(ctx)
	defer func() { err = errors.Join(err, stopModerator()) }()
	if p.send, err = b.Senders(cfg.Verbose, say); err != nil {
		return nil, err
	}
	defer p.send.Close()

	if err := p.untilOver(ctx); err != nil {
		return nil, err
	}
	if res, err = p.result(ctx); err != nil {
		return nil, err
	}
	say("\n== the game is over: %s", summary(res.Status))
	say("   %d posts in the thread by the bot, %d PMs sent; audit: every command and why is in the database", len(res.BotPosts), len(res.BotPMs))
	if cfg.Keep {
		// The address only while the board is there to open it.
		say("   thread: %s — the forum stays up until you press Ctrl-C", res.ThreadURL)
		if err := stopModerator(); err != nil {
			return nil, err
		}
		<-ctx.Done()
	}
	return res, nil
}

// connector connects a game the way `forumgm run` does (its
// cmd/forumgm/connect.go): on the session its board and bot account share
// with the process's other games.
func connector() moderator.Connector {
	return (&forumconn.Sessions{Clock: clock.Real{}, Version: forumgm.Version}).Board
}

// play is one demo game in progress.
type play struct {
	cfg      Config
	b        *Board
	db       *store.DB
	m        *moderator.Moderator
	name     string
	game     *store.Game
	send     *Senders
	say      func(string, ...any)
	printed  int             // the bot's posts shown so far
	pms      int             // the id of the bot's last PM looked at (showReminders)
	subjects map[string]bool // the reminders' subjects shown
	ended    bool
	last     *store.Game
}

// create writes the bot's password to pwFile and creates the game, as a GM
// would with a game file naming that file.
func (p *play) create(ctx context.Context, pwFile string) (*store.Game, error) {
	if err := p.b.WritePassword(pwFile); err != nil {
		return nil, err
	}
	fc := p.b.ForumConfig("", p.cfg.Speed)
	fc.PasswordFile = pwFile
	return p.m.Create(ctx, p.name, p.cfg.Game, p.b.GameConfig(p.cfg.Speed, p.cfg.Seed, time.Now()), fc, p.b.Players())
}

// runModerator starts the moderator as `forumgm run` would; the function
// it returns stops it (once; later calls return nil) and says why it had
// stopped, if not for that.
func (p *play) runModerator(ctx context.Context) func() error {
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- p.m.Run(runCtx) }()
	var once sync.Once
	var err error
	return func() error {
		once.Do(func() { cancel(); err = <-done })
		return err
	}
}

// untilOver lets the players play, showing the bot's posts as they come,
// until the game is over and everything is sent; past the timeout the GM
// ends it.
func (p *play) untilOver(ctx context.Context) error {
	eng := p.b.eng
	// Players ask for a count now and then, as forum players do.
	table := &simplayers.Table{Game: eng, Seed: p.cfg.Seed, AskCounts: 8}
	deadline := time.Now().Add(p.cfg.Timeout)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		row, err := p.row(ctx)
		if err != nil {
			return err
		}
		p.last = row
		st, err := eng.Decode(row.State)
		if err != nil {
			return err
		}
		p.showBotPosts()
		p.showReminders()
		switch {
		case row.Status == moderator.Finished || row.Status == moderator.Ended:
			done, err := drained(ctx, p.db, p.game.ID)
			if err != nil {
				return err
			}
			if done {
				p.showBotPosts()
				return nil
			}
		case time.Now().After(deadline):
			p.say("\n(the demo ran out of time: the GM ends the game)")
			if err := p.m.End(ctx, p.name); err != nil {
				return err
			}
			p.ended = true
		default:
			if _, err := table.Act(ctx, st, p.send); err != nil {
				p.say("(a player's move failed: %v)", err)
			}
		}
		if err := sleep(ctx, time.Duration(float64(700*time.Millisecond)/p.cfg.Speed)); err != nil {
			return err
		}
	}
}

func (p *play) row(ctx context.Context) (*store.Game, error) {
	var row *store.Game
	err := p.db.View(ctx, func(tx *store.Tx) error {
		var err error
		row, err = tx.GameByID(p.game.ID)
		return err
	})
	return row, err
}

// showBotPosts prints what the bot posted in the thread since last time.
func (p *play) showBotPosts() {
	for _, post := range p.b.BotPosts()[p.printed:] {
		p.say("\n── %s posts in the thread ──\n%s", BotName, indent(plain(post.Source)))
		p.printed++
	}
}

// showReminders prints the first reminder or prod of each phase the bot
// has sent by PM, and names whom the others of the phase went to (the demo
// shows what a player is told, as it shows the thread: a demo player's own
// PM, on the demo's board).
func (p *play) showReminders() {
	pms := p.b.BotPMs() // the newest first
	last := p.pms
	for i := len(pms) - 1; i >= 0; i-- {
		pm := pms[i]
		last = max(last, pm.ID)
		if pm.ID <= p.pms || !(strings.Contains(pm.Source, "a reminder") || strings.Contains(pm.Source, "has not heard from you")) {
			continue
		}
		if p.subjects == nil {
			p.subjects = map[string]bool{}
		}
		// One a phase in full: boards cut subjects short, so the phase is
		// the reminder's own words for it.
		subject, _, _ := strings.Cut(pm.Source, " closes ")
		subject = subject[strings.LastIndex(subject, ": ")+1:]
		if p.subjects[subject] {
			p.say("  (and to %s by PM, with what they still owe)", p.b.seatName(pm.To))
			continue
		}
		p.subjects[subject] = true
		p.say("\n── %s reminds %s by PM ──\n%s", BotName, p.b.seatName(pm.To), indent(plain(pm.Source)))
	}
	p.pms = last
}

// seatName is the demo player of forum user ids (the first).
func (b *Board) seatName(ids []int) string {
	for _, s := range b.Seats {
		if len(ids) > 0 && s.ID == ids[0] {
			return s.Name
		}
	}
	return "a player"
}

// result is how the game ended, from its last state and the board.
func (p *play) result(ctx context.Context) (*Result, error) {
	st, err := p.b.eng.Decode(p.last.State)
	if err != nil {
		return nil, err
	}
	res := &Result{Game: p.cfg.Game, Status: p.b.eng.Status(st), ThreadURL: p.b.ThreadURL(), BotPosts: p.b.BotPosts(), BotPMs: p.b.BotPMs(), EndedByGM: p.ended}
	err = p.db.View(ctx, func(tx *store.Tx) error {
		var err error
		res.Outbox, err = tx.Outbox(p.game.ID)
		return err
	})
	return res, err
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
func Drained(ctx context.Context, db *store.DB, id int64) (bool, error) { return drained(ctx, db, id) }

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
	lapsed := map[string]bool{}
	for _, it := range out {
		if it.State == store.OutboxLapsed {
			// Its phase closed first: it must never have gone out.
			lapsed[it.Marker] = true
			continue
		}
		if it.State != store.OutboxSent {
			bad = append(bad, fmt.Sprintf("outbox item %s is %s (%s)", it.Marker, it.State, it.LastError))
		}
		if it.Kind == forum.KindPost {
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
		if lapsed[ks[0]] {
			bad = append(bad, fmt.Sprintf("post %s lapsed, yet it is in the thread", ks[0]))
			continue
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
		if lapsed[k] {
			bad = append(bad, fmt.Sprintf("PM %s lapsed, yet it was sent %d times", k, n))
			continue
		}
		bad = append(bad, fmt.Sprintf("PM %s sent %d times but not in the outbox", k, n))
	}
	if len(wantPosts) < 3 || len(wantPMs) < 1 {
		bad = append(bad, fmt.Sprintf("suspiciously little: %d posts, %d PMs", len(wantPosts), len(wantPMs)))
	}
	return bad
}

func drained(ctx context.Context, db *store.DB, id int64) (bool, error) {
	var it *store.OutboxItem
	err := db.View(ctx, func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(id, time.Now().Add(time.Hour))
		return err
	})
	return it == nil, err
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

func secret() string { return rand.Text() }

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
