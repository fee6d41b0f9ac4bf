// Package simtest sets up what many tests play on: a forumsim board served
// over HTTP with a bot account, players and a game thread, and a game a
// moderator runs on it.
package simtest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumsim"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/store"
)

// Thread is a board with one game thread, served until the test ends.
type Thread struct {
	Sim     *forumsim.Server
	URL     string // the server's address, as httptest gives it (no trailing slash)
	Topic   int    // the game thread
	Bot     int    // the bot's forum user id
	BotName string
	BotPW   string
	Names   []string // the players, in the order given
	Players map[string]int
	// Down, while set, makes the server answer every request 503, as a
	// board down for maintenance does in front of the forum software.
	Down atomic.Bool
	// Seen, when set, is called with every request before it is served
	// (a test's own view of what the bot asks for, and when).
	Seen atomic.Pointer[func(*http.Request)]
}

// NewThread starts a board from opts with the bot account (password botPW,
// flood-exempt when exempt), the players (each's password is their name in
// lower case) and a thread "Nations" in a forum "Games" that the bot opened
// with opening.
func NewThread(t testing.TB, opts forumsim.Options, bot, botPW string, exempt bool, players []string, opening string) *Thread {
	t.Helper()
	sim := forumsim.New(opts)
	th := &Thread{Sim: sim, BotName: bot, BotPW: botPW, Names: players, Players: map[string]int{}}
	var err error
	if th.Bot, err = sim.AddUser(bot, botPW, exempt); err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		if th.Players[p], err = sim.AddUser(p, strings.ToLower(p), false); err != nil {
			t.Fatal(err)
		}
	}
	if th.Topic, _, err = sim.AddTopic(sim.AddForum("Games", ""), th.Bot, "Nations", opening); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := th.Seen.Load(); f != nil {
			(*f)(r)
		}
		if th.Down.Load() {
			http.Error(w, "the board is down for maintenance", http.StatusServiceUnavailable)
			return
		}
		sim.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	th.URL = srv.URL
	return th
}

// Forum is the phpBB forum configuration for the thread, the bot's
// password in an environment variable named pwEnv and a number of its own
// (set for the test's length): unlike t.Setenv, tests that call it may
// run side by side, each thread's password under its own name.
func (th *Thread) Forum(t testing.TB, pwEnv string) gameconfig.ForumConfig {
	name := fmt.Sprintf("%s_%d", pwEnv, envSeq.Add(1))
	os.Setenv(name, th.BotPW)
	t.Cleanup(func() { os.Unsetenv(name) })
	return gameconfig.ForumConfig{URL: th.URL + "/forum/", Engine: "phpbb", Thread: fmt.Sprint(th.Topic), Bot: th.BotName, PasswordEnv: name}
}

var envSeq atomic.Int64

// Nations is a Nations game of the thread's players (seed 4) from start.
func (th *Thread) Nations(start time.Time, rounds, roundMinutes, breakMinutes int) gameconfig.GameConfig {
	return gameconfig.GameConfig{Players: th.Names, Seed: 4, Start: start,
		Options: map[string]any{"rounds": rounds, "round_minutes": roundMinutes, "break_minutes": breakMinutes}}
}

// Roster is the players as the game's slots, each by forum name and id.
func (th *Thread) Roster() []store.Player {
	var ps []store.Player
	for _, p := range th.Names {
		ps = append(ps, store.Player{Slot: p, ForumName: p, ForumUserID: fmt.Sprint(th.Players[p])})
	}
	return ps
}

// BotPosts are the bot's posts in the thread, the opening first.
func (th *Thread) BotPosts() []forumsim.Post {
	var ps []forumsim.Post
	for _, p := range th.Sim.Posts(th.Topic) {
		if p.AuthorID == th.Bot {
			ps = append(ps, p)
		}
	}
	return ps
}

// OnBoard counts the times the outbox item's marker stands in the bot's
// posts (a post) or its sent PMs (a PM): exactly once is what the bot owes.
func (th *Thread) OnBoard(it store.OutboxItem) int {
	n := 0
	mark := "forumgm·" + it.Marker + "<"
	if it.Kind == forum.KindPost {
		for _, p := range th.BotPosts() {
			n += strings.Count(p.HTML, mark)
		}
	} else {
		for _, pm := range th.Sim.Sent(th.Bot) {
			n += strings.Count(pm.HTML, mark)
		}
	}
	return n
}

// LongLetter is a PM body of n numbered lines ("line 7 of my very long
// letter"), for receipts longer than a board takes.
func LongLetter(n int) string {
	var lines []string
	for i := 1; i <= n; i++ {
		lines = append(lines, fmt.Sprintf("line %d of my very long letter", i))
	}
	return strings.Join(lines, "\n")
}

// Must returns a check for the board's (id, error) calls (sim.Post,
// sim.SendPM, ...): the id, or the test fails.
func Must(t testing.TB) func(id int, err error) int {
	return func(id int, err error) int {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
}
