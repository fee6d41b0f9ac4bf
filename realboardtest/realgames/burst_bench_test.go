package realgames

// What a player waits for while one bot account has much to say, on real
// phpBB (issue 39; forumconn's BenchmarkBurst measures the same on
// forumsim at 200 and 1,000 games):
//
//	FORUMGM_ENGINES=… go test -run '^$' -bench RealBurst -benchtime 1x ./realboardtest/realgames
//
// 20 two-player Nations games on one bot account (flood-exempt, as a GM's
// bot is) under `forumgm run`'s loop with the profile's defaults (form
// handling) and polls of 10 s, at the default pace of 1 request a second
// and at 4. Game 0 runs first; the other 19 are
// created at once while it runs, and once their opening posts have begun
// to go out, game 0's player sends an order. Then every game's first
// player sends an order (20 receipts to send). The players' orders are
// PMs made through phpBB's own PM code; the bot is the board's only HTTP
// client, so the PHP server's request log counts its requests.
//
// Reported: opened-s (every opening post up); answer-while-opening-vs-target
// (game 0's receipt, against two polls); burst-answer-p50-s, -p95-s, -max-s
// (each order to its receipt, by the board's own times, to the second);
// requests-per-send (the bot's form pages and submissions per post or PM
// that landed; the target is 2); core (the bot process's CPU over the
// burst, in cores) and rss-mib.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/store"
)

const realBurstPoll = 10 * time.Second

func BenchmarkRealBurst(b *testing.B) {
	// The profile's default pace, and a GM's raised one.
	for _, rps := range []float64{1, 4} {
		b.Run(fmt.Sprintf("games=20/rps=%g", rps), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				realBurst(b, 20, rps)
			}
		})
	}
}

