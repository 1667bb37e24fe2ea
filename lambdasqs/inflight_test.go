package lambdasqs_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// TestTheHandlersContextCountsTimeSlept runs each handler script in a 3-second function and
// checks the context after it: its Done channel taken before the script, a child made before
// it with context.WithCancel, and when the invocation ends. Run with -race -count=20: the
// child ends inside the call that ends its parent, never later on a goroutine.
func TestTheHandlersContextCountsTimeSlept(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  func(f *sqsfake.Fake, ctx context.Context) error
		wantErr error // the context's and the child's error after the script
		want    step
	}{
		{"Sleep past the deadline", func(_ *sqsfake.Fake, ctx context.Context) error {
			return lambdasqs.Sleep(ctx, 5*time.Second)
		}, context.DeadlineExceeded, step{0, 3 * time.Second, lambdasqs.Timeout}},
		{"the clock reaches the deadline less the time slept", func(f *sqsfake.Fake, ctx context.Context) error {
			if err := lambdasqs.Sleep(ctx, 2500*time.Millisecond); err != nil {
				return err
			}
			<-ctx.Done() // the move reaches the deadline less the time slept
			return nil
		}, context.DeadlineExceeded, step{0, 3 * time.Second, lambdasqs.Timeout}},
		{"Sleeps short of the deadline", func(f *sqsfake.Fake, ctx context.Context) error {
			if err := lambdasqs.Sleep(ctx, 1500*time.Millisecond); err != nil {
				return err
			}
			return lambdasqs.Sleep(ctx, time.Second)
		}, nil, step{0, 2500 * time.Millisecond, lambdasqs.Success}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := fill(t, 1, nil)
			var gotErr, childErr error
			doneClosed := false
			trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
				done := ctx.Done()
				child, cancel := context.WithCancel(ctx)
				defer cancel()
				_ = tc.script(f, ctx)
				gotErr, childErr = ctx.Err(), child.Err()
				select {
				case <-done:
					doneClosed = true
				default:
				}
				return nil
			}, lambdasqs.Config{FunctionTimeout: 3 * time.Second})
			require.NoError(t, err)
			require.NoError(t, trig.Advance(ctx, 5*time.Second))
			assert.Equal(t, tc.wantErr, gotErr, "the context's error")
			assert.Equal(t, tc.wantErr, childErr, "the error of a child made before")
			assert.Equal(t, tc.wantErr != nil, doneClosed, "Done taken before is closed")
			assert.Equal(t, []step{tc.want}, timeline(trig))
		})
	}
}

// big sends n messages of 700 KB to queue "q" (or "q.fifo", in group A) and returns the fake.
func big(t *testing.T, n int, fifo bool, attrs map[string]string) *sqsfake.Fake {
	t.Helper()
	f := sqsfake.New()
	name := "q"
	if fifo {
		name = "q.fifo"
		attrs["FifoQueue"] = "true"
	}
	url := queue(t, f, name, attrs)
	body := strings.Repeat("x", 700*1024)
	for i := range n {
		in := &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(fmt.Sprintf("%02d", i) + body)}
		if fifo {
			in.MessageGroupId, in.MessageDeduplicationId = aws.String("A"), aws.String(fmt.Sprint(i))
		}
		_, err := f.SendMessage(context.Background(), in)
		require.NoError(t, err)
	}
	return f
}

// most is the largest number of the invocations that run at the same moment.
func most(invs []lambdasqs.Invocation) int {
	n := 0
	for _, a := range invs {
		at := 0
		for _, b := range invs {
			if !b.At.After(a.At) && b.Ended.After(a.At) {
				at++
			}
		}
		n = max(n, at)
	}
	return n
}

func TestABatchEndedByThePayloadLimitWaitsForAFreeSlot(t *testing.T) {
	ctx := context.Background()
	f := big(t, 40, false, map[string]string{"VisibilityTimeout": "600"})
	trig, err := lambdasqs.New(f, "q", slow(10*time.Second, nil), lambdasqs.Config{FunctionTimeout: 60 * time.Second, MaximumConcurrency: 2})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 5*time.Minute))
	invs := trig.Invocations()
	assert.Equal(t, 2, most(invs), "MaximumConcurrency 2")
	seen := map[string]int{}
	for _, inv := range invs {
		assert.Equal(t, lambdasqs.Success, inv.Outcome)
		for _, id := range inv.MessageIDs {
			seen[id]++
		}
	}
	assert.Len(t, seen, 40)
	for id, n := range seen {
		assert.Equal(t, 1, n, id)
	}
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}

