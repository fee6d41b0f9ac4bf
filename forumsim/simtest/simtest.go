// Package simtest sets up what many tests play on: a forumsim board served
// over HTTP with a bot account, players and a game thread.
package simtest

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/forumsim"
)

// Thread is a board with one game thread, served until the test ends.
type Thread struct {
	Sim     *forumsim.Server
	URL     string // the server's address, as httptest gives it (no trailing slash)
	Topic   int    // the game thread
	Bot     int    // the bot's forum user id
	Players map[string]int
}

// NewThread starts a board from opts with the bot account (password botPW,
// flood-exempt when exempt), the players (each's password is their name in
// lower case) and a thread "Nations" in a forum "Games" that the bot opened
// with opening.
func NewThread(t testing.TB, opts forumsim.Options, bot, botPW string, exempt bool, players []string, opening string) *Thread {
	t.Helper()
	sim := forumsim.New(opts)
	th := &Thread{Sim: sim, Players: map[string]int{}}
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
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	th.URL = srv.URL
	return th
}
