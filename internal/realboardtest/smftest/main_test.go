// Package smftest runs the project's forum code against a real SMF 2.1.4
// board (internal/realboardtest on PostgreSQL from internal/pgtest).
package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/internal/pgtest"
	"github.com/forumgm/forumgm/internal/realboardtest/boardtest"
)

// TestMain runs up to 6 tests at once (boardtest.DefaultParallel: whole
// games and the maintenance test wait on the real clock) and stops the
// throwaway PostgreSQL server the boards use.
func TestMain(m *testing.M) {
	boardtest.DefaultParallel(6)
	pgtest.Main(m)
}
