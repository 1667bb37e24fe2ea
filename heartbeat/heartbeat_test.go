package heartbeat_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
)

// Any client and any clock the fake accepts work.
var (
	_ heartbeat.Client  = (*sqs.Client)(nil)
	_ heartbeat.Client  = (*sqsfake.Fake)(nil)
	_ heartbeat.Deleter = (*sqs.Client)(nil)
	_ heartbeat.Deleter = (*sqsfake.Fake)(nil)
	_ heartbeat.Clock   = (*clock.Mock)(nil)
	_ heartbeat.Clock   = clock.New()
	_ heartbeat.Clock   = sqsfake.RealClock{}
	_ heartbeat.Clock   = sqsfake.ClockFuncs{}
	_ heartbeat.Clock   = sqsfake.Clock(nil)
)

// env is a fake with one standard queue whose visibility timeout is 30 seconds, on the
// fake's default mock clock.
type env struct {
	t   *testing.T
	ctx context.Context
	f   *sqsfake.Fake
	url string
	t0  time.Time
}

func newEnv(t *testing.T, attrs map[string]string) *env {
	t.Helper()
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	f := sqsfake.New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: attrs})
	require.NoError(t, err)
	return &env{t: t, ctx: ctx, f: f, url: *q.QueueUrl, t0: f.Now()}
}

func (e *env) send(body string) {
	e.t.Helper()
	_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: &e.url, MessageBody: aws.String(body)})
	require.NoError(e.t, err)
}

// receive is a short poll of up to 10 messages; visibility 0 means the queue's timeout.
func (e *env) receive(visibility int32) []types.Message {
	e.t.Helper()
	out, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{
		QueueUrl: &e.url, MaxNumberOfMessages: 10, VisibilityTimeout: visibility,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
	})
	require.NoError(e.t, err)
	return out.Messages
}

// receiveOne sends a message and receives it, and returns it with its receive time.
func (e *env) receiveOne(visibility int32) (types.Message, time.Time) {
	e.t.Helper()
	e.send("job")
	msgs := e.receive(visibility)
	require.Len(e.t, msgs, 1)
	return msgs[0], e.f.Now()
}

// waitArmed waits until n heartbeats of k have armed a timer that has not yet fired.
func (e *env) waitArmed(k *heartbeat.Keeper, n int) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, 10*time.Second)
	defer cancel()
	require.NoError(e.t, k.WaitArmed(ctx, n), "waiting for %d armed heartbeat(s) at %s", n, e.elapsed())
}

// step waits for n armed heartbeats, then moves the clock by d.
func (e *env) step(k *heartbeat.Keeper, n int, d time.Duration) {
	e.t.Helper()
	e.waitArmed(k, n)
	e.f.Advance(d)
}

// elapsed is the time on the fake's clock since the env was made.
func (e *env) elapsed() time.Duration { return e.f.Now().Sub(e.t0) }

func (e *env) counts() (visible, inFlight string) {
	e.t.Helper()
	out, err := e.f.GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: &e.url,
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameApproximateNumberOfMessages, types.QueueAttributeNameApproximateNumberOfMessagesNotVisible}})
	require.NoError(e.t, err)
	return out.Attributes["ApproximateNumberOfMessages"], out.Attributes["ApproximateNumberOfMessagesNotVisible"]
}

func wait(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// extCall is one ChangeMessageVisibility call a recorder saw.
type extCall struct {
	at      time.Duration // on the fake's clock, since the env was made
	timeout int32
}

// recorder wraps the fake's ChangeMessageVisibility and records every call, with the time
// on the fake's clock. Faults injected into the fake apply inside the wrapped call.
type recorder struct {
	e *env

	mu    sync.Mutex
	calls []extCall
}

func (e *env) recorder() *recorder { return &recorder{e: e} }

func (r *recorder) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	r.mu.Lock()
	r.calls = append(r.calls, extCall{r.e.elapsed(), in.VisibilityTimeout})
	r.mu.Unlock()
	return r.e.f.ChangeMessageVisibility(ctx, in, optFns...)
}

func (r *recorder) Calls() []extCall {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]extCall(nil), r.calls...)
}

// logBuffer collects a JSON slog handler's output.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// records returns the logged records as decoded JSON objects.
func (b *logBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m))
		out = append(out, m)
	}
	return out
}

