package realgames

import (
	"os"
	"testing"

	"github.com/forumgm/forumgm/internal/realboardtest/boardtest"
)

// TestMain runs up to 8 tests at once (boardtest.DefaultParallel): they
// mostly wait on the boards' real clocks.
func TestMain(m *testing.M) {
	boardtest.DefaultParallel(8)
	os.Exit(m.Run())
}
