package forumconn_test

// What a player waits for while one bot account has much to say:
//
//	go test -run '^$' -bench Burst -benchtime 1x ./forumconn
//
// N Nations games on one board (forumsim, in this process) and one bot
// account run under `forumgm run`'s loop (Moderator.Run, the real clock,
// poll_seconds 10, requests_per_second 200, 8 workers). Once every game
// is open, every game's first player sends an order by PM at once: N
// receipts to send. A second later one game's other player sends an order
// too. Reported, each as a ratio to the target (below 1 meets it):
// opened-vs-target (all opening posts up, against N/100 s + 10 s; at the
// posting lock N s + 10 s), answer-vs-target (that player's receipt,
// against 2 polls + N/200 s; at the lock 2 polls + N s: its game's second
// receipt, fairly after each other game's one, at one send a second),
// period-vs-target (the longest gap between two reads of any game's thread
// during and after the burst, against 1.5 polls), core-vs-target (the
// bot's CPU over the burst, against half a core; the in-process board's
// goroutines are told apart by a CPU profile, cpusplit_test.go, and their
// share is board-cores) and rss-vs-target (against 300 MiB); and
// answer-vs-10: the answer's wait over a 10-game fleet's, measured in the
// same run. The games have the change signal, as a game does by default
// (the thread's page names the forum holding it): an unchanged thread's
// poll is its row in the topic list, which leaves the board's rate to the
// sends; games=1000/no-signal is the 1,000 games with forum: off, every
// poll a read of the thread. The posting-lock variants keep phpBB's lock
// (one post per form-second for the account): there the board's limit of
// one send a second sets the pace.
//
// Also reported: answer-while-opening-vs-target, game 0's answer to an
// order sent while the other N-1 games' opening posts queue (game 0 runs
// first; the others are created at once while it runs), against two polls;
// burst-answer-p50-s, -p95-s and -max-s, from each of the N orders of the
// burst to its receipt on the board (the board's own time of it), and
// burst-p50-vs-10, the median over the 10-game fleet's; answer-queued-s,
// from the last player's order to its receipt in the outbox (the read's
// share of the answer; the rest is its turn among the account's sends). FORUMGM_BURST_PROFILE=FILE keeps the CPU
// profile of the burst (cpusplit_test.go).

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/store"
)

const burstPoll = 10 * time.Second

// benchLimit bounds one burst: 1,000 games at a posting lock take about
// 1,000 s to open and as long to answer a thousand orders.
const benchLimit = 50 * time.Minute

// burstResult is one burst's measures.
type burstResult struct {
	opened, answer, period time.Duration
	answerQueued           time.Duration // from the order to its receipt in the outbox
	cpu                    time.Duration // the bot's, over the burst
	boardCPU               time.Duration // the in-process board's (cpusplit_test.go)
	burst                  time.Duration // its length: every receipt sent
	rss                    float64
	// The bot's requests for forms and submissions per message landed:
	// the opening posts, then the receipts.
	openPerSend, burstPerSend float64
	// From each order of the burst to its receipt landing on the board:
	// the median, the 95th percentile and the longest.
	p50, p95, max time.Duration
	// whileOpening is a running game's answer to an order sent while every
	// other game's opening post was still queued.
	whileOpening time.Duration
}

// topicLink finds the topics a topic-list page shows.
var topicLink = regexp.MustCompile(`viewtopic\.php\?[^"]*\bt=(\d+)`)

// capture keeps a copy of what a handler writes.
type capture struct {
	http.ResponseWriter
	body bytes.Buffer
}

func (c *capture) Write(p []byte) (int, error) { c.body.Write(p); return c.ResponseWriter.Write(p) }

