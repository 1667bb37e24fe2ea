package sqsfake

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pollResult is what a receive started in another goroutine returned.
type pollResult struct {
	out *sqs.ReceiveMessageOutput
	err error
	at  time.Time // the fake's time when the receive returned
}

// startPoll starts a ReceiveMessage in a goroutine and waits until it is parked.
func startPoll(t *testing.T, ctx context.Context, f *Fake, in *sqs.ReceiveMessageInput) <-chan pollResult {
	t.Helper()
	parked := f.Pollers()
	ch := make(chan pollResult, 1)
	go func() {
		out, err := f.ReceiveMessage(ctx, in)
		ch <- pollResult{out, err, f.Now()}
	}()
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, f.WaitForPollers(wctx, parked+1))
	return ch
}

func mustCreateQueue(t *testing.T, f *Fake, name string, attrs map[string]string) *string {
	t.Helper()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(t, err)
	return out.QueueUrl
}

func send(t *testing.T, f *Fake, q *string, body string) *sqs.SendMessageOutput {
	t.Helper()
	out, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body)})
	require.NoError(t, err)
	return out
}

var allSystem = []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}

func bodies(out *sqs.ReceiveMessageOutput) []string {
	var b []string
	for _, m := range out.Messages {
		b = append(b, aws.ToString(m.Body))
	}
	return b
}

func TestLongPollWakesWhenAMessageIsSent(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "q", nil)
	ch := startPoll(t, context.Background(), f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	f.Advance(5 * time.Second)
	send(t, f, q, "hello")
	r := <-ch
	require.NoError(t, r.err)
	require.Equal(t, []string{"hello"}, bodies(r.out))
	assert.Equal(t, millis(DefaultStart.Add(5*time.Second).UnixNano()), r.out.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"],
		"the message is received at the moment it was sent")
	assert.Equal(t, 0, f.Pollers())
}

func TestLongPollReturnsEmptyWhenTheWaitPasses(t *testing.T) {
	tests := []struct {
		name      string
		queueWait string
		wait      int32
		advance   time.Duration
	}{
		{"WaitTimeSeconds", "0", 20, 20 * time.Second},
		{"queue ReceiveMessageWaitTimeSeconds", "7", 0, 7 * time.Second},
		{"request overrides queue", "20", 3, 3 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := mustCreateQueue(t, f, "q", map[string]string{"ReceiveMessageWaitTimeSeconds": tt.queueWait})
			ch := startPoll(t, context.Background(), f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: tt.wait})
			f.Advance(tt.advance - time.Nanosecond)
			select {
			case r := <-ch:
				t.Fatalf("returned before its wait passed: %+v", r)
			default:
			}
			f.Advance(time.Nanosecond)
			r := <-ch
			require.NoError(t, r.err)
			assert.Nil(t, r.out.Messages)
			assert.Equal(t, DefaultStart.Add(tt.advance), r.at)
		})
	}
}

func TestLongPollWakesWhenAMessageBecomesVisible(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		prepare func(f *Fake, q *string) // makes a message that becomes visible after 5 s
		trigger func(f *Fake, q *string, handle *string)
	}{
		{"delay ends", func(f *Fake, q *string) {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("m"), DelaySeconds: 5})
			require.NoError(t, err)
		}, func(f *Fake, q, _ *string) { f.Advance(20 * time.Second) }},
		{"visibility expires", func(f *Fake, q *string) {
			send(t, f, q, "m")
			_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 5})
			require.NoError(t, err)
		}, func(f *Fake, q, _ *string) { f.Advance(20 * time.Second) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := mustCreateQueue(t, f, "q", nil)
			tt.prepare(f, q)
			ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, VisibilityTimeout: 100})
			tt.trigger(f, q, nil)
			r := <-ch
			require.NoError(t, r.err)
			require.Equal(t, []string{"m"}, bodies(r.out))
			// Received at 5 s with a 100 s timeout: visible again at 105 s, not before.
			f.Advance(85*time.Second - time.Nanosecond) // now 105 s - 1 ns
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
			require.NoError(t, err)
			assert.Empty(t, got.Messages)
			f.Advance(time.Nanosecond)
			got, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
			require.NoError(t, err)
			assert.Len(t, got.Messages, 1)
		})
	}
}

