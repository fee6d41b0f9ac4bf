//go:build linux

package realboardtest_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
)

// TestNodeBBInstall installs NodeBB as the NodeBB tests take it, or finds
// it installed. .ci/run runs it on its own while staticcheck and the cross
// builds run: inside the NodeBB tests, on two cores busy with the other
// packages, `nodebb setup` (its asset build; 16 s on a quiet machine) took
// four and a half minutes, on the suite's longest path.
func TestNodeBBInstall(t *testing.T) {
	t.Logf("NodeBB: %s", realboardtest.InstallNodeBB(t))
}
