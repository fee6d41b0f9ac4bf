//go:build linux

package nodebbtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
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
	"github.com/forumgm/forumgm/nodebb"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/rules/resistance"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
)

// TestNations plays a whole game of Nations on a real NodeBB board: the
// moderator as `forumgm run` runs it (forumconn's sessions, the nodebb
// client, a SQLite store), the simulated players posting in the topic and
// chatting their orders to the bot through their own sessions. The game
// ends by its rules, the journal replays to the same result, and every
// post and chat the bot queued is on the board exactly once.
func TestNations(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Nations)
	if testing.Short() {
		t.Skip("plays a whole game on the real clock (minutes)")
	}
	g, _ := rules.Lookup("nations")
	demo := g.(rules.Demo).DemoTable(1)
	res := playGame(t, "nations", demo, 7, 6*time.Minute, gameOpts{restartAfter: 6, outsider: true})
	t.Logf("nations on NodeBB: %s", res)
}

// TestSignups fills a game of The Resistance (five players) by sign-ups
// in its topic on a real NodeBB board and plays it to its end, as
// TestNations does: no player and no user id is given; the players are
// read from their /in posts with the user ids NodeBB gave them, and their
// roles reach them by chat.
func TestSignups(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Signups)
	matrix.Cell(t, realboardtest.NodeBB, matrix.Resistance5)
	if testing.Short() {
		t.Skip("fills and plays a whole game on the real clock (minutes)")
	}
	g, _ := rules.Lookup("resistance")
	demo := g.(rules.Demo).DemoTable(2)
	demo.Players = demo.Players[:5]
	res := playGame(t, "resistance", demo, 3, 8*time.Minute, gameOpts{signups: true})
	t.Logf("resistance by sign-ups on NodeBB: %s", res)
}

// TestProtest plays a whole game of Protest on a real NodeBB board, as
// TestNations does (its map goes out in a code block).
func TestProtest(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Protest)
	if testing.Short() {
		t.Skip("plays a whole game on the real clock (minutes)")
	}
	g, _ := rules.Lookup("protest")
	demo := g.(rules.Demo).DemoTable(1)
	res := playGame(t, "protest", demo, 5, 8*time.Minute, gameOpts{})
	t.Logf("protest on NodeBB: %s", res)
}

// gameOpts are what happens to a game besides its play.
type gameOpts struct {
	// restartAfter: once the players have made this many moves, the
	// moderator is stopped (whatever it was sending), NodeBB is killed
	// (SIGKILL) and started again, and a new moderator (a restarted
	// forumgm run) goes on (0: never).
	restartAfter int
	// outsider: an account that is not a player chats the bot an order
	// mid-game; it is recorded and ignored.
	outsider bool
	// countGap sets counts on request with this gap (0: the default);
	// askCounts makes one player move in so many ask for a count.
	countGap  time.Duration
	askCounts int
	// signups fills the game by sign-ups in its topic (no players given):
	// the demo table's players post /in, one twice, one leaves with /out
	// and comes back, and the host (the GM's account) is refused.
	signups bool
	// gmCount: once the players have made this many moves, the GM asks
	// for a count (forumgm count): one post queued at once (0: never).
	gmCount int
}

