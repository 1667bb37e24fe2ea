package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Code that takes benbjohnson's clock.Clock can share the fake's default clock.
var _ clock.Clock = (*VirtualClock)(nil)

// waitCtx bounds a wait that must not hang a failing test.
func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// ready returns what ch holds, or fails the test if it holds nothing: whatever a clock move
// fires has fired when the move returns.
func ready[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	default:
		t.Fatalf("%s: nothing yet", what)
		var zero T
		return zero
	}
}

func TestVirtualClockFiresWhatComesDueInTimeOrderWithinAdd(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	var fired []string
	note := func(what string) { fired = append(fired, fmt.Sprintf("%s at %v", what, c.Now().Sub(DefaultStart))) }

	late, cancelLate := c.WithTimeout(context.Background(), 20*time.Second)
	defer cancelLate()
	after := c.After(10 * time.Second)
	early, cancelEarly := c.WithDeadline(context.Background(), DefaultStart.Add(5*time.Second))
	defer cancelEarly()
	same, cancelSame := c.WithTimeout(context.Background(), 10*time.Second) // armed after After(10s)
	defer cancelSame()
	assert.Equal(t, 4, c.Timers())

	c.Add(7 * time.Second)
	<-early.Done()
	note("early")
	assert.Equal(t, context.DeadlineExceeded, early.Err())
	assert.NoError(t, same.Err())
	assert.Equal(t, 3, c.Timers())

	c.Add(13 * time.Second)
	assert.Equal(t, DefaultStart.Add(10*time.Second), ready(t, after, "After(10s)"), "After sends the time it fired at")
	<-same.Done()
	<-late.Done()
	note("late")
	assert.Equal(t, context.DeadlineExceeded, late.Err())
	assert.Equal(t, 0, c.Timers())
	assert.Equal(t, []string{"early at 7s", "late at 20s"}, fired)
}

func TestVirtualClockAddCannotGoBack(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	assert.PanicsWithValue(t, "sqsfake: VirtualClock.Add(-1s): a clock cannot go back", func() { c.Add(-time.Second) })
	assert.Equal(t, DefaultStart, c.Now())
	c.Add(0)
	assert.Equal(t, DefaultStart, c.Now())
}

func TestAdvanceWithANegativeDurationPanics(t *testing.T) {
	f := New()
	assert.PanicsWithValue(t, "sqsfake: Advance(-30s): a clock cannot go back", func() { f.Advance(-30 * time.Second) })
	assert.Equal(t, DefaultStart, f.Now())
}

func TestVirtualClockDeadlineContexts(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	bg := context.Background()

	t.Run("a deadline already reached ends at once and arms nothing", func(t *testing.T) {
		ctx, cancel := c.WithDeadline(bg, c.Now())
		defer cancel()
		assert.Equal(t, context.DeadlineExceeded, ctx.Err())
		assert.Equal(t, 0, c.Timers())
	})
	t.Run("cancel disarms the timer and reports Canceled", func(t *testing.T) {
		ctx, cancel := c.WithTimeout(bg, time.Minute)
		assert.Equal(t, 1, c.Timers())
		dl, ok := ctx.Deadline()
		assert.True(t, ok)
		assert.Equal(t, c.Now().Add(time.Minute), dl)
		cancel()
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, 0, c.Timers())
		c.Add(time.Minute)
		assert.Equal(t, context.Canceled, ctx.Err(), "a cancelled context stays cancelled")
	})
	t.Run("contexts derived from it end with it, with DeadlineExceeded", func(t *testing.T) {
		ctx, cancel := c.WithTimeout(bg, time.Second)
		defer cancel()
		child, cancelChild := context.WithCancel(ctx)
		defer cancelChild()
		inner, cancelInner := c.WithTimeout(ctx, time.Hour)
		defer cancelInner()
		c.Add(time.Second)
		for _, x := range []context.Context{ctx, child, inner} {
			ready(t, x.Done(), "Done")
			assert.ErrorIs(t, x.Err(), context.DeadlineExceeded)
			assert.ErrorIs(t, context.Cause(x), context.DeadlineExceeded)
		}
		assert.Equal(t, 0, c.Timers(), "the inner context's own timer is disarmed")
	})
	t.Run("a parent that ends ends it and disarms its timer", func(t *testing.T) {
		parent, cancelParent := context.WithCancel(bg)
		ctx, cancel := c.WithTimeout(parent, time.Minute)
		defer cancel()
		cancelParent()
		<-ctx.Done()
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, 0, c.Timers(), "disarmed before Done is closed")
	})
	t.Run("a parent already ended ends it at once", func(t *testing.T) {
		parent, cancelParent := context.WithCancel(bg)
		cancelParent()
		ctx, cancel := c.WithTimeout(parent, time.Minute)
		defer cancel()
		assert.Equal(t, context.Canceled, ctx.Err())
		assert.Equal(t, 0, c.Timers())
	})
	t.Run("values come from the parent", func(t *testing.T) {
		type key struct{}
		ctx, cancel := c.WithTimeout(context.WithValue(bg, key{}, "v"), time.Minute)
		defer cancel()
		assert.Equal(t, "v", ctx.Value(key{}))
	})
}

