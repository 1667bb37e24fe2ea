package lambdasqs_test

import (
	"context"
	"errors"
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

// fill makes queue "q" with the attributes and sends n messages to it.
func fill(t *testing.T, n int, attrs map[string]string) *sqsfake.Fake {
	t.Helper()
	f := sqsfake.New()
	url := queue(t, f, "q", attrs)
	for range n {
		_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
		require.NoError(t, err)
	}
	return f
}

// slow is a handler that works d on the fake's clock, then returns err.
func slow(d time.Duration, err error) func(context.Context, events.SQSEvent) error {
	return func(ctx context.Context, _ events.SQSEvent) error {
		if e := lambdasqs.Sleep(ctx, d); e != nil {
			return e
		}
		return err
	}
}

// timeline is each invocation as "start-end outcome", in seconds after DefaultStart.
type step struct {
	At, Ended time.Duration
	Outcome   lambdasqs.Outcome
}

func timeline(trig *lambdasqs.Trigger) []step {
	var out []step
	for _, inv := range trig.Invocations() {
		out = append(out, step{inv.At.Sub(sqsfake.DefaultStart), inv.Ended.Sub(sqsfake.DefaultStart), inv.Outcome})
	}
	return out
}

func steps(outcome lambdasqs.Outcome, pairs ...time.Duration) []step {
	var out []step
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, step{pairs[i] * time.Second, pairs[i+1] * time.Second, outcome})
	}
	return out
}

func TestInvocationsThatTakeTimeRunFiveAtATime(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 7, map[string]string{"VisibilityTimeout": "600"})
	trig, err := lambdasqs.New(f, "q", slow(10*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 60 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.Empty(t, trig.Invocations(), "five invocations in flight, none answered yet")
	info, _ := f.Queue("q")
	assert.Equal(t, 5, info.InFlight, "only five batches are taken while five invocations run")
	require.NoError(t, trig.Advance(ctx, time.Minute))
	assert.Equal(t, steps(lambdasqs.Success, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 10, 20, 10, 20), timeline(trig))
	info, _ = f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}

func TestMaximumConcurrencyCapsTheMappingsInvocations(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 5, map[string]string{"VisibilityTimeout": "600"})
	trig, err := lambdasqs.New(f, "q", slow(10*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 60 * time.Second, MaximumConcurrency: 2})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	assert.Equal(t, steps(lambdasqs.Success, 0, 10, 0, 10, 10, 20, 10, 20, 20, 30), timeline(trig))
}

func TestScalingAdds300ConcurrentInvocationsAMinute(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 20, map[string]string{"VisibilityTimeout": "900"})
	trig, err := lambdasqs.New(f, "q", slow(40*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 60 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 5*time.Minute))
	starts := map[time.Duration]int{}
	for _, s := range timeline(trig) {
		starts[s.At]++
	}
	// Five at first; five more when they end at 40 s; at one minute the mapping may run 305,
	// so the ten left start at once.
	assert.Equal(t, map[time.Duration]int{0: 5, 40 * time.Second: 5, 60 * time.Second: 10}, starts)
}

func TestReservedConcurrencyThrottlesAndTheBatchIsRetried(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 3, map[string]string{"VisibilityTimeout": "60"})
	trig, err := lambdasqs.New(f, "q", slow(10*time.Second, nil), lambdasqs.Config{BatchSize: 1, FunctionTimeout: 30 * time.Second, ReservedConcurrency: aws.Int32(2)})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 2*time.Minute))
	got := timeline(trig)
	// Two run; the third is throttled and retried 1, 2, 4 s later (at 1, 3, 7 s, still
	// throttled), then 8 s later at 15 s, when the first two have ended.
	want := []step{
		{0, 0, lambdasqs.Throttled},
		{1 * time.Second, 1 * time.Second, lambdasqs.Throttled},
		{3 * time.Second, 3 * time.Second, lambdasqs.Throttled},
		{7 * time.Second, 7 * time.Second, lambdasqs.Throttled},
		{0, 10 * time.Second, lambdasqs.Success},
		{0, 10 * time.Second, lambdasqs.Success},
		{15 * time.Second, 25 * time.Second, lambdasqs.Success},
	}
	assert.Equal(t, want, got)
	throttled := trig.Invocations()[0]
	var le *lambdasqs.Error
	require.True(t, errors.As(throttled.Err, &le))
	assert.Equal(t, &lambdasqs.Error{Code: "TooManyRequestsException", Message: "Rate Exceeded."}, le)
	assert.Equal(t, throttled.MessageIDs, throttled.Kept)
	last := trig.Invocations()[6]
	assert.Equal(t, throttled.MessageIDs, last.MessageIDs, "the retry is the same batch, not a new receive")
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}

