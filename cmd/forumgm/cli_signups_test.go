package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLISignups: `new` creates a game file's sign-up game (no players, no
// user ids on phpBB), status and `signups` show the list and the closing
// time, the controls that need players are refused with what to do
// instead, `signups close` is refused below the minimum, `remove` names no
// one, and `end` cancels the game. The posts these queue are played on
// boards in the moderator's and the real boards' tests.
func TestCLISignups(t *testing.T) {
	s := newGMSession(t)
	file := absPath(t, filepath.Join("testdata", "games", "signups.game.yaml"))
	const g = "spies-signups"
	out := s.ok("new", "--no-probe", "--db", s.db, file)
	if want := "created game spies-signups (resistance, seed 5), taking sign-ups"; !strings.Contains(out, want) {
		t.Errorf("new printed %q, want %q", out, want)
	}
	text := s.ok("status", g)
	for _, want := range []string{"spies-signups (resistance) — signups", "sign-ups: 0 in (5 to 7 players); close ", "UTC", "or when 7 are in", "outbox:   0 sent, 1 waiting"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	var rs []struct {
		Status  string `json:"status"`
		Signups struct {
			Open bool `json:"open"`
			Min  int  `json:"min"`
			Max  int  `json:"max"`
			In   []any
		} `json:"signups"`
	}
	if err := json.Unmarshal([]byte(s.ok("status", "--json", g)), &rs); err != nil || len(rs) != 1 || rs[0].Status != "signups" ||
		!rs[0].Signups.Open || rs[0].Signups.Min != 5 || rs[0].Signups.Max != 7 || rs[0].Signups.In == nil {
		t.Errorf("status --json: %+v %v", rs, err)
	}
	if list := s.ok("signups", g); !strings.Contains(list, "sign-ups: 0 in (5 to 7 players)") {
		t.Errorf("signups:\n%s", list)
	}
	if box := s.outbox(g); len(box) != 1 || box[0].Kind != "post" || !strings.Contains(box[0].Body, "[b]/in[/b]") {
		t.Errorf("the call for players is not queued: %+v", box)
	}
	s.fails(1, "only 0 signed up", "signups", g, "close")
	s.fails(1, "matches no player", "signups", g, "remove", "Ann")
	s.fails(1, "taking sign-ups", "extend", g, "24h")
	s.fails(1, "taking sign-ups", "pause", g)
	s.fails(2, "signups GAME close", "signups", g, "open")
	s.ok("end", g)
	if text := s.ok("status", g); !strings.Contains(text, "— cancelled") || !strings.Contains(text, "sign-ups: cancelled with 0 in") {
		t.Errorf("status after end:\n%s", text)
	}
	if box := s.outbox(g); len(box) != 2 || !strings.Contains(box[1].Body, "cancelled") {
		t.Errorf("the cancel post is not queued: %+v", box)
	}
	s.fails(1, "not taking sign-ups", "signups", g, "close")
}
