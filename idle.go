package sqsfake

import (
	"context"
	"fmt"
	"strings"
)

// Waiting for calls to settle. The fake counts the calls that have begun (CallCount) and the
// ones still inside it; a call is idle once it has returned or is waiting on the fake's clock
// — a long poll parked, or a response an injected Latency holds back. Whether every call is
// idle is decided under the fake's lock at each moment it can become true (a call returns, a
// poll parks, a held response starts waiting), so a waiter never misses it.

// idle reports whether at least n calls have begun and every call that has is idle. Called
// with f.mu held.
func (f *Fake) idle(n uint64) bool { return f.requests.Load() >= n && f.active == f.parked() }

// notifyIdle wakes the waits that are now satisfied. Called with f.mu held.
func (f *Fake) notifyIdle() { f.idleWaits.wake(f.idle) }

// WaitIdle blocks until every call that has begun on the fake has either returned or is
// waiting on the fake's clock — a receive parked in a long poll, or a response an injected
// Latency holds back — or ctx ends. It returns at once when no call is running. Unlike
// WaitForPollers it does not hang when a long poll returned at once because a message was
// there: a call that returned is idle too.
//
// WaitIdle cannot see a call that has not begun yet: after
//
//	go consumer.PollOnce(ctx) // makes one ReceiveMessage
//	f.WaitIdle(ctx)
//
// the goroutine may not have reached the fake, and WaitIdle returns at once. To wait for a
// call started on another goroutine, count it: WaitForCalls(ctx, f.CallCount()+1), with the
// count read before the goroutine starts. When ctx ends first, the error wraps ctx's and
// lists the calls still running.
func (f *Fake) WaitIdle(ctx context.Context) error {
	return f.waitIdle(ctx, 0, "WaitIdle")
}

// WaitForCalls blocks until at least n calls have begun on the fake since New or Reset — n
// is a Seq of the call record, counted over every door — and every call that has begun has
// either returned or is waiting on the fake's clock (a receive parked in a long poll, a
// response an injected Latency holds back), or ctx ends. It is the way to let a call made on
// another goroutine get as far as it can before moving the clock, whether it parks or
// returns at once:
//
//	next := f.CallCount() + 1 // before the goroutine starts
//	go consumer.PollOnce(ctx) // makes one ReceiveMessage
//	if err := f.WaitForCalls(ctx, next); err != nil { … }
//	f.Advance(20 * time.Second) // the poll, if it parked, ends now
//
// Counting calls, rather than waiting for the fake to look idle, is what makes this race-free:
// a goroutine that has not yet reached the fake is waited for, because its call is not yet
// counted. WaitForCalls cannot know about calls that will never come: if the code under test
// makes fewer than expected, it waits until ctx ends, and its error then lists the calls the
// fake had. Calls of other goroutines count too; count them all. A call the SDK refuses on the
// caller's side (its client-side validation) counts through the fake's methods and Client()
// alike; through an SDK client of your own over HTTPClient or a server, it never reaches the
// fake, as it would never reach SQS, and is not counted. A goroutine that waits on the
// fake's clock outside any call — a heartbeat, a back-off between retries — is waited for with
// WaitForTimers instead, which counts the timers armed on the clock.
func (f *Fake) WaitForCalls(ctx context.Context, n int) error {
	return f.waitIdle(ctx, uint64(max(n, 0)), "WaitForCalls")
}

func (f *Fake) waitIdle(ctx context.Context, n uint64, name string) error {
	f.mu.Lock()
	if f.idleWaits.await(ctx, &f.mu, n, f.idle) {
		f.mu.Unlock()
		return nil
	}
	begun, running := f.requests.Load(), f.active-f.parked()
	f.mu.Unlock()
	var head string
	if begun < n {
		head = fmt.Sprintf("sqsfake: %s: %d of the %d calls awaited %s begun", name, begun, n, hasHave(begun))
	} else {
		head = fmt.Sprintf("sqsfake: %s: %s still running", name, plural(running, "call"))
	}
	listed := f.describeCalls(f.Calls(), 10)
	if listed != "" {
		listed = "; the latest calls:" + listed
	}
	return fmt.Errorf("%s: %w%s", head, ctx.Err(), listed)
}

func hasHave(n uint64) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

// describeCalls lists the newest max calls, one a line, each line starting "\n  ".
func (f *Fake) describeCalls(calls []Call, max int) string {
	var b strings.Builder
	if len(calls) > max {
		fmt.Fprintf(&b, "\n  … %s before these", plural(len(calls)-max, "call"))
		calls = calls[len(calls)-max:]
	}
	for _, c := range calls {
		b.WriteString("\n  ")
		b.WriteString(c.String())
	}
	return b.String()
}
