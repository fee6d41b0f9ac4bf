package webdesk

import (
	"os"
	"testing"

	"github.com/forumgm/forumgm/internal/partest"
	"github.com/forumgm/forumgm/webdesk/browsertest"
)

// TestMain runs the desk's tests side by side (partest.Default): most play
// a game on a local board and wait on its moderator's reads, or on a page
// in the one shared browser; then it ends that browser.
func TestMain(m *testing.M) {
	partest.Default(8)
	code := m.Run()
	browsertest.Stop()
	os.Exit(code)
}
