//go:build linux

// Package nodebbtest runs the project's forum code against a real NodeBB
// 4.10.3 board (realboardtest: Node.js on PostgreSQL from
// store/pgtest): reading, posting and chatting through the nodebb
// client as forumgm run connects it, the probe, and whole games.
package nodebbtest

import (
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/store/pgtest"
)

// TestMain runs up to 8 tests at once (partest.Default: the games wait on
// the real clock; each board is a Node.js process of about 200 MB) and
// stops the throwaway PostgreSQL server the boards use. The whole games
// (games_test.go, first by file name) start first: they are the longest.
func TestMain(m *testing.M) {
	partest.Default(8)
	pgtest.Main(m)
}
