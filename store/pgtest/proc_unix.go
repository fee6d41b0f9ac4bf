//go:build unix

package pgtest

import "syscall"

// serverAttr starts the postmaster as the postgres user when c is set, and
// (on Linux) asks for SIGTERM when the starting thread dies.
func serverAttr(c *ids) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{}
	if c != nil {
		a.Credential = &syscall.Credential{Uid: uint32(c.uid), Gid: uint32(c.gid), Groups: []uint32{}}
	}
	setPdeathsig(a)
	return a
}

// interrupt asks the postmaster for a fast shutdown.
func interrupt(pid int) { _ = syscall.Kill(pid, syscall.SIGINT) }

// quit asks the postmaster for an immediate shutdown.
func quit(pid int) { _ = syscall.Kill(pid, syscall.SIGQUIT) }

// alive reports whether process pid exists.
func alive(pid int) bool { return syscall.Kill(pid, 0) == nil }