// runBurstLock runs one burst of n games; with signal a poll of an unchanged
// thread reads only the topic list (the change signal, docs/polling.md;
// the forum holding the threads is learned from their pages), else every
// poll reads the thread (forum: off). A game counts as read when its
// thread is or a list page showing it is.
// On a board with phpBB's tokens (lock false: forms of one kind made in
// one second go together) or with a posting lock (a form's token is
// taken once).
func runBurstLock(b *testing.B, n int, signal, lock bool) burstResult {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), benchLimit)
	defer cancel()
	// phpBB 3.3.10's tokens (TokensAgain): forms of one kind made in one
	// second go together, as on the real board.
	sim := forumsim.New(forumsim.Options{FloodInterval: -1, NoPostReview: true, PostsPerPage: 25, TokensAgain: !lock})
	bot, _ := sim.AddUser("GM Bot", "s3cret", true)
	fo := sim.AddForum("Games", "")
	var mu sync.Mutex
	last := map[string]time.Time{} // by topic: its last read
	gap := time.Duration(0)
	watch := false
	var sends atomic.Int64 // the bot's form pages and submissions
	srv := serveBoard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if q := r.URL.Query(); strings.HasPrefix(r.UserAgent(), "forumgm/") && (q.Get("mode") == "reply" || q.Get("mode") == "compose") {
			sends.Add(1)
			if os.Getenv("BURST_DEBUG") != "" {
				fmt.Fprintf(os.Stderr, "%s %s %s\n", time.Now().Format("05.000"), r.Method, r.URL.RequestURI())
			}
		}
		seen := func(t string, now time.Time) {
			mu.Lock()
			if l, ok := last[t]; ok && watch {
				gap = max(gap, now.Sub(l))
			}
			last[t] = now
			mu.Unlock()
		}
		switch {
		case r.Method == http.MethodGet && r.URL.Query().Get("t") != "":
			seen(r.URL.Query().Get("t"), time.Now())
		case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "viewforum.php"):
			c := &capture{ResponseWriter: w}
			sim.ServeHTTP(c, r)
			now := time.Now()
			for _, m := range topicLink.FindAllStringSubmatch(c.body.String(), -1) {
				seen(m[1], now)
			}
			return
		}
		sim.ServeHTTP(w, r)
	}))
	defer srv.Close()
	os.Setenv("FORUMGM_BURST_PW", "s3cret")
	db, err := store.Open(ctx, "sqlite:"+b.TempDir()+"/burst.db")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "bench"}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Pool: &moderator.Pool{Workers: 8, Stagger: 10 * time.Millisecond},
		Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) { return ss.Connect(site) }}
	if os.Getenv("BURST_DEBUG") != "" {
		m.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	zero := 0.0
	anns, bens := make([]int, n), make([]int, n)
	create := func(i int) {
		anns[i], _ = sim.AddUser(fmt.Sprintf("Ann %d", i), "a", false)
		bens[i], _ = sim.AddUser(fmt.Sprintf("Ben %d", i), "b", false)
		topic, _, err := sim.AddTopic(fo, bot, fmt.Sprintf("Nations %d", i), "Sign-ups closed.")
		if err != nil {
			b.Fatal(err)
		}
		fc := gameconfig.ForumConfig{URL: srv.URL + "/", Engine: "phpbb", Thread: strconv.Itoa(topic), Bot: "GM Bot",
			PasswordEnv: "FORUMGM_BURST_PW", FloodSeconds: &zero, RequestsPerSecond: 200, PollSeconds: burstPoll.Seconds()}
		if !signal {
			fc.Forum = "off"
		}
		an, bn := fmt.Sprintf("Ann %d", i), fmt.Sprintf("Ben %d", i)
		gc := gameconfig.GameConfig{Players: []string{an, bn}, Options: map[string]any{"rounds": 1, "round_minutes": 100000, "break_minutes": 5},
			Seed: int64(i + 1), Start: time.Now()}
		if _, err := m.Create(ctx, fmt.Sprintf("n%d", i), "nations", gc, fc, []store.Player{
			{Slot: an, ForumName: an, ForumUserID: strconv.Itoa(anns[i])}, {Slot: bn, ForumName: bn, ForumUserID: strconv.Itoa(bens[i])}}); err != nil {
			b.Fatal(err)
		}
	}
	// Game 0 runs first; the other n-1 open at once while it runs.
	create(0)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() {
		cancel()
		<-done
	}()
	wait := func(what string, ok func() bool) {
		for !ok() {
			if ctx.Err() != nil {
				b.Fatalf("%s: not in %v", what, benchLimit)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	wait("game 0 open", func() bool { return botPosts(sim) >= 1 })
	start := time.Now()
	for i := 1; i < n; i++ {
		create(i)
	}
	// Once the others' opening posts have begun to queue up, game 0's
	// player sends an order: its receipt is a player's answer, which goes
	// before the queued openings (issue 39: within two polls).
	var r burstResult
	wait("another game's opening post", func() bool { return botPosts(sim) >= min(2, n) })
	asked0 := time.Now()
	if _, err := sim.SendPM(anns[0], []int{bot}, "orders", "PROSPER"); err != nil {
		b.Fatal(err)
	}
	wait("game 0's answer", func() bool { return len(sim.Inbox(anns[0])) >= 1 })
	r.whileOpening = receiptAfter(sim, bot, anns[0], asked0).Sub(asked0)
	wait("every game open", func() bool { return botPosts(sim) >= n })
	r.opened = time.Since(start)
	r.openPerSend = float64(sends.Load()) / float64(botPosts(sim))
	sent0 := sends.Load()
	time.Sleep(burstPoll) // a quiet cycle
	cpu0 := benchratio.ProcessCPU()
	split := startCPUSplit()
	mu.Lock()
	watch = true
	mu.Unlock()
	t0 := time.Now()
	asked := make([]time.Time, n)
	for i := 0; i < n; i++ {
		asked[i] = time.Now()
		if _, err := sim.SendPM(anns[i], []int{bot}, "orders", "PROSPER"); err != nil {
			b.Fatal(err)
		}
	}
	time.Sleep(time.Second)
	k := n / 2
	askedK := time.Now()
	if _, err := sim.SendPM(bens[k], []int{bot}, "orders", "PROSPER"); err != nil {
		b.Fatal(err)
	}
	wait("the answer", func() bool { return len(sim.Inbox(bens[k])) >= 1 })
	r.answer = time.Since(askedK)
	// When the answer was queued: the read's share of its wait (the rest
	// is its turn among the account's sends).
	if err := db.View(ctx, func(tx *store.Tx) error {
		g, err := tx.Game(fmt.Sprintf("n%d", k))
		if err != nil {
			return err
		}
		items, err := tx.Outbox(g.ID)
		for _, it := range items {
			if it.RecipientName == fmt.Sprintf("Ben %d", k) && it.CreatedAt.After(askedK.Add(-time.Second)) {
				r.answerQueued = it.CreatedAt.Sub(askedK)
			}
		}
		return err
	}); err != nil {
		b.Fatal(err)
	}
	wait("every receipt", func() bool { return len(sim.Sent(bot)) >= n+2 }) // and game 0's first
	r.burst = time.Since(t0)
	waits := make([]time.Duration, n)
	for i := range waits {
		waits[i] = receiptAfter(sim, bot, anns[i], asked[i]).Sub(asked[i])
	}
	slices.Sort(waits)
	r.p50, r.p95, r.max = waits[n/2], waits[min(n-1, n*95/100)], waits[n-1]
	r.burstPerSend = float64(sends.Load()-sent0) / float64(len(sim.Sent(bot)))
	time.Sleep(burstPoll * 2) // and after it
	r.cpu = benchratio.ProcessCPU() - cpu0
	if share, ok := split.boardShare(); ok {
		r.boardCPU = time.Duration(float64(r.cpu) * share)
		r.cpu -= r.boardCPU
	}
	mu.Lock()
	r.period = gap
	// A thread not read since the burst began counts its whole wait.
	for _, l := range last {
		r.period = max(r.period, time.Since(l))
	}
	mu.Unlock()
	r.rss = benchratio.RSSMiB("VmRSS")
	return r
}

// receiptAfter is when the first PM from the bot to a member landed after
// at (the board's own time of it).
func receiptAfter(sim *forumsim.Server, bot, to int, at time.Time) time.Time {
	var first time.Time
	for _, pm := range sim.Sent(bot) {
		if slices.Contains(pm.To, to) && !pm.Time.Before(at) && (first.IsZero() || pm.Time.Before(first)) {
			first = pm.Time
		}
	}
	return first
}

// botPosts counts the bot's opening posts: every post after each topic's
// first (nobody else posts).
func botPosts(sim *forumsim.Server) int {
	n := 0
	for _, t := range sim.Topics(0) {
		n += len(sim.Posts(t.ID)) - 1
	}
	return n
}

func BenchmarkBurst(b *testing.B) {
	var base, base50 time.Duration
	for _, c := range []struct {
		n            int
		signal, lock bool
	}{{10, true, false}, {200, true, false}, {200, true, true}, {1000, true, false}, {1000, false, false}, {1000, true, true}} {
		name := fmt.Sprintf("games=%d", c.n)
		if !c.signal {
			name += "/no-signal"
		}
		if c.lock {
			name += "/posting-lock"
		}
		n := c.n
		b.Run(name, func(b *testing.B) {
			var r burstResult
			for i := 0; i < b.N; i++ {
				r = runBurstLock(b, n, c.signal, c.lock)
			}
			if n == 10 {
				base = r.answer
			}
			secs := func(d time.Duration) float64 { return d.Seconds() }
			// The board's pace: 200 requests a second, or at the posting
			// lock one send a second for the account, where the player's
			// receipt fairly follows each other game's one.
			openTarget, answerTarget := float64(n)/100+10, 2*burstPoll.Seconds()+float64(n)/200
			if c.lock {
				openTarget, answerTarget = float64(n)+10, 2*burstPoll.Seconds()+float64(n)
			}
			b.ReportMetric(secs(r.opened)/openTarget, "opened-vs-target")
			b.ReportMetric(secs(r.answer)/answerTarget, "answer-vs-target")
			b.ReportMetric(secs(r.period)/(1.5*burstPoll.Seconds()), "period-vs-target")
			span := r.burst + 2*burstPoll
			b.ReportMetric(float64(r.cpu)/float64(span)/0.5, "core-vs-target")
			b.ReportMetric(float64(r.boardCPU)/float64(span), "board-cores")
			b.ReportMetric(r.rss/300, "rss-vs-target")
			if base > 0 {
				b.ReportMetric(float64(r.answer)/float64(base), "answer-vs-10")
			}
			b.ReportMetric(secs(r.answer), "answer-s")
			b.ReportMetric(secs(r.answerQueued), "answer-queued-s")
			b.ReportMetric(r.openPerSend/2, "open-requests-per-send-vs-target")
			b.ReportMetric(r.burstPerSend/2, "answer-requests-per-send-vs-target")
			b.ReportMetric(secs(r.burst), "burst-s")
			b.ReportMetric(secs(r.p50), "burst-answer-p50-s")
			b.ReportMetric(secs(r.p95), "burst-answer-p95-s")
			b.ReportMetric(secs(r.max), "burst-answer-max-s")
			if n == 10 {
				base50 = r.p50
			}
			if base50 > 0 {
				b.ReportMetric(float64(r.p50)/float64(base50), "burst-p50-vs-10")
			}
			b.ReportMetric(secs(r.whileOpening)/(2*burstPoll.Seconds()), "answer-while-opening-vs-target")
		})
	}
}
