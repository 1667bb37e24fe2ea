package lambdasqs_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// withDLQ makes queue "q" (or "q.fifo") with a dead-letter queue "dlq" (or "dlq.fifo") after
// maxReceive receives (none when 0) and sends n messages of kb KB, numbered 00, 01… at the
// start of their bodies, in one FIFO group.
func withDLQ(t *testing.T, n, kb int, fifo bool, vis string, maxReceive int) *sqsfake.Fake {
	t.Helper()
	return withDLQOf(t, n, kb, 0, fifo, vis, maxReceive)
}

// withDLQOf is withDLQ whose messages also carry a binary attribute of bin bytes (none when 0).
func withDLQOf(t *testing.T, n, kb, bin int, fifo bool, vis string, maxReceive int) *sqsfake.Fake {
	t.Helper()
	f := sqsfake.New()
	dname, name := "dlq", "q"
	attrs, dattrs := map[string]string{"VisibilityTimeout": vis}, map[string]string{}
	if fifo {
		dname, name = "dlq.fifo", "q.fifo"
		attrs["FifoQueue"], dattrs["FifoQueue"] = "true", "true"
	}
	queue(t, f, dname, dattrs)
	dlq, _ := f.Queue(dname)
	if maxReceive > 0 {
		attrs["RedrivePolicy"] = fmt.Sprintf(`{"deadLetterTargetArn":"%s","maxReceiveCount":"%d"}`, dlq.Arn, maxReceive)
	}
	url := queue(t, f, name, attrs)
	body := strings.Repeat("x", kb*1024)
	for i := range n {
		in := &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(fmt.Sprintf("%02d", i) + body)}
		if bin > 0 {
			in.MessageAttributes = map[string]types.MessageAttributeValue{"b": {DataType: aws.String("Binary"), BinaryValue: make([]byte, bin)}}
		}
		if fifo {
			in.MessageGroupId, in.MessageDeduplicationId = aws.String("G"), aws.String(fmt.Sprint(i))
		}
		_, err := f.SendMessage(context.Background(), in)
		require.NoError(t, err)
	}
	return f
}

// invokedTimes counts how many invocations that reached the handler held each message.
func invokedTimes(trig *lambdasqs.Trigger) map[string]int {
	count := map[string]int{}
	for _, inv := range trig.Invocations() {
		if inv.Outcome == lambdasqs.Throttled {
			continue
		}
		for _, id := range inv.MessageIDs {
			count[id]++
		}
	}
	return count
}

// A message the 6 MB payload quota leaves out of a batch is never received for nothing: the
// trigger receives only what fits, so a message reaches the dead-letter queue only after it
// has reached the handler maxReceiveCount times.
func TestAMessageThePayloadLeavesOutSpendsNoReceive(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fifo       bool
		n, kb      int // messages and their size
		bin        int // bytes of a binary attribute each message carries (base64 in the record)
		maxReceive int
		fail       bool
		sleep      time.Duration // how long the handler runs; 5 s when 0
		cfg        lambdasqs.Config
		wantTimes  int // invocations of each message
	}{
		{"FIFO, always failing, maxReceiveCount 3", true, 10, 700, 0, 3, true, 0, lambdasqs.Config{FunctionTimeout: 10 * time.Second}, 3},
		{"FIFO, succeeding, maxReceiveCount 1", true, 10, 700, 0, 1, false, 0, lambdasqs.Config{FunctionTimeout: 10 * time.Second}, 1},
		{"standard, at the concurrency limit, maxReceiveCount 1", false, 20, 700, 0, 1, false, 0, lambdasqs.Config{FunctionTimeout: 10 * time.Second, MaximumConcurrency: 2}, 1},
		{"standard, always failing, maxReceiveCount 2", false, 20, 700, 0, 2, true, 0, lambdasqs.Config{FunctionTimeout: 10 * time.Second, MaximumConcurrency: 2}, 2},
		// 1,000 KB messages, batches of up to 20: the second receive of 10 would end one
		// batch, fill another and take the last slot with messages left over.
		{"standard, a receive spanning three batches at the concurrency limit", false, 30, 1000, 0, 1, false, 0,
			lambdasqs.Config{FunctionTimeout: 10 * time.Second, MaximumConcurrency: 2, BatchSize: 20, MaximumBatchingWindowInSeconds: 1}, 1},
		// Records over 1.3 MB (a binary attribute of 1,000,000 bytes is base64 in the record,
		// though SQS's 1 MiB counts it raw): one receive of 10 into an empty batch spans three
		// batches, so two free slots are not enough to take it unsized.
		{"standard, records larger than a message's 1 MiB, two free slots", false, 10, 0, 1_000_000, 1, false, 20 * time.Second,
			lambdasqs.Config{FunctionTimeout: 25 * time.Second, MaximumConcurrency: 2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			n := tc.n
			f := withDLQOf(t, n, tc.kb, tc.bin, tc.fifo, "30", tc.maxReceive)
			sleep := cmp.Or(tc.sleep, 5*time.Second)
			name, dlq := "q", "dlq"
			if tc.fifo {
				name, dlq = "q.fifo", "dlq.fifo"
			}
			trig, err := lambdasqs.New(f, name, func(ctx context.Context, ev events.SQSEvent) error {
				if err := lambdasqs.Sleep(ctx, sleep); err != nil {
					return err
				}
				if tc.fail {
					return errors.New("down")
				}
				return nil
			}, tc.cfg)
			require.NoError(t, err)
			require.NoError(t, trig.Advance(ctx, 10*time.Minute))
			count := invokedTimes(trig)
			assert.Len(t, count, n, "every message reached the handler")
			for id, n := range count {
				assert.Equal(t, tc.wantTimes, n, id)
			}
			d, _ := f.Queue(dlq)
			wantDLQ := 0
			if tc.fail {
				wantDLQ = n
			}
			assert.Equal(t, wantDLQ, d.Visible, "in the dead-letter queue")
		})
	}
}