// TestResistanceSix plays The Resistance with six players, each holding a
// Double Vote card (the plot cards of five and six players), to its end on
// a real NodeBB board, as TestNations does; cards are played and accepted.
// The GM asks for a count once (forumgm count): one post, in the topic once.
// The players now and then ask for a count (a bold VOTECOUNT in one move in
// three): every request is answered (by a count or by its phase's close),
// counts are posted, and within a phase the counts in the topic are the
// gap apart at least by the board's own times.
func TestResistanceSix(t *testing.T) {
	t.Parallel()
	matrix.Cell(t, realboardtest.NodeBB, matrix.Counts)
	if testing.Short() {
		t.Skip("plays a whole game on the real clock (minutes)")
	}
	g, _ := rules.Lookup("resistance")
	demo := g.(rules.Demo).DemoTable(1)
	demo.Players = demo.Players[:6]
	const gap = 10 * time.Second
	res := playGame(t, "resistance", demo, 11, 10*time.Minute, gameOpts{countGap: gap, askCounts: 3, gmCount: 6})
	played, asked := 0, 0
	for _, c := range res.commands {
		switch {
		case c.Kind == resistance.KindPlay && c.Status == store.CommandAccepted:
			played++
		case c.Kind == "count":
			asked++
			if !strings.HasPrefix(c.Reason, "answered by ") {
				t.Errorf("%s's request for a count in %s: %q", c.Player, c.Phase, c.Reason)
			}
		}
	}
	if played == 0 {
		t.Errorf("no card was played and accepted")
	}
	// The counts in the topic, by phase, with the board's times.
	byPhase := map[string][]time.Time{}
	counts, gmCounts := 0, 0
	for _, it := range res.outbox {
		if it.Kind != forum.KindPost || !strings.Contains(it.Body, "— count ") || it.State != store.OutboxSent {
			continue
		}
		if it.Marker == res.gmCount {
			gmCounts++ // the GM's: at any time, the gap is the players'
			continue
		}
		counts++
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		phase := strings.Split(key, "/")[1]
		for _, r := range res.board.Query(t, `SELECT data->>'timestamp' AS at FROM legacy_hash WHERE _key = $1`, "post:"+it.ForumID) {
			var ms int64
			fmt.Sscan(fmt.Sprint(r["at"]), &ms)
			byPhase[phase] = append(byPhase[phase], time.UnixMilli(ms))
		}
	}
	if asked == 0 || counts == 0 {
		t.Errorf("%d requests for a count, %d counts in the topic: want some of each", asked, counts)
	}
	if gmCounts != 1 {
		t.Errorf("the GM's count sent %d times, want once", gmCounts)
	}
	for phase, ats := range byPhase {
		slices.SortFunc(ats, time.Time.Compare)
		for i := 1; i < len(ats); i++ {
			if d := ats[i].Sub(ats[i-1]); d < gap {
				t.Errorf("%s: counts %d and %d are %v apart on the board, less than the gap %v", phase, i, i+1, d, gap)
			}
		}
	}
	t.Logf("resistance (6) on NodeBB: %d cards played; %d requests for a count, %d counts; %s", played, asked, counts, res)
}

type gameResult struct {
	played            time.Duration
	moves, posts, pms int
	winners           []string
	commands          []store.CommandRow
	outbox            []store.OutboxItem
	board             *realboardtest.NodeBBBoard
	gmCount           string // the marker of the GM's count ("": none)
}

func (r gameResult) String() string {
	acc, rej := 0, 0
	for _, c := range r.commands {
		switch c.Status {
		case store.CommandAccepted:
			acc++
		case store.CommandRejected:
			rej++
		}
	}
	return fmt.Sprintf("finished in %.0fs; winners %v; %d player moves; commands %d accepted, %d rejected; bot: %d posts, %d chats, each once",
		r.played.Seconds(), r.winners, r.moves, acc, rej, r.posts, r.pms)
}

