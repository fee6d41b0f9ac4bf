package poster_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/poster"
	"github.com/forumgm/forumgm/scraper"
)

// TestSendDepth: a flood-exempt bot on a phpBB board (forumsim, on the
// real clock: a form is refused in the second it was made, and its token,
// the same for every form of its kind made in that second, is taken once)
// sends 4 PMs and 4 replies at once, first one submission at a time
// (send_depth 1), then with phpBB's send_depth: a PM form waits out its
// second while a reply form does, so the 8 go in about half the time (one
// form of each kind a second is phpBB's pace), and each is on the board
// once.
func TestSendDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out phpBB's real form waits")
	}
	const pms = 8
	sim := forumsim.New(forumsim.Options{FloodInterval: -1})
	bot, err := sim.AddUser("GMBot", "gm-pass", true)
	if err != nil {
		t.Fatal(err)
	}
	alice, err := sim.AddUser("Alice", "a", false)
	if err != nil {
		t.Fatal(err)
	}
	topic, _, err := sim.AddTopic(sim.AddForum("Games", ""), bot, "Game", "A game.")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	send := func(depth int, tag string) time.Duration {
		prof, _ := forum.Builtin("phpbb")
		prof.SendDepth = depth
		s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
			scraper.Options{Clock: clock.Real{}, MinInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		p := poster.New(s)
		p.SetFlood(0)
		if _, err := s.Fetch(context.Background(), "index.php"); err != nil { // logged in before the clock starts
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		t0 := time.Now()
		for i := range pms {
			wg.Add(1)
			go func() {
				defer wg.Done()
				key := fmt.Sprintf("depth.%s/%d", tag, i)
				var err error
				if i%2 == 0 {
					_, err = p.SendPM(context.Background(), forum.Author{Name: "Alice", ID: fmt.Sprint(alice)}, key, "Your role", "You are a spy.")
				} else {
					_, err = p.Reply(context.Background(), fmt.Sprint(topic), key, "", "The count.")
				}
				if err != nil {
					t.Errorf("%s: %v", key, err)
				}
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	one := send(1, "one")
	four := send(4, "four")
	t.Logf("%d messages: %v one at a time, %v four at a time (%.2f×)", pms, one.Round(time.Millisecond), four.Round(time.Millisecond), float64(four)/float64(one))
	if four > one*3/4 {
		t.Errorf("four at a time took %v, one at a time %v: the form waits did not overlap", four, one)
	}
	var sent strings.Builder
	for _, pm := range sim.Sent(bot) {
		sent.WriteString(pm.HTML)
	}
	for _, p := range sim.Posts(topic) {
		sent.WriteString(p.HTML)
	}
	for _, tag := range []string{"one", "four"} {
		for i := range pms {
			if n := strings.Count(sent.String(), fmt.Sprintf("forumgm·depth.%s/%d<", tag, i)); n != 1 {
				t.Errorf("depth.%s/%d on the board %d times", tag, i, n)
			}
		}
	}
}

// TestSendDepthFollowsThePace: the profile's send_depth, at most one for
// each 2 requests a second the board allows, at least one.
func TestSendDepthFollowsThePace(t *testing.T) {
	for _, tc := range []struct {
		profile int
		rps     float64
		want    int
	}{
		{128, 200, 100}, {64, 200, 64}, {32, 200, 32}, {128, 50, 25}, {32, 1, 1}, {32, 0, 1}, {32, 10, 5}, {32, 3, 1}, {4, 1000, 4}, {0, 200, 1}, {1, 200, 1},
	} {
		if got := (forum.Profile{SendDepth: tc.profile}).Depth(tc.rps); got != tc.want {
			t.Errorf("send_depth %d at %v requests a second: %d, want %d", tc.profile, tc.rps, got, tc.want)
		}
	}
}

// slowBoard delays every answer of the board behind it by delay.
type slowBoard struct {
	h     http.Handler
	mu    sync.Mutex
	delay time.Duration
}

func (b *slowBoard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	d := b.delay
	b.mu.Unlock()
	time.Sleep(d)
	b.h.ServeHTTP(w, r)
}

// slowBot is a flood-exempt bot (send_depth depth; 0: the profile's),
// logged in on a phpBB board (forumsim) behind a slowBoard, and the
// board's ids of the bot and of Alice.
func slowBot(t *testing.T, depth int) (p *poster.Poster, board *slowBoard, sim *forumsim.Server, bot, alice int) {
	t.Helper()
	sim = forumsim.New(forumsim.Options{FloodInterval: -1})
	bot, err := sim.AddUser("GMBot", "gm-pass", true)
	if err != nil {
		t.Fatal(err)
	}
	if alice, err = sim.AddUser("Alice", "a", false); err != nil {
		t.Fatal(err)
	}
	board = &slowBoard{h: sim}
	srv := httptest.NewServer(board)
	t.Cleanup(srv.Close)
	prof, _ := forum.Builtin("phpbb")
	if depth > 0 {
		prof.SendDepth = depth
	}
	s, err := scraper.NewSession(srv.URL+"/forum/", prof, forum.Credentials{Username: "GMBot", Password: "gm-pass"},
		scraper.Options{Clock: clock.Real{}, MinInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	p = poster.New(s)
	p.SetFlood(0)
	if _, err := s.Fetch(context.Background(), "index.php"); err != nil {
		t.Fatal(err)
	}
	return p, board, sim, bot, alice
}

// TestDepthFollowsTheBoardsAnswers: a flood-exempt bot with send_depth 8
// on a board that turns slow (each answer 300 ms, as a busy host's one PHP
// process gives) cuts the submissions it has under way once their answers
// take more than half of what their deadlines allow, and takes its depth
// back, one quick answer at a time, once the board is quick again. Each
// PM is on the board at most once, however its send ended.
func TestDepthFollowsTheBoardsAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out phpBB's real form waits")
	}
	p, board, sim, bot, alice := slowBot(t, 8)
	if d := p.Flood().Depth; d != 8 {
		t.Fatalf("depth %d before any send, want the profile's 8", d)
	}
	send := func(key string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_, err := p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(alice)}, key, "Your role", "You are a spy.")
		return err
	}
	board.mu.Lock()
	board.delay = 300 * time.Millisecond
	board.mu.Unlock()
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = send(fmt.Sprintf("slow.%d", i)) }()
	}
	wg.Wait()
	slow := p.Flood().Depth
	if slow > 4 {
		t.Errorf("depth %d after 8 sends answered late, want it cut to half or less", slow)
	}
	board.mu.Lock()
	board.delay = 0
	board.mu.Unlock()
	quick := 0
	for i := 0; i < 12 && p.Flood().Depth < 8; i++ {
		if err := send(fmt.Sprintf("quick.%d", i)); err != nil {
			t.Fatalf("a send to the quick board: %v", err)
		}
		quick++
	}
	if d := p.Flood().Depth; d != 8 {
		t.Errorf("depth %d after %d quick sends, want the profile's 8 again", d, quick)
	}
	t.Logf("depth 8 → %d on the slow board, back to 8 after %d quick sends", slow, quick)
	var sent strings.Builder
	for _, pm := range sim.Sent(bot) {
		sent.WriteString(pm.HTML)
	}
	for i := range 8 {
		if n := strings.Count(sent.String(), fmt.Sprintf("forumgm·slow.%d<", i)); n > 1 {
			t.Errorf("slow.%d on the board %d times", i, n)
		}
	}
}

// TestALateSendIsNotSubmitted: a send whose deadline passes before its
// form has come (the board answering slower than that) ends with
// forum.ErrNotSubmitted: nothing of it reached the board, so it is no
// attempt and needs no marker check.
func TestALateSendIsNotSubmitted(t *testing.T) {
	p, board, sim, bot, alice := slowBot(t, 0)
	board.mu.Lock()
	board.delay = 1500 * time.Millisecond
	board.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	_, err := p.SendPM(ctx, forum.Author{Name: "Alice", ID: fmt.Sprint(alice)}, "late.send", "Your role", "You are a spy.")
	if !errors.Is(err, forum.ErrNotSubmitted) {
		t.Fatalf("a send whose form came after its deadline: %v, want forum.ErrNotSubmitted", err)
	}
	time.Sleep(2 * time.Second) // any request in flight has been answered
	for _, pm := range sim.Sent(bot) {
		if strings.Contains(pm.HTML, "late.send") {
			t.Errorf("the late send reached the board")
		}
	}
}
