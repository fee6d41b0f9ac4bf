package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/forumgm/forumgm/gamelog"
	"github.com/forumgm/forumgm/store"
)

var snakeKey = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// jsonKeys reports every object key in v that is not snake_case, leaving
// out the objects keyed by data (player names in scores, game-specific
// extras).
func jsonKeys(t *testing.T, where string, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if !snakeKey.MatchString(k) {
				t.Errorf("%s: key %q is not snake_case", where, k)
			}
			if k != "scores" && k != "extra" {
				jsonKeys(t, where+"."+k, sub)
			}
		}
	case []any:
		for _, sub := range x {
			jsonKeys(t, where+"[]", sub)
		}
	}
}

// TestJSONFieldNames: `status --json` and `audit --json` name their fields
// one way (snake_case), the audit's messages, commands and outbox items
// included.
func TestJSONFieldNames(t *testing.T) {
	s := newGMSession(t)
	s.ok("new", "--no-probe", absPath(t, filepath.Join("testdata", "games", "spies.game.yaml")))
	for _, args := range [][]string{{"status", "--json"}, {"audit", "--json", "--outbox", "spies-cli"}} {
		var v any
		if err := json.Unmarshal([]byte(s.ok(args...)), &v); err != nil {
			t.Fatal(err)
		}
		jsonKeys(t, args[0], v)
	}
	// A fresh game has read nothing yet: the audit rows' own fields, too.
	b, err := json.Marshal(gamelog.AuditRow{Message: store.Message{}, Commands: []store.CommandRow{{}}})
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(b, &v)
	jsonKeys(t, "audit row", v)
}

// TestNoInternalPrefixes: an error a GM reads says what went wrong, not
// which package noticed ("store: not found").
func TestNoInternalPrefixes(t *testing.T) {
	s := newGMSession(t)
	s.ok("new", "--no-probe", absPath(t, filepath.Join("testdata", "games", "spies.game.yaml")))
	for _, args := range [][]string{{"status", "no-such-game"}, {"pause", "no-such-game"}, {"audit", "no-such-game"}} {
		r := s.run(args...)
		if r.code == 0 || !strings.Contains(r.stderr, "not found") {
			t.Errorf("forumgm %v: want a not-found error\n%s", args, r)
		}
		for _, p := range []string{"store:", "moderator:", "sql:"} {
			if strings.Contains(r.stderr, p) {
				t.Errorf("forumgm %v says %q", args, r.stderr)
			}
		}
	}
}
