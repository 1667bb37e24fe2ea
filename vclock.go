package sqsfake

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/benbjohnson/clock"
)

// VirtualClock is a clock that moves only when told to, at memory speed: Add moves it and
// fires every timer that comes due, in time order (timers due at the same instant in the
// order they were armed), without sleeping. It is the clock New runs a Fake on by default;
// f.Advance moves it.
//
// It implements github.com/benbjohnson/clock's Clock interface, so code under test that takes
// that interface can share the fake's clock, which Fake.Clock returns as one:
//
//	svc := NewService(f.Clock()) // a service that takes a clock.Clock
//	clk := f.Clock().(*sqsfake.VirtualClock) // for Add and WaitForTimers
//
// What fires, and how:
//   - WithDeadline and WithTimeout contexts end inside Add, at their deadline, with
//     context.DeadlineExceeded, and so do contexts derived from them.
//   - After, Sleep and Tick send on their channel inside Add (a Tick channel holds one tick;
//     ticks nobody reads are dropped, as with a time.Ticker).
//   - Timer, AfterFunc and Ticker return github.com/benbjohnson/clock's own *Timer and
//     *Ticker, which only that package's mock can make. The clock makes them on a benbjohnson
//     mock it keeps in step, and they fire as they do there: AfterFunc callbacks on goroutines
//     of their own, and each firing followed by that mock's 1 ms real-time pause. Once code has
//     made one, every Add costs that mock's 1 ms too, and WaitForTimers does not see them.
//     Code that waits with the other methods costs nothing; the fake and package heartbeat
//     use only WithDeadline.
//
// A goroutine woken by a timer runs after Add has returned, in real time. Before a test moves
// the clock again it waits for such a goroutine to have armed its next timer, with
// WaitForTimers (or Fake.WaitForTimers); nothing here sleeps to let it run.
type VirtualClock struct {
	moveMu sync.Mutex // one Add at a time; held while the benbjohnson mock is made

	mu      sync.Mutex
	now     time.Time
	timers  binHeap[*vtimer, vtimerRole]
	seq     uint64      // arming order, for timers due at the same instant
	waiters waitList    // WaitForTimers calls waiting
	compat  *clock.Mock // made on the first Timer, AfterFunc or Ticker; then it tells the time
	hooks   clockHooks  // OnMove's functions
	watch   *parkWatch  // an Explore run's, told when a Sleep starts

	// nanos is now as Unix nanoseconds, stored with it under mu, for unixNano to read
	// without the lock; state says whether it may (nanosKept) or the time is the mock's
	// (nanosMock). A zero VirtualClock has neither.
	nanos atomic.Int64
	state atomic.Uint32
}

// The states of VirtualClock.nanos.
const (
	nanosKept = 1 // nanos is now
	nanosMock = 2 // compat tells the time
)

// vtimer is one timer armed on a VirtualClock.
type vtimer struct {
	at    time.Time
	seq   uint64
	every time.Duration       // a ticker's period; 0 for a timer that fires once
	fire  func(now time.Time) // called without the clock's lock
	pos   int                 // position in the heap; -1 when not armed
}

// vtimerRole orders timers by when they are due, then by when they were armed.
type vtimerRole struct{}

func (vtimerRole) less(a, b *vtimer) bool {
	if !a.at.Equal(b.at) {
		return a.at.Before(b.at)
	}
	return a.seq < b.seq
}
func (vtimerRole) setPos(t *vtimer, i int) { t.pos = i }
func (vtimerRole) pos(t *vtimer) int       { return t.pos }

// NewVirtualClock returns a VirtualClock that shows start until it is moved.
func NewVirtualClock(start time.Time) *VirtualClock {
	c := &VirtualClock{}
	c.setNow(start)
	return c
}

// setNow sets the clock's time, with c.mu held (or before the clock is shared).
func (c *VirtualClock) setNow(t time.Time) {
	c.now = t
	c.nanos.Store(t.UnixNano())
	c.state.CompareAndSwap(0, nanosKept)
}

// unixNano is Now().UnixNano(), read without the lock while the clock keeps its own time:
// the fake reads the time at every call.
func (c *VirtualClock) unixNano() int64 {
	if c.state.Load() == nanosKept {
		return c.nanos.Load()
	}
	return c.Now().UnixNano()
}