func realBurst(b *testing.B, games int, rps float64) {
	var anns, bens, names []string
	for i := 0; i < games; i++ {
		anns, bens = append(anns, fmt.Sprintf("Ann%02d", i)), append(bens, fmt.Sprintf("Ben%02d", i))
	}
	names = append(append(names, anns...), bens...)
	bd := realboardtest.Start(b, realboardtest.PhpBB, realboardtest.Options{Players: names, Subject: "Nations 0", Opening: "Sign-ups are closed."})
	bd.ExemptBot(b)
	fl := newFleet(b, bd, games, "Nations")
	threads, pwFile, m := fl.threads, fl.pwFile, fl.m
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	// FORUMGM_BURST_LOG=DIR keeps the bot's log (debug) and the board's
	// request log there, to see where a wait went.
	if d := os.Getenv("FORUMGM_BURST_LOG"); d != "" {
		f, err := os.Create(filepath.Join(d, "bot.log"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		m.Log = slog.New(slog.NewTextHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug}))
		defer func() { os.WriteFile(filepath.Join(d, "board.log"), []byte(bd.ServerLog()), 0o644) }()
	}
	zero := 0.0
	create := func(i int) {
		fc := gameconfig.ForumConfig{URL: bd.URL, Engine: bd.Engine, Thread: strconv.Itoa(threads[i]), Bot: bd.Bot.Name,
			PasswordFile: pwFile, PollSeconds: realBurstPoll.Seconds(), FloodSeconds: &zero, RequestsPerSecond: rps}
		a, n := bd.Player(anns[i]), bd.Player(bens[i])
		gc := gameconfig.GameConfig{Players: []string{a.Name, n.Name}, Options: map[string]any{"rounds": 1, "round_minutes": 100000, "break_minutes": 5},
			Seed: int64(i + 1), Start: time.Now().UTC()}
		if _, err := m.Create(ctx, fmt.Sprintf("n%02d", i), "nations", gc, fc, []store.Player{
			{Slot: a.Name, ForumName: a.Name, ForumUserID: a.IDString()}, {Slot: n.Name, ForumName: n.Name, ForumUserID: n.IDString()}}); err != nil {
			b.Fatal(err)
		}
	}
	q := boardQueries[realboardtest.PhpBB]
	opened := func() int {
		n := 0
		for _, r := range threadsRows(b, bd, threads) {
			if r.Author == bd.Bot.ID && len(markersIn([]boardRow{r})) > 0 {
				n++
			}
		}
		return n
	}
	// receipts are when the bot's PMs to the player landed, by the
	// board's clock (to the second), oldest first.
	receipts := func(player string) []time.Time {
		var out []time.Time
		for _, r := range bd.Query(b, fmt.Sprintf("SELECT p.message_time AS at FROM {prefix}privmsgs p JOIN {prefix}privmsgs_to t ON t.msg_id = p.msg_id WHERE t.user_id = %d AND p.author_id = %d ORDER BY p.message_time",
			bd.Player(player).ID, bd.Bot.ID)) {
			at, _ := boardUnix(r["at"])
			out = append(out, at)
		}
		return out
	}
	wait := func(what string, ok func() bool) {
		for !ok() {
			if ctx.Err() != nil {
				b.Fatalf("%s: not in 15 minutes", what)
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	create(0)
	done := make(chan error, 1)
	go func() { done <- m.Run(ctx) }()
	defer func() { cancel(); <-done }()
	wait("game 0 open", func() bool { return opened() >= 1 })
	start := time.Now()
	for i := 1; i < games; i++ {
		create(i)
	}
	wait("another game's opening post", func() bool { return opened() >= 2 })
	// From when the order is on the board, by the board's clock (to the
	// second): making it (a PHP process booting phpBB) takes seconds of
	// its own on a loaded machine, which no bot could answer within.
	sentAt := func(pm int) time.Time {
		rows := bd.Query(b, fmt.Sprintf("SELECT message_time AS at FROM {prefix}privmsgs WHERE msg_id = %d", pm))
		if len(rows) != 1 {
			b.Fatalf("PM %d not on the board", pm)
		}
		at, _ := boardUnix(rows[0]["at"])
		return at
	}
	asked0 := sentAt(bd.PM(b, bd.Player(anns[0]), bd.Bot, "orders", "PROSPER"))
	var got0 time.Time
	wait("game 0's answer", func() bool {
		r := receipts(anns[0])
		if len(r) > 0 {
			got0 = r[0]
		}
		return len(r) > 0
	})
	wait("every game open", func() bool { return opened() >= games })
	openedIn := time.Since(start)
	time.Sleep(realBurstPoll) // a quiet cycle
	cpu0, t0 := benchratio.ProcessCPU(), time.Now()
	asked := make([]time.Time, games)
	before := make([]int, games) // receipts each player had (game 0's first)
	for i := range games {
		before[i] = len(receipts(anns[i]))
		asked[i] = sentAt(bd.PM(b, bd.Player(anns[i]), bd.Bot, "orders", "PROSPER"))
	}
	waits := make([]time.Duration, games)
	for i := range games {
		wait("every receipt", func() bool {
			r := receipts(anns[i])
			if len(r) <= before[i] {
				return false
			}
			waits[i] = r[before[i]].Sub(asked[i])
			return true
		})
	}
	burst := time.Since(t0)
	cpu := benchratio.ProcessCPU() - cpu0
	slices.Sort(waits)

	// The bot's requests for forms and submissions, per message landed.
	sends := 0
	for _, line := range strings.Split(bd.ServerLog(), "\n") {
		if strings.Contains(line, "/posting.php") || strings.Contains(line, "mode=compose") {
			sends++
		}
	}
	landed := opened() + len(queryRows(b, bd, fmt.Sprintf(q.sentPMs, bd.Bot.ID)))

	b.Logf("game 0's order on the board at %s, its answer at %s", asked0.Format(time.TimeOnly), got0.Format(time.TimeOnly))
	b.ReportMetric(openedIn.Seconds(), "opened-s")
	b.ReportMetric(got0.Sub(asked0).Seconds()/(2*realBurstPoll.Seconds()), "answer-while-opening-vs-target")
	b.ReportMetric(waits[games/2].Seconds(), "burst-answer-p50-s")
	b.ReportMetric(waits[min(games-1, games*95/100)].Seconds(), "burst-answer-p95-s")
	b.ReportMetric(waits[games-1].Seconds(), "burst-answer-max-s")
	b.ReportMetric(float64(sends)/float64(landed), "requests-per-send")
	b.ReportMetric(float64(cpu)/float64(burst), "core")
	b.ReportMetric(benchratio.RSSMiB("VmHWM"), "rss-mib")
}
