package benchratio

import (
	"os"
	"strconv"
	"strings"
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

// ProcessCPU is the CPU time the whole process has used (user and system),
// for a benchmark that reports the cores a fleet of games keeps busy.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// RSSMiB is the process's resident memory in MiB from /proc/self/status:
// field "VmRSS" now, "VmHWM" its peak. 0 when it cannot be read.
func RSSMiB(field string) float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == field+":" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb / 1024
		}
	}
	return 0
}