// Now returns the clock's time.
func (c *VirtualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

// nowLocked is Now with c.mu held. While the benbjohnson mock moves, it tells the time of the
// timer it fires.
func (c *VirtualClock) nowLocked() time.Time {
	if c.compat != nil {
		return c.compat.Now()
	}
	return c.now
}

// Since returns the time elapsed on the clock since t.
func (c *VirtualClock) Since(t time.Time) time.Duration { return c.Now().Sub(t) }

// Until returns the time on the clock until t.
func (c *VirtualClock) Until(t time.Time) time.Duration { return t.Sub(c.Now()) }

// Add moves the clock forward by d and fires, in time order, every timer due by then: each
// at its own time, which Now shows while it fires. Timers armed while Add runs fire too if
// they come due within d. Add calls run one at a time. It panics if d is negative: a clock
// cannot go back.
func (c *VirtualClock) Add(d time.Duration) {
	if d < 0 {
		panic(fmt.Sprintf("sqsfake: VirtualClock.Add(%v): a clock cannot go back", d))
	}
	c.moveMu.Lock()
	defer c.moveMu.Unlock()
	c.mu.Lock()
	target := c.now.Add(d)
	if c.hooks.any() {
		c.runHooks(c.now)
	}
	for {
		t, ok := c.timers.top()
		if !ok || t.at.After(target) {
			break
		}
		at := t.at.In(c.now.Location()) // a deadline from time.Unix is Local; Now keeps the clock's location
		if t.every > 0 {
			t.at = t.at.Add(t.every)
			c.seq++
			t.seq = c.seq
			c.timers.fix(t)
		} else {
			c.timers.pop()
		}
		m := c.compat
		if m == nil {
			c.setNow(at)
		}
		c.mu.Unlock()
		if m != nil {
			m.Set(at) // fires its own timers due by then, and sleeps
			c.mu.Lock()
			c.setNow(at)
			c.mu.Unlock()
		}
		t.fire(at)
		c.mu.Lock()
		if c.hooks.any() {
			c.runHooks(at)
		}
	}
	m := c.compat
	c.setNow(target)
	c.mu.Unlock()
	if m != nil {
		m.Set(target)
	}
}

// runHooks calls the OnMove functions with now, without c.mu, which it holds on entry and
// on return.
func (c *VirtualClock) runHooks(now time.Time) {
	fns := c.hooks.snapshot()
	c.mu.Unlock()
	for round := 1; ; round++ {
		again := false
		for _, fn := range fns {
			again = fn(now) || again
		}
		if !again || round == maxHookRounds {
			break
		}
	}
	c.mu.Lock()
}

// OnMove registers fn to be called on every move of the clock, so that a companion of the
// fake (a Lambda trigger, say) acts at each instant a move passes through, as the fake's own
// parked polls do: at the start of every Add, with the time the clock shows before it moves,
// and after every timer Add fires, with that timer's time, which Now shows meanwhile. fn
// runs on the goroutine that moves the clock, without the clock's lock: it may read the
// clock and arm timers (they fire within the same Add if they come due within it), but it
// must not move the clock, which would wait for itself. The functions run in the order they
// were registered. When one of the fake's own companion.OnMove functions asks to act again at the same
// instant (a Lambda trigger whose handler sent to another trigger's queue), every function
// is called again with that instant, up to 100 rounds in all; functions are taken as they
// were registered when the instant began. remove unregisters fn; it is idempotent. A clock
// with no function registered pays one length check per timer for this.
func (c *VirtualClock) OnMove(fn func(now time.Time)) (remove func()) {
	return c.onMove(func(now time.Time) bool { fn(now); return false })
}

// onMove is OnMove for a function that may ask to be called again at the same instant, with
// the others (companion.OnMove's, which returns now for it).
func (c *VirtualClock) onMove(fn func(now time.Time) (again bool)) (remove func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hooks.add(&c.mu, fn)
}

// arm registers t, due at t.at, and wakes the WaitForTimers calls it satisfies. c.mu must be
// held.
func (c *VirtualClock) arm(t *vtimer) {
	c.seq++
	t.seq = c.seq
	c.timers.push(t)
	c.waiters.wake(c.armedAtLeast)
}

// armedAtLeast reports whether n timers or more are armed. c.mu must be held.
func (c *VirtualClock) armedAtLeast(n uint64) bool { return uint64(c.timers.len()) >= n }

// disarm removes t if it is still armed.
func (c *VirtualClock) disarm(t *vtimer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.pos >= 0 {
		c.timers.remove(t)
	}
}

// Timers returns how many timers are armed on the clock: WithDeadline and WithTimeout
// contexts that have not ended, After and Sleep calls that have not fired, and Tick tickers.
// The benbjohnson timers of Timer, AfterFunc and Ticker are not counted.
func (c *VirtualClock) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.timers.len()
}

