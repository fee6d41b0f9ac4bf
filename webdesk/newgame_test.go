package webdesk

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/demo"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/moderator"
	"github.com/forumgm/forumgm/probe"
	"github.com/forumgm/forumgm/replay/gametest"
	"github.com/forumgm/forumgm/store"
)

// newGameRig is a desk with no games yet beside a local board to create
// one on, the board checked for real (probe.ForGame, as forumgm probe).
type newGameRig struct {
	*rig
	board   *demo.Board
	env     string // holds the bot's password
	gameDir string
}

func newGameDesk(t *testing.T, kind string) *newGameRig {
	t.Helper()
	b, err := demo.NewBoard(kind, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := b.Stop(); err != nil {
			t.Error(err)
		}
	})
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	rnd := make([]byte, 4)
	rand.Read(rnd)
	env := "FORUMGM_NEWGAME_TEST_PW_" + hex.EncodeToString(rnd)
	setEnv(t, env, b.BotPW)
	m := &moderator.Moderator{DB: db, Clock: clock.Real{}, Connect: func(ctx context.Context, site *gameconfig.Site) (moderator.Forum, error) {
		return forumconn.Connect(site, clock.Real{}, "webdesk-test")
	}}
	dir := t.TempDir()
	r := &rig{played: &played{M: m, DB: db, Board: b}, now: time.Now()}
	d, err := New(Config{Moderator: m, Secret: testSecret, Now: func() time.Time { return r.now }, GameDir: dir,
		Probe: func(ctx context.Context, fc gameconfig.ForumConfig) (*probe.Report, error) {
			return probe.ForGame(ctx, fc, "webdesk-test", false)
		}})
	if err != nil {
		t.Fatal(err)
	}
	r.desk = d
	r.srv = httptest.NewServer(d.Handler())
	t.Cleanup(r.srv.Close)
	r.c = client()
	return &newGameRig{rig: r, board: b, env: env, gameDir: dir}
}

// form is a filled-in new-game form for the local board.
func (g *newGameRig) form(csrf, kind, name string) url.Values {
	fc := g.board.ForumConfig(g.env, 1)
	var players []string
	for _, p := range g.board.Players() {
		players = append(players, p.ForumName+", "+p.ForumUserID)
	}
	return url.Values{"csrf": {csrf}, "game": {kind}, "name": {name}, "url": {fc.URL}, "engine": {"phpbb"}, "thread": {fc.Thread},
		"bot": {fc.Bot}, "password_from": {"env"}, "password_env": {g.env}, "players": {strings.Join(players, "\n")}}
}

// fieldErrors are the errors the form shows, by field.
func fieldErrors(t *testing.T, page string) map[string]string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	doc.Find(".field .error").Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("id")
		name := strings.TrimPrefix(id, "err-")
		out[name] = s.Text()
		// The field says the error is about it.
		in := doc.Find("#f-" + strings.ReplaceAll(name, ".", `\.`))
		if d, _ := in.Attr("aria-describedby"); !strings.Contains(d, id) {
			t.Errorf("field %s is not described by its error (aria-describedby %q)", name, d)
		}
	})
	return out
}

func (g *newGameRig) games(t *testing.T) []string {
	t.Helper()
	rs, err := g.M.Report(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Name)
	}
	return out
}

