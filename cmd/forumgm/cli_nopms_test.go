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

// TestCLINoPMs (issue 22 item 11): on a board without private messages
// (`forumgm sim --no-pms`) `probe` and `new` say plainly that every game
// needs them; `new` refuses the board.
func TestCLINoPMs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local forum")
	}
	t.Parallel()
	password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0", "--no-pms")
	defer sim.stop(t, syscall.SIGTERM)
	url := sim.waitLine(t, "demo thread: ", 20*time.Second)
	base := url[:strings.Index(url, "viewtopic.php")]
	topic := url[strings.Index(url, "t=")+2:]
	s := newGMSession(t)
	s.password = password
	const plain = "every game needs private messages"

	r := s.run("probe", "--url", base, "--thread", topic, "--bot", "GM Bot", "--password-env", "FORUMGM_CLI_TEST_PASSWORD", "--requests-per-second", "100")
	wantExit(t, r, 1, "probe on a board without PMs")
	for _, want := range []string{"FAIL  PM inbox", "FAIL  PM form", "HTTP 404", "the bot cannot use private messages here", plain} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("probe output lacks %q:\n%s", want, r)
		}
	}

	game := filepath.Join(s.dir, "nopms.game.yaml")
	src := fmt.Sprintf(`name: nopms
game: nations
forum:
  url: %s
  engine: phpbb
  thread: %q
  bot: GM Bot
  password_env: FORUMGM_CLI_TEST_PASSWORD
  requests_per_second: 100
players:
  - {name: Alice, id: "2"}
  - {name: Bob, id: "3"}
  - {name: Carol, id: "4"}
`, base, topic)
	if err := os.WriteFile(game, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	r = s.run("new", game)
	wantExit(t, r, 1, "new on a board without PMs")
	var refusal string
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.Contains(l, "not created") {
			refusal = l
		}
	}
	if !strings.Contains(refusal, plain) || !strings.Contains(r.stderr, "the bot cannot use private messages here") {
		t.Errorf("new's refusal does not say plainly that the game needs PMs (in the checklist and in the refusal line %q):\n%s", refusal, r)
	}
	if r := s.run("status"); r.code == 0 && !strings.Contains(r.stdout, "no games yet") {
		t.Errorf("a game was created anyway:\n%s", r)
	}
}
