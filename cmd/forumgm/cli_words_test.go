package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCLIWordsOnSim: the GM's own words end to end, as a GM types them,
// on the local forum with a real `forumgm run`: a game file with a house
// style, flavor for the round's update and for one player's results
// (written, listed, previewed exactly), an announcement in the thread and
// a note by PM; text with a marker line refused, flavor for a round that
// has moved on refused with the reason. On the board: every bot post in
// the style, the flavor opening the update once, the announcement once,
// its bold never read as a command; the audit log lists them as the GM's.
func TestCLIWordsOnSim(t *testing.T) {
	if testing.Short() {
		t.Skip("logs in to a local forum and waits for the bot's sends (about 15 s)")
	}
	t.Parallel() // real time, mostly waiting
	password := fmt.Sprintf("simpw-%d", time.Now().UnixNano())
	sim := startBackground(t, cliEnv(nil), "sim", "--addr", "127.0.0.1:0", "--password", password, "--flood", "0")
	url := sim.waitLine(t, "demo thread: ", 20*time.Second)
	base := url[:strings.Index(url, "viewtopic.php")]
	topic := url[strings.Index(url, "t=")+2:]

	s := newGMSession(t)
	s.password = password
	const g = "words-cli"
	write := func(name, text string) string {
		p := filepath.Join(s.dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("house.style.yaml", "header: '[b]{game}[/b] — {title}'\nfooter: '[i]House rules: be kind.[/i]'\ncolor: navy\n")
	game := write("words.game.yaml", fmt.Sprintf(`name: %s
game: nations
forum:
  url: %s
  engine: phpbb
  thread: %q
  bot: GM Bot
  password_env: FORUMGM_CLI_TEST_PASSWORD
  poll_seconds: 1
  requests_per_second: 20
players:
  - {name: Alice, id: "2"}
  - {name: Bob, id: "3"}
  - {name: Carol, id: "4"}
options: {rounds: 2, round_minutes: 60, break_minutes: 0}
seed: 3
style: {file: house.style.yaml}
`, g, base, topic))
	secret := write("secret.game.yaml", strings.Replace(strings.Replace(string(must(os.ReadFile(game))), "name: "+g, "name: other", 1),
		"style: {file: house.style.yaml}", "style: {header: 'Your role: {role}'}", 1))
	s.fails(2, "names {role}, which is not public", "new", "--no-probe", secret)
	s.ok("new", "--no-probe", game)

	flavor := write("flavor.txt", "[i]Dawn breaks over the valley.[/i]\nThe banners are up.\n")
	alice := write("alice.txt", "Your scout returns at dawn.")
	say := write("say.txt", "[b]The deadline moves for the holiday.[/b] And [b]INVADE Bob[/b] is only an example.")
	note := write("note.txt", "Welcome back, Bob.")
	marked := write("marked.txt", "Look:\n[size=85]forumgm·words-cli.x/round-1/9[/size]\n")

	s.fails(2, "needs --phase", "flavor", "--file", flavor, g)
	s.fails(1, "the current phase is round-1", "flavor", "--phase", "round-2", "--file", flavor, g)
	s.fails(1, "marker", "flavor", "--phase", "round-1", "--file", marked, g)
	s.fails(1, "marker", "say", "--file", marked, g)
	s.ok("flavor", "--phase", "round-1", "--file", note, g) // replaced below
	if out := s.ok("flavor", "--phase", "round-1", "--file", flavor, g); !strings.Contains(out, "flavor saved: it opens the update of round-1") {
		t.Errorf("flavor printed %q", out)
	}
	if out := s.ok("flavor", "--phase", "round-1", "--to", "alice", "--file", alice, g); !strings.Contains(out, "Alice's private results") {
		t.Errorf("flavor --to printed %q", out)
	}
	if l := s.ok("flavor", "--list", g); !strings.Contains(l, "=== round-1, the thread's update ===\n[i]Dawn breaks") || !strings.Contains(l, "Alice's private results ===\nYour scout") || strings.Contains(l, "Welcome back") {
		t.Errorf("flavor --list:\n%s", l)
	}
	pv := s.ok("preview", "--phase", "round-1", g)
	if !strings.Contains(pv, "[b]words-cli[/b] — Round 2 of 2\n\n[color=navy][i]Dawn breaks over the valley.[/i]\nThe banners are up.\n\n") || !strings.Contains(pv, "Your scout returns at dawn.") {
		t.Errorf("preview does not show the flavor as it will be posted:\n%s", pv)
	}
	if out := s.ok("say", "--file", say, g); !strings.Contains(out, "announcement queued") {
		t.Errorf("say printed %q", out)
	}
	if out := s.ok("say", "--to", "bob", "--file", note, g); !strings.Contains(out, "note to Bob queued") {
		t.Errorf("say --to printed %q", out)
	}
	s.ok("resolve-now", "--phase", "round-1", g)
	s.fails(1, "has moved past phase round-1: the current phase is round-2", "flavor", "--phase", "round-1", "--file", flavor, g)

	run := startBackground(t, cliEnv(map[string]string{"FORUMGM_DB": s.db, "FORUMGM_CLI_TEST_PASSWORD": password}), "run")
	deadline := time.Now().Add(90 * time.Second)
	for {
		st := s.status(g)
		if st.Pending == 0 && st.Sent >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("run left %d unsent in 90 s; its log:\n%s", st.Pending, run.output())
		}
		time.Sleep(500 * time.Millisecond)
	}
	time.Sleep(3 * time.Second) // a few polls that read the bot's own posts back
	if code, _ := run.stop(t, syscall.SIGTERM); code != 0 {
		t.Errorf("run exit %d\n%s", code, run.output())
	}

	// The thread, page by page up to the bot's last post (nobody else posts).
	box := s.outbox(g)
	last := ""
	for _, it := range box {
		if it.Kind == "post" {
			last = it.Marker
		}
	}
	var page string
	for start := 0; !strings.Contains(page, last); start += 10 {
		if start > 500 {
			t.Fatalf("the bot's last post %s is not in the thread", last)
		}
		resp, err := http.Get(fmt.Sprintf("%sviewtopic.php?t=%s&start=%d", base, topic, start))
		if err != nil {
			t.Fatal(err)
		}
		page += string(must(io.ReadAll(resp.Body)))
		resp.Body.Close()
	}
	posts := 0
	for _, it := range box {
		if it.State != "sent" {
			t.Errorf("%s is %s", it.Marker, it.State)
		}
		switch {
		case it.Kind == "post":
			posts++
		case it.Recipient == "Alice" && strings.Contains(it.Body, "Your scout"):
			if !strings.HasPrefix(it.Body, "Your scout returns at dawn.") {
				t.Errorf("Alice's results do not open with her flavor: %q", it.Body)
			}
		case it.Recipient == "Bob" && strings.Contains(it.Body, "Welcome back"):
			if it.Body != "Welcome back, Bob." {
				t.Errorf("the note to Bob: %q", it.Body)
			}
		}
	}
	for what, want := range map[string]int{"Dawn breaks over the valley.": 1, "The deadline moves for the holiday.": 1, "House rules: be kind.": posts, "Your scout": 0, "Welcome back": 0} {
		if n := strings.Count(page, what); n != want {
			t.Errorf("%q is in the thread %d times, want %d", what, n, want)
		}
	}
	if posts < 3 {
		t.Errorf("%d bot posts, want the opening, the announcement and the update", posts)
	}
	audit := s.ok("audit", g)
	if !strings.Contains(audit, "THE GM'S OWN WORDS") || !strings.Contains(audit, "say    round-1  to thread") || !strings.Contains(audit, "say    round-1  to Bob") || !strings.Contains(audit, "flavor round-1  to Alice") {
		t.Errorf("the audit log does not list the GM's words:\n%s", audit)
	}
	for _, l := range strings.Split(audit, "\n") {
		if strings.Contains(l, "cmd ") && strings.Contains(l, "INVADE") {
			t.Errorf("the GM's bold was read as a command: %s", l)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
