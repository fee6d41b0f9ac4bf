package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
)

// TestMain runs the boards' tests side by side (partest.Default): each has
// its own board, and most wait on the board's flood interval.
func TestMain(m *testing.M) {
	partest.Default(8)
	m.Run()
}
