// Package goid reads the id of the calling goroutine, for the fake and its companions, which
// must tell the goroutines that do a step's work from the others.
package goid

import (
	"bytes"
	"runtime"
)

// Current returns the id of the calling goroutine, as its stack trace names it. It costs a
// walk of the goroutine's stack (runtime.Stack), so callers read it where the stack is short
// or only on a slow path.
func Current() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	var id uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
