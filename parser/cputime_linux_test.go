package parser_test

import (
	"syscall"
	"time"
	"unsafe"
)

// threadCPU is the CPU time the calling OS thread has used (the benchmark
// locks its goroutine to one), from CLOCK_THREAD_CPUTIME_ID: other
// processes' load does not count in it, as it does in wall time on a
// shared machine (getrusage's is counted in scheduler ticks, too coarse).
func threadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}
