package sqsfake

import (
	"context"
	"sync"
	"time"

	"github.com/benbjohnson/clock"
)

// The clock a test shares with the code under test: Fake.Clock returns the fake's clock as
// benbjohnson's clock.Clock, the interface such code most often takes. *VirtualClock,
// *clock.Mock and RealClock are one; any other Clock (ClockFuncs, a Clock of one's own) is
// returned in an adaptedClock.

var realClock = clock.New()

// After returns time.After(d).
func (RealClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// AfterFunc calls f on its own goroutine once d has passed; the benbjohnson *clock.Timer it
// returns can stop it.
func (RealClock) AfterFunc(d time.Duration, f func()) *clock.Timer { return realClock.AfterFunc(d, f) }

// Since returns time.Since(t).
func (RealClock) Since(t time.Time) time.Duration { return time.Since(t) }

// Until returns time.Until(t).
func (RealClock) Until(t time.Time) time.Duration { return time.Until(t) }

// Sleep calls time.Sleep(d).
func (RealClock) Sleep(d time.Duration) { time.Sleep(d) }

// Tick returns time.Tick(d).
func (RealClock) Tick(d time.Duration) <-chan time.Time { return realClock.Tick(d) }

// Ticker returns a benbjohnson *clock.Ticker on wall time.
func (RealClock) Ticker(d time.Duration) *clock.Ticker { return realClock.Ticker(d) }

// Timer returns a benbjohnson *clock.Timer on wall time.
func (RealClock) Timer(d time.Duration) *clock.Timer { return realClock.Timer(d) }

// WithTimeout returns context.WithTimeout(parent, d).
func (RealClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(parent, d)
}

var _ clock.Clock = RealClock{}

// Clock returns the clock the fake runs on as benbjohnson's clock.Clock, to share with code
// under test that takes one: the *VirtualClock (New's default; f.Clock().(*VirtualClock) has
// Add and WaitForTimers), or the *clock.Mock or RealClock given with WithClock, itself. A
// clock of another kind (ClockFuncs, a Clock of your own) is returned adapted: Now and
// WithDeadline are its own; Since, Until, WithTimeout, After, Sleep and Tick are made from
// them and wait on it; Timer, AfterFunc and Ticker come from a benbjohnson mock set to the
// adapted clock's time at every call of the adapter and every step of Advance, so they fire
// once one of those finds the adapted clock at or past them. Code that takes that clock's
// own interface is better given the clock itself.
func (f *Fake) Clock() clock.Clock { return f.shared }

// sharedClockOf is what Clock returns for the fake's clock c.
func sharedClockOf(c Clock) clock.Clock {
	if bc, ok := c.(clock.Clock); ok {
		return bc
	}
	return &adaptedClock{Clock: c}
}

// adaptedClock is a Clock that is not a benbjohnson clock.Clock, as one.
type adaptedClock struct {
	Clock
	mu   sync.Mutex
	mock *clock.Mock // makes the benbjohnson timers; nil until one is asked for
}

// Since returns how long ago t was on the adapted clock.
func (c *adaptedClock) Since(t time.Time) time.Duration { c.sync(); return c.Now().Sub(t) }

// Until returns how long until t on the adapted clock.
func (c *adaptedClock) Until(t time.Time) time.Duration { c.sync(); return t.Sub(c.Now()) }

// WithTimeout is WithDeadline at d from now on the adapted clock.
func (c *adaptedClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	c.sync()
	return c.WithDeadline(parent, c.Now().Add(d))
}

// After sends the adapted clock's time on the channel it returns once d has passed on it.
func (c *adaptedClock) After(d time.Duration) <-chan time.Time {
	c.sync()
	ch := make(chan time.Time, 1)
	ctx, cancel := c.WithDeadline(context.Background(), c.Now().Add(d))
	go func() {
		<-ctx.Done()
		cancel()
		ch <- c.Now()
	}()
	return ch
}

// Sleep returns once d has passed on the adapted clock.
func (c *adaptedClock) Sleep(d time.Duration) { <-c.After(d) }

// Tick sends the adapted clock's time every d on the channel it returns, dropping ticks its
// reader is not ready for; like time.Tick, it cannot be stopped.
func (c *adaptedClock) Tick(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	go func() {
		for {
			t := <-c.After(d)
			select {
			case ch <- t:
			default:
			}
		}
	}()
	return ch
}

// Timer returns a benbjohnson timer of the adapter's mock (see Fake.Clock).
func (c *adaptedClock) Timer(d time.Duration) *clock.Timer { return c.mocked().Timer(d) }

// AfterFunc returns a benbjohnson timer of the adapter's mock that calls f (see Fake.Clock).
func (c *adaptedClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return c.mocked().AfterFunc(d, f)
}

// Ticker returns a benbjohnson ticker of the adapter's mock (see Fake.Clock).
func (c *adaptedClock) Ticker(d time.Duration) *clock.Ticker { return c.mocked().Ticker(d) }

// mocked returns the adapter's mock, made at the adapted clock's time, or moved to it.
func (c *adaptedClock) mocked() *clock.Mock {
	c.mu.Lock()
	if c.mock == nil {
		c.mock = clock.NewMock()
		c.mock.Set(c.Now())
	}
	c.mu.Unlock()
	c.sync()
	return c.mock
}

// sync moves the adapter's mock, if it has one, to the adapted clock's time, firing its
// timers that are due by then.
func (c *adaptedClock) sync() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mock == nil {
		return
	}
	if now := c.Now(); now.After(c.mock.Now()) {
		c.mock.Set(now)
	}
}