// noLeaks checks, when the test ends, that no goroutine the test started is left blocked.
// Goroutines that are ending (a heartbeat that has closed its Done channel, a callback of
// context.AfterFunc) are runnable, not blocked, so the check needs no waiting: a goroutine
// still blocked once the test and its cleanups are over has nothing left to wake it.
func noLeaks(t *testing.T) {
	before := goroutineStates()
	t.Cleanup(func() {
		if leaked := blockedSince(before); len(leaked) > 0 {
			t.Errorf("goroutine leak: %d goroutine(s) started by the test are blocked\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
	})
}

// goroutineStates returns every goroutine's stack by its id, with its state in the first line.
func goroutineStates() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	states := make(map[string]string)
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if id, ok := strings.CutPrefix(header, "goroutine "); ok {
			id, _, _ = strings.Cut(id, " ")
			states[id] = g
		}
	}
	return states
}

// blockedSince returns the stacks of the goroutines that did not exist in before and are
// blocked: in any state but running or runnable.
func blockedSince(before map[string]string) []string {
	var leaked []string
	for id, g := range goroutineStates() {
		if _, old := before[id]; old {
			continue
		}
		header, _, _ := strings.Cut(g, "\n")
		state := header[strings.Index(header, "[")+1:]
		state, _, _ = strings.Cut(state, "]")
		state, _, _ = strings.Cut(state, ",")
		if state != "running" && state != "runnable" {
			leaked = append(leaked, g)
		}
	}
	return leaked
}

// The leak check sees a goroutine left blocked, and not one that has ended.
func TestNoLeaksSeesABlockedGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		before := goroutineStates()
		release := make(chan struct{})
		ended := make(chan struct{})
		go func() { <-release }()
		go func() { close(ended) }()
		synctest.Wait() // the first is blocked on release, the second has returned
		leaked := blockedSince(before)
		close(release)
		require.Len(t, leaked, 1)
		assert.Contains(t, leaked[0], "chan receive")
		assert.Contains(t, leaked[0], "TestNoLeaksSeesABlockedGoroutine")
	})
}

// heldHandler returns a handler that works until finish is closed. If seen is not nil, the
// handler first sends its context on it.
func heldHandler(finish <-chan struct{}, seen chan<- context.Context) func(context.Context) error {
	return func(ctx context.Context) error {
		if seen != nil {
			seen <- ctx
		}
		select {
		case <-finish:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

func TestHandlerThreeTimeoutsLongIsNeverRedelivered(t *testing.T) {
	e := newEnv(t, nil) // the queue's visibility timeout: 30 s
	msg, receivedAt := e.receiveOne(0)
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))

	finish := make(chan struct{})
	result := make(chan error, 1)
	go func() { result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, heldHandler(finish, nil)) }()

	// The handler works for 90 s, three timeouts. Another receiver polls every 15 s.
	for i := 1; i <= 6; i++ {
		e.step(k, 1, 15*time.Second)
		e.waitArmed(k, 1) // the extension due now has been made
		assert.Empty(t, e.receive(0), "redelivered at %s", e.elapsed())
	}
	close(finish)
	require.NoError(t, <-result)
	assert.Zero(t, k.Running())

	_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: &e.url, ReceiptHandle: msg.ReceiptHandle})
	require.NoError(t, err)
	visible, inFlight := e.counts()
	assert.Equal(t, "0", visible)
	assert.Equal(t, "0", inFlight)

	want := []extCall{{15 * time.Second, 30}, {30 * time.Second, 30}, {45 * time.Second, 30}, {60 * time.Second, 30}, {75 * time.Second, 30}, {90 * time.Second, 30}}
	assert.Equal(t, want, rec.Calls())

	// Nothing runs after Run returned, however far the clock moves.
	e.f.Advance(time.Hour)
	assert.Len(t, rec.Calls(), 6)
}

func TestWithoutHeartbeatTheMessageIsRedelivered(t *testing.T) {
	e := newEnv(t, nil)
	msg, _ := e.receiveOne(0)

	var again []types.Message
	for i := 1; i <= 6 && len(again) == 0; i++ {
		e.f.Advance(15 * time.Second)
		again = e.receive(0)
	}
	require.Len(t, again, 1, "the same scenario without a heartbeat redelivers")
	assert.Equal(t, 30*time.Second, e.elapsed(), "redelivered when the first timeout ended")
	assert.Equal(t, *msg.MessageId, *again[0].MessageId)
	assert.Equal(t, "2", again[0].Attributes["ApproximateReceiveCount"])
}