// WaitForTimers blocks until at least n timers are armed on the clock (as Timers counts
// them), or ctx ends. A test calls it before moving the clock, so that a goroutine that waits
// on the clock — a heartbeat, a back-off, a sleep in code under test — has armed its timer
// from the time before the move. A parked long poll of a Fake holds one timer. When ctx ends
// first, the error wraps ctx's and says how many timers were armed.
//
// It waits on a signal from the clock, not by polling. It counts timers, not who armed them:
// when other goroutines arm timers of their own for a moment (a call's timeout), wait for
// something more specific, such as Fake.WaitForPollers for long polls or the heartbeat's
// WaitArmed.
func (c *VirtualClock) WaitForTimers(ctx context.Context, n int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiters.await(ctx, &c.mu, uint64(max(n, 0)), c.armedAtLeast) {
		return nil
	}
	return fmt.Errorf("sqsfake: WaitForTimers: %d of the %d timers awaited are armed on the clock: %w", c.timers.len(), n, ctx.Err())
}

// After returns a channel that receives the clock's time once d has passed on it. A d of
// zero or less sends at once.
func (c *VirtualClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.nowLocked()
	if d <= 0 {
		ch <- now
		return ch
	}
	c.arm(&vtimer{at: now.Add(d), fire: func(at time.Time) { ch <- at }})
	return ch
}

// Sleep blocks until d has passed on the clock: until another goroutine moves it that far.
func (c *VirtualClock) Sleep(d time.Duration) {
	if c.watch == nil {
		<-c.After(d)
		return
	}
	c.mu.Lock()
	if d <= 0 {
		c.mu.Unlock()
		return
	}
	woke := make(chan struct{})
	c.arm(&vtimer{at: c.nowLocked().Add(d), fire: func(time.Time) { close(woke) }})
	c.mu.Unlock()
	c.watch.parking(func() bool { return done(woke) })
	<-woke
}

// nextTimer returns when the earliest timer armed on the clock is due.
func (c *VirtualClock) nextTimer() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.timers.top()
	if !ok {
		return time.Time{}, false
	}
	return t.at, true
}

// Tick returns a channel that receives the clock's time every d, for as long as the clock
// exists; it holds one tick, and drops ticks nobody reads. A d of zero or less returns nil,
// as time.Tick does.
func (c *VirtualClock) Tick(d time.Duration) <-chan time.Time {
	if d <= 0 {
		return nil
	}
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arm(&vtimer{at: c.nowLocked().Add(d), every: d, fire: func(at time.Time) {
		select {
		case ch <- at:
		default:
		}
	}})
	return ch
}

// Timer returns a benbjohnson *clock.Timer that fires once d has passed on the clock. It
// comes from a benbjohnson mock kept in step with the clock; see VirtualClock for what that
// costs.
func (c *VirtualClock) Timer(d time.Duration) *clock.Timer { return c.mock().Timer(d) }

// AfterFunc calls f on a goroutine of its own once d has passed on the clock, and returns a
// benbjohnson *clock.Timer that can stop it. It comes from a benbjohnson mock kept in step
// with the clock; see VirtualClock for what that costs.
func (c *VirtualClock) AfterFunc(d time.Duration, f func()) *clock.Timer {
	return c.mock().AfterFunc(d, f)
}

// Ticker returns a benbjohnson *clock.Ticker that ticks every d on the clock. It comes from a
// benbjohnson mock kept in step with the clock; see VirtualClock for what that costs.
func (c *VirtualClock) Ticker(d time.Duration) *clock.Ticker { return c.mock().Ticker(d) }

// mock returns the benbjohnson mock that makes the clock's benbjohnson timers, making it at
// the clock's time on first use.
func (c *VirtualClock) mock() *clock.Mock {
	c.moveMu.Lock() // the time cannot move while the mock is set to it
	defer c.moveMu.Unlock()
	c.mu.Lock()
	m, now := c.compat, c.now
	c.mu.Unlock()
	if m == nil {
		m = clock.NewMock()
		m.Set(now)
		c.mu.Lock()
		c.compat = m
		c.state.Store(nanosMock)
		c.mu.Unlock()
	}
	return m
}

// WithTimeout returns WithDeadline(parent, Now().Add(d)).
func (c *VirtualClock) WithTimeout(parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return c.WithDeadline(parent, c.Now().Add(d))
}

