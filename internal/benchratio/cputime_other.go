//go:build !linux

package benchratio

import "time"

var epoch = time.Now()

// ThreadCPU is wall time where a thread's CPU time is not at hand (see the
// Linux version).
func ThreadCPU() time.Duration { return time.Since(epoch) }
