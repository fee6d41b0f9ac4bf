package poster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// sentPoster is a poster of b's bot whose profile edit changes (the sent
// folder's keys).
func sentPoster(t *testing.T, b *board, edit func(p *forum.Profile)) *poster.Poster {
	t.Helper()
	prof, _ := forum.Builtin("phpbb")
	edit(&prof)
	s, err := scraper.NewSession(b.baseURL, prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"}, scraper.Options{Clock: b.clk})
	if err != nil {
		t.Fatal(err)
	}
	return poster.New(s)
}

// A sent folder of any length (issue 44, point 4). On a board that lists
// it whole on one page, newest first, the profile's urls.sent_one_page
// makes that page proof: a key it lacks was not sent, one at its very end
// is found; without the key the page proves nothing (the check says which
// keys to set). On a board that pages it, urls.sent_newest_first reads
// back to when the message was queued, however many pages that is, and
// no further.
func TestSentFolderOfAnyLength(t *testing.T) {
	b := newBoard(t)
	ctx := context.Background()
	first := b.clk.Now()
	for i := 0; i < 60; i++ {
		b.clk.Advance(time.Minute)
		if _, err := b.sim.SendPM(b.bot, []int{b.bob}, fmt.Sprintf("[g%d] Receipt #g%d/day-1/1#", i, i), "ok"); err != nil {
			t.Fatal(err)
		}
	}
	recent := b.clk.Now().Add(-10 * time.Minute)

	// One page, never split (forumsim lists the folder whole).
	whole := func(p *forum.Profile) {
		p.URLs.SentPage, p.URLs.Outbox, p.URLs.OutboxPage, p.URLs.SentPerPage = "", "", "", 0
	}
	p := sentPoster(t, b, whole)
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", recent); ok || !errors.Is(err, poster.ErrUnchecked) || !strings.Contains(err.Error(), "urls.sent_one_page") {
		t.Errorf("one page without sent_one_page: found %v, err %v; want unchecked, naming the keys", ok, err)
	}
	p = sentPoster(t, b, func(pr *forum.Profile) { whole(pr); pr.URLs.SentOnePage = true })
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", recent); ok || err != nil {
		t.Errorf("one page, sent_one_page: found %v, err %v; want not sent", ok, err)
	}
	if id, ok, err := p.SentPMWithMarker(ctx, "g0/day-1/1", first); !ok || err != nil || id == "" {
		t.Errorf("the oldest PM on the one page: %q %v %v", id, ok, err)
	}

	// Paged at 5 a page, 12 pages; the poster reads 2.
	b.sim.SetSentPerPage(5)
	paged := func(p *forum.Profile) {
		p.URLs.Outbox, p.URLs.OutboxPage, p.URLs.SentPerPage = "", "", 5
	}
	p = sentPoster(t, b, paged)
	p.SentPages = 2
	if _, ok, err := p.SentPMWithMarker(ctx, "g0/day-1/1", first); ok || !errors.Is(err, poster.ErrUnchecked) {
		t.Errorf("paged, 2 pages read: found %v, err %v; want unchecked", ok, err)
	}
	p = sentPoster(t, b, func(pr *forum.Profile) { paged(pr); pr.URLs.SentNewestFirst = true })
	p.SentPages = 2
	if id, ok, err := p.SentPMWithMarker(ctx, "g0/day-1/1", first); !ok || err != nil || id == "" {
		t.Errorf("newest first, queued before every PM: %q %v %v; want found on the last page", id, ok, err)
	}
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", recent); ok || err != nil {
		t.Errorf("newest first, queued 10 minutes ago: found %v, err %v; want not sent (read back to then)", ok, err)
	}
	if _, ok, err := p.SentPMWithMarker(ctx, "m1/day-1/99", time.Time{}); ok || !errors.Is(err, poster.ErrUnchecked) {
		t.Errorf("newest first, queued at an unknown time: found %v, err %v; want unchecked", ok, err)
	}
}

// A subject is held to the profile's max_subject_bytes in the charset its
// form goes out in (issue 44, point 3): characters the charset lacks count
// as their references, and a PM's marker key stays whole at its end.
func TestFitSubject(t *testing.T) {
	key := " #nations.ab12/round-1/3#"
	long := "[nations] Łukasz — Round 1 of 2: your orders are in, all of them" + key
	for _, tc := range []struct {
		subject, cs string
		max         int
	}{
		{long, "ISO-8859-1", 64},
		{long, "windows-1252", 48},
		{long, parser.UTF8, 64},
		{"Ordres — round 1 for Zoë and Łukasz, the whole of it", "ISO-8859-1", 30},
	} {
		got := poster.FitSubject(tc.subject, tc.max, tc.cs)
		if n := len(parser.EncodeText(got, tc.cs)); n > tc.max {
			t.Errorf("%q in %s: %q is %d bytes, over %d", tc.subject, tc.cs, got, n, tc.max)
		}
		if strings.HasSuffix(tc.subject, key) && poster.SubjectKey(got) != strings.Trim(key, " #") {
			t.Errorf("%q: the key is lost in %q", tc.subject, got)
		}
		if len(parser.EncodeText(tc.subject, tc.cs)) > tc.max && !strings.Contains(got, "…") && !strings.Contains(got, "...") {
			t.Errorf("%q: shortened to %q without saying so", tc.subject, got)
		}
	}
	if got := poster.FitSubject("short #a/b/1#", 64, "ISO-8859-1"); got != "short #a/b/1#" {
		t.Errorf("a subject that fits: %q", got)
	}
}