func TestVirtualClockAfterSleepAndTick(t *testing.T) {
	c := NewVirtualClock(DefaultStart)

	now := ready(t, c.After(0), "After(0)")
	assert.Equal(t, DefaultStart, now, "After(0) fires at once")

	woke := make(chan time.Time, 1)
	go func() { c.Sleep(3 * time.Second); woke <- c.Now() }()
	require.NoError(t, c.WaitForTimers(waitCtx(t), 1))
	c.Add(3 * time.Second)
	assert.Equal(t, DefaultStart.Add(3*time.Second), <-woke)

	assert.Nil(t, c.Tick(0), "a non-positive period gives no ticker, as time.Tick")
	tick := c.Tick(time.Second)
	c.Add(time.Second)
	assert.Equal(t, DefaultStart.Add(4*time.Second), ready(t, tick, "the first tick"))
	c.Add(5 * time.Second) // five ticks come due; the channel holds one, as a time.Ticker's does
	assert.Equal(t, DefaultStart.Add(5*time.Second), ready(t, tick, "a tick"))
	select {
	case at := <-tick:
		t.Fatalf("a second tick is buffered: %v", at)
	default:
	}
	assert.Equal(t, 1, c.Timers(), "the ticker stays armed")
	assert.Equal(t, 2*time.Second, c.Since(DefaultStart.Add(7*time.Second)))
	assert.Equal(t, -2*time.Second, c.Until(DefaultStart.Add(7*time.Second)))
}

// Timer, AfterFunc and Ticker return benbjohnson's own types, which only its mock can make:
// they come from a benbjohnson mock the clock keeps in step.
func TestVirtualClockBenbjohnsonTimersFireOnAdd(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	bg := context.Background()
	deadline, cancel := c.WithTimeout(bg, 15*time.Second)
	defer cancel()

	timer := c.Timer(10 * time.Second)
	stopped := c.Timer(10 * time.Second)
	assert.True(t, stopped.Stop())
	var mu sync.Mutex
	var calls []time.Time
	called := make(chan struct{})
	c.AfterFunc(20*time.Second, func() {
		mu.Lock()
		calls = append(calls, c.Now())
		mu.Unlock()
		close(called)
	})
	ticker := c.Ticker(4 * time.Second)
	defer ticker.Stop()

	c.Add(12 * time.Second)
	assert.Equal(t, DefaultStart.Add(10*time.Second), <-timer.C)
	assert.Equal(t, DefaultStart.Add(4*time.Second), <-ticker.C, "of the ticks at 4 s and 8 s, the channel keeps the first")
	assert.Equal(t, DefaultStart.Add(12*time.Second), c.Now())
	assert.NoError(t, deadline.Err())

	timer.Reset(time.Second)
	c.Add(8 * time.Second)
	assert.Equal(t, DefaultStart.Add(13*time.Second), <-timer.C, "Reset counts from the clock's time")
	ready(t, deadline.Done(), "the deadline at 15 s")
	<-called // benbjohnson runs AfterFunc callbacks on goroutines of their own
	mu.Lock()
	assert.Equal(t, []time.Time{DefaultStart.Add(20 * time.Second)}, calls)
	mu.Unlock()
	select {
	case at := <-stopped.C:
		t.Fatalf("a stopped timer fired at %v", at)
	default:
	}
}

