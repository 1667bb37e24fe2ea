package sqsfake

import (
	"context"
	"testing"
	"time"

	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// retryAfter stands for code under test that takes benbjohnson's clock.Clock.
func retryAfter(c clock.Clock, d time.Duration) time.Time { return c.Now().Add(d) }

// TestClockIsTheClockCodeUnderTestTakes pins issue 32's trap 3: f.Clock() did not compile
// where benbjohnson's clock.Clock is taken (docs/api.md said it was one); it is now that
// interface, and the fake's own clock where that is one.
func TestClockIsTheClockCodeUnderTestTakes(t *testing.T) {
	vc := NewVirtualClock(DefaultStart)
	mock := NewMockClock()
	for _, tc := range []struct {
		name  string
		opts  []Option
		check func(t *testing.T, f *Fake)
	}{
		{"New's VirtualClock", nil, func(t *testing.T, f *Fake) {
			_, ok := f.Clock().(*VirtualClock)
			assert.True(t, ok, "the VirtualClock itself: Add, WaitForTimers")
		}},
		{"a VirtualClock of one's own", []Option{WithClock(vc)}, func(t *testing.T, f *Fake) { assert.Same(t, vc, f.Clock()) }},
		{"a benbjohnson mock", []Option{WithClock(mock)}, func(t *testing.T, f *Fake) { assert.Same(t, mock, f.Clock()) }},
		{"RealClock", []Option{WithClock(RealClock{})}, func(t *testing.T, f *Fake) { assert.Equal(t, RealClock{}, f.Clock()) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New(tc.opts...)
			tc.check(t, f)
			got := retryAfter(f.Clock(), time.Minute) // compiles: the point of the test
			assert.WithinDuration(t, f.Now().Add(time.Minute), got, time.Second)
		})
	}
}

// A clock adapted with ClockFuncs is shared through an adapter: the waits made from its
// WithDeadline end when it moves, and its benbjohnson timers fire at Advance's steps.
func TestClockAdaptsAClockFuncs(t *testing.T) {
	start := time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)
	mc := &manualClock{now: start}
	f := New(WithClock(ClockFuncs{NowFunc: mc.Now, AfterFuncFunc: mc.AfterFunc, AddFunc: mc.Add}))
	c := f.Clock()
	assert.Equal(t, start, c.Now())

	after := c.After(10 * time.Second)
	timer := c.Timer(20 * time.Second)
	fired := make(chan struct{})
	c.AfterFunc(5*time.Second, func() { close(fired) })
	stopped := c.Timer(time.Second)
	require.True(t, stopped.Stop())
	ctx, cancel := c.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	f.Advance(10 * time.Second)
	assert.Equal(t, start.Add(10*time.Second), <-after)
	<-fired
	assert.Equal(t, 10*time.Second, c.Since(start))
	assert.Equal(t, -10*time.Second, c.Until(start))
	select {
	case <-timer.C:
		t.Fatal("the 20-second timer fired at 10 s")
	default:
	}
	f.Advance(10 * time.Second)
	assert.Equal(t, start.Add(20*time.Second), <-timer.C)
	assert.NoError(t, ctx.Err())
	f.Advance(10 * time.Second)
	<-ctx.Done()
	assert.ErrorIs(t, context.Cause(ctx), context.DeadlineExceeded)
	select {
	case <-stopped.C:
		t.Fatal("a stopped timer fired")
	default:
	}
}
