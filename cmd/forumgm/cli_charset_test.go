package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLINewCharset (issue 44): on a board in ISO-8859-1 (`forumgm sim
// --charset ISO-8859-1`), `new` checks the board without posting and
// creates the game; with a profile file whose charset contradicts
// the board's pages, `new` refuses the board, naming the key to fix.
func TestCLINewCharset(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local forum")
	}
	t.Parallel()
	password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0", "--charset", "ISO-8859-1")
	defer sim.stop(t, syscall.SIGTERM)
	url := sim.waitLine(t, "demo thread: ", 20*time.Second)
	base := url[:strings.Index(url, "viewtopic.php")]
	topic := url[strings.Index(url, "t=")+2:]
	s := newGMSession(t)
	s.password = password
	prof := filepath.Join(s.dir, "utf8.profile.yaml")
	if err := os.WriteFile(prof, []byte("base: phpbb\nname: phpbb-said-utf8\ncharset: UTF-8\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	gameFile := func(name, board string) string {
		game := filepath.Join(s.dir, name+".game.yaml")
		src := fmt.Sprintf(`name: %s
game: nations
forum:
  url: %s
  %s
  thread: %q
  bot: GM Bot
  password_env: FORUMGM_CLI_TEST_PASSWORD
  requests_per_second: 100
players:
  - {name: Alice, id: "2"}
  - {name: Bob, id: "3"}
  - {name: "Zoë [the] Bold", id: "6"}
`, name, base, board, topic)
		if err := os.WriteFile(game, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return game
	}

	r := s.run("new", gameFile("wrong", "profile: utf8.profile.yaml"))
	wantExit(t, r, 1, "new with a profile charset the pages contradict")
	for _, want := range []string{"FAIL  charset of pages and forms", `key:   charset "UTF-8"`, "remove charset from the profile file"} {
		if !strings.Contains(r.stdout+r.stderr, want) {
			t.Errorf("new's output lacks %q:\n%s", want, r)
		}
	}
	if r := s.run("status"); r.code == 0 && !strings.Contains(r.stdout, "no games yet") {
		t.Errorf("a game was created anyway:\n%s", r)
	}

	r = s.run("new", gameFile("latin", "engine: phpbb"))
	wantExit(t, r, 0, "new on an ISO-8859-1 board")
	if !strings.Contains(r.stdout, "everything a game needs works") || !strings.Contains(r.stdout, "created game latin") {
		t.Errorf("new on an ISO-8859-1 board:\n%s", r)
	}
}
