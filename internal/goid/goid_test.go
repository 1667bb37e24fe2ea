package goid

import (
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestCurrentIsTheIDTheStackTraceNames compares Current with the id runtime.Stack prints,
// on this goroutine and on another, which must differ.
func TestCurrentIsTheIDTheStackTraceNames(t *testing.T) {
	fromTrace := func() uint64 {
		buf := make([]byte, 256)
		s := strings.TrimPrefix(string(buf[:runtime.Stack(buf, false)]), "goroutine ")
		id, err := strconv.ParseUint(s[:strings.IndexByte(s, ' ')], 10, 64)
		if err != nil {
			t.Error(err)
		}
		return id
	}
	here, want := Current(), fromTrace()
	if here != want || here == 0 {
		t.Fatalf("Current() = %d, the stack trace says %d", here, want)
	}
	other := make(chan [2]uint64)
	go func() { other <- [2]uint64{Current(), fromTrace()} }()
	got := <-other
	if got[0] != got[1] || got[0] == here {
		t.Fatalf("on another goroutine Current() = %d, the stack trace says %d (this one: %d)", got[0], got[1], here)
	}
}

// State reads another goroutine's state from the stack dump, and Trace its stack too.
func TestStateOfABlockedGoroutine(t *testing.T) {
	ch := make(chan struct{})
	ids := make(chan uint64)
	go func() {
		ids <- Current()
		<-ch
	}()
	id := <-ids
	for State(id) != "chan receive" {
		runtime.Gosched() // it is about to block
	}
	state, trace := Trace(id)
	if state != "chan receive" || !strings.HasPrefix(trace, "goroutine "+strconv.FormatUint(id, 10)+" [chan receive") || !strings.Contains(trace, "TestStateOfABlockedGoroutine") {
		t.Fatalf("Trace = %q, %q", state, trace)
	}
	if !WaitsOnAChannel(state) || WaitsOnAChannel("running") || WaitsOnAChannel("sync.Mutex.Lock") {
		t.Error("WaitsOnAChannel")
	}
	close(ch)
	if got := State(1 << 60); got != "" {
		t.Errorf("State of no goroutine = %q", got)
	}
}
