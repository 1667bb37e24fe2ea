package sqsfake

import (
	"context"
	"sync"
)

// waitList holds the goroutines waiting for a count to reach their number — parked polls
// (WaitForPollers), calls begun and idle (WaitIdle, WaitForCalls), armed timers
// (VirtualClock.WaitForTimers) — under the lock of the state that count is read from. Its
// owner calls wake whenever the count may have reached a waiter's number, so no waiter polls.
type waitList struct{ ws []*countWaiter }

// countWaiter is one goroutine waiting on a waitList.
type countWaiter struct {
	n  uint64
	ch chan struct{}
}

// await returns true once ready(n) holds, at once or when wake finds it, or false when ctx
// ends first. mu is the owner's lock: held on entry, released while waiting, held on return.
func (l *waitList) await(ctx context.Context, mu sync.Locker, n uint64, ready func(n uint64) bool) bool {
	if ready(n) {
		return true
	}
	w := &countWaiter{n: n, ch: make(chan struct{})}
	l.ws = append(l.ws, w)
	mu.Unlock()
	select {
	case <-w.ch:
		mu.Lock()
		return true
	case <-ctx.Done():
	}
	mu.Lock()
	for i, x := range l.ws {
		if x == w {
			l.ws = append(l.ws[:i], l.ws[i+1:]...)
			return false
		}
	}
	return true // woken while ctx ended
}

// wake releases the waiters whose number ready now accepts. Called with the owner's lock held.
func (l *waitList) wake(ready func(n uint64) bool) {
	if len(l.ws) == 0 {
		return
	}
	kept := l.ws[:0]
	for _, w := range l.ws {
		if ready(w.n) {
			close(w.ch)
		} else {
			kept = append(kept, w)
		}
	}
	clear(l.ws[len(kept):])
	l.ws = kept
}
