package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/benbjohnson/clock"
)

// Clock is the time source of a Fake. Everything the fake does with time — visibility,
// delays, retention, cooldowns, long-poll deadlines and every timestamp it reports — reads it.
//
// *VirtualClock, New's default, satisfies it, as do a *clock.Mock and clock.New() from
// github.com/benbjohnson/clock and RealClock. The fake only ever calls WithDeadline with context.Background() as the
// parent and only reads Done() of the result. Any other clock adapts with ClockFuncs.
type Clock interface {
	Now() time.Time
	WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc)
}

// DefaultStart is the instant a Fake's default clock starts at, so that timestamps in tests
// are the same on every run.
var DefaultStart = time.Date(2025, time.January, 1, 0, 0, 0, 0, time.UTC)

// NewMockClock returns a benbjohnson mock clock set to DefaultStart, for a test that wants
// that package's own *clock.Mock: New(WithClock(NewMockClock())). It works as it always has,
// and costs what it always has: the mock sleeps 1 ms of real time in every Add, and after
// every timer it fires, so each Advance costs a millisecond or more. New's default, a
// *VirtualClock, moves without sleeping and also implements benbjohnson's clock.Clock.
func NewMockClock() *clock.Mock {
	m := clock.NewMock()
	m.Set(DefaultStart)
	return m
}

// RealClock reads the wall clock through package time. Inside a testing/synctest bubble that
// is the bubble's fake time, which makes a Fake on a RealClock deterministic there.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// WithDeadline returns context.WithDeadline(parent, d).
func (RealClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	return context.WithDeadline(parent, d)
}

// ClockFuncs adapts a clock that has Now and an AfterFunc-style timer (clockwork, quartz,
// home-grown clocks) to Clock. AfterFunc must run f once d has passed on that clock and
// return a function that stops the timer.
type ClockFuncs struct {
	NowFunc       func() time.Time
	AfterFuncFunc func(d time.Duration, f func()) (stop func() bool)
	// AddFunc, if set, moves the clock forward; Fake.Advance uses it.
	AddFunc func(d time.Duration)
}

// Now returns NowFunc().
func (c ClockFuncs) Now() time.Time { return c.NowFunc() }

// WithDeadline returns a context that ends when the adapted clock reaches d.
func (c ClockFuncs) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	stop := c.AfterFuncFunc(d.Sub(c.NowFunc()), func() { cancel(context.DeadlineExceeded) })
	return ctx, func() { stop(); cancel(context.Canceled) }
}

// Add moves the clock forward with AddFunc.
func (c ClockFuncs) Add(d time.Duration) {
	if c.AddFunc != nil {
		c.AddFunc(d)
	}
}

// adder is a clock that can be moved forward, as *clock.Mock can.
type adder interface{ Add(d time.Duration) }

// latestTime is what LatestTime returns.
var latestTime = time.Unix(0, math.MaxInt64).UTC()

// LatestTime returns the last instant the fake's clock can show, in April 2262: the fake
// keeps time in int64 nanoseconds since 1970.
func LatestTime() time.Time { return latestTime }

// moveClock moves c forward by d: with its Add method when it has one, else (a real clock)
// by sleeping, which inside a testing/synctest bubble takes no real time.
func moveClock(c Clock, d time.Duration) {
	if d <= 0 {
		return
	}
	if a, ok := c.(adder); ok {
		a.Add(d)
		return
	}
	time.Sleep(d)
}

// timerCounter is a clock that can wait until timers are armed on it, as *VirtualClock can.
type timerCounter interface {
	WaitForTimers(ctx context.Context, n int) error
}

// WaitForTimers blocks until at least n timers are armed on the fake's clock, or ctx ends:
// the clock's own WaitForTimers, for goroutines that wait on the clock rather than in a call
// into the fake (a heartbeat, a back-off or a sleep in code under test). Each parked long
// poll holds one timer too. On a clock that cannot count its timers — a benbjohnson
// *clock.Mock, RealClock, ClockFuncs — it returns an error that wraps errors.ErrUnsupported.
// See VirtualClock.WaitForTimers.
func (f *Fake) WaitForTimers(ctx context.Context, n int) error {
	if c, ok := f.clk.(timerCounter); ok {
		return c.WaitForTimers(ctx, n)
	}
	return fmt.Errorf("sqsfake: WaitForTimers: the fake's clock, a %T, cannot count its timers (New's default *sqsfake.VirtualClock can): %w", f.clk, errors.ErrUnsupported)
}