// On FIFO, a batch ended by the payload limit never leaves the rest of its group in a second
// batch: Lambda "sends only one batch at a time for a group" (R25), so the rest goes back to
// the queue, behind the batch, and the group's order holds whatever the batch's outcome.
func TestTheFIFOPayloadLimitKeepsAGroupInOneBatchAtATime(t *testing.T) {
	for _, tc := range []struct {
		name    string
		handler func(n int) func(context.Context, events.SQSEvent) error
	}{
		{"the first batch fails", func(n int) func(context.Context, events.SQSEvent) error {
			return func(context.Context, events.SQSEvent) error {
				if n == 1 {
					return errors.New("down")
				}
				return nil
			}
		}},
		{"the batches take time", func(int) func(context.Context, events.SQSEvent) error {
			return slow(10*time.Second, nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := big(t, 10, true, map[string]string{"VisibilityTimeout": "30"})
			n := 0
			var order []string
			trig, err := lambdasqs.New(f, "q.fifo", func(ctx context.Context, ev events.SQSEvent) error {
				n++
				err := tc.handler(n)(ctx, ev)
				if err == nil {
					for _, r := range ev.Records {
						order = append(order, r.Body[:2])
					}
				}
				return err
			}, lambdasqs.Config{FunctionTimeout: 20 * time.Second})
			require.NoError(t, err)
			require.NoError(t, trig.Advance(ctx, 5*time.Minute))
			assert.Equal(t, []string{"00", "01", "02", "03", "04", "05", "06", "07", "08", "09"}, order, "the group's messages are handled in order")
			assert.LessOrEqual(t, most(trig.Invocations()), 1, "one batch of the group at a time")
			info, _ := f.Queue("q.fifo")
			assert.Zero(t, info.Visible+info.InFlight)
		})
	}
}

// An answer is applied even when the call that would apply it fails: a cancelled context
// leaves the invocation in flight for the next Advance, and a delete whose entries fail
// records them (DeleteFailed) and lets the messages come back, as Lambda keeps polling.
func TestAnAnswerIsNotLostWhenItsDeleteFails(t *testing.T) {
	t.Run("context ended before the answer is applied", func(t *testing.T) {
		f := fill(t, 1, map[string]string{"VisibilityTimeout": "60"})
		// ctx ends at 5 s on the fake's clock, when the invocation ends.
		ctx, cancel := f.Clock().WithDeadline(context.Background(), f.Now().Add(5*time.Second))
		defer cancel()
		trig, err := lambdasqs.New(f, "q", slow(5*time.Second, nil), lambdasqs.Config{FunctionTimeout: 30 * time.Second})
		require.NoError(t, err)
		assert.ErrorIs(t, trig.Advance(ctx, 10*time.Second), context.DeadlineExceeded)
		require.NoError(t, trig.Advance(context.Background(), 10*time.Second))
		assert.Equal(t, steps(lambdasqs.Success, 0, 5), timeline(trig))
		info, _ := f.Queue("q")
		assert.Zero(t, info.Visible+info.InFlight)
	})
	t.Run("failed entries", func(t *testing.T) {
		ctx := context.Background()
		f := fill(t, 2, map[string]string{"VisibilityTimeout": "30"})
		f.InjectFault(sqsfake.Fault{Operation: "DeleteMessageBatch", Times: 1, FailEntries: func(id string) bool { return id == "0" },
			Err: sqsfake.ServiceError("ReceiptHandleIsInvalid", "The receipt handle has expired.")})
		trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{})
		require.NoError(t, err)
		require.NoError(t, trig.Advance(ctx, time.Minute))
		invs := trig.Invocations()
		require.Len(t, invs, 2)
		first := invs[0]
		assert.Equal(t, lambdasqs.Success, first.Outcome)
		assert.Equal(t, first.MessageIDs[:1], first.DeleteFailed)
		assert.Equal(t, first.MessageIDs[1:], first.Deleted)
		assert.Equal(t, first.MessageIDs[:1], invs[1].MessageIDs, "the message whose delete failed comes back")
		assert.Equal(t, 30*time.Second, invs[1].At.Sub(sqsfake.DefaultStart))
		assert.Empty(t, invs[1].DeleteFailed)
		var r recorder
		assert.False(t, trig.AssertOutcomes(&r, nil))
		require.Len(t, r.msgs, 1)
		assert.Contains(t, r.msgs[0], ": Success of "+fmt.Sprint(first.MessageIDs)+" delete failed "+fmt.Sprint(first.DeleteFailed)+"\n", "the assertion's output shows the failed delete")
	})
	t.Run("the whole delete fails for an answer applied at once", func(t *testing.T) {
		ctx := context.Background()
		f := fill(t, 1, map[string]string{"VisibilityTimeout": "30"})
		f.InjectFault(sqsfake.Fault{Operation: "DeleteMessageBatch", Times: 1, Err: sqsfake.ErrInternal})
		calls := 0
		trig, err := lambdasqs.New(f, "q", func(context.Context, events.SQSEvent) error { calls++; return nil }, lambdasqs.Config{})
		require.NoError(t, err)
		assert.Error(t, trig.Advance(ctx, 10*time.Second), "the delete's error")
		require.NoError(t, trig.Advance(ctx, time.Minute))
		assert.Equal(t, 1, calls, "the handler ran once")
		assert.Equal(t, steps(lambdasqs.Success, 0, 0), timeline(trig))
		info, _ := f.Queue("q")
		assert.Zero(t, info.Visible+info.InFlight)
	})
}