func TestLongPollWakesWhenVisibilityIsSetToZero(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := mustCreateQueue(t, f, "q", nil)
	send(t, f, q, "m")
	first, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
	require.NoError(t, err)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	f.Advance(2 * time.Second)
	_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q, ReceiptHandle: first.Messages[0].ReceiptHandle, VisibilityTimeout: 0})
	require.NoError(t, err)
	r := <-ch
	require.NoError(t, r.err)
	require.Len(t, r.out.Messages, 1)
	assert.Equal(t, "2", r.out.Messages[0].Attributes["ApproximateReceiveCount"])
}

func TestLongPollWakesWhenAShorterVisibilityIsSetWhileWaiting(t *testing.T) {
	ctx := context.Background()
	m := NewMockClock()
	f := New(WithClock(m))
	q := mustCreateQueue(t, f, "q", nil)
	send(t, f, q, "m")
	first, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 600})
	require.NoError(t, err)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q, ReceiptHandle: first.Messages[0].ReceiptHandle, VisibilityTimeout: 3})
	require.NoError(t, err)
	require.NoError(t, f.WaitForPollers(ctx, 1))
	m.Add(10 * time.Second) // moving the mock directly, not through Advance
	r := <-ch
	require.NoError(t, r.err)
	assert.Len(t, r.out.Messages, 1)
}

func TestLongPollsAreServedInTheOrderTheyParked(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := mustCreateQueue(t, f, "q", nil)
	a := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	b := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	send(t, f, q, "first")
	ra := <-a
	assert.Equal(t, []string{"first"}, bodies(ra.out))
	send(t, f, q, "second")
	rb := <-b
	assert.Equal(t, []string{"second"}, bodies(rb.out))
}

func TestLongPollEndsWithTheCallersContext(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "q", nil)

	ctx, cancel := context.WithCancel(context.Background())
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	cancel()
	r := <-ch
	require.ErrorIs(t, r.err, context.Canceled)
	var ce *smithy.CanceledError
	assert.True(t, errors.As(r.err, &ce))
	var re *awshttp.ResponseError
	require.True(t, errors.As(r.err, &re))
	assert.Equal(t, 0, re.HTTPStatusCode())
	assert.Equal(t, "operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, context canceled", r.err.Error())
	assert.Equal(t, 0, f.Pollers())

	dctx, dcancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer dcancel()
	ch = startPoll(t, dctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	r = <-ch
	require.ErrorIs(t, r.err, context.DeadlineExceeded)
	assert.Equal(t, "operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, context deadline exceeded", r.err.Error())
}

func TestAServerShuttingDownEndsItsLongPollsEmpty(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "q", nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	cancel(http.ErrServerClosed)
	r := <-ch
	require.NoError(t, r.err)
	assert.Equal(t, &sqs.ReceiveMessageOutput{}, r.out)
	assert.Equal(t, DefaultStart, r.at, "answered at once, as a wait that ended")
	assert.Equal(t, 0, f.Pollers())
	info, err := f.Queue("q")
	require.NoError(t, err)
	assert.Equal(t, int64(1), info.Stats.NumberOfEmptyReceives)
	calls := f.Calls(CallFilter{Operation: "ReceiveMessage"})
	require.Len(t, calls, 1)
	assert.NoError(t, calls[0].Err)
}

func TestDeletingAQueueEndsItsLongPolls(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "q", nil)
	ch := startPoll(t, context.Background(), f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	_, err := f.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: q})
	require.NoError(t, err)
	r := <-ch
	require.NoError(t, r.err)
	assert.Nil(t, r.out.Messages)
}

func TestWaitForPollersReturnsTheContextError(t *testing.T) {
	f := New()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	err := f.WaitForPollers(ctx, 1)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.EqualError(t, err, "sqsfake: WaitForPollers: 0 of the 1 calls awaited are waiting on the fake's clock: context deadline exceeded")
	assert.NoError(t, f.WaitForPollers(context.Background(), 0))
}