// WithDeadline returns a context that ends when the clock reaches d, with
// context.DeadlineExceeded, when the returned cancel function is called, with
// context.Canceled, or when parent ends, with parent's error. Its Deadline is d: a deadline
// of parent's, which may come from another clock, does not shorten it, but parent ending
// still ends it. A d the clock has reached ends the context at once, without a timer.
//
// The clock ends the context inside Add, and contexts derived from it with it. An ending of
// parent reaches the context through context.AfterFunc, on a goroutine of its own, unless
// parent comes from a VirtualClock too.
func (c *VirtualClock) WithDeadline(parent context.Context, d time.Time) (context.Context, context.CancelFunc) {
	ctx := &deadlineCtx{parent: parent, deadline: d, clock: c, done: make(chan struct{})}
	cancel := func() { ctx.cancel(context.Canceled) }
	if parent.Done() != nil {
		if err := parent.Err(); err != nil {
			ctx.cancel(err)
			return ctx, cancel
		}
		end := func() { ctx.cancel(parent.Err()) }
		var stop func() bool
		if p, ok := parent.(afterFuncer); ok {
			stop = p.AfterFunc(end)
		} else {
			stop = context.AfterFunc(parent, end)
		}
		ctx.mu.Lock()
		ctx.stopParent = stop
		ctx.mu.Unlock()
	}
	ctx.mu.Lock()
	if ctx.err != nil { // parent has ended already
		ctx.mu.Unlock()
		return ctx, cancel
	}
	c.mu.Lock()
	if !d.After(c.nowLocked()) {
		c.mu.Unlock()
		ctx.mu.Unlock()
		ctx.cancel(context.DeadlineExceeded)
		return ctx, cancel
	}
	ctx.timer = &vtimer{at: d, fire: func(time.Time) { ctx.cancel(context.DeadlineExceeded) }}
	c.arm(ctx.timer)
	c.mu.Unlock()
	ctx.mu.Unlock()
	return ctx, cancel
}

// afterFuncer is a context that runs a function when it ends, as the standard library's
// contexts look for in a parent.
type afterFuncer interface {
	AfterFunc(f func()) (stop func() bool)
}

// deadlineCtx is a context a VirtualClock ends at its deadline. It has a Done channel of its
// own, and an AfterFunc method through which the standard library attaches contexts derived
// from it, so that they end, with its error, when it does.
type deadlineCtx struct {
	parent   context.Context
	deadline time.Time
	clock    *VirtualClock
	done     chan struct{}

	mu         sync.Mutex
	err        error
	timer      *vtimer
	stopParent func() bool
	funcs      []*func() // AfterFunc's, in the order they were registered
}

func (x *deadlineCtx) Deadline() (time.Time, bool) { return x.deadline, true }
func (x *deadlineCtx) Done() <-chan struct{}       { return x.done }
func (x *deadlineCtx) Value(key any) any           { return x.parent.Value(key) }

func (x *deadlineCtx) Err() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.err
}

func (x *deadlineCtx) String() string {
	return fmt.Sprintf("sqsfake.VirtualClock.WithDeadline(%s)", x.deadline.Format(time.RFC3339Nano))
}

// AfterFunc arranges for f to run when the context ends: inside the call that ends it, or on
// a goroutine of its own if it has ended already. stop unregisters f and reports whether it
// did so before f was started.
func (x *deadlineCtx) AfterFunc(f func()) (stop func() bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		go f() // the caller may hold a lock that f takes
		return func() bool { return false }
	}
	key := &f
	x.funcs = append(x.funcs, key)
	return func() bool {
		x.mu.Lock()
		defer x.mu.Unlock()
		for i, g := range x.funcs {
			if g == key {
				x.funcs = slices.Delete(x.funcs, i, i+1)
				return true
			}
		}
		return false
	}
}

// cancel ends the context with err, unless it has ended already. The timer is disarmed
// before Done is closed, so that a goroutine that sees Done no longer counts it.
func (x *deadlineCtx) cancel(err error) {
	x.mu.Lock()
	if x.err != nil {
		x.mu.Unlock()
		return
	}
	x.err = err
	t, stop, funcs := x.timer, x.stopParent, x.funcs
	x.timer, x.stopParent, x.funcs = nil, nil, nil
	x.mu.Unlock()
	if t != nil {
		x.clock.disarm(t)
	}
	close(x.done)
	if stop != nil {
		stop()
	}
	for _, f := range funcs {
		(*f)()
	}
}
