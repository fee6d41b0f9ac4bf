//go:build linux

// Package nodebbtest runs the project's forum code against a real NodeBB
// 4.10.3 board (realboardtest: Node.js on PostgreSQL from
// store/pgtest): reading, posting and chatting through the nodebb
// client as forumgm run connects it, the probe, and whole games.
package nodebbtest

import (
	"os"
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/store/pgtest"
)

// TestMain runs every test at once (partest.Default: they wait on the
// real clock, and they share three NodeBB processes, board, gameBoard
// and restartBoard: a test's board is a topic and accounts on one
// of them), stops the shared NodeBB servers and then the throwaway
// PostgreSQL server they use.
func TestMain(m *testing.M) {
	partest.Default(32)
	code := m.Run()
	realboardtest.StopNodeBB()
	pgtest.Stop()
	os.Exit(code)
}