// A batch that waited for a free slot is invoked only if it can run to the function's
// timeout within its messages' visibility timeout; otherwise the poller drops it, as it does
// a throttled batch, and no message is ever in two invocations at once.
func TestABatchThatWaitedForASlotIsNotInvokedPastItsVisibility(t *testing.T) {
	ctx := context.Background()
	f := withDLQ(t, 20, 700, false, "30", 0)
	trig, err := lambdasqs.New(f, "q", slow(20*time.Second, nil), lambdasqs.Config{FunctionTimeout: 30 * time.Second, MaximumConcurrency: 2})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, 3*time.Minute))
	count := invokedTimes(trig)
	assert.Len(t, count, 20)
	for id, n := range count {
		assert.Equal(t, 1, n, id)
	}
	for _, inv := range trig.Invocations() {
		assert.Equal(t, lambdasqs.Success, inv.Outcome)
		assert.Empty(t, inv.DeleteFailed)
	}
}

// SetEnabled is safe from a handler: the mapping pauses at its next step.
func TestSetEnabledFromAHandlerPausesTheMapping(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 3, nil)
	var trig *lambdasqs.Trigger
	trig, err := lambdasqs.New(f, "q", func(ctx context.Context, _ events.SQSEvent) error {
		trig.SetEnabled(false)
		return nil
	}, lambdasqs.Config{BatchSize: 1})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	assert.Len(t, trig.Invocations(), 1, "paused after the first invocation")
	require.NoError(t, trig.Advance(ctx, time.Minute))
	assert.Len(t, trig.Invocations(), 1)
	trig.SetEnabled(true)
	require.NoError(t, trig.Poll(ctx))
	assert.Len(t, trig.Invocations(), 2)
}

// Pausing forgets the batch waiting for a slot, and when it waited: a batch that waits after
// the mapping resumes waits for a slot again, its messages received once.
func TestSetEnabledFalseForgetsWhenTheWaitingBatchExpires(t *testing.T) {
	ctx := context.Background()
	f := withDLQ(t, 18, 700, false, "60", 0)
	trig, err := lambdasqs.New(f, "q", func(ctx context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			if strings.HasPrefix(r.Body, "n") {
				assert.Equal(t, "1", r.Attributes["ApproximateReceiveCount"], r.Body[:3])
			}
		}
		return lambdasqs.Sleep(ctx, 20*time.Second)
	}, lambdasqs.Config{FunctionTimeout: 30 * time.Second, MaximumConcurrency: 2})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	trig.SetEnabled(false)
	require.NoError(t, trig.Advance(ctx, 70*time.Second))
	info, _ := f.Queue("q")
	body := strings.Repeat("y", 700*1024)
	for i := range 18 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &info.URL, MessageBody: aws.String(fmt.Sprintf("n%02d", i) + body)})
		require.NoError(t, err)
	}
	trig.SetEnabled(true)
	require.NoError(t, trig.Advance(ctx, 5*time.Minute))
	info, _ = f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
}

