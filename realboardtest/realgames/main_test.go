package realgames

import (
	"os"
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
)

// TestMain runs up to 24 tests at once (partest.Default): they
// mostly wait on the boards' real clocks.
func TestMain(m *testing.M) {
	partest.Default(24)
	os.Exit(m.Run())
}
