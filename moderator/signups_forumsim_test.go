package moderator

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/forumsim/simtest"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/journal"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/signup"
	"github.com/forumgm/forumgm/simplayers"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/store/storetest"
)

// simSender posts and PMs as the thread's players, straight into forumsim
// (simplayers.Sender).
type simSender struct{ th *simtest.Thread }

func (s simSender) Post(_ context.Context, name, text string) error {
	_, err := s.th.Sim.Post(s.th.Topic, s.th.Players[name], text)
	return err
}

func (s simSender) PM(_ context.Context, name, text string) error {
	_, err := s.th.Sim.SendPM(s.th.Players[name], []int{s.th.Bot}, "orders", text)
	return err
}

// simSignups is a sign-up game on forumsim, moderated through the real
// connection on the simulated clock. crash, when set, kills the moderator
// at a crash point; tick then starts a new one from the database and ticks
// again at once, as a restarted `forumgm run` would.
type simSignups struct {
	t     *testing.T
	db    *store.DB
	clk   *clock.Fake
	th    *simtest.Thread
	m     *Moderator
	g     *store.Game
	crash func(point string) bool
}

func newSimSignups(t *testing.T, db *store.DB, players []string, opts map[string]any, su gameconfig.Signups) *simSignups {
	t.Helper()
	clk := clock.NewFake(start)
	th := simtest.NewThread(t, forumsim.Options{Clock: clk, FloodInterval: -1, NoPostReview: true}, "GMBot", "gm-pass", true, players,
		"A new game of The Resistance: sign-ups below.")
	s := &simSignups{t: t, db: db, clk: clk, th: th}
	s.m = s.moderator()
	fc := th.Forum(t, "FORUMGM_SIGNUPS_TEST_PW")
	zero := 0.0
	fc.FloodSeconds = &zero
	gc := gameconfig.GameConfig{Options: opts, Seed: 11, Start: start, Instance: "s1", Signups: &su}
	g, err := s.m.Create(context.Background(), "signups-sim", "resistance", gc, fc, nil)
	if err != nil {
		t.Fatal(err)
	}
	s.g = g
	return s
}

func (s *simSignups) moderator() *Moderator {
	m := simModerator(s.db, s.clk, 0)
	m.Crash = func(point string) error {
		if s.crash != nil && s.crash(point) {
			return ErrCrash
		}
		return nil
	}
	return m
}

func (s *simSignups) tick() {
	s.t.Helper()
	for tries := 0; ; tries++ {
		err := s.m.Tick(context.Background(), s.g.ID)
		if err == nil {
			return
		}
		if !errors.Is(err, ErrCrash) || tries > 50 {
			s.t.Fatal(err)
		}
		s.m = s.moderator()
	}
}

func (s *simSignups) in(names ...string) {
	s.t.Helper()
	for _, n := range names {
		if _, err := s.th.Sim.Post(s.th.Topic, s.th.Players[n], "[b]/in[/b]"); err != nil {
			s.t.Fatal(err)
		}
	}
}

func (s *simSignups) row() *store.Game {
	s.t.Helper()
	var row *store.Game
	if err := s.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		row, err = tx.GameByID(s.g.ID)
		return err
	}); err != nil {
		s.t.Fatal(err)
	}
	return row
}

// lastPost is the bot's last post's text as the board shows it.
func (s *simSignups) lastPost() string {
	ps := s.th.BotPosts()
	return ps[len(ps)-1].HTML
}

// checkOnce: every item of the outbox is sent and on the board exactly
// once (the thread, or the bot's sent folder and its recipient's inbox),
// and the thread holds no post of the bot's the outbox does not.
func (s *simSignups) checkOnce() {
	s.t.Helper()
	items := simtest.Outbox(s.t, s.db, s.g.ID)
	want := map[string]bool{}
	for _, it := range items {
		want[it.Marker] = true
		if it.State == store.OutboxSplit {
			continue
		}
		if it.State != store.OutboxSent {
			s.t.Errorf("%s is %s", it.Marker, it.State)
		}
		if n := s.th.OnBoard(it); n != 1 {
			s.t.Errorf("%s is on the board %d times", it.Marker, n)
		}
		if it.Kind == forum.KindPM {
			var id int
			fmt.Sscan(it.RecipientID, &id)
			n := 0
			for _, pm := range s.th.Sim.Inbox(id) {
				n += strings.Count(pm.HTML, "forumgm·"+it.Marker+"<")
			}
			if n != 1 {
				s.t.Errorf("%s is in %s's (user %s) inbox %d times", it.Marker, it.RecipientName, it.RecipientID, n)
			}
		}
	}
	for _, p := range s.th.BotPosts() {
		for _, k := range forum.Markers(p.HTML) {
			if !want[k] {
				s.t.Errorf("the thread has a post marked %s that the outbox does not hold", k)
			}
		}
	}
}