// A filtered message whose delete fails comes back and is filtered again: Filtered lists it
// once, when its delete succeeds.
func TestAFilteredMessageIsListedOnceWhenItsDeleteFails(t *testing.T) {
	ctx := context.Background()
	f := fill(t, 1, map[string]string{"VisibilityTimeout": "30"})
	f.InjectFault(sqsfake.Fault{Operation: "DeleteMessageBatch", Times: 1, FailEntries: func(string) bool { return true },
		Err: sqsfake.ServiceError("ReceiptHandleIsInvalid", "The receipt handle has expired.")})
	trig, err := lambdasqs.New(f, "q", ok, lambdasqs.Config{FilterCriteria: lambdasqs.FilterCriteria{Filters: []lambdasqs.Filter{{Pattern: `{"body":["nope"]}`}}}})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	info, _ := f.Queue("q")
	assert.Zero(t, info.Visible+info.InFlight)
	require.Len(t, trig.Filtered(), 1)
	assert.Empty(t, trig.Invocations())
}

// The trigger's reading of its queue's message sizes does not outlive a Reset of the fake,
// even when as many calls follow the Reset as came before it (CallCount starts again from 0):
// the receives after it are sized from the new messages, and none goes back to the queue.
func TestMessageSizesReadBeforeAResetAreReadAgain(t *testing.T) {
	ctx := context.Background()
	f := withDLQ(t, 10, 1, true, "30", 1)
	trig, err := lambdasqs.New(f, "q.fifo", ok, lambdasqs.Config{FunctionTimeout: 10 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	before, invoked := f.CallCount(), len(trig.Invocations())
	f.Reset()
	queue(t, f, "dlq.fifo", map[string]string{"FifoQueue": "true"})
	dlq, _ := f.Queue("dlq.fifo")
	url := queue(t, f, "q.fifo", map[string]string{"FifoQueue": "true", "VisibilityTimeout": "30",
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":"%s","maxReceiveCount":"1"}`, dlq.Arn)})
	body := strings.Repeat("x", 700*1024)
	for i := range 10 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(fmt.Sprintf("%02d", i) + body),
			MessageGroupId: aws.String("G"), MessageDeduplicationId: aws.String(fmt.Sprint(i))})
		require.NoError(t, err)
	}
	for f.CallCount() < before {
		_, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("q.fifo")})
		require.NoError(t, err)
	}
	require.Equal(t, before, f.CallCount(), "as many calls as before the Reset")
	require.NoError(t, trig.Advance(ctx, 5*time.Minute))
	count := map[string]int{}
	for _, inv := range trig.Invocations()[invoked:] {
		for _, id := range inv.MessageIDs {
			count[id]++
		}
	}
	assert.Len(t, count, 10, "every message sent after the Reset reached the handler")
	for id, n := range count {
		assert.Equal(t, 1, n, id)
	}
	d, _ := f.Queue("dlq.fifo")
	assert.Zero(t, d.Visible, "no message in the dead-letter queue without an invocation")
	for _, c := range f.Calls() {
		assert.NotEqual(t, "ChangeMessageVisibilityBatch", c.Operation, "nothing received was sent back")
	}
}

// The trigger reads its queue's sizes once and notes what it deletes: once the large messages
// are gone, receives are sized by the messages left, and batches fill up again.
func TestDeletedMessagesNoLongerShortenAReceive(t *testing.T) {
	ctx := context.Background()
	f := withDLQ(t, 8, 1000, true, "30", 0)
	info, _ := f.Queue("q.fifo")
	for i := range 30 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &info.URL, MessageBody: aws.String(fmt.Sprint("small ", i)),
			MessageGroupId: aws.String("G"), MessageDeduplicationId: aws.String(fmt.Sprint("s", i))})
		require.NoError(t, err)
	}
	trig, err := lambdasqs.New(f, "q.fifo", ok, lambdasqs.Config{FunctionTimeout: 10 * time.Second})
	require.NoError(t, err)
	require.NoError(t, trig.Advance(ctx, time.Minute))
	var sizes []int
	for _, inv := range trig.Invocations() {
		sizes = append(sizes, len(inv.MessageIDs))
	}
	// Six records of 1,000 KB fit 6 MB; then the two left and eight small ones; then ten.
	assert.Equal(t, []int{6, 10, 10, 10, 2}, sizes)
	for _, c := range f.Calls() {
		assert.NotEqual(t, "ChangeMessageVisibilityBatch", c.Operation, "nothing received was sent back")
	}
}
