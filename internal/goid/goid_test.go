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
