package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/forumgm/forumgm/forumsim"
)

// spiesOnBoard writes the spies game file pointed at a local board that has
// the bot's account and Benedict's (`replace` looks the new account up on the
// board), and returns the file and Benedict's user id.
func (s *gmSession) spiesOnBoard() (path, benedictID string) {
	t := s.t
	t.Helper()
	sim := forumsim.New(forumsim.Options{})
	if _, err := sim.AddUser("GM Bot", s.password, true); err != nil {
		t.Fatal(err)
	}
	id, err := sim.AddUser("Benedict", "b-pw", false)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	src, err := os.ReadFile(filepath.Join("testdata", "games", "spies.game.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(s.dir, "spies-on-board.game.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(string(src), "http://127.0.0.1:9/", srv.URL+"/", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, strconv.Itoa(id)
}
