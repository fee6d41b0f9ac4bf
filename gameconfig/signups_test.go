package gameconfig

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const okSignups = "name: x\ngame: resistance\nforum: {url: u, thread: '1', bot: b, password_env: P}\n"

// TestGameFileSignups: a game file with signups: instead of players: loads
// on phpBB without any user id (they are read from the posts), its block
// reaches the game's config, and the game has no players until sign-ups
// close.
func TestGameFileSignups(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.yaml")
	os.WriteFile(p, []byte(okSignups+"signups: {min: 5, max: 7, close: 48h, extension: 12h, gm: TheHost, about: 'A friendly game.'}\n"), 0o644)
	gf, err := LoadGameFile(p)
	if err != nil {
		t.Fatal(err)
	}
	gc, _, ps := gf.Configs(time.Now())
	if gc.Signups == nil || gc.Signups.Min != 5 || gc.Signups.Max != 7 || len(gc.Signups.GM) != 1 || gc.Signups.GM[0] != "TheHost" ||
		gc.Signups.ExtensionTime() != 12*time.Hour || gc.Signups.About != "A friendly game." {
		t.Errorf("signups %+v", gc.Signups)
	}
	if len(gc.Players) != 0 || len(ps) != 0 || !gc.SigningUp() {
		t.Errorf("players %v %v, signing up %v", gc.Players, ps, gc.SigningUp())
	}
	os.WriteFile(p, []byte(okSignups+"signups: {min: 5, max: 5, close: 2d, gm: [Ann, Bob]}\n"), 0o644)
	if gf, err = LoadGameFile(p); err != nil {
		t.Fatal(err)
	}
	if s := gf.Signups; len(s.GM) != 2 || s.ExtensionTime() != DefaultSignupExtended {
		t.Errorf("signups %+v", s)
	}
	// A fixed setup that names no player (Protest's map) goes with sign-ups.
	os.WriteFile(p, []byte(strings.Replace(okSignups, "resistance", "protest", 1)+
		"signups: {min: 4, max: 8, close: 2d}\nsetup: {map: {columns: 12, rows: 10, layout: odd-q}}\n"), 0o644)
	if _, err := LoadGameFile(p); err != nil {
		t.Error(err)
	}
}

