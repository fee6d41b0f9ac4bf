// Benchmarks, reported as ratios or counts (the machines are noisy,
// absolute times are not comparable between runs):
//
//	go test -run '^$' -bench PollUnchanged ./scraper
//
// BenchmarkPollUnchanged/pages=10, /pages=100, /pages=1000 poll a thread
// of that many pages (10 posts each) on a local forumsim board, unchanged
// since the last read: "requests/op" is what one poll costs. It must be the
// same at every length (a poll reads from the last known page, not page 1),
// and is 1; the benchmark fails otherwise. "poll/page" is the time of a
// poll over that of fetching and parsing one thread page, timed alternately
// in the same run (about 1 at every length).
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
	for _, pages := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("pages=%d", pages), func(b *testing.B) { benchPoll(b, pages) })
	}
}

func benchPoll(b *testing.B, pages int) {
	const perPage = 10
	posts := pages * perPage
	clk := clock.NewFake(time.Date(2026, 3, 2, 18, 0, 0, 0, time.UTC))
	sim := forumsim.New(forumsim.Options{Clock: clk, PostsPerPage: perPage})
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
		clk.Advance(time.Second)
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
	// The last read of a backfill ends on the last page: its cursor is what
	// polls start from. (Reading the first pages is the backfill benchmark's
	// business, not this one's.)
	last := read(scraper.Cursor{Page: pages})
	if !last.ToEnd || last.Pages != pages || last.Seen != perPage {
		b.Fatalf("last page: %+v, want page %d of %d with %d posts", last, pages, pages, perPage)
	}
	pageURL := s.Profile.ThreadPageURL(topicID, pages)
	polls, pollRequests := 0, 0
	ratio := benchratio.Alternate(b, func() {
		pg, err := s.Fetch(ctx, pageURL)
		if err != nil {
			b.Fatal(err)
		}
		s.Parser.ThreadAt(pg.Doc, pg.Fetch())
	}, func() {
		n := sim.Requests()
		if res := read(last.Cursor); res.Seen != perPage || !res.ToEnd {
			b.Fatalf("poll: %+v", res)
		}
		pollRequests += sim.Requests() - n
		polls++
	})
	b.StopTimer()
	perPoll := float64(pollRequests) / float64(polls)
	if perPoll != 1 {
		b.Fatalf("an unchanged poll of %d pages cost %.2f requests, want 1", pages, perPoll)
	}
	b.ReportMetric(perPoll, "requests/op")
	b.ReportMetric(ratio, "poll/page")
}
