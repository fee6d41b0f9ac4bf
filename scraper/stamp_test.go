package scraper

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
)

// Every post and PM read through the scraper carries a stamp that holds
// the time the board recorded, whatever form MyBB's my_date('relative')
// gave it: the scraper passes each page's fetch time to the parser. With
// the titles (the default theme) stamps are the minute; without them the
// relative text alone still brackets the true time.
func TestStampsHoldTheBoardTime(t *testing.T) {
	// Ages at read time, from 30 hours down to 0 s: every branch of my_date.
	ages := []time.Duration{30 * time.Hour, 20 * time.Hour, 13 * time.Hour, 11*time.Hour + 59*time.Minute, 9 * time.Hour,
		time.Hour + 30*time.Second, time.Hour, 59*time.Minute + 59*time.Second, 5*time.Minute + 30*time.Second,
		121 * time.Second, 61 * time.Second, 60 * time.Second, 30 * time.Second, 0}
	for _, titles := range []bool{true, false} {
		r := newRig(t, 0)
		r.board.NoDateTitles = !titles
		made := map[string]time.Time{}
		start := r.clk.Now()
		readAt := start.Add(ages[0] + time.Second)
		for _, age := range ages {
			r.clk.Advance(readAt.Add(-age).Sub(r.clk.Now()))
			id := r.board.AddPost(r.alice, "", "x")
			made[strconv.Itoa(id)] = r.clk.Now()
		}
		pm := r.board.SendPM(r.alice, r.bot, "orders", "PROSPER")
		pmMade := r.clk.Now()
		// Reading takes a few paced requests (login first): the fake clock
		// moves by the session's interval per request, as a real one would.
		_, posts := r.read(t, Cursor{})
		if len(posts) != len(ages) {
			t.Fatalf("titles %v: %d posts", titles, len(posts))
		}
		for _, p := range posts {
			s := p.Stamp
			if !s.Known() || !s.Contains(made[p.ID]) || !p.Time.Equal(s.Earliest) {
				t.Errorf("titles %v: post %s made %s: stamp %+v", titles, p.ID, made[p.ID].Format(time.RFC3339), s)
			}
			if titles && (s.Precision != forum.PrecisionMinute || s.Width() != time.Minute) {
				t.Errorf("titles: post %s stamp %+v, want the minute", p.ID, s)
			}
			if !titles && !s.Relative && s.Precision != forum.PrecisionMinute {
				t.Errorf("no titles: post %s stamp %+v", p.ID, s)
			}
		}
		hs, err := r.sc.Inbox(context.Background())
		if err != nil || len(hs) != 1 || !hs[0].Stamp.Contains(pmMade) {
			t.Fatalf("titles %v: inbox %+v %v", titles, hs, err)
		}
		m, err := r.sc.ReadPM(context.Background(), strconv.Itoa(pm))
		if err != nil || !m.Stamp.Contains(pmMade) || m.Stamp.Err != "" {
			t.Errorf("titles %v: PM stamp %+v %v", titles, m.Stamp, err)
		}
		if !titles && (!m.Stamp.Relative || m.Stamp.Width() > 2*time.Minute) {
			t.Errorf("no titles: PM stamp %+v, want a relative minute-wide stamp", m.Stamp)
		}
	}
}