func TestTwelveHourLimitGetsOneLastExtensionAndAWarning(t *testing.T) {
	e := newEnv(t, nil)
	const timeout = 18001 // s, set by the receive; half of it rounds down to 9000 s
	msg, receivedAt := e.receiveOne(timeout)
	rec := e.recorder()
	var logs logBuffer
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(logs.logger()))

	d := k.Hold(e.ctx, msg, receivedAt, timeout*time.Second)
	defer d.Stop()
	e.step(k, 1, 9000*time.Second)
	e.step(k, 1, 9000*time.Second)
	e.step(k, 1, 9000*time.Second) // 27000 s: a full timeout would pass 43200 s
	wait(t, d.Done(), "the heartbeat to end after its last extension")

	assert.Equal(t, []extCall{{9000 * time.Second, timeout}, {18000 * time.Second, timeout}, {27000 * time.Second, 16200}}, rec.Calls())
	assert.Equal(t, receivedAt.Add(12*time.Hour), d.VisibleAt())
	require.NoError(t, d.Context().Err(), "the handler keeps running; only the warning tells it")
	require.NoError(t, d.Err())

	recs := logs.records(t)
	require.Len(t, recs, 1)
	assert.Equal(t, "WARN", recs[0]["level"])
	assert.Equal(t, heartbeat.LimitMessage, recs[0]["msg"])
	assert.Equal(t, e.url, recs[0]["queue_url"])
	assert.Equal(t, *msg.MessageId, recs[0]["message_id"])
	assert.Equal(t, receivedAt.Format(time.RFC3339Nano), recs[0]["received_at"])
	assert.Equal(t, receivedAt.Add(12*time.Hour).Format(time.RFC3339Nano), recs[0]["visible_at"])
	assert.Equal(t, float64(16200), recs[0]["visibility_timeout"])

	// No more extensions; the message is visible again at exactly receive + 12 h.
	e.f.Advance(16200*time.Second - time.Second)
	assert.Empty(t, e.receive(0), "still hidden one second before the limit")
	e.f.Advance(time.Second)
	again := e.receive(0)
	require.Len(t, again, 1, "visible at receive + 12 h")
	assert.Equal(t, "2", again[0].Attributes["ApproximateReceiveCount"])
	assert.Len(t, rec.Calls(), 3)
	assert.Zero(t, k.Running())
}

// The caller took the receive time 10 s late, so SQS's 12 hours end 10 s before the
// heartbeat's. SQS refuses the last extension as "beyond the limit"; the heartbeat aims lower
// until SQS accepts, and the message stays hidden within the limit.
func TestLastExtensionAimsLowerWhenSQSCountsFromAnEarlierReceive(t *testing.T) {
	e := newEnv(t, nil)
	const timeout = 18001
	msg, realReceive := e.receiveOne(timeout)
	rec := e.recorder()
	var logs logBuffer
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(logs.logger()))

	e.f.Advance(10 * time.Second) // the caller reads the clock 10 s after the receive
	d := k.Hold(e.ctx, msg, realReceive.Add(10*time.Second), timeout*time.Second)
	defer d.Stop()
	e.step(k, 1, 9000*time.Second)
	e.step(k, 1, 9000*time.Second)
	e.step(k, 1, 9000*time.Second) // 27010 s
	wait(t, d.Done(), "the heartbeat to end after its last extension")

	at := 27010 * time.Second
	assert.Equal(t, []extCall{{9010 * time.Second, timeout}, {18010 * time.Second, timeout},
		{at, 16200}, {at, 16199}, {at, 16197}, {at, 16193}, {at, 16185}}, rec.Calls())
	require.NoError(t, d.Err())
	assert.Equal(t, realReceive.Add(43195*time.Second), d.VisibleAt())

	recs := logs.records(t)
	require.NotEmpty(t, recs)
	last := recs[len(recs)-1]
	assert.Equal(t, heartbeat.LimitMessage, last["msg"])
	assert.Equal(t, float64(16185), last["visibility_timeout"])

	e.f.Advance(16185*time.Second - time.Second)
	assert.Empty(t, e.receive(0))
	e.f.Advance(time.Second)
	assert.Len(t, e.receive(0), 1)
}