// TestMovingTheMockDirectlyMatchesAdvance checks that a test that moves the injected
// benbjohnson mock itself sees what Advance would have shown.
func TestMovingTheMockDirectlyMatchesAdvance(t *testing.T) {
	ctx := context.Background()
	run := func(move func(f *Fake, m interface{ Add(time.Duration) }, d time.Duration)) []string {
		m := NewMockClock()
		f := New(WithClock(m))
		q := mustCreateQueue(t, f, "q", map[string]string{"VisibilityTimeout": "10"})
		send(t, f, q, "a")
		send(t, f, q, "b")
		var log []string
		for range 3 {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: allSystem})
			require.NoError(t, err)
			for _, msg := range out.Messages {
				log = append(log, *msg.Body+":"+msg.Attributes["ApproximateReceiveCount"]+":"+*msg.ReceiptHandle)
			}
			move(f, m, 11*time.Second)
		}
		// Take everything, park a poll, and let the visibility timeouts bring the messages
		// back while it waits.
		_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
		require.NoError(t, err)
		ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MaxNumberOfMessages: 10})
		move(f, m, 11*time.Second)
		r := <-ch
		require.NoError(t, r.err)
		log = append(log, bodies(r.out)...)
		attrs, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q, AttributeNames: []types.QueueAttributeName{"All"}})
		require.NoError(t, err)
		log = append(log, attrs.Attributes["ApproximateNumberOfMessagesNotVisible"])
		return log
	}
	viaAdvance := run(func(f *Fake, _ interface{ Add(time.Duration) }, d time.Duration) { f.Advance(d) })
	viaMock := run(func(_ *Fake, m interface{ Add(time.Duration) }, d time.Duration) { m.Add(d) })
	assert.Equal(t, viaAdvance, viaMock)
}

// TestRealClockIsDeterministicInsideSynctest runs a long poll, a delayed message and a
// visibility expiry on RealClock inside a testing/synctest bubble, twice, and requires the
// same results and the same instants.
func TestRealClockIsDeterministicInsideSynctest(t *testing.T) {
	run := func() []string {
		var log []string
		synctest.Test(t, func(t *testing.T) {
			ctx := context.Background()
			f := New(WithClock(RealClock{}))
			start := time.Now()
			q := mustCreateQueue(t, f, "q", nil)
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("late"), DelaySeconds: 7})
			require.NoError(t, err)
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, VisibilityTimeout: 3, MessageSystemAttributeNames: allSystem})
			require.NoError(t, err)
			log = append(log, bodies(out)...)
			log = append(log, time.Since(start).String(), *out.Messages[0].ReceiptHandle, *out.Messages[0].MessageId)
			out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
			require.NoError(t, err)
			log = append(log, out.Messages[0].Attributes["ApproximateReceiveCount"], time.Since(start).String())
			out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
			require.NoError(t, err)
			log = append(log, time.Since(start).String())
			assert.Empty(t, out.Messages)
			f.Advance(time.Hour)
			log = append(log, time.Since(start).String())
		})
		return log
	}
	first := run()
	assert.Equal(t, []string{"late", "7s"}, first[:2])
	assert.Equal(t, "2", first[4])
	assert.Equal(t, "10s", first[5])
	assert.Equal(t, "30s", first[6], "an empty long poll waits its 20 s")
	assert.Equal(t, "1h0m30s", first[7])
	assert.Equal(t, first, run())
}

