package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLIProbe: `forumgm probe` on a local board whose theme renamed the
// post container and the author link: with the built-in profile it exits
// 1 naming the selector and showing the renamed container; with the
// example profile file everything a game needs is ok (also posting with
// --post-test); --json gives the same report to scripts; `new` refuses the
// board unless --force, and takes it with the profile file.
func TestCLIProbe(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local forum")
	}
	t.Parallel()
	password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0", "--theme", "renamed")
	defer sim.stop(t, syscall.SIGTERM)
	url := sim.waitLine(t, "demo thread: ", 20*time.Second)
	base := url[:strings.Index(url, "viewtopic.php")]
	topic := url[strings.Index(url, "t=")+2:]
	s := newGMSession(t)
	s.password = password
	example := absPath(t, filepath.Join(repoRoot, "examples", "renamed-theme.profile.yaml"))
	board := []string{"--url", base, "--thread", topic, "--bot", "GM Bot", "--password-env", "FORUMGM_CLI_TEST_PASSWORD", "--requests-per-second", "100"}

	r := s.run(append([]string{"probe", "--engine", "phpbb"}, board...)...)
	wantExit(t, r, 1, "probe with the built-in profile on the renamed theme")
	for _, want := range []string{"FAIL  thread, first page", `key:   selectors.post "div.post"`, `found: <div id="p1" class="topic-entry has-profile`, "fix:", "a game cannot run here yet"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("probe output lacks %q:\n%s", want, r)
		}
	}

	r = s.run(append([]string{"probe", "--json", "--engine", "phpbb"}, board...)...)
	wantExit(t, r, 1, "probe --json")
	var rep struct {
		OK     bool `json:"ok"`
		Checks []struct {
			ID, Status, Key, Found string
			Needed                 bool
		} `json:"checks"`
		Posts []struct {
			ID, Author, Precision string
			Segments              []string
		} `json:"posts"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || rep.OK || len(rep.Checks) == 0 {
		t.Fatalf("probe --json: %v\n%s", err, r)
	}
	if c := rep.Checks[1]; c.ID != "thread.first" || c.Status != "fail" || !c.Needed || c.Key != `selectors.post "div.post"` || !strings.Contains(c.Found, "topic-entry") {
		t.Errorf("thread check in JSON: %+v", c)
	}

	r = s.run(append([]string{"probe", "--profile", example, "--json"}, board...)...)
	wantExit(t, r, 0, "probe with the example profile")
	rep.Posts = nil
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || !rep.OK || len(rep.Posts) != 15 || rep.Posts[0].Author != "GM Bot" || rep.Posts[0].Precision != "exact" {
		t.Errorf("probe with the profile: %v %+v\n%s", err, rep.Posts, r.stdout)
	}
	r = s.run(append([]string{"probe", "--profile", example, "--post-test"}, board...)...)
	wantExit(t, r, 0, "probe --post-test with the example profile")
	for _, want := range []string{"ok    test reply", "ok    test PM to the bot itself", "everything a game needs works"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("post test output lacks %q:\n%s", want, r.stdout)
		}
	}

	// Usage errors exit 2.
	wantExit(t, s.run("probe"), 2, "probe without a board")
	wantExit(t, s.run("probe", "--url", base, "--thread", topic, "--bot", "GM Bot", "--password-env", "FORUMGM_NO_SUCH_VAR"), 2, "probe without a password")

	// new: refused on the renamed theme with the built-in profile, taken
	// with --force or with the profile file (named relative to the game file).
	gameFile := func(name, board string) string {
		p := filepath.Join(s.dir, name+".game.yaml")
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
  - {name: Carol, id: "4"}
`, name, base, board, topic)
		if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	builtin := gameFile("builtin", "engine: phpbb")
	r = s.run("new", builtin)
	wantExit(t, r, 1, "new on a board the profile cannot read")
	if !strings.Contains(r.stderr, "not created") || !strings.Contains(r.stderr, `selectors.post "div.post"`) || !strings.Contains(r.stderr, "--force") {
		t.Errorf("new's refusal:\n%s", r)
	}
	if r := s.run("status"); r.code == 0 && !strings.Contains(r.stdout, "no games yet") {
		t.Errorf("a game was created anyway:\n%s", r)
	}
	r = s.run("new", "--force", builtin)
	wantExit(t, r, 0, "new --force")
	if !strings.Contains(r.stderr, "creating the game anyway") || !strings.Contains(r.stdout, "created game builtin") {
		t.Errorf("new --force:\n%s", r)
	}
	data, _ := os.ReadFile(example)
	os.WriteFile(filepath.Join(s.dir, "board.profile.yaml"), data, 0o644)
	out := s.ok("new", gameFile("themed", "profile: board.profile.yaml"))
	if !strings.Contains(out, "board checked: everything a game needs works") || !strings.Contains(out, "created game themed") {
		t.Errorf("new with the profile file: %s", out)
	}
}

// TestCLINewProbeUnreachable: `new` on a board that does not answer is
// refused (exit 1) after the check; --no-probe creates it.
func TestCLINewProbeUnreachable(t *testing.T) {
	s := newGMSession(t)
	spies := absPath(t, filepath.Join("testdata", "games", "spies.game.yaml"))
	r := s.run("new", spies)
	wantExit(t, r, 1, "new on an unreachable board")
	if !strings.Contains(r.stderr, "FAIL  login") || !strings.Contains(r.stderr, "not created") {
		t.Errorf("new's refusal:\n%s", r)
	}
	// No password where new runs: the check cannot start (exit 2).
	r = runCLIWith(t, cliOpts{dir: s.dir, env: map[string]string{"FORUMGM_DB": s.db}}, "new", spies)
	wantExit(t, r, 2, "new without the password")
	if !strings.Contains(r.stderr, "FORUMGM_CLI_TEST_PASSWORD") || !strings.Contains(r.stderr, "--no-probe") {
		t.Errorf("new without the password:\n%s", r)
	}
	s.ok("new", "--no-probe", spies)
}
