//go:build !linux

package benchratio

import "time"

var epoch = time.Now()

// ThreadCPU is wall time where a thread's CPU time is not at hand (see the
// Linux version).
func ThreadCPU() time.Duration { return time.Since(epoch) }

// ProcessCPU is 0 where the process's CPU time is not read (see the Linux
// version).
func ProcessCPU() time.Duration { return 0 }

// RSSMiB is 0 where /proc is not at hand (see the Linux version).
func RSSMiB(string) float64 { return 0 }
