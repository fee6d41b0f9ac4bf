package main

import (
	"encoding/csv"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLICountAndCSV: `forumgm count` queues a count of the current phase
// for `forumgm run` to post; `audit --csv` prints the commands for a
// spreadsheet (a header even before anyone has posted), and not with
// --json; `status GAME` shows each player's activity in the phase.
func TestCLICountAndCSV(t *testing.T) {
	s := newGMSession(t)
	s.ok("new", "--no-probe", absPath(t, filepath.Join("testdata", "games", "spies.game.yaml")))
	before := s.status("spies-cli").Pending
	if out := s.ok("count", "spies-cli"); !strings.Contains(out, "count 1 of the phase queued") {
		t.Errorf("count printed %q", out)
	}
	if out := s.ok("count", "spies-cli"); !strings.Contains(out, "count 2 of the phase queued") {
		t.Errorf("the second count printed %q", out)
	}
	if n := s.status("spies-cli").Pending; n != before+2 {
		t.Errorf("%d messages waiting after two counts, want %d", n, before+2)
	}
	var count string
	for _, it := range s.outbox("spies-cli") {
		if strings.Contains(it.Body, "— count 1") {
			count = it.Body
		}
	}
	for _, want := range []string{"[b]Mission 1, proposal 1 — count 1[/b]", "No team proposed yet: the leader", "[b]Deadline:[/b]", "(posted by the GM)"} {
		if !strings.Contains(count, want) {
			t.Errorf("the count lacks %q:\n%s", want, count)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(s.ok("audit", "--csv", "spies-cli"))).ReadAll()
	if err != nil || len(rows) != 1 || strings.Join(rows[0], ",") != "phase,phase title,time,player,channel,command,kind,status,reason,link,id" {
		t.Errorf("audit --csv of a game nobody has posted in: %q %v", rows, err)
	}
	s.fails(2, "not with --json", "audit", "--csv", "--json", "spies-cli")
	text := s.ok("status", "spies-cli")
	if !strings.Contains(text, "activity: this phase's posts and actions") || !strings.Contains(text, "Ann  0 posts  0 actions  never") {
		t.Errorf("status lacks the activity:\n%s", text)
	}
	s.fails(1, "no-such-game", "count", "no-such-game")
}
