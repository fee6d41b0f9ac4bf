package realgames

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/rules"
	"github.com/forumgm/forumgm/store"
	"github.com/forumgm/forumgm/webdesk"
)

// TestDeskCreatesGame: a GM sets a game up on a real phpBB board from the
// web desk alone (issue 20). The desk's new-game form is posted as a
// browser posts it: the first try names the wrong thread, and the board
// check fails with its checklist and fix, creating nothing; the second
// passes the check and creates the game, writing its game file. The game
// is then played to its end by the real-board harness, with the moderator
// `forumgm run` uses, and checked as TestWholeGames checks its games.
// About 2 minutes of real time, side by side with the other tests.
func TestDeskCreatesGame(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("plays a whole game in real time")
	}
	w := wholeGame{kind: "resistance", engine: realboardtest.PhpBB, speed: 2, seed: 3, limit: 8 * time.Minute, players: 5, toTheSecond: true} // as TestWholeGames gives it
	g, _ := rules.Lookup(w.kind)
	demo := g.(rules.Demo).DemoTable(w.speed)
	demo.Players = demo.Players[:w.players]
	b := realboardtest.Start(t, w.engine, realboardtest.Options{Players: demo.Players, Subject: demo.Title,
		Opening: "Sign-ups are closed. The game starts below; forumgm is your GM."})
	b.ExemptBot(t)

	// The desk, as `forumgm web` serves it, over the store `forumgm run`
	// moderates; the bot's password in a file only its owner reads.
	ctx := context.Background()
	dir := t.TempDir()
	pwFile := filepath.Join(dir, "bot.password")
	if err := os.WriteFile(pwFile, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(ctx, filepath.Join(dir, "forumgm.db"))
	if err != nil {
		t.Fatal(err)
	}
	m := &moderator.Moderator{DB: db, Clock: clock.Real{},
		Log: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
			return forumconn.Connect(site, clock.Real{}, "realgames-test")
		}}
	const secret = "a desk password for the test"
	gameDir := filepath.Join(dir, "games")
	os.Mkdir(gameDir, 0o755)
	desk, err := webdesk.New(webdesk.Config{Moderator: m, Secret: secret, GameDir: gameDir,
		Probe: func(ctx context.Context, fc gameconfig.ForumConfig) (*probe.Report, error) {
			return probe.ForGame(ctx, fc, "realgames-test", false)
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(desk.Handler())
	t.Cleanup(srv.Close)

	// The GM's browser.
	jar, _ := cookiejar.New(nil)
	gm := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (*http.Response, string) {
		t.Helper()
		resp, err := gm.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	post := func(path string, form url.Values) (*http.Response, string) {
		t.Helper()
		resp, err := gm.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	csrfOf := regexp.MustCompile(`name="csrf" value="([^"]+)"`)
	_, body := get("/login")
	if resp, _ := post("/login", url.Values{"csrf": {csrfOf.FindStringSubmatch(body)[1]}, "password": {secret}, "next": {"/new"}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %s", resp.Status)
	}
	_, body = get("/new?game=resistance")
	if !strings.Contains(body, `name="opt.phase_hours"`) {
		t.Fatalf("no Resistance form:\n%s", body)
	}
	var players []string
	for _, a := range b.Players {
		players = append(players, a.Name+", "+a.IDString())
	}
	form := url.Values{"csrf": {csrfOf.FindStringSubmatch(body)[1]}, "game": {"resistance"}, "name": {"desk-made"},
		"url": {b.URL}, "engine": {"phpbb"}, "thread": {"99999"}, "bot": {b.Bot.Name},
		"password_from": {"file"}, "password_file": {pwFile}, "players": {strings.Join(players, "\n")},
		"opt.phase_hours": {strconvF(demo.Options["phase_hours"])}, "seed": {"3"},
		// The bot reads once a second, flood-exempt, at the harness's pace.
		"poll_seconds": {"1"}, "flood_seconds": {"0"}, "requests_per_second": {"50"},
		// Deadlines to the second, as TestWholeGames plays this game.
		"deadline_unit_seconds": {"0"}}

	// A thread that is none: the check fails, with its fix; no game.
	resp, body := post("/new", form)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "The board check found problems") || !regexp.MustCompile(`(?s)<li class="fail">.*thread, first page.*Fix:`).MatchString(body) {
		t.Fatalf("the check of a thread that is none: %s\n%s", resp.Status, body)
	}
	if rs, _ := m.Report(ctx, ""); len(rs) != 0 {
		t.Fatal("a game was created although the board check failed")
	}
	// The right thread: checked, created.
	form.Set("thread", b.ThreadIDString())
	if resp, body = post("/new", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("creating the game: %s\n%s", resp.Status, body)
	}
	_, body = get("/new/created/desk-made")
	for _, want := range []string{"Board checked: everything a game needs works", "desk-made.game.yaml"} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after creating lacks %q:\n%s", want, body)
		}
	}
	if _, err := gameconfig.LoadGameFile(filepath.Join(gameDir, "desk-made.game.yaml")); err != nil {
		t.Errorf("the game file written: %v", err)
	}

	// The harness plays it out, as it plays the games made by setup.
	var row *store.Game
	if err := db.View(ctx, func(tx *store.Tx) error { var err error; row, err = tx.Game("desk-made"); return err }); err != nil {
		t.Fatal(err)
	}
	var gc gameconfig.GameConfig
	var fc gameconfig.ForumConfig
	if err := json.Unmarshal(row.Config, &gc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(row.Forum, &fc); err != nil {
		t.Fatal(err)
	}
	if fc.PasswordFile != pwFile || fc.PollSeconds != 1 || fc.FloodSeconds == nil || *fc.FloodSeconds != 0 || gc.Seed != 3 ||
		fc.DeadlineUnitSeconds == nil || *fc.DeadlineUnitSeconds != 0 {
		t.Errorf("the game is set up with %+v, %+v", fc, gc)
	}
	slowBoard(t, b)
	tb := &table{t: t, b: b, db: db, m: m, g: row, eng: g, gc: gc, fc: fc}
	tb.run()
	t.Cleanup(func() { tb.stop(); db.Close() })
	playOut(t, tb, w, time.Now())
	// The desk shows the finished game to its GM, as a player's view would.
	if resp, body := get("/game/desk-made/state"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "Proposals and votes") || !strings.Contains(body, "Roles (GM only)") {
		t.Errorf("the GM view of the finished game: %s", resp.Status)
	}
}

func strconvF(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