func TestAThrottledBatchReturnsToTheQueueAtItsVisibilityTimeout(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	dlq := queue(t, f, "dlq", nil)
	dinfo, _ := f.Queue(dlq)
	url := queue(t, f, "q", map[string]string{"VisibilityTimeout": "10", "RedrivePolicy": `{"deadLetterTargetArn":"` + dinfo.Arn + `","maxReceiveCount":"2"}`})
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	require.NoError(t, err)
	calls := 0
	trig, err := lambdasqs.New(f, "q", func(context.Context, events.SQSEvent) error { calls++; return nil }, lambdasqs.Config{ReservedConcurrency: aws.Int32(0)})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	// Attempts at 0, 1, 3, 7 s; the next (15 s) is past the visibility timeout (10 s): the
	// poller drops the batch, the message returns and is received again, throttled again, and
	// after its second receive the redrive policy moves it to the dead-letter queue.
	var ats []time.Duration
	for _, s := range timeline(trig) {
		assert.Equal(t, lambdasqs.Throttled, s.Outcome)
		ats = append(ats, s.At)
	}
	assert.Equal(t, []time.Duration{0, 1 * time.Second, 3 * time.Second, 7 * time.Second, 10 * time.Second, 11 * time.Second, 13 * time.Second, 17 * time.Second}, ats)
	assert.Zero(t, calls, "a throttled invocation never reaches the function")
	dead, err := f.DeadLettersFrom("q")
	require.NoError(t, err)
	assert.Len(t, dead, 1)
}

func TestFunctionErrorsBackOffTheMappingsConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name   string
		report bool
		want   []step
	}{
		// Five fail at 10 s: the mapping drops to one invocation at a time.
		{"without ReportBatchItemFailures", false, steps(lambdasqs.FunctionError, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 10, 20, 20, 30)},
		// "Lambda doesn't scale down message polling when function invocations fail" (R15).
		{"with ReportBatchItemFailures", true, steps(lambdasqs.FunctionError, 0, 10, 0, 10, 0, 10, 0, 10, 0, 10, 10, 20, 10, 20)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			f := fill(t, 7, map[string]string{"VisibilityTimeout": "600"})
			cfg := lambdasqs.Config{BatchSize: 1, FunctionTimeout: 60 * time.Second}
			if tc.report {
				cfg.FunctionResponseTypes = []string{lambdasqs.ReportBatchItemFailures}
			}
			trig, err := lambdasqs.New(f, "q", slow(10*time.Second, errors.New("down")), cfg)
			require.NoError(t, err)
			assert.Equal(t, 5, trig.Concurrency())
			require.NoError(t, trig.Advance(ctx, 15*time.Second))
			if tc.report {
				assert.Equal(t, 5, trig.Concurrency())
			} else {
				assert.Equal(t, 1, trig.Concurrency())
			}
			require.NoError(t, trig.Advance(ctx, 30*time.Second))
			assert.Equal(t, tc.want, timeline(trig))
		})
	}
}

func TestSuccessesWinBackTheConcurrencyErrorsTookAway(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 12, map[string]string{"VisibilityTimeout": "600"})
	n := 0
	h := func(ctx context.Context, _ events.SQSEvent) error {
		n++
		if err := lambdasqs.Sleep(ctx, 10*time.Second); err != nil {
			return err
		}
		if n <= 5 {
			return errors.New("warming up")
		}
		return nil
	}
	trig, err := lambdasqs.New(f, "q", h, lambdasqs.Config{BatchSize: 1, FunctionTimeout: 60 * time.Second})
	require.NoError(t, err)
	var seen []int
	for range 5 {
		require.NoError(t, trig.Advance(ctx, 10*time.Second))
		seen = append(seen, trig.Concurrency())
	}
	// Five failures at 10 s leave one (the least); then each success gives one back: one
	// success at 20 s, two at 30 s, four at 40 s.
	assert.Equal(t, []int{1, 2, 4, 5, 5}, seen)
}

