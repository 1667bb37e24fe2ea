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

// Retained returns how much more of the heap is in use after fn than before, both measured
// after a garbage collection: what fn left reachable. keep is read after the second
// measurement, so that what it references counts.
func Retained(fn func(), keep ...any) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(keep)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}
