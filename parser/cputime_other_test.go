//go:build !linux

package parser_test

import "time"

var t0 = time.Now()

// threadCPU falls back to wall time where the thread's CPU time is not at hand.
func threadCPU() time.Duration { return time.Since(t0) }