func TestSleepPastTheDeadlineIsATimeout(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 1, nil)
	var sleepErr, ctxErr error
	trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
		sleepErr = lambdasqs.Sleep(ctx, 5*time.Second)
		ctxErr = ctx.Err()
		select {
		case <-ctx.Done():
		default:
			t.Error("Done is not closed after the deadline")
		}
		return nil
	}, lambdasqs.Config{FunctionTimeout: 3 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 5*time.Second))
	assert.ErrorIs(t, sleepErr, context.DeadlineExceeded)
	assert.ErrorIs(t, ctxErr, context.DeadlineExceeded)
	assert.Equal(t, steps(lambdasqs.Timeout, 0, 3), timeline(trig))
	assert.Equal(t, sqsfake.DefaultStart.Add(5*time.Second), f.Now(), "Sleep does not move the fake's clock; Advance does")
}

func TestSleepOutsideAnInvocationIsAnError(t *testing.T) {
	assert.EqualError(t, lambdasqs.Sleep(context.Background(), time.Second), "lambdasqs: Sleep outside an invocation of a Trigger")
}

func TestReservedConcurrencyIsValidatedAsPutFunctionConcurrencyDoes(t *testing.T) {
	f := sqsfake.New()
	queue(t, f, "q", nil)
	for _, tc := range []struct {
		n         int32
		code, msg string
	}{
		{-1, "ValidationException", "1 validation error detected: Value '-1' at 'reservedConcurrentExecutions' failed to satisfy constraint: Member must have value greater than or equal to 0"},
		{901, "InvalidParameterValueException", "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100]."},
		{900, "", ""},
		{0, "", ""},
	} {
		trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{ReservedConcurrency: aws.Int32(tc.n)})
		if tc.code == "" {
			assert.NoError(t, err, "%d", tc.n)
			trig.Close()
			continue
		}
		assert.Equal(t, &lambdasqs.Error{Code: tc.code, Message: tc.msg}, err, "%d", tc.n)
	}
}

// TestAHandlerMayWaitOnItsContext pins must-have 3 of issue 19: a handler blocked on
// ctx.Done() waits on the fake's clock. The waiting call returns while it waits, a move short
// of the deadline leaves it waiting, and the move that reaches the function's timeout ends
// its context with DeadlineExceeded; the invocation is a Timeout at its deadline, nothing is
// deleted and the message returns after its visibility timeout.
func TestAHandlerMayWaitOnItsContext(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 1, map[string]string{"VisibilityTimeout": "30"})
	var woke []time.Duration
	var errs []error
	trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
		<-ctx.Done()
		woke = append(woke, f.Now().Sub(sqsfake.DefaultStart))
		errs = append(errs, ctx.Err())
		return nil // too late: Lambda has stopped it
	}, lambdasqs.Config{FunctionTimeout: 3 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.Empty(t, trig.Invocations(), "waiting on the clock")
	f.Advance(2 * time.Second)
	assert.Empty(t, trig.Invocations(), "short of the deadline")
	f.Advance(time.Second)
	assert.Equal(t, []step{{0, 3 * time.Second, lambdasqs.Timeout}}, timeline(trig))
	assert.Equal(t, []time.Duration{3 * time.Second}, woke)
	assert.Equal(t, []error{context.DeadlineExceeded}, errs)
	info, _ := f.Queue("q")
	assert.Equal(t, 1, info.InFlight, "kept, hidden until its visibility timeout")
	f.Advance(30 * time.Second)
	assert.Equal(t, []step{{0, 3 * time.Second, lambdasqs.Timeout}, {30 * time.Second, 33 * time.Second, lambdasqs.Timeout}}, timeline(trig), "received again at 30 s")
	trig.Close()
}

func TestTheHandlersContextEndsWhenItReturns(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 1, nil)
	var kept context.Context
	trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
		kept = ctx
		return nil
	}, lambdasqs.Config{})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.ErrorIs(t, kept.Err(), context.Canceled)
	<-kept.Done()
}
