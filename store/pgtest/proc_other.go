//go:build !unix

package pgtest

import (
	"os"
	"syscall"
)

// Outside Unix (Windows, Plan 9, wasm) the package only has to build: the
// server it starts comes from Debian's PostgreSQL packages, so tests there
// use FORUMGM_TEST_POSTGRES or skip.

func serverAttr(*ids) *syscall.SysProcAttr { return nil }

func interrupt(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

func quit(pid int) { interrupt(pid) }

// alive cannot tell without signals: report it alive, so removeStale leaves
// a directory rather than delete one still in use.
func alive(int) bool { return true }
