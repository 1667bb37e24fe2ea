package heartbeat_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
)

// shortCtx bounds a wait that would hang if the behaviour under test were missing.
func shortCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A test can drive a heartbeat to its end without knowing when that comes: WaitArmed says
// so instead of waiting for a timer that will never be armed.
func TestKeeperWaitArmedReturnsErrEndedOnceTheHeartbeatHasEnded(t *testing.T) {
	e := newEnv(t, map[string]string{"VisibilityTimeout": "60"})
	msg, receivedAt := e.receiveOne(0)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
	d := k.Hold(e.ctx, msg, receivedAt, 60*time.Second)
	defer d.Stop()

	steps := 0
	for {
		err := k.WaitArmed(shortCtx(t), 1)
		if errors.Is(err, heartbeat.ErrEnded) {
			break
		}
		require.NoError(t, err)
		e.f.Advance(30 * time.Second)
		steps++
	}
	assert.Equal(t, 1439, steps, "12 hours in 30 s steps, the last one ending the heartbeat")
	assert.Equal(t, 1438, d.Extensions())
	assert.Equal(t, receivedAt.Add(heartbeat.MaxVisibility), d.VisibleAt())
	require.NoError(t, d.Err())
	assert.ErrorIs(t, d.WaitArmed(shortCtx(t)), heartbeat.ErrEnded)
	assert.ErrorIs(t, k.WaitArmed(shortCtx(t), 1), heartbeat.ErrEnded, "and again")
	assert.Zero(t, k.Running())
}

// Keeper.WaitArmed ends with ErrEnded only when fewer than n heartbeats run and the last
// thing that happened was an end; a delivery held since brings the waiting back.
func TestKeeperWaitArmedErrEndedCountsTheHeartbeatsLeft(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()))
	a := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	b := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	require.NoError(t, k.WaitArmed(shortCtx(t), 2))

	b.Stop()
	assert.ErrorIs(t, k.WaitArmed(shortCtx(t), 2), heartbeat.ErrEnded, "one of two is left")
	require.NoError(t, k.WaitArmed(shortCtx(t), 1))

	c := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	defer c.Stop()
	require.NoError(t, k.WaitArmed(shortCtx(t), 2), "a new delivery counts")
	a.Stop()
	c.Stop()
	assert.ErrorIs(t, k.WaitArmed(shortCtx(t), 1), heartbeat.ErrEnded)
}

// A delivery with a zero timeout has no heartbeat: it has ended from the start.
func TestZeroTimeoutDeliveryHasEndedForWaitArmed(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()))
	d := k.Hold(e.ctx, msg, receivedAt, 0)
	defer d.Stop()
	assert.ErrorIs(t, d.WaitArmed(shortCtx(t)), heartbeat.ErrEnded)
	assert.ErrorIs(t, k.WaitArmed(shortCtx(t), 1), heartbeat.ErrEnded)
}

func TestDeliveryWaitArmed(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
	d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	other := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	other.Stop()

	require.NoError(t, d.WaitArmed(shortCtx(t)))
	e.f.Advance(15 * time.Second)
	require.NoError(t, d.WaitArmed(shortCtx(t)), "the extension due at 15 s has been made")
	assert.Equal(t, 1, d.Extensions())
	assert.Equal(t, []extCall{{15 * time.Second, 30}}, rec.Calls())

	// The next extension call is held back on the fake's clock: meanwhile the heartbeat is in
	// a call, not armed, and WaitArmed waits until its context ends.
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Times: 1, Latency: time.Second})
	e.f.Advance(15 * time.Second)
	require.NoError(t, e.f.WaitForPollers(shortCtx(t), 1))
	cancelled, cancel := context.WithCancel(e.ctx)
	cancel()
	assert.ErrorIs(t, d.WaitArmed(cancelled), context.Canceled)
	e.f.Advance(time.Second)
	require.NoError(t, d.WaitArmed(shortCtx(t)))
	assert.Equal(t, 2, d.Extensions())

	d.Stop()
	assert.ErrorIs(t, d.WaitArmed(shortCtx(t)), heartbeat.ErrEnded)
	assert.ErrorIs(t, other.WaitArmed(shortCtx(t)), heartbeat.ErrEnded)
}

// WithHoldHook hands a test each delivery that code under test holds with Run, so that it can
// wait on that delivery and read its extensions, deadline and failure.
func TestHoldHookReachesTheDeliveriesOfRun(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	held := make(chan *heartbeat.Delivery, 1)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithHoldHook(func(d *heartbeat.Delivery) { held <- d }))

	finish := make(chan struct{})
	result := make(chan error, 1)
	go func() { result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, heldHandler(finish, nil)) }()
	d := <-held
	for range 3 {
		require.NoError(t, d.WaitArmed(shortCtx(t)))
		e.f.Advance(15 * time.Second)
	}
	require.NoError(t, d.WaitArmed(shortCtx(t)))
	close(finish)
	require.NoError(t, <-result)
	assert.Equal(t, 3, d.Extensions())
	assert.Equal(t, receivedAt.Add(75*time.Second), d.VisibleAt())
	require.NoError(t, d.Err())
	assert.ErrorIs(t, d.WaitArmed(shortCtx(t)), heartbeat.ErrEnded, "Run has returned")
}

// The handler reaches its delivery through its context, and so does Run's caller after Run.
func TestFromContextGivesTheHandlerItsDelivery(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()))

	var d *heartbeat.Delivery
	err := k.Run(e.ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error {
		derived, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		d = heartbeat.FromContext(derived)
		return nil
	})
	require.NoError(t, err)
	require.NotNil(t, d)
	assert.Equal(t, receivedAt.Add(30*time.Second), d.VisibleAt())
	assert.Zero(t, d.Extensions())
	assert.Nil(t, heartbeat.FromContext(e.ctx), "a context that is no delivery's")

	held := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	defer held.Stop()
	assert.Same(t, held, heartbeat.FromContext(held.Context()))
}
