package forumconn_test

// How the cost of a poll grows with the games a process runs, all on one
// board and bot account:
//
//	go test -run '^$' -bench ManyGames -benchtime 5x ./forumconn
//
// Each iteration is one poll cycle of a fleet (every game ticks once, via
// the moderator's Pool, on the session they share), alternated with one of
// a 10-game fleet: x-per-game-vs-10 is the CPU per game per cycle over the
// 10-game fleet's, measured in the same run. It also reports what the
// issue's target is stated in: the share of a core 1,000 games polled every
// 10 s would take (core-share-at-10s), the Go heap and the process's RSS
// after the fleet was set up and polled and its peak since the process
// began, start-up included (MiB), and the requests per game
// per cycle. The board (forumsim) runs in the same process, so CPU and
// memory include serving it: an upper bound on forumgm's own.

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"sync"
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

// fleet is n games on one board and bot account, driven by one moderator.
type fleet struct {
	m      *moderator.Moderator
	clk    *clock.Fake
	ss     *forumconn.Sessions
	sim    *forumsim.Server
	url    string
	games  []int64
	topics []int // each game's thread
	anns   []int // each game's first player
	pool   *moderator.Pool
}

func newFleet(tb testing.TB, n int, rps float64) *fleet { return newFleetIn(tb, n, rps, false) }

// newFleetIn is newFleet whose games name the forum holding their
// threads when signal is set: the topic list is then their change signal;
// else they have none (forum: off).
func newFleetIn(tb testing.TB, n int, rps float64, signal bool) *fleet {
	tb.Helper()
	ctx := context.Background()
	t0 := time.Date(2026, 11, 30, 18, 0, 0, 0, time.UTC)
	clk := clock.NewFake(t0)
	sim := forumsim.New(forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true, PostsPerPage: 25})
	bot, _ := sim.AddUser("GM Bot", "s3cret", true)
	fo := sim.AddForum("Games", "")
	srv := httptest.NewServer(sim)
	tb.Cleanup(srv.Close)
	os.Setenv("FORUMGM_FLEET_PW", "s3cret")
	dir := tb.TempDir()
	db, err := store.Open(ctx, "sqlite:"+dir+"/fleet.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ss := &forumconn.Sessions{Clock: clk, Version: "bench"}
	f := &fleet{clk: clk, ss: ss, sim: sim, url: srv.URL + "/", pool: &moderator.Pool{Workers: 8}}
	f.m = &moderator.Moderator{DB: db, Clock: clk, Pool: f.pool, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return ss.Connect(site)
	}}
	zero := 0.0
	for i := 0; i < n; i++ {
		a, _ := sim.AddUser(fmt.Sprintf("Ann %d", i), "a", false)
		b, _ := sim.AddUser(fmt.Sprintf("Ben %d", i), "b", false)
		topic, _, err := sim.AddTopic(fo, bot, fmt.Sprintf("Nations %d", i), "Sign-ups closed.")
		if err != nil {
			tb.Fatal(err)
		}
		fc := gameconfig.ForumConfig{URL: f.url, Engine: "phpbb", Thread: strconv.Itoa(topic), Bot: "GM Bot",
			PasswordEnv: "FORUMGM_FLEET_PW", FloodSeconds: &zero, RequestsPerSecond: rps, PollSeconds: 10}
		if signal {
			fc.Forum = strconv.Itoa(fo)
		} else {
			fc.Forum = "off" // not learned from the thread's page either
		}
		f.topics, f.anns = append(f.topics, topic), append(f.anns, a)
		an, bn := fmt.Sprintf("Ann %d", i), fmt.Sprintf("Ben %d", i)
		gc := gameconfig.GameConfig{Players: []string{an, bn}, Options: map[string]any{"rounds": 1, "round_minutes": 100000, "break_minutes": 5}, Seed: int64(i + 1), Start: t0}
		g, err := f.m.Create(ctx, fmt.Sprintf("n%d", i), "nations", gc, fc, []store.Player{
			{Slot: an, ForumName: an, ForumUserID: strconv.Itoa(a)}, {Slot: bn, ForumName: bn, ForumUserID: strconv.Itoa(b)}})
		if err != nil {
			tb.Fatal(err)
		}
		f.games = append(f.games, g.ID)
	}
	// The opening posts and first reads (the backfill), then a settled
	// cycle: what is measured is the steady poll.
	for i := 0; i < 3; i++ {
		if err := f.cycle(ctx); err != nil {
			tb.Fatal(err)
		}
	}
	return f
}

// cycle is one poll of every game, through the pool, 10 s after the last.
func (f *fleet) cycle(ctx context.Context) error {
	f.clk.Advance(10 * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, id := range f.games {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := f.m.Pool.Do(ctx, func() error { return f.m.Tick(ctx, id) })
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

var (
	fleetsMu sync.Mutex
	fleets   = map[string]*fleet{}
)

func getFleet(b *testing.B, role string, n int) *fleet {
	fleetsMu.Lock()
	defer fleetsMu.Unlock()
	key := fmt.Sprint(role, n)
	if f := fleets[key]; f != nil {
		return f
	}
	// 200 requests a second: 1,000 games need at least 1,000 thread reads
	// in each 10 s cycle.
	f := newFleet(b, n, 200)
	fleets[key] = f
	return f
}

func BenchmarkManyGames(b *testing.B) {
	ctx := context.Background()
	for _, n := range []int{10, 1000} {
		parent := b
		b.Run(fmt.Sprintf("games=%d", n), func(b *testing.B) {
			// The fleets live as long as the whole benchmark (a
			// sub-benchmark runs more than once); the baseline is a fleet
			// of its own.
			base, work := getFleet(parent, "base", 10), getFleet(parent, "work", n)
			pc := work.ss.Pacer(work.url)
			var cpuBase, cpuWork time.Duration
			reqs := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j, f := range []*fleet{base, work} {
					if i%2 == 1 {
						f = []*fleet{work, base}[j]
					}
					before, r := benchratio.ProcessCPU(), pc.Requests()
					if err := f.cycle(ctx); err != nil {
						b.Fatal(err)
					}
					d := benchratio.ProcessCPU() - before
					if f == work {
						cpuWork += d
						reqs += pc.Requests() - r
					} else {
						cpuBase += d
					}
				}
			}
			b.StopTimer()
			perWork := float64(cpuWork) / float64(b.N*n)
			perBase := float64(cpuBase) / float64(b.N*10)
			b.ReportMetric(perWork/perBase, "x-per-game-vs-10")
			b.ReportMetric(perWork*1000/float64(10*time.Second), "core-share-at-10s")
			b.ReportMetric(float64(reqs)/float64(b.N*n), "req/game-cycle")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
			b.ReportMetric(benchratio.RSSMiB("VmRSS"), "rss-MiB")
			b.ReportMetric(benchratio.RSSMiB("VmHWM"), "peak-rss-MiB")
		})
	}
}
