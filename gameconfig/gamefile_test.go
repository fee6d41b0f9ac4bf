package gameconfig

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	_ "github.com/forumgm/forumgm/games"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
)

// TestExampleGameFiles checks that every documented example game file loads
// and sets its game up.
func TestExampleGameFiles(t *testing.T) {
	files, _ := filepath.Glob("../examples/*.game.yaml")
	if len(files) != 3 {
		t.Fatalf("want an example game file per game, found %v", files)
	}
	for _, f := range files {
		gf, err := LoadGameFile(f)
		if err != nil {
			t.Fatal(err)
		}
		gc, _, ps := gf.Configs(time.Now())
		eng, err := rules.Lookup(gf.Game)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := eng.Setup(gc.Rules()); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		if len(ps) != len(gc.Players) || gc.Seed == 0 {
			t.Errorf("%s: players %v seed %d", f, ps, gc.Seed)
		}
	}
}

const (
	okForum = "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, password_env: P}\n"
	okMyBB  = "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P}\n"
)

// TestGameFileOptionsNaN: the game file as a GM writes it, with YAML's
// .nan, .inf and 1e300 in each game's length-of-time option, loads and is
// refused by the game's setup with the option named — no panic.
func TestGameFileOptionsNaN(t *testing.T) {
	dir := t.TempDir()
	for game, opt := range map[string]string{"resistance": "phase_hours", "protest": "turn_hours", "nations": "round_minutes"} {
		for _, v := range []string{".nan", ".inf", "-.inf", "1e300", "-5"} {
			src := fmt.Sprintf("name: x\ngame: %s\nforum: {url: u, thread: '1', bot: b, password_env: P}\nplayers: [%s]\noptions: {%s: %s}\n",
				game, "{name: A1, id: '1'}, {name: B1, id: '2'}, {name: C1, id: '3'}, {name: D1, id: '4'}, {name: E1, id: '5'}", opt, v)
			p := filepath.Join(dir, "g.yaml")
			os.WriteFile(p, []byte(src), 0o644)
			gf, err := LoadGameFile(p)
			if err != nil {
				t.Fatal(err)
			}
			gc, _, _ := gf.Configs(time.Now())
			eng, _ := rules.Lookup(game)
			if _, _, err := eng.Setup(gc.Rules()); err == nil || !strings.Contains(err.Error(), opt) {
				t.Errorf("%s %s: %s: %v", game, opt, v, err)
			}
		}
	}
}

func TestGameFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, src, want string }{
		{"no name", "game: nations\n", "missing name"},
		{"typo", "name: x\ngame: nations\nplayerz: [a]\n", "playerz"},
		{"password in file", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, password: hunter2}\nplayers: [a]\n", "password"},
		{"no password source", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b}\nplayers: [{name: a, id: '3'}]\n", "password_env or password_file"},
		{"phpbb without ids", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, password_env: P}\nplayers: [a]\n", "user id"},
		{"bad name", "name: my game\ngame: nations\nforum: {url: u, thread: '1', bot: b, password_env: P}\nplayers: [{name: a, id: '3'}]\n", "letters, digits"},
		{"engine", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: vbulletin, password_env: P}\nplayers: [a]\n", "one of phpbb, mybb, smf"},
		// Bob's role PM would go to Alice's account.
		{"duplicate id", okForum + "players: [{name: Alice, id: '52'}, {name: Bob, id: '52'}]\n", "Alice and Bob both have forum user id 52"},
		{"duplicate id, spaces and zeros", okForum + "players: [{name: Alice, id: '52'}, {name: Bob, id: ' 052'}]\n", "both have forum user id 52"},
		{"duplicate id, mybb", okMyBB + "players: [{name: Alice, id: '7'}, Carol, {name: Bob, id: '7'}]\n", "both have forum user id 7"},
		{"id not a number", okForum + "players: [{name: Alice, id: 'u52'}]\n", "not a forum user id"},
		{"id zero", okForum + "players: [{name: Alice, id: '0'}]\n", "not a forum user id"},
		{"duplicate name", okForum + "players: [{name: Alice, id: '1'}, {name: Bob, id: '2'}, {name: alice, id: '3'}]\n", `"Alice" and "alice" are the same name`},
		{"duplicate name, separators", okMyBB + "players: [Mary Jane, Bob, mary_jane]\n", "same name"},
		{"name without letters", okMyBB + "players: ['--']\n", "no letters or digits"},
		{"poll nan", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, poll_seconds: .nan}\nplayers: [a]\n", "poll_seconds: NaN is not a finite number"},
		{"poll min nan", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, poll_min_seconds: .nan}\nplayers: [a]\n", "poll_min_seconds: NaN"},
		{"poll max huge", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, poll_max_seconds: 1e9}\nplayers: [a]\n", "poll_max_seconds: must be"},
		{"poll min above poll", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, poll_seconds: 10, poll_min_seconds: 20}\nplayers: [a]\n", "poll_min_seconds: 20 is more than poll_seconds (10)"},
		{"poll max below default poll", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, poll_max_seconds: 20}\nplayers: [a]\n", "poll_max_seconds: 20 is less than poll_seconds (30)"},
		{"full read negative", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, full_read_seconds: -5}\nplayers: [a]\n", "full_read_seconds"},
		{"flood inf", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, flood_seconds: .inf}\nplayers: [a]\n", "flood_seconds"},
		{"flood negative", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, flood_seconds: -1}\nplayers: [a]\n", "flood_seconds"},
		{"late inf", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, late_seconds: .inf}\nplayers: [a]\n", "late_seconds"},
		{"late over ten minutes", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, late_seconds: 601}\nplayers: [a]\n", "late_seconds"},
		{"deadline unit negative", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, deadline_unit_seconds: -60}\nplayers: [a]\n", "deadline_unit_seconds"},
		{"deadline unit over a day", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, deadline_unit_seconds: 90000}\nplayers: [a]\n", "deadline_unit_seconds"},
		{"rate huge", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, requests_per_second: 1e300}\nplayers: [a]\n", "requests_per_second"},
		{"time zone", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, time_zone: Mars/Olympus}\nplayers: [a]\n", "time zone \"Mars/Olympus\""},
		{"engine", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: vbulletin, password_env: P}\nplayers: [a]\n", "one of phpbb"},
		{"outage extension not a bool", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, outage_extension: maybe}\nplayers: [a]\n", "`maybe` into bool"},
		{"outage extension misspelt", "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, engine: mybb, password_env: P, outage_extensions: false}\nplayers: [a]\n", "outage_extensions"},
		{"public url scheme", okMyBB + "players: [a]\npublic_url: ftp://desk.example.org\n", "http:// or https://"},
		{"public url relative", okMyBB + "players: [a]\npublic_url: desk.example.org\n", "http:// or https://"},
		{"public url user", okMyBB + "players: [a]\npublic_url: https://gm:pw@desk.example.org\n", "user or password"},
		{"public url query", okMyBB + "players: [a]\npublic_url: https://desk.example.org/?a=1\n", "query"},
		{"public url bbcode", okMyBB + "players: [a]\npublic_url: 'https://desk.example.org/[/img]'\n", "brackets"},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(tc.src), 0o644)
		_, err := LoadGameFile(p)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestGameFileErrorsWrap: a game file's error keeps the error it came from
// (wrapped, not flattened to text), so a caller can tell a missing profile
// file from a bad one, and still names the game file.
func TestGameFileErrorsWrap(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "g.yaml")
	src := "name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: gone.profile.yaml, password_env: P}\nplayers: [a]\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadGameFile(p)
	if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), p) {
		t.Errorf("a game file naming a missing profile: %v, want an error naming %s that is fs.ErrNotExist", err, p)
	}
}