// TestLongPollWakesForMessagesThatArriveWhileItWaits parks a poll, then makes a message
// that becomes visible before the poll's wait is over; the poll must return when it does,
// on RealClock inside a synctest bubble (and so on any clock that is not moved by Advance).
func TestLongPollWakesForMessagesThatArriveWhileItWaits(t *testing.T) {
	tests := []struct {
		name   string
		queue  map[string]string                      // attributes of the polled queue "q"
		arrive func(t *testing.T, f *Fake, q *string) // runs once the poll is parked
		want   time.Duration                          // when the poll returns, from the start
	}{
		{"a send with DelaySeconds", nil, func(t *testing.T, f *Fake, q *string) {
			_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("m"), DelaySeconds: 1})
			require.NoError(t, err)
		}, time.Second},
		{"a batch entry with DelaySeconds", nil, func(t *testing.T, f *Fake, q *string) {
			out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q,
				Entries: []types.SendMessageBatchRequestEntry{{Id: aws.String("a"), MessageBody: aws.String("m"), DelaySeconds: 2}}})
			require.NoError(t, err)
			require.Empty(t, out.Failed)
		}, 2 * time.Second},
		{"a send to a queue with a delay", map[string]string{"DelaySeconds": "3"}, func(t *testing.T, f *Fake, q *string) {
			send(t, f, q, "m")
		}, 3 * time.Second},
		{"a move task that brings messages back", map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `q-dlq","maxReceiveCount":1}`}, func(t *testing.T, f *Fake, q *string) {
			// A message already sits in the DLQ.
			_, err := f.StartMessageMoveTask(context.Background(), &sqs.StartMessageMoveTaskInput{
				SourceArn: aws.String(testArnPrefix + "q-dlq"), DestinationArn: aws.String(testArnPrefix + "q"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
			require.NoError(t, err)
		}, time.Second},
		{"a message a running move task can take once it is made visible", map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `q-dlq","maxReceiveCount":1}`}, func(t *testing.T, f *Fake, q *string) {
			ctx := context.Background()
			dlq, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q-dlq")})
			require.NoError(t, err)
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, VisibilityTimeout: 600})
			require.NoError(t, err)
			_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{
				SourceArn: aws.String(testArnPrefix + "q-dlq"), DestinationArn: aws.String(testArnPrefix + "q"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
			require.NoError(t, err) // the task waits for the message in flight
			synctest.Wait()         // and the poll has gone back to sleep
			_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: dlq.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle})
			require.NoError(t, err)
		}, time.Second},
		{"a message a running move task can take once its visibility timeout is shortened", map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `q-dlq","maxReceiveCount":1}`}, func(t *testing.T, f *Fake, q *string) {
			ctx := context.Background()
			dlq, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q-dlq")})
			require.NoError(t, err)
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq.QueueUrl, VisibilityTimeout: 600})
			require.NoError(t, err)
			_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{
				SourceArn: aws.String(testArnPrefix + "q-dlq"), DestinationArn: aws.String(testArnPrefix + "q"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
			require.NoError(t, err) // the task waits for the message in flight
			synctest.Wait()         // and the poll has gone back to sleep
			_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: dlq.QueueUrl, ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 2})
			require.NoError(t, err)
		}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx := context.Background()
				f := New(WithClock(RealClock{}))
				dlq := mustCreateQueue(t, f, "q-dlq", nil)
				send(t, f, dlq, "parked in the DLQ")
				q := mustCreateQueue(t, f, "q", tt.queue)
				start := time.Now()
				done := make(chan time.Duration, 1)
				go func() {
					out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 10})
					assert.NoError(t, err)
					assert.Len(t, out.Messages, 1)
					done <- time.Since(start)
				}()
				synctest.Wait()
				require.Equal(t, 1, f.Pollers())
				tt.arrive(t, f, q)
				assert.Equal(t, tt.want, <-done)
			})
		})
	}
}

// The fake keeps time in int64 nanoseconds: Advance refuses to move past LatestTime rather
// than wrap around.
func TestAdvanceRefusesToPassTheEndOfTheClock(t *testing.T) {
	f := New()
	assert.Equal(t, "2262-04-11T23:47:16Z", LatestTime().Format(time.RFC3339))
	assert.PanicsWithValue(t, "sqsfake: Advance(2100000h0m0s) would move the clock to 2264-07-27 00:00:00 +0000 UTC, past LatestTime (2262-04-11 23:47:16.854775807 +0000 UTC)",
		func() { f.Advance(2100000 * time.Hour) })
	f.Advance(200 * 365 * 24 * time.Hour)
	assert.Equal(t, 2224, f.Now().Year())
}

