//go:build linux

package nodebbtest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/forumgm/forumgm/clock"
	"github.com/forumgm/forumgm/forum"
	"github.com/forumgm/forumgm/forumconn"
	"github.com/forumgm/forumgm/gameconfig"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/boardtest"
)

// forumConfig is the bot's forum settings for a board, as a game file
// names them (engine nodebb, the password in a file only its owner reads).
func forumConfig(t testing.TB, b *realboardtest.NodeBBBoard) gameconfig.ForumConfig {
	t.Helper()
	pw := filepath.Join(t.TempDir(), "bot.password")
	if err := os.WriteFile(pw, []byte(b.Bot.Password), 0o600); err != nil {
		t.Fatal(err)
	}
	return gameconfig.ForumConfig{URL: b.URL, Engine: "nodebb", Thread: b.ThreadIDString(), Bot: b.Bot.Name,
		PasswordFile: pw, PollSeconds: 1, RequestsPerSecond: 50}
}

// connect is the bot's board as forumgm run connects it (forumconn's
// sessions, the port), and the game's site.
func connect(t testing.TB, b *realboardtest.NodeBBBoard, edit ...func(*gameconfig.ForumConfig)) (forum.Board, *gameconfig.Site) {
	t.Helper()
	fc := forumConfig(t, b)
	for _, e := range edit {
		e(&fc)
	}
	site, err := fc.Site()
	if err != nil {
		t.Fatal(err)
	}
	ss := &forumconn.Sessions{Clock: clock.Real{}, Version: "nodebbtest", Log: boardtest.TestLog(t)}
	bd, err := ss.Board(context.Background(), site)
	if err != nil {
		t.Fatal(err)
	}
	return bd, site
}

// user is a's own session on the board.
func user(t testing.TB, b *realboardtest.NodeBBBoard, a realboardtest.Account) *realboardtest.NodeBBUser {
	t.Helper()
	u, err := b.Session(context.Background(), a)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// board is a test's board on the package's shared NodeBB server: one
// NodeBB process and one database for every test side by side, each test
// with a topic and accounts of its own (names with the
// board's number). Its tests neither restart NodeBB nor change its
// settings. The bot's chat messages may follow each other every 0.2 s
// (chatMessageDelay, 2 s by default, the same for administrators): an
// admin's setting, and the chat waits are met on the second server's
// boards.
func board(t testing.TB, opt realboardtest.NodeBBOptions) *realboardtest.NodeBBBoard {
	t.Helper()
	return realboardtest.SharedNodeBB(t, "main", false, map[string]any{"chatMessageDelay": 200}).Board(t, opt)
}

// gameBoard is board on a third shared NodeBB process, set like the first:
// the whole games (Protest, six-player Resistance, the sign-ups game, kill
// -9), whose players and bots make most of the requests. Each NodeBB is
// one thread: on a machine shared with other work two get twice the CPU
// one would.
func gameBoard(t testing.TB, opt realboardtest.NodeBBOptions) *realboardtest.NodeBBBoard {
	t.Helper()
	return realboardtest.SharedNodeBB(t, "games", false, map[string]any{"chatMessageDelay": 200}).Board(t, opt)
}

// restartBoard is a board on the package's second shared NodeBB server,
// for the tests that kill and restart NodeBB (each bears the others'
// restarts) or, Exclusive, change its settings for everyone (chats off,
// maintenance mode) while the others wait. Members post every 10 s there
// (NodeBB's default postDelay): its players post seldom, and the bot's
// flood wait is met in full.
func restartBoard(t testing.TB, opt realboardtest.NodeBBOptions) *realboardtest.NodeBBBoard {
	t.Helper()
	return realboardtest.SharedNodeBB(t, "restarts", true, map[string]any{"postDelay": 10}).Board(t, opt)
}