// The limit can also be reached without a shortened last extension: a regular extension that
// ends exactly at receive + 12 h, or the receive's own timeout. The warning then comes when
// the next extension would have been due, no call is made, and it reports the timeout that
// hides the message until the limit.
func TestTwelveHourLimitReachedExactlyNeedsNoLastExtension(t *testing.T) {
	for _, tc := range []struct {
		name    string
		timeout int32 // s, set by the receive
		calls   int   // regular extensions, each of the full timeout
	}{
		{"by a regular extension", 7200, 10}, // at 1 h, 2 h, …, 10 h; the one at 10 h ends at 12 h
		{"by the receive", 43200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, nil)
			msg, receivedAt := e.receiveOne(tc.timeout)
			rec := e.recorder()
			var logs logBuffer
			k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(logs.logger()))

			d := k.Hold(e.ctx, msg, receivedAt, time.Duration(tc.timeout)*time.Second)
			defer d.Stop()
			interval := time.Duration(tc.timeout/2) * time.Second
			for range tc.calls + 1 {
				e.step(k, 1, interval)
			}
			wait(t, d.Done(), "the heartbeat to end at the limit")

			calls := rec.Calls()
			require.Len(t, calls, tc.calls)
			for i, c := range calls {
				assert.Equal(t, extCall{time.Duration(i+1) * interval, tc.timeout}, c)
			}
			assert.Equal(t, tc.calls, d.Extensions())
			assert.Equal(t, receivedAt.Add(12*time.Hour), d.VisibleAt())
			require.NoError(t, d.Err())
			require.NoError(t, d.Context().Err())

			recs := logs.records(t)
			require.Len(t, recs, 1)
			assert.Equal(t, "WARN", recs[0]["level"])
			assert.Equal(t, heartbeat.LimitMessage, recs[0]["msg"])
			assert.Equal(t, receivedAt.Format(time.RFC3339Nano), recs[0]["received_at"])
			assert.Equal(t, receivedAt.Add(12*time.Hour).Format(time.RFC3339Nano), recs[0]["visible_at"])
			assert.Equal(t, float64(tc.timeout), recs[0]["visibility_timeout"], "the timeout that reached the limit, not 0")

			e.f.Advance(12*time.Hour - e.elapsed() - time.Second)
			assert.Empty(t, e.receive(0), "still hidden one second before the limit")
			e.f.Advance(time.Second)
			assert.Len(t, e.receive(0), 1, "visible at receive + 12 h")
			assert.Zero(t, k.Running())
		})
	}
}

func TestZeroTimeoutMakesNoExtension(t *testing.T) {
	e := newEnv(t, map[string]string{"VisibilityTimeout": "0"})
	msg, receivedAt := e.receiveOne(0)
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))

	for _, timeout := range []time.Duration{0, 500 * time.Millisecond, -time.Second} {
		d := k.Hold(e.ctx, msg, receivedAt, timeout)
		wait(t, d.Done(), "a heartbeat with nothing to do")
		assert.Zero(t, k.Running())
		assert.Zero(t, k.Armed())
		e.f.Advance(time.Hour)
		require.NoError(t, d.Context().Err())
		d.Stop()
		assert.ErrorIs(t, context.Cause(d.Context()), heartbeat.ErrSettled)
	}
	ran := false
	err := k.Run(e.ctx, msg, receivedAt, 0, func(ctx context.Context) error {
		ran = true
		e.f.Advance(time.Hour)
		return nil
	})
	require.NoError(t, err)
	assert.True(t, ran)
	assert.Empty(t, rec.Calls(), "no ChangeMessageVisibility call for a zero timeout")
}

