//go:build unix

package snsfake_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, all its threads (the garbage collector's
// included): what a benchmark costs whatever else the machine runs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
