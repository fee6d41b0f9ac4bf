// Benchmarks, reported as ratios to a baseline timed in the same run (the
// machines are noisy, absolute times are not comparable):
//
//	go test -run '^$' -bench . ./scraper
//
// BenchmarkPollUnchanged reads a 200-post thread (20 pages) on a local
// forumsim board: "requests/poll" is what polling it unchanged from the
// last cursor costs (it must be 1; the benchmark fails otherwise) and
// "poll/backfill" is the time of such a poll over a full read from the
// start.
package scraper_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/internal/benchratio"
	"github.com/forumgm/forumgm/scraper"
)

func BenchmarkPollUnchanged(b *testing.B) {
	const posts = 200
	clk := clock.NewFake(time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC))
	sim := forumsim.New(forumsim.Options{Clock: clk})
	must := func(id int, err error) int {
		b.Helper()
		if err != nil {
			b.Fatal(err)
		}
		return id
	}
	bot := must(sim.AddUser("GMBot", "gm-pass", false))
	alice := must(sim.AddUser("Alice", "a", false))
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Game 1", "Welcome. Vote with [b]VOTE: name[/b].")
	if err != nil {
		b.Fatal(err)
	}
	for i := 1; i < posts; i++ {
		clk.Advance(time.Minute)
		must(sim.Post(topic, alice, fmt.Sprintf("post %d [quote=GMBot]Welcome[/quote] [b]VOTE: Bob[/b] and some chatter", i)))
	}
	srv := httptest.NewServer(sim)
	b.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: clk})
	if err != nil {
		b.Fatal(err)
	}
	sc := scraper.New(s)
	ctx := context.Background()
	topicID := fmt.Sprint(topic)
	read := func(cur scraper.Cursor) scraper.Result {
		res, err := sc.ReadThread(ctx, topicID, cur, func(forum.Post) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		return res
	}
	// A first full read logs in and gives the cursor polls start from.
	full := read(scraper.Cursor{})
	if full.Seen != posts || !full.ToEnd {
		b.Fatalf("backfill saw %d posts: %+v", full.Seen, full)
	}
	polls, pollRequests := 0, 0
	ratio := benchratio.Alternate(b, func() {
		if res := read(scraper.Cursor{}); res.Seen != posts {
			b.Fatalf("backfill saw %d posts", res.Seen)
		}
	}, func() {
		n := sim.Requests()
		read(full.Cursor)
		pollRequests += sim.Requests() - n
		polls++
	})
	b.StopTimer()
	perPoll := float64(pollRequests) / float64(polls)
	if perPoll != 1 {
		b.Fatalf("an unchanged poll cost %.2f requests, want 1", perPoll)
	}
	b.ReportMetric(perPoll, "requests/poll")
	b.ReportMetric(ratio, "poll/backfill")
}