func TestSettleStopsExtensionsAtOnce(t *testing.T) {
	settle := map[string]func(e *env, d *heartbeat.Delivery) error{
		"Stop":    func(e *env, d *heartbeat.Delivery) error { d.Stop(); return nil },
		"Delete":  func(e *env, d *heartbeat.Delivery) error { return d.Delete(e.ctx, e.f) },
		"Release": func(e *env, d *heartbeat.Delivery) error { return d.Release(e.ctx) },
	}
	for name, do := range settle {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t, nil)
			msg, receivedAt := e.receiveOne(0)
			rec := e.recorder()
			k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
			d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
			e.step(k, 1, 15*time.Second)
			e.waitArmed(k, 1)
			require.Equal(t, []extCall{{15 * time.Second, 30}}, rec.Calls())

			require.NoError(t, do(e, d))
			// Settled: the goroutine has ended before the call returned.
			select {
			case <-d.Done():
			default:
				t.Fatal("the heartbeat is still running after the delivery settled")
			}
			assert.Zero(t, k.Running())
			assert.Zero(t, k.Armed())
			assert.ErrorIs(t, context.Cause(d.Context()), heartbeat.ErrSettled)
			calls := len(rec.Calls())

			switch name {
			case "Delete":
				visible, inFlight := e.counts()
				assert.Equal(t, [2]string{"0", "0"}, [2]string{visible, inFlight})
			case "Release":
				assert.Equal(t, extCall{15 * time.Second, 0}, rec.Calls()[1], "Release sets visibility 0")
				assert.Len(t, e.receive(0), 1, "released: visible at once")
			case "Stop":
				e.f.Advance(30*time.Second - time.Nanosecond)
				assert.Empty(t, e.receive(0), "hidden until the last extension's end")
				e.f.Advance(time.Nanosecond)
				assert.Len(t, e.receive(0), 1, "visible at 15 s + 30 s")
			}
			for range 100 {
				e.f.Advance(15 * time.Second)
			}
			e.f.Advance(48 * time.Hour)
			assert.Len(t, rec.Calls(), calls, "no extension after the delivery settled")
		})
	}
	t.Run("handler returns", func(t *testing.T) {
		e := newEnv(t, nil)
		msg, receivedAt := e.receiveOne(0)
		rec := e.recorder()
		k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
		finish := make(chan struct{})
		result := make(chan error, 1)
		seen := make(chan context.Context, 1)
		go func() { result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, heldHandler(finish, seen)) }()
		e.step(k, 1, 15*time.Second)
		e.waitArmed(k, 1)
		close(finish)
		require.NoError(t, <-result)
		assert.Zero(t, k.Running())
		assert.ErrorIs(t, context.Cause(<-seen), heartbeat.ErrSettled, "the handler's context ends with Run")
		e.f.Advance(48 * time.Hour)
		assert.Len(t, rec.Calls(), 1)
	})
}

func TestDropStopsExtensionsAtOnce(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
	ctx, cancel := context.WithCancel(e.ctx)
	d := k.Hold(ctx, msg, receivedAt, 30*time.Second)
	e.step(k, 1, 15*time.Second)
	e.waitArmed(k, 1)

	cancel() // the consumer drops the delivery
	wait(t, d.Done(), "the heartbeat to end when its context ends")
	assert.Zero(t, k.Running())
	require.NoError(t, d.Err(), "a drop is not a failure")
	assert.ErrorIs(t, context.Cause(d.Context()), context.Canceled)
	for range 100 {
		e.f.Advance(15 * time.Second)
	}
	e.f.Advance(48 * time.Hour)
	assert.Len(t, rec.Calls(), 1)
	d.Stop() // harmless after a drop
}

func TestThrottledExtensionIsRetried(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Times: 2, Err: sqsfake.ErrThrottled})
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
	seen := make(chan context.Context, 1)
	finish := make(chan struct{})
	result := make(chan error, 1)
	go func() { result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, heldHandler(finish, seen)) }()
	handlerCtx := <-seen

	e.step(k, 1, 15*time.Second) // throttled
	e.step(k, 1, time.Second)    // 16 s: throttled again
	e.step(k, 1, 2*time.Second)  // 18 s: succeeds
	e.step(k, 1, 12*time.Second) // 30 s: the first timeout's end
	assert.Empty(t, e.receive(0), "the retried extension kept the message hidden")
	e.step(k, 1, 3*time.Second) // 33 s: the next extension, half a timeout after the last
	e.waitArmed(k, 1)

	assert.Equal(t, []extCall{{15 * time.Second, 30}, {16 * time.Second, 30}, {18 * time.Second, 30}, {33 * time.Second, 30}}, rec.Calls())
	require.NoError(t, handlerCtx.Err(), "a throttle that recovers is not reported")
	close(finish)
	require.NoError(t, <-result)
}

