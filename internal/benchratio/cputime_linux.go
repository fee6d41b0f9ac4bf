package benchratio

import (
	"syscall"
	"time"
	"unsafe"
)

// ThreadCPU is the CPU time the calling OS thread has used, from
// CLOCK_THREAD_CPUTIME_ID. A benchmark that locks its goroutine to its
// thread (runtime.LockOSThread) and times with it is not inflated by other
// processes' load, as wall time is on a shared machine (getrusage's thread
// time is counted in scheduler ticks, too coarse for one call). Where it
// is not available it is wall time.
func ThreadCPU() time.Duration {
	const clockThreadCPUTimeID = 3
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTimeID, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return time.Since(epoch)
	}
	return time.Duration(ts.Nano())
}

var epoch = time.Now()