// TestNewGameForm: a game set up from the desk alone. The form is built
// from the game's description; every field error is shown beside its
// field, with what was typed kept (and escaped); a board that fails its
// check shows the checklist with its fixes and creates nothing; the GM
// may go ahead anyway; a board that passes gets the game created, its
// game file written and offered for download, and that file is the game.
func TestNewGameForm(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a local board")
	}
	g := newGameDesk(t, "resistance")
	csrf := g.login(t)

	_, body := g.get(t, "/new")
	for _, want := range []string{"The Resistance", "Protest", "Nations", `href="/new?game=resistance"`} {
		if !strings.Contains(body, want) {
			t.Errorf("/new lacks %q", want)
		}
	}
	_, body = g.get(t, "/new?game=resistance")
	for _, want := range []string{`name="opt.rejection_limit"`, `name="opt.phase_hours"`, `name="opt.missing_vote"`, "Rejected proposals that give the spies the game", "1 to 100", "5 to 10 players"} {
		if !strings.Contains(body, want) {
			t.Errorf("the Resistance form lacks %q", want)
		}
	}
	if resp, _ := g.post(t, "/new", url.Values{"game": {"resistance"}, "name": {"x"}}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a form without the CSRF token: %s", resp.Status)
	}

	// Every mistake beside its field.
	bad := g.form(csrf, "resistance", "my <game>")
	bad.Set("url", "forum.example.org")
	bad.Set("thread", "t=12")
	bad.Set("password_env", "hunter2 is my password")
	bad.Set("players", "Ann, 1\nBen, 2\nCat, 3")
	bad.Set("opt.rejection_limit", "0")
	bad.Set("opt.phase_hours", "abc")
	resp, body := g.post(t, "/new", bad)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("a form with mistakes: %s", resp.Status)
	}
	errs := fieldErrors(t, body)
	for field, want := range map[string]string{
		"url": "https://", "thread": "whole number", "password_env": "not the password",
		"players": "needs 5 to 10 players, not 3", "opt.rejection_limit": "must be 1 to 100, not 0", "opt.phase_hours": "abc is not a finite number",
	} {
		if !strings.Contains(errs[field], want) {
			t.Errorf("field %s shows %q, want %q", field, errs[field], want)
		}
	}
	for field, e := range errs {
		if raw := gametest.Raw(e); raw != "" {
			t.Errorf("field %s's error %q reads %q", field, e, raw)
		}
	}
	if !strings.Contains(body, `value="my &lt;game&gt;"`) || strings.Contains(body, "<game>") {
		t.Error("the form does not keep what was typed, escaped")
	}
	if !strings.Contains(body, `id="error-summary"`) || !strings.Contains(body, `href="#f-players"`) {
		t.Error("no summary of the fields to fix at the top")
	}
	if len(g.games(t)) != 0 {
		t.Fatal("a form with mistakes created a game")
	}
	// The name: as forumgm new checks it.
	bad = g.form(csrf, "resistance", "my game")
	_, body = g.post(t, "/new", bad)
	if e := fieldErrors(t, body)["name"]; !strings.Contains(e, "letters, digits") {
		t.Errorf("a name with a space: %q", e)
	}

	// Deadlines on whole seconds: out of range, beside its field.
	bad = g.form(csrf, "resistance", "units")
	bad.Set("deadline_unit_seconds", "-5")
	_, body = g.post(t, "/new", bad)
	if e := fieldErrors(t, body)["deadline_unit_seconds"]; !strings.Contains(e, "must be 0 to 86400, not -5") {
		t.Errorf("deadlines on whole -5 seconds: %q", e)
	}

	// The board check fails (the bot's password is wrong): the checklist
	// with its fix, and no game.
	setEnv(t, g.env, "not-the-password")
	resp, body = g.post(t, "/new", g.form(csrf, "resistance", "forced"))
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="checklist"`) || !strings.Contains(body, "The board check found problems") {
		t.Fatalf("a board whose check fails: %s\n%s", resp.Status, body)
	}
	doc, _ := goquery.NewDocumentFromReader(strings.NewReader(body))
	login := doc.Find("#checklist li.fail").First()
	if !strings.Contains(login.Text(), "login") || !strings.Contains(login.Find(".fix").Text(), "password") {
		t.Errorf("the failing check does not say what failed and how to fix it: %q", login.Text())
	}
	if doc.Find("#create-anyway").Length() != 1 {
		t.Error("no way to create the game anyway")
	}
	if len(g.games(t)) != 0 {
		t.Fatal("a board whose check failed got a game")
	}
	// The GM goes ahead anyway.
	f := g.form(csrf, "resistance", "forced")
	f.Set("force", "yes")
	resp, _ = g.post(t, "/new", f)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/new/created/forced" {
		t.Fatalf("create anyway: %s to %q", resp.Status, resp.Header.Get("Location"))
	}
	if resp, body = g.get(t, "/new/created/forced"); !strings.Contains(body, "Created although the board check did not pass") {
		t.Errorf("the page after a forced creation does not say the check failed: %s\n%s", resp.Status, body)
	}

	// The check passes: the game is created at once.
	setEnv(t, g.env, g.board.BotPW)
	f = g.form(csrf, "resistance", "desk-made")
	f.Set("opt.rejection_limit", "4")
	f.Set("opt.missing_vote", "reject")
	f.Set("seed", "77")
	f.Set("deadline_unit_seconds", "1")
	resp, _ = g.post(t, "/new", f)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a good form: %s", resp.Status)
	}
	_, body = g.get(t, "/new/created/desk-made")
	for _, want := range []string{"Board checked: everything a game needs works", `href="/game/desk-made/game.yaml"`, filepath.Join(g.gameDir, "desk-made.game.yaml")} {
		if !strings.Contains(body, want) {
			t.Errorf("the page after creating lacks %q", want)
		}
	}
	if fmt.Sprint(g.games(t)) != "[desk-made forced]" && fmt.Sprint(g.games(t)) != "[forced desk-made]" {
		t.Errorf("games %v", g.games(t))
	}
	// The file written is the file offered, and it is the game.
	written, err := os.ReadFile(filepath.Join(g.gameDir, "desk-made.game.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	resp, offered := g.get(t, "/game/desk-made/game.yaml")
	if resp.StatusCode != http.StatusOK || !strings.Contains(resp.Header.Get("Content-Disposition"), "desk-made.game.yaml") {
		t.Errorf("download: %s %q", resp.Status, resp.Header.Get("Content-Disposition"))
	}
	for _, file := range []string{string(written), offered} {
		if strings.Contains(file, g.board.BotPW) || !strings.Contains(file, "password_env: "+g.env) {
			t.Errorf("the game file holds the password, or not where it is:\n%s", file)
		}
		p := filepath.Join(t.TempDir(), "g.game.yaml")
		os.WriteFile(p, []byte(file), 0o644)
		gf, err := gameconfig.LoadGameFile(p)
		if err != nil {
			t.Fatalf("the game file does not load: %v\n%s", err, file)
		}
		if u := gf.Forum.DeadlineUnitSeconds; u == nil || *u != 1 {
			t.Errorf("the game file's deadline_unit_seconds: %v, want 1\n%s", u, file)
		}
		if gf.Name != "desk-made" || *gf.Seed != 77 || fmt.Sprint(gf.Options) != "map[missing_vote:reject rejection_limit:4]" || len(gf.Players) != len(g.board.Players()) || gf.Players[0].ID == "" {
			t.Errorf("the game file: %+v\n%s", gf, file)
		}
	}
	// The same name again: refused beside the name.
	_, body = g.post(t, "/new", g.form(csrf, "resistance", "desk-made"))
	if e := fieldErrors(t, body)["name"]; !strings.Contains(e, "already") {
		t.Errorf("a name taken: %q", e)
	}
	rs, _ := g.M.Report(context.Background(), "desk-made")
	if rs[0].Pending == 0 {
		t.Error("the created game has no opening post queued")
	}
}

// TestNewGameWithSignups: a game from the desk filled by sign-ups in its
// thread: no players, a closing time and the least and most players. A
// form with neither players nor sign-ups, or a closing time the game file
// check refuses, shows the error beside its field; a good one creates the
// game taking sign-ups, and its game file has the signups block.
func TestNewGameWithSignups(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("checks a local board")
	}
	g := newGameDesk(t, "resistance")
	csrf := g.login(t)
	if _, body := g.get(t, "/new?game=resistance"); !strings.Contains(body, `name="signups_close"`) {
		t.Fatal("the form has no sign-ups fields")
	}
	f := g.form(csrf, "resistance", "su-made")
	f.Set("players", "")
	_, body := g.post(t, "/new", f)
	if e := fieldErrors(t, body)["players"]; !strings.Contains(e, "signups") {
		t.Errorf("neither players nor sign-ups: %q", e)
	}
	f.Set("signups_close", "whenever")
	_, body = g.post(t, "/new", f)
	if e := fieldErrors(t, body)["signups_close"]; !strings.Contains(e, "a length of time from the call") {
		t.Errorf("a closing time that is none: %q", e)
	}
	f.Set("signups_close", "48h")
	f.Set("signups_max", "6")
	f.Set("signups_min", "seven")
	_, body = g.post(t, "/new", f)
	if e := fieldErrors(t, body)["signups_min"]; !strings.Contains(e, "whole number") {
		t.Errorf("min not a number: %q", e)
	}
	f.Set("signups_min", "5")
	resp, _ := g.post(t, "/new", f)
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("a good sign-ups form: %s", resp.Status)
	}
	l, err := g.M.Signups(context.Background(), "su-made")
	if err != nil || !l.Open || l.Min != 5 || l.Max != 6 || len(l.In) != 0 {
		t.Fatalf("the game made: %+v, %v", l, err)
	}
	_, file := g.get(t, "/game/su-made/game.yaml")
	p := filepath.Join(t.TempDir(), "g.game.yaml")
	os.WriteFile(p, []byte(file), 0o644)
	gf, err := gameconfig.LoadGameFile(p)
	if err != nil || gf.Signups == nil || gf.Signups.Max != 6 || len(gf.Players) != 0 {
		t.Fatalf("the game file: %v\n%s", err, file)
	}
}
