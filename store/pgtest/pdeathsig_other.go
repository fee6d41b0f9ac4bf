//go:build unix && !linux

package pgtest

import "syscall"

// setPdeathsig: only Linux has a parent-death signal; elsewhere Main's
// cleanup and the next run's removeStale are what stop a leftover server.
func setPdeathsig(*syscall.SysProcAttr) {}
