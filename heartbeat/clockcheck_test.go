package heartbeat_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
)

// TestAReceiveTimeFromAnotherClockIsRefused pins must-have 6 of issue 19: a receive time that
// cannot be true for the Keeper's clock is refused with a *ClockError naming both clocks, the
// handler not run and no extension made; times that can be true are kept.
func TestAReceiveTimeFromAnotherClockIsRefused(t *testing.T) {
	e := newEnv(t, nil)
	msg, now := e.receiveOne(30)
	onFake := heartbeat.New(e.recorder(), e.url, heartbeat.WithClock(e.f.Clock()))
	var logs logBuffer
	onWall := heartbeat.New(e.recorder(), e.url, heartbeat.WithLogger(logs.logger()))
	for _, tc := range []struct {
		name       string
		k          *heartbeat.Keeper
		msg        types.Message
		receivedAt time.Time
		problem    string // "" when accepted
	}{
		{"time.Now() on the fake's clock", onFake, msg, time.Now(), "ahead of the Keeper's clock"},
		{"a second ahead", onFake, msg, now.Add(time.Second), "is 1s ahead of"},
		{"the fake's time on the wall clock", onWall, msg, now, "more than the 12 hours"},
		{"before the message was sent", onFake, withSent(msg, now.Add(time.Hour)), now, "before the message was sent"},
		{"now", onFake, msg, now, ""},
		{"zero means now", onFake, msg, time.Time{}, ""},
		{"sent within the skew allowance after the receive", onFake, withSent(msg, now.Add(heartbeat.SkewAllowance)), now, ""},
		{"received 12 hours ago", onFake, msg, now.Add(-heartbeat.MaxVisibility), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ran := false
			err := tc.k.Run(e.ctx, tc.msg, tc.receivedAt, 30*time.Second, func(context.Context) error { ran = true; return nil })
			if tc.problem == "" {
				assert.NoError(t, err)
				assert.True(t, ran)
				return
			}
			var ce *heartbeat.ClockError
			require.ErrorAs(t, err, &ce)
			assert.False(t, ran, "the handler is not run")
			assert.Contains(t, ce.Problem, tc.problem)
			for _, want := range []string{ce.Clock, ce.Now.UTC().Format(time.RFC3339Nano), tc.receivedAt.UTC().Format(time.RFC3339Nano), "k.Now()", "heartbeat.WithClock(f.Clock())"} {
				assert.Contains(t, err.Error(), want)
			}
			d := tc.k.Hold(e.ctx, tc.msg, tc.receivedAt, 30*time.Second)
			assert.ErrorAs(t, context.Cause(d.Context()), &ce, "the delivery's context ends with it")
			assert.ErrorAs(t, d.Err(), &ce)
			assert.ErrorIs(t, d.WaitArmed(e.ctx), heartbeat.ErrEnded)
			d.Stop()
		})
	}
	assert.Empty(t, logs.records(t), "no 12-hour warning: the limit is not the cause, the clock is")
	assert.Equal(t, "the wall clock, time.Now: the Keeper has no WithClock", clockOf(t, onWall, now))
	assert.Equal(t, "a *sqsfake.VirtualClock given with WithClock", clockOf(t, onFake, time.Now()))
}

func clockOf(t *testing.T, k *heartbeat.Keeper, receivedAt time.Time) string {
	var ce *heartbeat.ClockError
	require.ErrorAs(t, k.Run(context.Background(), types.Message{}, receivedAt, time.Minute, func(context.Context) error { return nil }), &ce)
	return ce.Clock
}

func withSent(m types.Message, at time.Time) types.Message {
	attrs := map[string]string{}
	for k, v := range m.Attributes {
		attrs[k] = v
	}
	attrs["SentTimestamp"] = strconv.FormatInt(at.UnixMilli(), 10)
	m.Attributes = attrs
	return m
}

// TestDurationsGivenAsBareNumbersAreNamed pins issue 21's unit messages for heartbeat: a
// timeout of 30 (nanoseconds) is refused, and so are WithBackoff's values.
func TestDurationsGivenAsBareNumbersAreNamed(t *testing.T) {
	f := sqsfake.New()
	k := heartbeat.New(f, "q", heartbeat.WithClock(f.Clock()))
	err := k.Run(context.Background(), types.Message{}, time.Time{}, 30, func(context.Context) error { return nil })
	require.Error(t, err)
	assert.Equal(t, "heartbeat: timeout is a time.Duration: 30 means 30ns; did you mean 30*time.Second?", err.Error())
	for _, tc := range []struct {
		first, most time.Duration
		want        string
	}{
		{1, 8 * time.Second, "heartbeat: WithBackoff's first is a time.Duration: 1 means 1ns; did you mean 1*time.Second?"},
		{time.Second, 8, "heartbeat: WithBackoff's most is a time.Duration: 8 means 8ns; did you mean 8*time.Second?"},
	} {
		assert.PanicsWithValue(t, tc.want, func() { heartbeat.New(f, "q", heartbeat.WithBackoff(tc.first, tc.most)) })
	}
	assert.NotPanics(t, func() { heartbeat.New(f, "q", heartbeat.WithBackoff(time.Millisecond, time.Second)) })
	assert.False(t, errors.Is(err, context.Canceled))
	assert.True(t, strings.HasPrefix(err.Error(), "heartbeat:"))
}