// A poll that Advance serves may dead-letter a message into a running move task's source at
// that instant; Advance serves the polls again, so the task's move, and what it brings back
// to the polled queue, happen on time — on a clock whose timers never fire by themselves.
func TestAdvanceServesMovesThatAPollItServedMadeDue(t *testing.T) {
	ctx := context.Background()
	f := New(WithClock(&steppingClock{now: DefaultStart}))
	b := mustCreateQueue(t, f, "b", nil)
	a := mustCreateQueue(t, f, "a", map[string]string{"DelaySeconds": "2",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `b","maxReceiveCount":1}`})
	send(t, f, b, "X")
	_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: b, VisibilityTimeout: 1000}) // keeps b's task running
	require.NoError(t, err)
	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "b")})
	require.NoError(t, err)
	send(t, f, a, "M")
	f.Advance(2 * time.Second)
	_, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: a, VisibilityTimeout: 5}) // in flight until 7 s
	require.NoError(t, err)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: a, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	// At 7 s the poll finds M at its maxReceiveCount and moves it to b; b's task sends it back
	// to a at once, with a's delay of 2 s.
	f.Advance(20 * time.Second)
	r := <-ch
	require.NoError(t, r.err)
	require.Len(t, r.out.Messages, 1)
	assert.Equal(t, "M", *r.out.Messages[0].Body)
	assert.Equal(t, millis(DefaultStart.Add(9*time.Second).UnixNano()), r.out.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"])
}

// headInFlightThenNext sends A to group g of a FIFO queue, receives it with visibility vt,
// moves the clock by gap and sends B behind it. It returns their MessageIds.
func headInFlightThenNext(t *testing.T, f *Fake, q *string, vt int32, gap time.Duration) (a, b string) {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for i, body := range []string{"A", "B"} {
		out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body), MessageGroupId: aws.String("g")})
		require.NoError(t, err)
		ids = append(ids, *out.MessageId)
		if i == 0 {
			_, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: vt})
			require.NoError(t, err)
			f.Advance(gap)
		}
	}
	return ids[0], ids[1]
}

// On a FIFO queue, a group whose in-flight head reaches the end of its retention period
// unlocks then; a parked poll gets the next message of the group at that instant.
func TestLongPollWakesWhenAnExpiringHeadUnlocksAFIFOGroup(t *testing.T) {
	ctx := context.Background()
	f := New(WithClock(&steppingClock{now: DefaultStart}))
	q := mustCreateQueue(t, f, "q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "MessageRetentionPeriod": "60"})
	headInFlightThenNext(t, f, q, 100, 30*time.Second) // A: in flight until 100 s, expires at 60 s
	f.Advance(15 * time.Second)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem}) // until 65 s
	f.Advance(20 * time.Second)
	r := <-ch
	require.NoError(t, r.err)
	require.Len(t, r.out.Messages, 1)
	assert.Equal(t, "B", *r.out.Messages[0].Body)
	assert.Equal(t, millis(DefaultStart.Add(60*time.Second).UnixNano()), r.out.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"])
}

// A shorter retention period takes effect when it is set: messages older than it expire at
// once, and on a FIFO queue a parked poll gets the next message of a group whose in-flight
// head expired, at that instant.
func TestShorterRetentionTakesEffectAtOnceForParkedPolls(t *testing.T) {
	ctx := context.Background()
	f := New(WithClock(&steppingClock{now: DefaultStart}))
	q := mustCreateQueue(t, f, "q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	a, _ := headInFlightThenNext(t, f, q, 600, 100*time.Second)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	f.Advance(5 * time.Second)
	_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: map[string]string{"MessageRetentionPeriod": "60"}})
	require.NoError(t, err) // A, sent at 0 s, ends at 105 s; B, sent at 100 s, stays
	var r pollResult
	select {
	case r = <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the poll was not served when the retention period changed")
	}
	require.NoError(t, r.err)
	require.Len(t, r.out.Messages, 1)
	assert.Equal(t, "B", *r.out.Messages[0].Body)
	assert.Equal(t, millis(DefaultStart.Add(105*time.Second).UnixNano()), r.out.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"])
	last, _ := f.Timeline(a).Last()
	assert.Equal(t, Event{Kind: EventExpired, At: clockAt(105 * time.Second), Queue: "q.fifo"}, last)
}