func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("FGM_PW", "s3cret")
	if c, err := (ForumConfig{Bot: "b", PasswordEnv: "FGM_PW"}).Credentials(); err != nil || c.Password != "s3cret" {
		t.Errorf("env: %v", err)
	}
	if _, err := (ForumConfig{Bot: "b", PasswordEnv: "FGM_NOPE"}).Credentials(); err == nil {
		t.Error("unset env must fail")
	}
	p := filepath.Join(dir, "pw")
	os.WriteFile(p, []byte("filepw\n"), 0o644)
	if _, err := (ForumConfig{Bot: "b", PasswordFile: p}).Credentials(); runtime.GOOS != "windows" && (err == nil || !strings.Contains(err.Error(), "chmod 600")) {
		t.Errorf("a world-readable password file must be refused: %v", err)
	}
	os.Chmod(p, 0o600)
	if c, err := (ForumConfig{Bot: "b", PasswordFile: p}).Credentials(); err != nil || c.Password != "filepw" {
		t.Errorf("file: %v %q", err, c.Password)
	}
	// An empty or blank password file or variable is a mistake, not a password.
	for _, blank := range []string{"", "\n", "\r\n", "   \n", "\t"} {
		os.WriteFile(p, []byte(blank), 0o600)
		if _, err := (ForumConfig{Bot: "b", PasswordFile: p}).Credentials(); err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Errorf("password file %q: %v", blank, err)
		}
		t.Setenv("FGM_BLANK", blank)
		if _, err := (ForumConfig{Bot: "b", PasswordEnv: "FGM_BLANK"}).Credentials(); err == nil {
			t.Errorf("password variable %q was accepted", blank)
		}
	}
}

// TestGameFileProfile: a game file names a profile file relative to
// itself; it is loaded (and checked) with the game file and kept absolute.
func TestGameFileProfile(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "boards")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "mine.profile.yaml"), []byte("base: mybb\nname: mine\nselectors: {post: div.entry}\n"), 0o644)
	os.WriteFile(filepath.Join(sub, "typo.profile.yaml"), []byte("base: mybb\nselectors:\n  postt: div.entry\n"), 0o644)
	write := func(src string) string {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(src), 0o644)
		return p
	}
	gf, err := LoadGameFile(write("name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: boards/mine.profile.yaml, password_env: P}\nplayers: [a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if gf.Forum.Profile != filepath.Join(sub, "mine.profile.yaml") || gf.Forum.Engine != "mybb" {
		t.Errorf("profile %q engine %q", gf.Forum.Profile, gf.Forum.Engine)
	}
	site, err := gf.Forum.Site()
	if err != nil || site.Profile.Selectors.Post != "div.entry" || site.Profile.Name != "mine" {
		t.Errorf("Site: %v %+v", err, site)
	}
	for _, c := range []struct{ src, want string }{
		{"name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: boards/typo.profile.yaml, password_env: P}\nplayers: [a]\n", `line 3: unknown key "selectors.postt"`},
		{"name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: boards/none.yaml, password_env: P}\nplayers: [a]\n", "none.yaml"},
		// A phpBB-based profile addresses PMs by id: players need ids.
		{"name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: ../" + filepath.Base(dir) + "/ph.yaml, password_env: P}\nplayers: [a]\n", "user id"},
	} {
		os.WriteFile(filepath.Join(dir, "ph.yaml"), []byte("base: phpbb\n"), 0o644)
		if _, err := LoadGameFile(write(c.src)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src, err, c.want)
		}
	}
	// The same phpBB-based profile on a board that knows members by name
	// only (user_ids: names, issue 44): the name is the id.
	os.WriteFile(filepath.Join(dir, "names.yaml"), []byte("base: phpbb\nuser_ids: names\n"), 0o644)
	if _, err := LoadGameFile(write("name: x\ngame: nations\nforum: {url: u, thread: '1', bot: b, profile: names.yaml, password_env: P}\nplayers: [a]\n")); err != nil {
		t.Errorf("players by name on a board with user_ids: names: %v", err)
	}
}

// TestOutageExtensionOption: on unless the game file turns it off.
func TestOutageExtensionOption(t *testing.T) {
	dir := t.TempDir()
	for src, want := range map[string]bool{
		okMyBB + "players: [a]\n": true,
		strings.Replace(okMyBB, "password_env: P", "password_env: P, outage_extension: false", 1) + "players: [a]\n": false,
		strings.Replace(okMyBB, "password_env: P", "password_env: P, outage_extension: true", 1) + "players: [a]\n":  true,
	} {
		p := filepath.Join(dir, "g.yaml")
		os.WriteFile(p, []byte(src), 0o644)
		gf, err := LoadGameFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := gf.Forum.ExtendsForOutages(); got != want {
			t.Errorf("%q: extends %v, want %v", src, got, want)
		}
	}
}

