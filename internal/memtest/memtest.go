// Package memtest measures memory in tests without timing: what a function allocates.
package memtest

import "runtime"

// BytesPerRun is testing.AllocsPerRun for bytes: the average memory fn allocates in a run,
// after a warm-up run, on one processor.
func BytesPerRun(runs int, fn func()) uint64 {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	fn()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		fn()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / uint64(runs)
}
