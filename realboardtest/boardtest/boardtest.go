//go:build linux

// Package boardtest holds what the real-board tests share (the phpBB and
// MyBB tests in realboardtest, the SMF ones in smftest, the games in
// realgames): the bot's or a player's connection made as forumgm run makes
// it, and the checks that read the same on every engine.
package boardtest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/parser"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/scraper"
)

// Connect opens an account's connection to a board the way forumgm run
// does (built-in profile, real login through the board's form), with quick
// request pacing.
func Connect(t testing.TB, b *realboardtest.Board, a realboardtest.Account) *forumconn.Conn {
	t.Helper()
	prof, ok := forum.Builtin(b.Engine)
	if !ok {
		t.Fatalf("no built-in profile %s", b.Engine)
	}
	c, err := forumconn.Open(b.URL, prof, forum.Credentials{Username: a.Name, Password: a.Password},
		scraper.Options{MinInterval: 20 * time.Millisecond, Retries: 2, Backoff: 200 * time.Millisecond,
			Log: TestLog(t).With("account", a.Name)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestLog is a logger writing to the test's log.
func TestLog(t testing.TB) *slog.Logger { return slog.New(slog.NewTextHandler(t.Output(), nil)) }

// Reader is the body reader of the board's built-in profile: what the bot
// reads from a post's or PM's body there.
func Reader(t testing.TB, b *realboardtest.Board) *parser.BodyReader {
	t.Helper()
	prof, ok := forum.Builtin(b.Engine)
	if !ok {
		t.Fatalf("no built-in profile %s", b.Engine)
	}
	r, err := parser.NewBodyReader(prof)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Get fetches a page that must answer 200.
func Get(t testing.TB, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return string(body)
}

// CheckStart checks what realboardtest.Start promises of a board started with
// the players Alice and Bjørn: the thread page (threadPath, relative to the
// board) holds the opening post and each of wants, the accounts exist with
// their ids (accounts: the engine's query of ids and names, with %s for the
// list of ids), PHP snippets run inside the board, and Stop ends the server.
func CheckStart(t *testing.T, b *realboardtest.Board, threadPath, accounts string, wants ...string) {
	t.Helper()
	page := Get(t, b.URL+threadPath)
	for _, want := range append([]string{"Welcome to the game", "GMBot"}, wants...) {
		if !strings.Contains(page, want) {
			t.Errorf("thread page lacks %q", want)
		}
	}
	ids := b.Bot.IDString() + "," + b.Player("Alice").IDString() + "," + b.Player("Bjørn").IDString()
	rows := b.Query(t, strings.Replace(accounts, "%s", ids, 1))
	names := map[string]bool{}
	for _, r := range rows {
		names[r["name"].(string)] = true
	}
	if len(rows) != 3 || !names["GMBot"] || !names["Alice"] || !names["Bjørn"] {
		t.Errorf("accounts in the database: %v", rows)
	}
	if got := strings.TrimSpace(b.PHP(t, "echo 6*7;")); got != "42" {
		t.Errorf("PHP snippet printed %q", got)
	}
	b.Stop()
	if _, err := http.Get(b.URL); err == nil {
		t.Errorf("the board still answers after Stop")
	}
}

// CheckInboxPM has the player Bob send the bot a two-line PM through the
// board and checks that the bot's connection c reads it from its inbox:
// sender, subject, one line a command, and a time from since to about now.
func CheckInboxPM(t *testing.T, ctx context.Context, c *forumconn.Conn, b *realboardtest.Board, since time.Time) {
	t.Helper()
	bob := b.Player("Bob")
	sent := b.PM(t, bob, b.Bot, "orders", "INVADE Alice\nDEFEND")
	box, err := c.NewPMs(ctx, nil, nil)
	if err != nil {
		t.Fatalf("inbox: %v", err)
	}
	pms := box.PMs
	var pm *forum.PrivateMessage
	for i := range pms {
		if pms[i].ID == strconv.Itoa(sent) {
			pm = &pms[i]
		}
	}
	if pm == nil {
		t.Fatalf("PM %d not in the inbox read: %+v", sent, pms)
	}
	if pm.From.Name != bob.Name || pm.From.ID != bob.IDString() || pm.Subject != "orders" {
		t.Errorf("PM from %+v subject %q; want Bob (%d), orders", pm.From, pm.Subject, bob.ID)
	}
	if lines := Reader(t, b).Lines(pm.BodyHTML); strings.Join(lines, "|") != "INVADE Alice|DEFEND" {
		t.Errorf("PM lines %q", lines)
	}
	if pm.Time.Before(since) || pm.Time.After(time.Now().UTC().Add(time.Minute)) {
		t.Errorf("PM time %v, want about now", pm.Time)
	}
}