// playGame sets the demo table's game up on a fresh board with the bot an
// administrator (exempt from delays, as a GM's bot usually is) and plays it
// to its end within limit, checking it as TestNations says.
func playGame(t *testing.T, kind string, demo rules.DemoTable, seed int64, limit time.Duration, o gameOpts) gameResult {
	ctx := context.Background()
	var others []string
	if o.outsider {
		others = []string{"Mallory"}
	}
	const host = "TheHost"
	if o.signups {
		others = append(others, host)
	}
	start := gameBoard
	if o.restartAfter > 0 {
		start = restartBoard // NodeBB is killed and started again mid-game
	}
	b := start(t, realboardtest.NodeBBOptions{Players: demo.Players, Others: others, Subject: demo.Title, BotAdmin: true,
		Opening: "Sign-ups are closed. The game starts below; forumgm is your GM."})
	eng, _ := rules.Lookup(kind)
	// The players by their board names (on the shared server each with
	// the board's number).
	gc := gameconfig.GameConfig{Players: realboardtest.Names(b.Players), Options: demo.Options, Setup: demo.Setup, Seed: seed, Start: time.Now().UTC()}
	if o.countGap > 0 {
		gc.Counts = &gameconfig.Counts{Gap: o.countGap.String()}
	}
	if o.signups {
		gc.Players = nil
		gc.Signups = &gameconfig.Signups{Min: len(demo.Players), Max: len(demo.Players), Close: "10m", GM: gameconfig.Names{b.Player(host).Name}}
	}
	zero := 0.0
	fc := forumConfig(t, b)
	fc.FloodSeconds = &zero
	fc.DeadlineUnitSeconds = &zero // NodeBB stamps to the millisecond
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	newModerator := func() *moderator.Moderator {
		ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "nodebbtest"}
		return &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: ss.Board,
			Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelInfo}))}
	}
	m := newModerator()
	var ps []store.Player
	for _, a := range b.Players {
		if !o.signups {
			ps = append(ps, store.Player{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()})
		}
	}
	gm, err := m.Create(ctx, kind+"-nodebb", kind, gc, fc, ps)
	if err != nil {
		t.Fatal(err)
	}
	var stop context.CancelFunc
	var done chan struct{}
	run := func() {
		var runCtx context.Context
		runCtx, stop = context.WithCancel(ctx)
		done = make(chan struct{})
		go func(m *moderator.Moderator, done chan struct{}) { defer close(done); m.Run(runCtx) }(m, done)
	}
	run()
	stopped := false
	halt := func() {
		if !stopped {
			stopped = true
			stop()
			<-done
		}
	}
	t.Cleanup(func() { halt() })
	row := func() *store.Game {
		var g *store.Game
		if err := db.View(ctx, func(tx *store.Tx) error {
			var err error
			g, err = tx.GameByID(gm.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return g
	}
	outbox := func() []store.OutboxItem {
		var out []store.OutboxItem
		if err := db.View(ctx, func(tx *store.Tx) error {
			var err error
			out, err = tx.Outbox(gm.ID)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	drained := func() bool {
		for _, it := range outbox() {
			if it.State.Unsent() {
				return false
			}
		}
		return true
	}
	pl := newPlayers(t, b)
	sim := &simplayers.Table{Game: eng, Seed: seed, AskCounts: o.askCounts}
	t0 := time.Now()
	if o.signups {
		signUp(t, b, b.Player(host).Name, row, outbox, db, gm.ID)
		var cfg gameconfig.GameConfig
		if err := json.Unmarshal(row().Config, &cfg); err != nil {
			t.Fatal(err)
		}
		gc = cfg // the players as signed up: the journal replays with them
	}
	end := t0.Add(limit)
	moves := 0
	restarted, outsiderPM, gmCounted, gmCountMarker := false, 0, false, ""
	for {
		if o.restartAfter > 0 && !restarted && moves >= o.restartAfter {
			restarted = true
			halt()
			b.Restart(t)
			t.Logf("after %d moves: the moderator stopped, NodeBB killed and started again, a new moderator", moves)
			m, stopped = newModerator(), false
			run()
		}
		if o.gmCount > 0 && !gmCounted && moves >= o.gmCount && row().Status == moderator.Running {
			gmCounted = true
			before := len(outbox())
			if _, err := m.Count(ctx, gm.Name); err != nil {
				t.Errorf("the GM's count: %v", err)
			} else if box := outbox(); len(box) != before+1 || box[before].Kind != forum.KindPost {
				t.Errorf("the GM's count queued %d messages, want one post", len(box)-before)
			} else {
				gmCountMarker = box[before].Marker
			}
		}
		if o.outsider && outsiderPM == 0 && moves >= 2 {
			u := user(t, b, b.Others[0])
			if outsiderPM, err = u.Chat(ctx, b.Bot, "INVADE "+b.Players[0].Name); err != nil {
				t.Fatal(err)
			}
		}
		r := row()
		st, err := eng.Decode(r.State)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == moderator.Finished || r.Status == moderator.Ended {
			if drained() {
				break
			}
		} else {
			if time.Now().After(end) {
				t.Fatalf("the game did not finish within %v (status %s, phase %s)", limit, r.Status, eng.Status(st).Phase)
			}
			sent, err := sim.Act(ctx, st, pl)
			if err != nil {
				t.Errorf("simulated players: %v", err)
			}
			moves += len(sent)
		}
		if time.Now().After(end.Add(time.Minute)) {
			t.Fatalf("the outbox did not drain within a minute after the game ended")
		}
		time.Sleep(500 * time.Millisecond)
	}
	for _, err := range pl.close() {
		t.Errorf("a player's move failed on the board: %v", err)
	}
	res := gameResult{played: time.Since(t0), moves: moves}
	halt()

	r := row()
	st, _ := eng.Decode(r.State)
	final := eng.Status(st)
	if r.Status != moderator.Finished || !final.Finished {
		t.Errorf("game status %s, finished %v; want finished", r.Status, final.Finished)
	}
	res.winners = final.Winners
	var j []journal.Entry
	var cmds []store.CommandRow
	db.View(ctx, func(tx *store.Tx) error {
		var err error
		if j, err = tx.Journal(gm.ID); err != nil {
			return err
		}
		cmds, err = tx.Commands(gm.ID, store.CommandFilter{})
		return err
	})
	res.commands = cmds
	replayed, err := journal.Replay(eng, gc.Rules(), j, journal.Strict)
	if err != nil {
		t.Fatal(err)
	}
	if rs := eng.Status(replayed); !reflect.DeepEqual(rs.Winners, final.Winners) || !reflect.DeepEqual(rs.Scores, final.Scores) {
		t.Errorf("the journal replays to winners %v scores %v; the game says %v %v", rs.Winners, rs.Scores, final.Winners, final.Scores)
	}
	acc := 0
	for _, c := range cmds {
		if c.Status == store.CommandAccepted {
			acc++
		}
		if strings.Contains(c.Reason, "after its phase") {
			t.Errorf("%s's %q rejected as late (%s)", c.Player, c.Text, c.Reason)
		}
	}
	if acc == 0 {
		// What the bot made of each: a failure here is read from CI's log.
		for _, c := range cmds {
			t.Logf("%s %s %s by %s: %q: %s %q", c.Phase, c.Channel, c.Kind, c.Player, c.Text, c.Status, c.Reason)
		}
		t.Errorf("no command was accepted")
	}
	res.outbox, res.board, res.gmCount = outbox(), b, gmCountMarker
	res.posts, res.pms = checkExactlyOnce(t, b, res.outbox)
	if o.gmCount > 0 && !gmCounted {
		t.Errorf("the game ended before the players' %d moves: the GM asked for no count", o.gmCount)
	}
	if o.restartAfter > 0 && !restarted {
		t.Errorf("the game ended before the players' %d moves: nothing was restarted", o.restartAfter)
	}
	if o.outsider {
		var msg *store.Message
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			msg, err = tx.MessageByForumID(gm.ID, forum.KindPM, fmt.Sprint(outsiderPM))
			return err
		})
		switch {
		case outsiderPM == 0:
			t.Errorf("the outsider's chat was never sent")
		case msg == nil:
			t.Errorf("the outsider's chat %d was not read", outsiderPM)
		case msg.Status != store.MessageIgnored || !strings.EqualFold(msg.AuthorName, b.Player("Mallory").Name):
			t.Errorf("the outsider's chat: from %s, %s; want from %s, ignored", msg.AuthorName, msg.Status, b.Player("Mallory").Name)
		}
		for _, c := range cmds {
			if strings.EqualFold(c.Player, b.Player("Mallory").Name) {
				t.Errorf("a command of the outsider's: %+v", c)
			}
		}
	}
	// The last bot post announces the result: it names every winner.
	posts := b.Query(t, `SELECT data->>'content' AS content FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'tid' = $1 AND data->>'uid' = $2 ORDER BY (data->>'pid')::int`,
		b.ThreadIDString(), b.Bot.IDString())
	if len(posts) == 0 {
		t.Fatal("no bot post in the topic")
	}
	last := posts[len(posts)-1]["content"].(string)
	for _, w := range final.Winners {
		if !strings.Contains(last, w) {
			t.Errorf("the bot's last post does not name the winner %s:\n%s", w, last)
		}
	}
	return res
}

// checkExactlyOnce checks every outbox item against the board's own
// database: sent; a post once in the topic; a PM once among the board's
// chat messages, from the bot, in the recipient's one-to-one room with
// it; and nothing marked on the board that the outbox does not hold.
func checkExactlyOnce(t *testing.T, b *realboardtest.NodeBBBoard, box []store.OutboxItem) (posts, pms int) {
	unescape := strings.NewReplacer(`\`, ``)
	type msg struct{ room, from string }
	inTopic := map[string]int{}
	for _, r := range b.Query(t, `SELECT data->>'content' AS content FROM legacy_hash WHERE _key LIKE 'post:%' AND data->>'tid' = $1`, b.ThreadIDString()) {
		for _, k := range forum.Markers(unescape.Replace(r["content"].(string))) {
			inTopic[k]++
		}
	}
	chats := map[string][]msg{}
	// The bot's rooms' messages: the server holds other tests' too.
	for _, r := range b.Query(t, `SELECT data->>'content' AS content, data->>'roomId' AS room, data->>'fromuid' AS fromuid FROM legacy_hash WHERE _key LIKE 'message:%' AND `+realboardtest.BotRooms, b.Bot.IDString()) {
		for _, k := range forum.Markers(unescape.Replace(r["content"].(string))) {
			chats[k] = append(chats[k], msg{fmt.Sprint(r["room"]), fmt.Sprint(r["fromuid"])})
		}
	}
	// A room's members, from the board's database: a PM goes to a room of
	// the bot and its recipient alone. (Not necessarily the one the
	// recipient's own lookup finds: a player opening a room at the moment
	// the bot opens one makes two, both theirs.)
	members := func(room string) string {
		var uids []string
		for _, r := range b.Query(t, `SELECT value FROM legacy_zset WHERE _key = $1 ORDER BY value`, "chat:room:"+room+":uids") {
			uids = append(uids, fmt.Sprint(r["value"]))
		}
		slices.Sort(uids)
		return strings.Join(uids, ",")
	}
	pair := func(x, y string) string {
		p := []string{x, y}
		slices.Sort(p)
		return strings.Join(p, ",")
	}
	want := map[string]bool{}
	for _, it := range box {
		key := strings.TrimPrefix(it.Marker, forum.MarkerPrefix)
		want[key] = true
		switch {
		case it.State == store.OutboxSplit:
			continue
		case it.State == store.OutboxLapsed:
			want[key] = false
			continue
		case it.State != store.OutboxSent:
			t.Errorf("outbox %s (%s to %q) is %s: %s", it.Marker, it.Kind, it.RecipientName, it.State, it.LastError)
			continue
		}
		switch it.Kind {
		case "post":
			posts++
			if inTopic[key] != 1 {
				t.Errorf("post %s is in the topic %d times, want once", key, inTopic[key])
			}
		case "pm":
			pms++
			ms := chats[key]
			if len(ms) != 1 {
				t.Errorf("PM %s is on the board %d times, want once", key, len(ms))
				continue
			}
			if m := members(ms[0].room); ms[0].from != b.Bot.IDString() || m != pair(b.Bot.IDString(), it.RecipientID) {
				t.Errorf("PM %s to %s (%s) is from user %s in room %s of users %s, want from the bot in a room of the bot and the recipient", key, it.RecipientName, it.RecipientID, ms[0].from, ms[0].room, m)
			}
		}
	}
	for k, n := range inTopic {
		if !want[k] {
			t.Errorf("the topic has %d posts marked %s that the outbox does not hold", n, k)
		}
	}
	for k, ms := range chats {
		if !want[k] {
			t.Errorf("the board has %d chat messages marked %s that the outbox does not hold", len(ms), k)
		}
	}
	return posts, pms
}

// players send simulated players' moves through their own sessions, each
// from a queue of their own (one player's wait holds up only that player):
// posts as Markdown, PMs as chats to the bot. They wait out the board's
// post and chat delays, as people do.
type players struct {
	t      testing.TB
	b      *realboardtest.NodeBBBoard
	mu     sync.Mutex
	queues map[string]chan move
	wg     sync.WaitGroup
	errs   []error
}

type move struct {
	text    string
	private bool
}

func newPlayers(t testing.TB, b *realboardtest.NodeBBBoard) *players {
	return &players{t: t, b: b, queues: map[string]chan move{}}
}

func (ps *players) Post(ctx context.Context, name, text string) error {
	return ps.enqueue(ctx, name, move{text: text})
}

func (ps *players) PM(ctx context.Context, name, text string) error {
	return ps.enqueue(ctx, name, move{text: text, private: true})
}

func (ps *players) enqueue(ctx context.Context, name string, mv move) error {
	var acct *realboardtest.Account
	for _, a := range ps.b.Players {
		if strings.EqualFold(a.Name, name) {
			acct = &a
		}
	}
	if acct == nil {
		return errors.New("no account for " + name)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	q, ok := ps.queues[acct.Name]
	if !ok {
		q = make(chan move, 64)
		ps.queues[acct.Name] = q
		ps.wg.Add(1)
		go func(a realboardtest.Account) {
			defer ps.wg.Done()
			for mv := range q {
				if err := ps.send(ctx, a, mv); err != nil && ctx.Err() == nil {
					ps.mu.Lock()
					ps.errs = append(ps.errs, fmt.Errorf("%s's %q: %w", a.Name, mv.text, err))
					ps.mu.Unlock()
				}
			}
		}(*acct)
	}
	select {
	case q <- mv:
		return nil
	default:
		return errors.New(name + " is too far behind")
	}
}

func (ps *players) send(ctx context.Context, a realboardtest.Account, mv move) error {
	text := nodebb.Markdown(mv.text)
	if !mv.private && len(text) < 12 {
		// NodeBB refuses a post under 8 characters ("**YES**"); a
		// person writes a word more.
		text += "\n\nMy move."
	}
	for attempt := 0; ; attempt++ {
		// (Logging in is tried again too: the board may be restarting.)
		u, err := ps.b.Session(ctx, a)
		switch {
		case err != nil:
		case mv.private:
			_, err = u.Chat(ctx, ps.b.Bot, text)
		default:
			_, err = u.Post(ctx, text)
		}
		var ae *realboardtest.APIError
		switch {
		case err == nil || attempt == 30:
			return err
		case errors.As(err, &ae) && forum.Mentions(ae.Message, []string{"once every", "too many messages", "please wait", "already posting"}) == "":
			return err // refused: a person reads why and moves on
		}
		// The board's delay, the player's previous post still under way
		// on a slow board ("You are already posting"), or the board away
		// (restarting): again in a second, as a person would. A post whose answer was lost may be
		// posted twice: a person's double post, read as such.
		time.Sleep(time.Second)
	}
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

// signUp fills a game by sign-ups in its topic, one post at a time, each
// read before the next (the order is the story): the first player posts
// /in twice, the host (the GM's account) is refused, one inside a quote
// does not count but his own does, the second leaves with /out and comes
// back once the others are in; the game starts with exactly the demo
// table's players, with the user ids the board gave them, read from their
// posts (the roles go out by chat to them).
func signUp(t *testing.T, b *realboardtest.NodeBBBoard, host string, row func() *store.Game, outbox func() []store.OutboxItem, db *store.DB, game int64) {
	ctx := context.Background()
	waitFor(t, "the call for players in the topic", time.Minute, func() bool {
		box := outbox()
		return len(box) > 0 && box[0].State == store.OutboxSent
	})
	commands := func() []store.CommandRow {
		var cs []store.CommandRow
		db.View(ctx, func(tx *store.Tx) error {
			var err error
			cs, err = tx.Commands(game, store.CommandFilter{})
			return err
		})
		return cs
	}
	seats := b.Players
	post := func(who realboardtest.Account, bbcode string) {
		t.Helper()
		n := len(commands())
		if _, err := user(t, b, who).Post(ctx, nodebb.Markdown(bbcode)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, who.Name+"'s "+bbcode+" read", time.Minute, func() bool { return len(commands()) > n })
	}
	var hostAcct realboardtest.Account
	for _, a := range b.Others {
		if a.Name == host {
			hostAcct = a
		}
	}
	// A post needs 8 characters on NodeBB: each says a word more.
	post(seats[0], "I'm in: [b]/in[/b]")
	post(hostAcct, "I'd play too: [b]/in[/b]")
	post(seats[0], "Just to be sure: [b]/in[/b]")
	post(seats[1], "Me too: [b]/in[/b]")
	post(seats[2], "[quote][b]/in[/b][/quote] me too, [b]/in[/b]")
	post(seats[1], "Sorry, busy: [b]/out[/b]")
	for _, p := range seats[3:] {
		post(p, "Count me in. [b]/IN![/b]")
	}
	post(seats[1], "Free after all: [b]/in[/b]")
	waitFor(t, "the game to start", 2*time.Minute, func() bool { return row().Status != moderator.Signups })
	if st := row().Status; st != moderator.Running {
		t.Fatalf("after the sign-ups: %s", st)
	}
	waitFor(t, "the opening post in the topic", time.Minute, func() bool {
		for _, it := range outbox() {
			if it.Kind == forum.KindPost && strings.Contains(it.Marker, "/setup/") {
				return it.State == store.OutboxSent
			}
		}
		return false
	})
	var players []store.Player
	db.View(ctx, func(tx *store.Tx) error { var err error; players, err = tx.Players(game); return err })
	if len(players) != len(seats) {
		t.Fatalf("players %+v, want %d", players, len(seats))
	}
	for _, p := range players {
		found := false
		for _, a := range seats {
			found = found || p.ForumName == a.Name && p.ForumUserID == a.IDString()
		}
		if !found {
			t.Errorf("player %+v: want one of the demo table's, with the board's user id", p)
		}
	}
	var comeback []string
	reasons := map[string]bool{}
	for _, c := range commands() {
		if c.Player == seats[1].Name && c.Status == store.CommandAccepted {
			comeback = append(comeback, c.Kind)
		}
		if c.Status == store.CommandRejected {
			reasons[c.Player+": "+c.Reason] = true
		}
	}
	if strings.Join(comeback, " ") != "in out in" {
		t.Errorf("%s's sign-up commands taken: %v, want in, out, in", seats[1].Name, comeback)
	}
	for _, want := range []string{host + ": the GM runs the game", seats[0].Name + ": already signed up"} {
		found := false
		for r := range reasons {
			found = found || strings.HasPrefix(r, want)
		}
		if !found {
			t.Errorf("no rejection %q among %v", want, reasons)
		}
	}
}

// waitFor polls cond until it holds or the time is up.
func waitFor(t testing.TB, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("gave up after %v waiting for %s", limit, what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