func TestGameFileSignupsErrors(t *testing.T) {
	dir := t.TempDir()
	future := time.Now().Add(48 * time.Hour).UTC().Format(time.RFC3339)
	for _, tc := range []struct{ name, src, want string }{
		{"both", okSignups + "players: [{name: a, id: '1'}]\nsignups: {min: 5, max: 7, close: 2d}\n", "both given"},
		{"neither", okSignups, "signups: to take sign-ups"},
		{"aliases", okSignups + "signups: {min: 5, max: 7, close: 2d}\naliases: {Ann: [Annie]}\n", "aliases: and start:"},
		{"start", okSignups + "signups: {min: 5, max: 7, close: 2d}\nstart: 2030-01-01T00:00:00Z\n", "aliases: and start:"},
		// A fixed setup naming players cannot be known before they sign up.
		{"setup naming players", okSignups + "signups: {min: 5, max: 7, close: 2d}\nsetup: {roles: {Ann: spy}}\n", "cannot be set up with 5 players"},
		{"min zero", okSignups + "signups: {max: 7, close: 2d}\n", "at least 1"},
		{"min over max", okSignups + "signups: {min: 8, max: 7, close: 2d}\n", "min 8 is more than max 7"},
		{"too many", okSignups + "signups: {min: 5, max: 80, close: 2d}\n", "at most 50"},
		{"not seats of the game", okSignups + "signups: {min: 3, max: 7, close: 2d}\n", "cannot be set up with 3 players"},
		{"above the game's", okSignups + "signups: {min: 5, max: 11, close: 2d}\n", "cannot be set up with 11 players"},
		{"no close", okSignups + "signups: {min: 5, max: 7}\n", "close is missing"},
		{"bad close", okSignups + "signups: {min: 5, max: 7, close: soon}\n", `close "soon"`},
		{"close in the past", okSignups + "signups: {min: 5, max: 7, close: '2020-01-01 20:00'}\n", "not in the future"},
		{"close too far", okSignups + "signups: {min: 5, max: 7, close: 400d}\n", "0.1s to 366d"},
		{"close negative", okSignups + "signups: {min: 5, max: 7, close: -2h}\n", "0.1s to 366d"},
		{"close zone", okSignups + "signups: {min: 5, max: 7, close: '2030-01-01 20:00 Mars/Base'}\n", "not a time zone"},
		{"close clock", okSignups + "signups: {min: 5, max: 7, close: '2030-01-01 25:00'}\n", "write a time as"},
		{"extension", okSignups + "signups: {min: 5, max: 7, close: 2d, extension: 10d}\n", "0 (cancel at once) to 7d"},
		{"extension text", okSignups + "signups: {min: 5, max: 7, close: 2d, extension: later}\n", "extension"},
		{"gm without letters", okSignups + "signups: {min: 5, max: 7, close: 2d, gm: '--'}\n", "no letters or digits"},
		{"misspelt", okSignups + "signups: {min: 5, max: 7, closes: 2d}\n", "closes"},
		{"rfc3339 in the past", okSignups + "signups: {min: 5, max: 7, close: '2001-01-01T00:00:00Z'}\n", "not in the future"},
		{"fine, refused for another reason", okSignups + "signups: {min: 5, max: 7, close: '" + future + "'}\npublic_url: nope\n", "public_url"},
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(tc.src), 0o644)
		_, err := LoadGameFile(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSignupsClosing: the closing time as a length from the call, an RFC
// 3339 time, or a wall time in the board's zone or a named one.
func TestSignupsClosing(t *testing.T) {
	from := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	ny, _ := time.LoadLocation("America/New_York")
	for _, tc := range []struct {
		close string
		board *time.Location
		want  string
	}{
		{"48h", ny, "2026-03-03T12:00:00Z"},
		{"1.5d", nil, "2026-03-03T00:00:00Z"},
		{"90m", nil, "2026-03-01T13:30:00Z"},
		{"2026-03-02T20:00:00-05:00", time.UTC, "2026-03-03T01:00:00Z"},
		{"2026-03-02 20:00", ny, "2026-03-03T01:00:00Z"},
		{"2026-03-02 20:00", nil, "2026-03-02T20:00:00Z"},
		{"2026-07-02 20:00 Europe/London", ny, "2026-07-02T19:00:00Z"},
	} {
		s := Signups{Close: tc.close}
		got, err := s.Closing(from, tc.board)
		if err != nil || got.Format(time.RFC3339) != tc.want {
			t.Errorf("%q: %v %v, want %s", tc.close, got, err, tc.want)
		}
	}
}

// TestExampleSignupsBlocks: the commented signups: block of every example
// game file loads, uncommented, as a game file's.
func TestExampleSignupsBlocks(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.game.yaml")
	for _, f := range files {
		gf, err := LoadGameFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(f)
		var block []string
		for _, line := range strings.Split(string(b), "\n") {
			switch {
			case strings.HasPrefix(line, "# signups:"):
				block = append(block, strings.TrimPrefix(line, "# "))
			case len(block) > 0 && strings.HasPrefix(line, "#   "):
				block = append(block, strings.TrimPrefix(line, "# "))
			case len(block) > 0:
				goto found
			}
		}
	found:
		if len(block) == 0 {
			t.Errorf("%s has no commented signups: example", f)
			continue
		}
		src := strings.Replace(okSignups, "resistance", gf.Game, 1) + strings.Join(block, "\n") + "\n"
		p := filepath.Join(t.TempDir(), "g.yaml")
		os.WriteFile(p, []byte(src), 0o644)
		if gf, err := LoadGameFile(p); err != nil || gf.Signups == nil {
			t.Errorf("%s's signups example: %v\n%s", f, err, src)
		}
	}
}