func TestFailingExtensionCancelsTheHandlerWithTheCause(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Err: sqsfake.ErrInternal}) // every call
	rec := e.recorder()
	var logs logBuffer
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(logs.logger()))
	result := make(chan error, 1)
	go func() { result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, heldHandler(nil, nil)) }()

	e.step(k, 1, 15*time.Second) // fails; retries after 1 s, 2 s, 4 s
	e.step(k, 1, time.Second)
	e.step(k, 1, 2*time.Second)
	e.step(k, 1, 4*time.Second) // 22 s: the next retry, 8 s later, would be at the visibility's end
	err := <-result

	var ext *heartbeat.ExtendError
	require.ErrorAs(t, err, &ext, "the handler returned context.Cause(ctx)")
	assert.Equal(t, 4, ext.Attempts)
	assert.Equal(t, *msg.MessageId, ext.MessageID)
	assert.Equal(t, receivedAt.Add(30*time.Second), ext.VisibleAt)
	var apiErr smithy.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "InternalError", apiErr.ErrorCode())
	assert.Contains(t, err.Error(), "failed after 4 attempt(s)")
	assert.Equal(t, []extCall{{15 * time.Second, 30}, {16 * time.Second, 30}, {18 * time.Second, 30}, {22 * time.Second, 30}}, rec.Calls())

	recs := logs.records(t)
	require.Len(t, recs, 1)
	assert.Equal(t, "ERROR", recs[0]["level"])
	assert.Equal(t, float64(4), recs[0]["attempts"])
	assert.Contains(t, recs[0]["error"], "InternalError")

	// The handler was told 8 s before another consumer can get the message.
	e.f.Advance(8 * time.Second)
	assert.Len(t, e.receive(0), 1)
	assert.Len(t, rec.Calls(), 4)
}

func TestNonRetryableFailureStopsAtOnce(t *testing.T) {
	t.Run("message deleted behind the heartbeat", func(t *testing.T) {
		e := newEnv(t, nil)
		msg, receivedAt := e.receiveOne(0)
		rec := e.recorder()
		k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
		d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
		defer d.Stop()
		_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: &e.url, ReceiptHandle: msg.ReceiptHandle})
		require.NoError(t, err)
		e.step(k, 1, 15*time.Second)
		wait(t, d.Done(), "the heartbeat to fail")

		cause := context.Cause(d.Context())
		assert.Same(t, d.Err(), cause)
		var ext *heartbeat.ExtendError
		require.ErrorAs(t, cause, &ext)
		assert.Equal(t, 1, ext.Attempts)
		var apiErr smithy.APIError
		require.ErrorAs(t, cause, &apiErr)
		assert.Equal(t, "InvalidParameterValue", apiErr.ErrorCode())
		assert.Contains(t, apiErr.ErrorMessage(), "Message does not exist or is not available for visibility timeout change.")
		e.f.Advance(time.Hour)
		assert.Len(t, rec.Calls(), 1)
	})
	t.Run("invalid receipt handle", func(t *testing.T) {
		e := newEnv(t, nil)
		msg, receivedAt := e.receiveOne(0)
		msg.ReceiptHandle = aws.String("garbage")
		rec := e.recorder()
		k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
		d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
		defer d.Stop()
		e.step(k, 1, 15*time.Second)
		wait(t, d.Done(), "the heartbeat to fail")
		var invalid *types.ReceiptHandleIsInvalid
		require.ErrorAs(t, context.Cause(d.Context()), &invalid)
		assert.Len(t, rec.Calls(), 1)
	})
}

// The queue applies the extension but its answer is held back until after the message's
// visibility would have ended: the heartbeat abandons the call then and reports it.
func TestSlowCallIsAbandonedWhenTheMessageBecomesVisible(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Latency: time.Hour})
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
	d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	defer d.Stop()
	e.step(k, 1, 15*time.Second)
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1), "the extension call is waiting for its answer")
	e.f.Advance(15*time.Second - time.Nanosecond)
	select {
	case <-d.Done():
		t.Fatal("abandoned before the message's visibility ended")
	default:
	}
	e.f.Advance(time.Nanosecond) // 30 s: the visibility the heartbeat knows of ends
	wait(t, d.Done(), "the slow call to be abandoned")
	assert.ErrorIs(t, d.Err(), heartbeat.ErrCallTimeout)
	assert.ErrorIs(t, context.Cause(d.Context()), heartbeat.ErrCallTimeout)
}

