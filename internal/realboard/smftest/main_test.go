// Package smftest runs the project's forum code against a real SMF 2.1.4
// board (internal/realboard on PostgreSQL from internal/pgtest).
package smftest

import (
	"testing"

	"github.com/forumgm/forumgm/internal/pgtest"
)

// TestMain stops the throwaway PostgreSQL server the boards use.
func TestMain(m *testing.M) { pgtest.Main(m) }
