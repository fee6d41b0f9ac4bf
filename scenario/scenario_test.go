package scenario

import (
	"errors"
	"strings"
	"testing"
)

func TestParseGood(t *testing.T) {
	t.Parallel()
	src := `game: nations
seed: 7
players: [Alice, Bob]
aliases: {Alice: [Ali]}
options: {rounds: 3}
script:
  - post: Alice
    text: "[b]CIV: Fire[/b]"
  - pm: Bob
    text: |
      INVADE Alice
      PROSPER
  - deadline: true
`
	sc, err := Parse("x.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Game != "nations" || *sc.Seed != 7 || len(sc.Script) != 3 || sc.Script[1].Line != 9 || !sc.Script[2].Deadline {
		t.Fatalf("%+v", sc)
	}
	if sc.Options["rounds"] != 3 || sc.Aliases["Alice"][0] != "Ali" {
		t.Fatalf("%+v", sc)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"bad yaml", "game: nations\nplayers: [Alice\nscript: []\n", 0, ""},
		{"unknown top key", "game: nations\nplayer: [A]\nscript: []\n", 2, `unknown key "player"`},
		{"no game", "players: [A]\nscript: []\n", 1, `missing key "game"`},
		{"no players", "game: nations\nplayers: []\nscript: []\n", 2, "at least one"},
		{"duplicate player", "game: nations\nplayers: [A, A]\nscript: []\n", 2, "listed twice"},
		{"script not a list", "game: nations\nplayers: [A]\nscript: 5\n", 0, ""},
		{"two kinds in a step", "game: nations\nplayers: [A]\nscript:\n  - post: A\n    pm: A\n    text: x\n", 4, "exactly one of"},
		{"unknown step key", "game: nations\nplayers: [A]\nscript:\n  - post: A\n    txt: x\n", 5, `unknown key "txt"`},
		{"missing text", "game: nations\nplayers: [A]\nscript:\n  - deadline: true\n  - pm: A\n", 5, "needs a text"},
		{"wrong type", "game: nations\nseed: seven\nplayers: [A]\nscript: []\n", 2, "seven"},
		{"trailing empty step", "game: nations\nplayers: [A, B]\nscript:\n  - deadline: true\n  -\n", 5, "must be a mapping"},
		{"alias of stranger", "game: nations\nplayers: [A]\naliases: {B: [x]}\nscript: []\n", 3, "not in players"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("f.yaml", []byte(tc.src))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if tc.line > 0 && se.Line != tc.line {
				t.Errorf("line %d, want %d (%v)", se.Line, tc.line, err)
			}
			if se.Line == 0 && tc.line == 0 && !strings.Contains(err.Error(), "f.yaml") {
				t.Errorf("error should name the file: %v", err)
			}
			if !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("%v, want it to contain %q", err, tc.msg)
			}
		})
	}
}