// The extension takes effect but its response is lost: the client sees a timeout, which is
// retried.
func TestLostResponseIsRetried(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Times: 1, LoseResponse: true})
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
	d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	defer d.Stop()
	e.step(k, 1, 15*time.Second)
	e.step(k, 1, time.Second)
	e.waitArmed(k, 1)
	assert.Equal(t, []extCall{{15 * time.Second, 30}, {16 * time.Second, 30}}, rec.Calls())
	assert.Equal(t, 1, d.Extensions())
	assert.Equal(t, receivedAt.Add(46*time.Second), d.VisibleAt())
	require.NoError(t, d.Err())
}

// blockingRecorder blocks the first extension until unblock is closed.
type blockingRecorder struct {
	*recorder
	entered, unblock chan struct{}
	once             sync.Once
}

func (b *blockingRecorder) ChangeMessageVisibility(ctx context.Context, in *sqs.ChangeMessageVisibilityInput, optFns ...func(*sqs.Options)) (*sqs.ChangeMessageVisibilityOutput, error) {
	first := false
	b.once.Do(func() { first = true })
	if first {
		close(b.entered)
		<-b.unblock
	}
	return b.recorder.ChangeMessageVisibility(ctx, in, optFns...)
}

func TestReleaseWaitsForAnExtensionInFlight(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	client := &blockingRecorder{recorder: e.recorder(), entered: make(chan struct{}), unblock: make(chan struct{})}
	halting := make(chan struct{}, 1)
	k := heartbeat.New(client, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithHaltHook(func() {
		select {
		case halting <- struct{}{}:
		default:
		}
	}))
	d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	e.step(k, 1, 15*time.Second)
	wait(t, client.entered, "the extension call")

	released := make(chan error, 1)
	go func() { released <- d.Release(e.ctx) }()
	wait(t, halting, "Release to stop the heartbeat") // Release has begun; the extension is still in flight
	select {
	case err := <-released:
		t.Fatalf("Release returned (%v) while an extension was in flight", err)
	default:
	}
	assert.Empty(t, client.Calls(), "Release made its call while an extension was in flight")
	close(client.unblock)
	require.NoError(t, <-released)

	assert.Equal(t, []extCall{{15 * time.Second, 30}, {15 * time.Second, 0}}, client.Calls(), "the release comes after the extension")
	assert.Len(t, e.receive(0), 1, "a late extension did not hide the released message again")
}

func TestManyConcurrentDeliveries(t *testing.T) {
	e := newEnv(t, nil)
	const n = 40
	for i := range n {
		e.send(fmt.Sprintf("job-%d", i))
	}
	var msgs []types.Message
	for len(msgs) < n {
		got := e.receive(0)
		require.NotEmpty(t, got)
		msgs = append(msgs, got...)
	}
	receivedAt := e.f.Now()
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))

	finish := make([]chan struct{}, n)
	results := make([]chan error, n)
	for i, m := range msgs {
		finish[i] = make(chan struct{})
		results[i] = make(chan error, 1)
		go func() { results[i] <- k.Run(e.ctx, m, receivedAt, 30*time.Second, heldHandler(finish[i], nil)) }()
	}
	active := n
	for s := 1; s <= 6; s++ { // handler i works for (i%6+1) half-timeouts
		e.step(k, active, 15*time.Second)
		e.waitArmed(k, active)
		assert.Empty(t, e.receive(0), "redelivered at %s", e.elapsed())
		for i, m := range msgs {
			if i%6+1 != s {
				continue
			}
			close(finish[i])
			require.NoError(t, <-results[i])
			_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: &e.url, ReceiptHandle: m.ReceiptHandle})
			require.NoError(t, err)
			active--
		}
	}
	require.Zero(t, active)
	assert.Zero(t, k.Running())
	visible, inFlight := e.counts()
	assert.Equal(t, [2]string{"0", "0"}, [2]string{visible, inFlight})
	want := 0
	for i := range n {
		want += i%6 + 1
	}
	assert.Len(t, rec.Calls(), want, "one extension per handler per half-timeout")
}

// With no WithClock the Keeper reads the wall clock; inside a synctest bubble that is the
// bubble's fake time, so the default path runs deterministically too.
func TestDefaultClockInsideSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		f := sqsfake.New(sqsfake.WithClock(sqsfake.RealClock{}))
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		require.NoError(t, err)
		_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job")})
		require.NoError(t, err)
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		require.NoError(t, err)
		receivedAt := time.Now()

		k := heartbeat.New(f, *q.QueueUrl)
		result := make(chan error, 1)
		go func() {
			result <- k.Run(ctx, out.Messages[0], receivedAt, 30*time.Second, func(ctx context.Context) error {
				time.Sleep(90 * time.Second)
				return ctx.Err()
			})
		}()
		for range 6 {
			time.Sleep(15 * time.Second)
			synctest.Wait()
			again, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
			require.NoError(t, err)
			assert.Empty(t, again.Messages)
		}
		require.NoError(t, <-result)
		_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle})
		require.NoError(t, err)
		assert.Zero(t, k.Running())
	})
}