func TestAThrottledBatchIsNotRetriedWhenItCouldOutliveItsVisibility(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 2, map[string]string{"VisibilityTimeout": "20"})
	// One runs 9 s; the other is throttled at 0 and retried at 1, 3 and 7 s (still throttled);
	// the next retry, at 15 s, could run to 25 s, past the batch's visibility (20 s): the
	// poller drops it and the message, back at 20 s, is received again.
	trig, err := lambdasqs.New(f, "q", slow(9*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 10 * time.Second, ReservedConcurrency: aws.Int32(1)})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	want := []step{
		{0, 0, lambdasqs.Throttled},
		{1 * time.Second, 1 * time.Second, lambdasqs.Throttled},
		{3 * time.Second, 3 * time.Second, lambdasqs.Throttled},
		{7 * time.Second, 7 * time.Second, lambdasqs.Throttled},
		{0, 9 * time.Second, lambdasqs.Success},
		{20 * time.Second, 29 * time.Second, lambdasqs.Success},
	}
	assert.Equal(t, want, timeline(trig))
	for _, inv := range trig.Invocations() {
		assert.Empty(t, inv.DeleteFailed)
	}
}

func TestAssertInvokedCountsOnlyInvocationsThatReachedTheHandler(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 2, map[string]string{"VisibilityTimeout": "60"})
	trig, err := lambdasqs.New(f, "q", slow(10*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 30 * time.Second, ReservedConcurrency: aws.Int32(1)})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	var throttled string
	for _, inv := range trig.Invocations() {
		if inv.Outcome == lambdasqs.Throttled {
			throttled = inv.MessageIDs[0]
		}
	}
	require.NotEmpty(t, throttled)
	trig.AssertInvoked(t, throttled, 1)
}

// R33: with a batching window, when window + function timeout exceed the queue's visibility
// timeout, the effective visibility timeout is window + timeout + 30 s, so a message is never
// received again while its batch runs.
func TestABatchingWindowExtendsTheVisibilityTimeout(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 1, map[string]string{"VisibilityTimeout": "30"})
	trig, err := lambdasqs.New(f, "q", slow(25*time.Second, nil), lambdasqs.Config{BatchSize: 20, MaximumBatchingWindowInSeconds: 20, FunctionTimeout: 30 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 2*time.Minute))
	assert.Equal(t, steps(lambdasqs.Success, 20, 45), timeline(trig))
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}

func TestAdvanceOrPollFromInsideAHandlerIsAnError(t *testing.T) {
	for _, call := range []string{"Advance", "Poll"} {
		t.Run(call, func(t *testing.T) {
			ctx := context.Background()
			f := fill(t, 1, nil)
			var trig *lambdasqs.Trigger
			var inner error
			trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
				if call == "Advance" {
					inner = trig.Advance(ctx, time.Second)
				} else {
					inner = trig.Poll(ctx)
				}
				return nil
			}, lambdasqs.Config{})
			require.NoError(t, err)
			require.NoError(t, trig.Poll(ctx))
			assert.EqualError(t, inner, "lambdasqs: Trigger."+call+" called from inside one of its handlers: a handler takes time with lambdasqs.Sleep or the fake's Advance")
			assert.True(t, slices.Equal([]lambdasqs.Outcome{lambdasqs.Success}, outcomes(trig)))
		})
	}
}

func outcomes(trig *lambdasqs.Trigger) []lambdasqs.Outcome {
	var out []lambdasqs.Outcome
	for _, inv := range trig.Invocations() {
		out = append(out, inv.Outcome)
	}
	return out
}

// The same script gives byte-identical records, with invocations that take time, a payload
// limit, throttles and a batching window.
func TestTheSameScriptGivesTheSameInvocations(t *testing.T) {
	run := func() string {
		ctx := context.Background()
		f := big(t, 25, false, map[string]string{"VisibilityTimeout": "40"})
		n := 0
		trig, err := lambdasqs.New(f, "q", func(ctx context.Context, ev events.SQSEvent) error {
			n++
			if err := lambdasqs.Sleep(ctx, time.Duration(n%4)*5*time.Second); err != nil {
				return err
			}
			if n%3 == 0 {
				return errors.New("down")
			}
			return nil
		}, lambdasqs.Config{BatchSize: 20, MaximumBatchingWindowInSeconds: 2, FunctionTimeout: 12 * time.Second, ReservedConcurrency: aws.Int32(2)})
		require.NoError(t, err)
		require.NoError(t, trig.Advance(ctx, 10*time.Minute))
		return fmt.Sprintf("%+v", trig.Invocations())
	}
	first := run()
	for range 3 {
		assert.Equal(t, first, run())
	}
}