func TestVirtualClockWaitForTimers(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	require.NoError(t, c.WaitForTimers(context.Background(), 0))

	armed := make(chan struct{})
	go func() {
		ctx, cancel := c.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = c.After(time.Hour)
		close(armed)
		<-ctx.Done()
	}()
	require.NoError(t, c.WaitForTimers(waitCtx(t), 2))
	<-armed
	c.Add(time.Minute)
	assert.Equal(t, 1, c.Timers(), "After(1h) is still armed")

	short, cancel := context.WithCancel(context.Background())
	cancel()
	err := c.WaitForTimers(short, 3)
	require.ErrorIs(t, err, context.Canceled)
	assert.EqualError(t, err, "sqsfake: WaitForTimers: 1 of the 3 timers awaited are armed on the clock: context canceled")
}

func TestFakeWaitForTimers(t *testing.T) {
	t.Run("on the default clock it waits for code that waits on the fake's clock", func(t *testing.T) {
		f := New()
		clk := f.Clock().(*VirtualClock)
		done := make(chan time.Time)
		go func() { clk.Sleep(time.Minute); done <- f.Now() }()
		require.NoError(t, f.WaitForTimers(waitCtx(t), 1))
		f.Advance(time.Minute)
		assert.Equal(t, DefaultStart.Add(time.Minute), <-done)
	})
	t.Run("a long poll holds a timer", func(t *testing.T) {
		f := New()
		q := mustCreateQueue(t, f, "q", nil)
		ch := startPoll(t, context.Background(), f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
		require.NoError(t, f.WaitForTimers(waitCtx(t), 1))
		f.Advance(20 * time.Second)
		r := <-ch
		require.NoError(t, r.err)
		assert.Empty(t, r.out.Messages)
	})
	t.Run("a clock that cannot count its timers says so", func(t *testing.T) {
		f := New(WithClock(NewMockClock()))
		err := f.WaitForTimers(context.Background(), 1)
		require.ErrorIs(t, err, errors.ErrUnsupported)
		assert.EqualError(t, err, "sqsfake: WaitForTimers: the fake's clock, a *clock.Mock, cannot count its timers (New's default *sqsfake.VirtualClock can): unsupported operation")
	})
}

// A deadline given in another location (time.Unix gives Local) must not change the location of
// the clock's time while its timer fires: Now's location would otherwise depend on whether a
// woken goroutine reads it before Add finishes.
func TestVirtualClockKeepsItsLocationWhileATimerFires(t *testing.T) {
	c := NewVirtualClock(DefaultStart)
	var during time.Time
	c.mu.Lock()
	c.arm(&vtimer{at: time.Unix(0, DefaultStart.Add(time.Second).UnixNano()), fire: func(time.Time) { during = c.Now() }})
	c.mu.Unlock()
	c.Add(2 * time.Second)
	assert.Equal(t, DefaultStart.Add(time.Second), during)
	assert.Equal(t, DefaultStart.Add(2*time.Second), c.Now())
}

// The fake reads its VirtualClock's time without the clock's lock while the clock keeps its
// own time, and through the benbjohnson mock once that tells the time (after a Timer, say);
// a zero VirtualClock, which keeps no copy, is read as Now reads it. Each reads as Now.
func TestTheFakeReadsTheTimeItsVirtualClockShows(t *testing.T) {
	for _, tc := range []struct {
		name string
		clk  func() *VirtualClock
	}{
		{"its own time", func() *VirtualClock { return NewVirtualClock(DefaultStart) }},
		{"the mock's time", func() *VirtualClock {
			c := NewVirtualClock(DefaultStart)
			c.Timer(time.Hour)
			return c
		}},
		{"a zero clock", func() *VirtualClock { return &VirtualClock{} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.clk()
			f := New(WithClock(c))
			assert.Equal(t, c.Now().UnixNano(), f.now())
			c.Add(90 * time.Second)
			assert.Equal(t, c.Now().UnixNano(), f.now())
			f.Advance(time.Minute)
			assert.Equal(t, c.Now().UnixNano(), f.now())
		})
	}
}