func TestRunReturnsTheHandlersErrorAndEndsItsContext(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()))
	boom := errors.New("boom")
	var seen context.Context
	err := k.Run(e.ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error { seen = ctx; return boom })
	assert.Same(t, boom, err)
	assert.ErrorIs(t, context.Cause(seen), heartbeat.ErrSettled)
	assert.Zero(t, k.Running())

	// A panicking handler still stops its heartbeat.
	func() {
		defer func() { assert.Equal(t, "handler panic", recover()) }()
		_ = k.Run(e.ctx, msg, receivedAt, 30*time.Second, func(context.Context) error { panic("handler panic") })
	}()
	assert.Zero(t, k.Running())
}

// When the heartbeat has failed and the handler returns some other error, Run returns both.
func TestRunJoinsAHandlerErrorWithTheFailure(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	msg.ReceiptHandle = aws.String("garbage")
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()), heartbeat.WithLogger(slog.New(slog.DiscardHandler)))
	wrote := errors.New("could not write the result")
	result := make(chan error, 1)
	go func() {
		result <- k.Run(e.ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error {
			<-ctx.Done()
			return wrote
		})
	}()
	e.step(k, 1, 15*time.Second)
	err := <-result
	assert.ErrorIs(t, err, wrote)
	var ext *heartbeat.ExtendError
	assert.ErrorAs(t, err, &ext)
	assert.True(t, strings.Contains(err.Error(), "ReceiptHandleIsInvalid"), err.Error())
}

func TestWaitArmedHonoursItsContext(t *testing.T) {
	e := newEnv(t, nil)
	k := heartbeat.New(e.f, e.url, heartbeat.WithClock(e.f.Clock()))
	ctx, cancel := context.WithCancel(e.ctx)
	cancel()
	assert.ErrorIs(t, k.WaitArmed(ctx, 1), context.Canceled)
	require.NoError(t, k.WaitArmed(e.ctx, 0))
	assert.Equal(t, e.url, k.QueueURL())
}

// A real *sqs.Client (the fake's door 2, through the SDK's whole middleware stack) works as
// the heartbeat's client, throttling included.
func TestWorksWithARealSDKClient(t *testing.T) {
	e := newEnv(t, nil)
	msg, receivedAt := e.receiveOne(0)
	e.f.InjectFault(sqsfake.Fault{Operation: "ChangeMessageVisibility", Times: 1, Err: sqsfake.ErrThrottled})
	client := e.f.Client()
	k := heartbeat.New(client, e.url, heartbeat.WithClock(e.f.Clock()))
	d := k.Hold(e.ctx, msg, receivedAt, 30*time.Second)
	e.step(k, 1, 15*time.Second) // throttled
	e.step(k, 1, time.Second)    // retried at 16 s
	e.waitArmed(k, 1)
	assert.Equal(t, 1, d.Extensions())
	assert.Equal(t, receivedAt.Add(46*time.Second), d.VisibleAt())
	e.step(k, 1, 15*time.Second) // 31 s: the next extension
	e.waitArmed(k, 1)
	assert.Equal(t, 2, d.Extensions())
	assert.Empty(t, e.receive(0))
	require.NoError(t, d.Delete(e.ctx, client))
	assert.Zero(t, k.Running())
}

func TestZeroReceivedAtMeansNow(t *testing.T) {
	e := newEnv(t, nil)
	msg, _ := e.receiveOne(0)
	e.f.Advance(5 * time.Second)
	rec := e.recorder()
	k := heartbeat.New(rec, e.url, heartbeat.WithClock(e.f.Clock()))
	d := k.Hold(e.ctx, msg, time.Time{}, 30*time.Second)
	defer d.Stop()
	e.step(k, 1, 15*time.Second)
	e.waitArmed(k, 1)
	assert.Equal(t, []extCall{{20 * time.Second, 30}}, rec.Calls())
}
