//go:build linux

package matrix_test

import (
	"testing"

	"github.com/forumgm/forumgm/realboardtest"
	"github.com/forumgm/forumgm/realboardtest/matrix"
)

// The columns are realboardtest's engines, by the names tests pass.
func TestEnginesAreRealboardtests(t *testing.T) {
	want := []string{realboardtest.PhpBB, realboardtest.MyBB, realboardtest.SMF, realboardtest.NodeBB}
	if len(matrix.Engines) != len(want) {
		t.Fatalf("%d engines, want %d", len(matrix.Engines), len(want))
	}
	for i, e := range matrix.Engines {
		if e.ID != want[i] {
			t.Errorf("column %d is %q, realboardtest's is %q", i, e.ID, want[i])
		}
	}
}
