// Package smftest runs the project's forum code against a real SMF 2.1.4
// board (realboardtest on PostgreSQL from store/pgtest).
package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/store/pgtest"
)

// TestMain runs up to 12 tests at once (partest.Default: whole
// games and the maintenance test wait on the real clock) and stops the
// throwaway PostgreSQL server the boards use.
func TestMain(m *testing.M) {
	partest.Default(12)
	pgtest.Main(m)
}