// TestGameFilePublicURL: a good public_url is kept (without its trailing
// slash) and reaches the game's config.
func TestGameFilePublicURL(t *testing.T) {
	p := filepath.Join(t.TempDir(), "g.yaml")
	os.WriteFile(p, []byte(okMyBB+"players: [a]\npublic_url: https://desk.example.org/forumgm/\n"), 0o644)
	gf, err := LoadGameFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if gc, _, _ := gf.Configs(time.Now()); gc.PublicURL != "https://desk.example.org/forumgm" {
		t.Errorf("public URL %q", gc.PublicURL)
	}
}

// TestGameFileWritesBack: the game file written for a game (the desk's
// download) loads back as the same game: board, players with their ids,
// options, setup and seed; and it holds no password, only where it is.
func TestGameFileWritesBack(t *testing.T) {
	dir := t.TempDir()
	zero := 0.0
	gc := GameConfig{Players: []string{"Ann", "Ben", "Zoë"}, Options: map[string]any{"rounds": 3, "awards": map[string]any{"winner": "Top"}},
		Setup: map[string]any{"civ": map[string]any{"Ann": "Fire"}}, Seed: 42, Aliases: map[string][]string{"Ann": {"Annie"}}, PublicURL: "https://desk.example.org"}
	fc := ForumConfig{URL: "https://board.example.org/", Engine: "phpbb", Thread: "12", Bot: "GM Bot", PasswordEnv: "BOT_PW", FloodSeconds: &zero, TimeZone: "Europe/Berlin"}
	ps := []store.Player{{ForumName: "Ann", ForumUserID: "52"}, {ForumName: "Ben", ForumUserID: "53"}, {ForumName: "Zoë", ForumUserID: "54"}}
	data, err := FileOf("back", "nations", gc, fc, ps).YAML("written by a test\nsecond line")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "# written by a test\n# second line\n") || strings.Contains(string(data), "password:") {
		t.Errorf("the file:\n%s", data)
	}
	p := filepath.Join(dir, "back.game.yaml")
	os.WriteFile(p, data, 0o644)
	gf, err := LoadGameFile(p)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	gc2, fc2, ps2 := gf.Configs(time.Now())
	if gf.Name != "back" || gf.Game != "nations" || gc2.Seed != 42 || fmt.Sprint(gc2.Players) != fmt.Sprint(gc.Players) ||
		fmt.Sprint(gc2.Options) != fmt.Sprint(gc.Options) || fmt.Sprint(gc2.Setup) != fmt.Sprint(gc.Setup) || fmt.Sprint(gc2.Aliases) != fmt.Sprint(gc.Aliases) || gc2.PublicURL != gc.PublicURL {
		t.Errorf("read back %+v, wrote %+v", gc2, gc)
	}
	if fc2.URL != fc.URL || fc2.Thread != fc.Thread || fc2.Bot != fc.Bot || fc2.PasswordEnv != "BOT_PW" || fc2.TimeZone != fc.TimeZone || fc2.FloodSeconds == nil || *fc2.FloodSeconds != 0 {
		t.Errorf("forum read back %+v", fc2)
	}
	for i, p := range ps2 {
		if p.ForumName != ps[i].ForumName || p.ForumUserID != ps[i].ForumUserID {
			t.Errorf("player %d: %+v, wrote %+v", i, p, ps[i])
		}
	}
}

// TestCheckFields: each problem is reported by the key it is about, all
// of them at once.
func TestCheckFields(t *testing.T) {
	gf := &GameFile{Name: "my game", Game: "nations", Forum: ForumConfig{URL: "u", Thread: "1", Bot: "b", TimeZone: "Mars/Olympus", PollSeconds: -3},
		Players: []PlayerSpec{{Name: "Ann"}}, PublicURL: "ftp://x"}
	got := map[string]bool{}
	for _, e := range gf.Check(t.TempDir()) {
		got[e.Field] = true
	}
	for _, f := range []string{"name", "players", "forum.time_zone", "forum.password", "forum.poll_seconds", "public_url"} {
		if !got[f] {
			t.Errorf("no error for %s: %v", f, gf.Check(t.TempDir()))
		}
	}
}
