// Package goid reads the id of the calling goroutine, for the fake and its companions, which
// must tell the goroutines that do a step's work from the others.
package goid

import (
	"bytes"
	"runtime"
	"strconv"
	"strings"
	"sync"
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

// State returns the state runtime.Stack gives goroutine id — "select", "chan receive",
// "running", "sync.Mutex.Lock", … without how long it has waited — or "" when there is no
// such goroutine. It stops the world to read every goroutine's stack: callers look rarely.
func State(id uint64) string {
	state, _ := read(id, false)
	return state
}

// Trace returns goroutine id's state, as State does, and its stack trace.
func Trace(id uint64) (state, trace string) { return read(id, true) }

var stackBufs = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// read finds goroutine id in a dump of every goroutine's stack.
func read(id uint64, withTrace bool) (state, trace string) {
	buf := stackBufs.Get().(*[]byte)
	defer stackBufs.Put(buf)
	var dump []byte
	for {
		n := runtime.Stack(*buf, true)
		if n < len(*buf) {
			dump = (*buf)[:n]
			break
		}
		*buf = make([]byte, 2*len(*buf))
	}
	head := []byte("goroutine " + strconv.FormatUint(id, 10) + " [")
	i := bytes.Index(dump, head)
	if i < 0 {
		return "", ""
	}
	rest := dump[i:]
	if j := bytes.Index(rest, []byte("\n\n")); j >= 0 {
		rest = rest[:j]
	}
	st := rest[len(head):]
	if end := bytes.IndexByte(st, ']'); end >= 0 {
		st = st[:end]
	}
	state, _, _ = strings.Cut(string(st), ",") // ", 2 minutes": how long it has waited
	if withTrace {
		trace = string(rest)
	}
	return state, trace
}

// WaitsOnAChannel reports whether a goroutine in state (as State gives it) is blocked in a
// select or on a channel.
func WaitsOnAChannel(state string) bool {
	switch state {
	case "select", "select (no cases)", "chan receive", "chan send", "chan receive (nil chan)", "chan send (nil chan)":
		return true
	}
	return false
}