// TestSignupsOnForumsim plays sign-ups on forumsim, a phpBB-like board over
// HTTP through the real connection: the board addresses PMs by user id, and
// no id is typed anywhere.
//
// "fill and play": six players sign up (one of them twice, one leaves and
// comes back), the sixth /in fills the game, which starts at once and plays
// to its end with simulated players; the moderator is killed inside the
// step that closes sign-ups and starts the game, right after it, and at
// the send of what it queued. The players are the six, with the user ids
// of their forum accounts; every post and PM is on the board exactly once
// (the role PMs in each player's inbox); the journal replays strictly.
//
// "extended then cancelled": three sign up by the closing time, the
// minimum is five: sign-ups are extended once (the thread told until when);
// one more by the new closing time is still short: the game is cancelled,
// the thread told.
func TestSignupsOnForumsim(t *testing.T) {
	names := []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay", "Gus"}
	t.Run("fill and play", func(t *testing.T) {
		storetest.Each(t, func(t *testing.T, db *store.DB) {
			s := newSimSignups(t, db, names, map[string]any{"phase_hours": 0.1}, gameconfig.Signups{Min: 5, Max: 6, Close: "1h"})
			crashes := map[string]int{}
			s.crash = func(point string) bool {
				switch point {
				case "in-signups", "after-signups":
				case "before-send", "after-send":
					if s.row().Status != Running || len(s.th.BotPosts()) > 6 {
						return false // only the sends of what the close queued
					}
				default:
					return false
				}
				if crashes[point] >= 1 {
					return false
				}
				crashes[point]++
				return true
			}
			s.tick() // the call
			s.in("Ann", "Ben", "Ann")
			s.th.Sim.Post(s.th.Topic, s.th.Players["Cat"], "[b]/in[/b] and then [b]/out[/b]")
			s.clk.Advance(time.Minute)
			s.tick()
			if l := s.lastPost(); !strings.Contains(l, "already signed up (number 1)") || !strings.Contains(l, "Cat is out") || !strings.Contains(l, "2. Ben") {
				t.Errorf("the answer:\n%s", l)
			}
			s.in("Cat", "Dan", "Eli")
			s.clk.Advance(time.Minute)
			s.tick()
			s.in("Fay") // the sixth: full
			s.clk.Advance(time.Minute)
			s.tick()
			s.tick() // what the crashes held up
			if row := s.row(); row.Status != Running {
				t.Fatalf("after the sixth /in: %s", row.Status)
			}
			for _, p := range []string{"in-signups", "after-signups", "before-send", "after-send"} {
				if crashes[p] == 0 {
					t.Errorf("no crash at %s", p)
				}
			}
			var ps []store.Player
			db.View(context.Background(), func(tx *store.Tx) error { ps, _ = tx.Players(s.g.ID); return nil })
			want := []string{"Ann", "Ben", "Cat", "Dan", "Eli", "Fay"}
			if len(ps) != len(want) {
				t.Fatalf("players %+v", ps)
			}
			for i, p := range ps {
				if p.ForumName != want[i] || p.ForumUserID != fmt.Sprint(s.th.Players[want[i]]) {
					t.Errorf("player %d: %+v, want %s with user id %d", i, p, want[i], s.th.Players[want[i]])
				}
			}

			eng, _ := rules.Lookup("resistance")
			sim := &simplayers.Table{Game: eng, Seed: 5}
			for iter := 0; ; iter++ {
				row := s.row()
				if row.Status == Finished && s.drained() {
					break
				}
				if iter > 1000 {
					t.Fatalf("the game did not finish: %s", row.Phase)
				}
				st, err := eng.Decode(row.State)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := sim.Act(context.Background(), st, simSender{s.th}); err != nil {
					t.Fatal(err)
				}
				s.tick()
				s.clk.Advance(time.Minute)
			}
			s.checkOnce()
			l, err := decodeGame(s.row())
			if err != nil {
				t.Fatal(err)
			}
			var j []journal.Entry
			db.View(context.Background(), func(tx *store.Tx) error { j, _ = tx.Journal(s.g.ID); return nil })
			final, err := journal.Replay(eng, l.cfg.Rules(), j, journal.Strict)
			if err != nil || !eng.Status(final).Finished {
				t.Errorf("the journal replays to %v, %v", err, final)
			}
		})
	})
	t.Run("extended then cancelled", func(t *testing.T) {
		s := newSimSignups(t, storetest.SQLite(t), names, nil, gameconfig.Signups{Min: 5, Max: 7, Close: "30m", Extension: "15m"})
		s.tick()
		s.in("Ann", "Ben", "Cat")
		s.clk.Advance(31 * time.Minute)
		s.tick()
		st, err := signup.Decode(s.row().State)
		if err != nil || s.row().Status != Signups || !st.Extended {
			t.Fatalf("at the closing time with 3 of 5: %s %+v %v", s.row().Status, st, err)
		}
		if l := s.lastPost(); !strings.Contains(l, "Sign-ups are extended") || !strings.Contains(l, rules.WhenUTC(start.Add(45*time.Minute), time.UTC)) {
			t.Errorf("the extension post:\n%s", l)
		}
		s.in("Dan")
		s.clk.Advance(15 * time.Minute)
		s.tick()
		if st := s.row().Status; st != Cancelled {
			t.Fatalf("at the extended closing time with 4 of 5: %s", st)
		}
		if l := s.lastPost(); !strings.Contains(l, "the game is cancelled") || !strings.Contains(l, "Dan is in (number 4)") {
			t.Errorf("the cancel post:\n%s", l)
		}
		s.checkOnce()
		// The thread's first post, the call, the extension and the cancel
		// (which answers Dan's /in too): nothing else.
		if n := len(s.th.BotPosts()); n != 4 {
			t.Errorf("the bot has %d posts in the thread, want 4", n)
		}
	})
}

// drained: nothing left in the outbox to send.
func (s *simSignups) drained() bool {
	var it *store.OutboxItem
	s.db.View(context.Background(), func(tx *store.Tx) error {
		var err error
		it, err = tx.NextOutbox(s.g.ID, start.AddDate(1, 0, 0))
		return err
	})
	return it == nil
}
