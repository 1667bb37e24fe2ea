package sqsfake

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testArnPrefix = "arn:aws:sqs:us-east-1:123456789012:"

// dlqPair creates a work queue whose RedrivePolicy sends messages to a DLQ after
// maxReceiveCount receives.
func dlqPair(t *testing.T, f *Fake, maxReceiveCount int) (work, dlq *string) {
	t.Helper()
	dlq = mustCreateQueue(t, f, "work-dlq", nil)
	work = mustCreateQueue(t, f, "work", map[string]string{
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":"%swork-dlq","maxReceiveCount":%d}`, testArnPrefix, maxReceiveCount),
	})
	return work, dlq
}

func counts(t *testing.T, f *Fake, q *string) (visible, inFlight int) {
	t.Helper()
	out, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: q,
		AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
	require.NoError(t, err)
	v, _ := strconv.Atoi(out.Attributes["ApproximateNumberOfMessages"])
	n, _ := strconv.Atoi(out.Attributes["ApproximateNumberOfMessagesNotVisible"])
	return v, n
}

func latestTask(t *testing.T, f *Fake, source string) types.ListMessageMoveTasksResultEntry {
	t.Helper()
	out, err := f.ListMessageMoveTasks(context.Background(), &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(source)})
	require.NoError(t, err)
	require.Len(t, out.Results, 1)
	return out.Results[0]
}

// TestPoisonMessagesAreRedrivenAfterAFix tells the whole story: a consumer fails on every
// message, they land in the DLQ, the consumer is fixed, a move task brings them back at 5
// messages a second as the clock advances, and the fixed consumer deletes them.
func TestPoisonMessagesAreRedrivenAfterAFix(t *testing.T) {
	ctx := context.Background()
	f := New()
	work, dlq := dlqPair(t, f, 3)
	sent := map[string]bool{}
	for i := range 60 {
		out := send(t, f, work, fmt.Sprint("job-", i))
		sent[*out.MessageId] = true
	}

	// The broken consumer receives each message 3 times and never deletes it; the 4th
	// receive attempt moves it to the DLQ.
	for range 4 {
		for {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: work, MaxNumberOfMessages: 10})
			require.NoError(t, err)
			if len(out.Messages) == 0 {
				break
			}
		}
		f.Advance(30 * time.Second)
	}
	v, n := counts(t, f, work)
	assert.Equal(t, [2]int{0, 0}, [2]int{v, n}, "the work queue is empty")
	v, _ = counts(t, f, dlq)
	assert.Equal(t, 60, v)
	peek, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq, VisibilityTimeout: 1, MessageSystemAttributeNames: allSystem})
	require.NoError(t, err)
	assert.True(t, sent[*peek.Messages[0].MessageId], "the DLQ keeps the MessageId")
	assert.Equal(t, testArnPrefix+"work", peek.Messages[0].Attributes["DeadLetterQueueSourceArn"])
	assert.Equal(t, "4", peek.Messages[0].Attributes["ApproximateReceiveCount"])
	f.Advance(time.Second)

	// The fix ships; redrive at 5 messages per second.
	startedAt := f.Now()
	start, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(5)})
	require.NoError(t, err)
	task := latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, types.ListMessageMoveTasksResultEntry{
		Status: aws.String("RUNNING"), SourceArn: aws.String(testArnPrefix + "work-dlq"), TaskHandle: start.TaskHandle,
		MaxNumberOfMessagesPerSecond: aws.Int32(5), ApproximateNumberOfMessagesToMove: aws.Int64(60),
		StartedTimestamp: startedAt.UnixMilli(),
	}, task)

	f.Advance(10 * time.Second)
	task = latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, int64(50), task.ApproximateNumberOfMessagesMoved, "10 s at 5 messages/s")
	v, _ = counts(t, f, work)
	assert.Equal(t, 50, v)

	f.Advance(2 * time.Second)
	task = latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, "COMPLETED", *task.Status)
	assert.Nil(t, task.TaskHandle, "the handle is shown only while the task runs")
	assert.Equal(t, int64(60), task.ApproximateNumberOfMessagesMoved)

	// The fixed consumer receives redriven messages as new messages and deletes them.
	deleted := 0
	for {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: work, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
		require.NoError(t, err)
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			assert.False(t, sent[*m.MessageId], "a redriven message has a new MessageId")
			assert.Equal(t, "1", m.Attributes["ApproximateReceiveCount"])
			assert.NotContains(t, m.Attributes, "DeadLetterQueueSourceArn")
			_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: work, ReceiptHandle: m.ReceiptHandle})
			require.NoError(t, err)
			deleted++
		}
	}
	assert.Equal(t, 60, deleted)
	v, n = counts(t, f, dlq)
	assert.Equal(t, [2]int{0, 0}, [2]int{v, n})
}

func TestRedrivenMessagesAreSentAtTheInstantTheyMove(t *testing.T) {
	ctx := context.Background()
	f := New()
	work, dlq := dlqPair(t, f, 1)
	send(t, f, work, "a")
	send(t, f, work, "b")
	for range 2 {
		_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: work, MaxNumberOfMessages: 10})
		require.NoError(t, err)
		f.Advance(30 * time.Second)
	}
	v, _ := counts(t, f, dlq)
	require.Equal(t, 2, v)
	start := f.Now()
	_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	f.Advance(5 * time.Second) // one move at 1 s, one at 2 s, observed at 5 s
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: work, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b"}, bodies(out), "oldest first")
	assert.Equal(t, millis(start.Add(time.Second).UnixNano()), out.Messages[0].Attributes["SentTimestamp"])
	assert.Equal(t, millis(start.Add(2*time.Second).UnixNano()), out.Messages[1].Attributes["SentTimestamp"])
}

func TestMoveTaskToAnExplicitDestination(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, dlq := dlqPair(t, f, 1)
	other := mustCreateQueue(t, f, "other", nil)
	send(t, f, dlq, "direct")
	_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), DestinationArn: aws.String(testArnPrefix + "other")})
	require.NoError(t, err)
	f.Advance(time.Second)
	v, _ := counts(t, f, other)
	assert.Equal(t, 1, v)
	task := latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, "COMPLETED", *task.Status)
	assert.Equal(t, testArnPrefix+"other", *task.DestinationArn)
	assert.Nil(t, task.MaxNumberOfMessagesPerSecond, "shown only when given")
}

func TestMoveTaskFailsWhenItsDestinationIsDeleted(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, dlq := dlqPair(t, f, 1)
	other := mustCreateQueue(t, f, "other", nil)
	for i := range 10 {
		send(t, f, dlq, fmt.Sprint(i))
	}
	_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"),
		DestinationArn: aws.String(testArnPrefix + "other"), MaxNumberOfMessagesPerSecond: aws.Int32(2)})
	require.NoError(t, err)
	f.Advance(2 * time.Second)
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: other})
	require.NoError(t, err)
	f.Advance(10 * time.Second)
	task := latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, "FAILED", *task.Status)
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", *task.FailureReason)
	assert.Equal(t, int64(4), task.ApproximateNumberOfMessagesMoved)
	v, _ := counts(t, f, dlq)
	assert.Equal(t, 6, v, "the rest stay in the DLQ")
}

func TestCancelMessageMoveTaskStopsAtOnce(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, dlq := dlqPair(t, f, 1)
	mustCreateQueue(t, f, "other", nil)
	for i := range 10 {
		send(t, f, dlq, fmt.Sprint(i))
	}
	start, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"),
		DestinationArn: aws.String(testArnPrefix + "other"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	f.Advance(3 * time.Second)
	out, err := f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: start.TaskHandle})
	require.NoError(t, err)
	assert.Equal(t, int64(3), out.ApproximateNumberOfMessagesMoved)
	f.Advance(time.Minute)
	task := latestTask(t, f, testArnPrefix+"work-dlq")
	assert.Equal(t, "CANCELLED", *task.Status)
	assert.Equal(t, int64(3), task.ApproximateNumberOfMessagesMoved)
	v, _ := counts(t, f, dlq)
	assert.Equal(t, 7, v)

	// A new task may start once the old one has ended.
	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), DestinationArn: aws.String(testArnPrefix + "other")})
	require.NoError(t, err)
	list, err := f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxResults: aws.Int32(10)})
	require.NoError(t, err)
	require.Len(t, list.Results, 2)
	assert.Equal(t, "RUNNING", *list.Results[0].Status, "most recent first")
	assert.Equal(t, "CANCELLED", *list.Results[1].Status)
}

func TestTaskHandleNamesTheTaskAndItsSource(t *testing.T) {
	f := New()
	_, dlq := dlqPair(t, f, 1)
	send(t, f, dlq, "x")
	out, err := f.StartMessageMoveTask(context.Background(), &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq")})
	require.NoError(t, err)
	raw, err := base64.StdEncoding.DecodeString(*out.TaskHandle)
	require.NoError(t, err)
	var h map[string]string
	require.NoError(t, json.Unmarshal(raw, &h))
	assert.Equal(t, testArnPrefix+"work-dlq", h["sourceArn"])
	assert.Regexp(t, `^[0-9a-f-]{36}$`, h["taskId"])
}

func TestLongPollIsWokenByARedrivenMessage(t *testing.T) {
	ctx := context.Background()
	f := New()
	work, dlq := dlqPair(t, f, 1)
	send(t, f, dlq, "back")
	_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"),
		DestinationArn: aws.String(testArnPrefix + "work"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: work, WaitTimeSeconds: 20, MessageSystemAttributeNames: allSystem})
	f.Advance(20 * time.Second)
	r := <-ch
	require.NoError(t, r.err)
	assert.Equal(t, []string{"back"}, bodies(r.out))
	assert.Equal(t, millis(DefaultStart.Add(time.Second).UnixNano()), r.out.Messages[0].Attributes["ApproximateFirstReceiveTimestamp"],
		"served when it moved, 1 s in")
}

func TestMoveTaskErrors(t *testing.T) {
	ctx := context.Background()
	type want struct {
		code, message string
		status        int
	}
	notFoundSource := want{"ResourceNotFoundException", "The resource that you specified for the SourceArn parameter doesn't exist.", 404}
	tests := []struct {
		name string
		call func(f *Fake) error
		want want
	}{
		{"start: unknown source", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "nope")})
			return err
		}, notFoundSource},
		{"start: malformed source", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String("work-dlq")})
			return err
		}, want{"InvalidParameterValue", "You must use this format to specify the SourceArn: arn:<partition>:<service>:<region>:<account-id>:<resource-id>", 400}},
		{"start: source is not a DLQ", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work")})
			return err
		}, want{"InvalidParameterValue", "Source queue must be configured as a Dead Letter Queue.", 400}},
		{"start: unknown destination", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), DestinationArn: aws.String(testArnPrefix + "nope")})
			return err
		}, want{"ResourceNotFoundException", "The resource that you specified for the DestinationArn parameter doesn't exist.", 404}},
		{"start: rate 0", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(0)})
			return err
		}, want{"InvalidParameterValue", "Value 0 for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be between 1 and 500.", 400}},
		{"start: rate 501", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(501)})
			return err
		}, want{"InvalidParameterValue", "Value 501 for parameter MaxNumberOfMessagesPerSecond is invalid. Reason: Must be between 1 and 500.", 400}},
		{"start: a task is already running", func(f *Fake) error {
			_, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
			require.NoError(t, err)
			_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq")})
			return err
		}, want{"InvalidParameterValue", "There is already a task running. Only one active task is allowed for a source queue arn at a given time.", 400}},
		{"list: unknown source", func(f *Fake) error {
			_, err := f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(testArnPrefix + "nope")})
			return err
		}, notFoundSource},
		{"list: MaxResults 11", func(f *Fake) error {
			_, err := f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxResults: aws.Int32(11)})
			return err
		}, want{"InvalidParameterValue", "Value 11 for parameter MaxResults is invalid. Reason: You must enter a number that's between 1 and 10.", 400}},
		{"cancel: undecodable handle", func(f *Fake) error {
			_, err := f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String("not-a-handle")})
			return err
		}, want{"InvalidParameterValue", "Value for parameter TaskHandle is invalid.", 400}},
		{"cancel: unknown task", func(f *Fake) error {
			h := base64.StdEncoding.EncodeToString([]byte(`{"taskId":"00000000-0000-4000-8000-000000000000","sourceArn":"` + testArnPrefix + `work-dlq"}`))
			_, err := f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String(h)})
			return err
		}, want{"ResourceNotFoundException", "Task does not exist.", 404}},
		{"cancel: source deleted", func(f *Fake) error {
			out, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
			require.NoError(t, err)
			_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String("work-dlq")})
			require.NoError(t, err)
			_, err = f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle})
			return err
		}, notFoundSource},
		{"cancel: task already completed", func(f *Fake) error {
			out, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq")})
			require.NoError(t, err)
			f.Advance(time.Minute)
			_, err = f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.TaskHandle})
			return err
		}, want{"InvalidParameterValue", "", 400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			_, dlq := dlqPair(t, f, 1)
			for i := range 5 {
				send(t, f, dlq, fmt.Sprint(i))
			}
			err := tt.call(f)
			require.Error(t, err)
			var api smithy.APIError
			require.True(t, errors.As(err, &api), err)
			assert.Equal(t, tt.want.code, api.ErrorCode())
			if tt.want.message != "" {
				assert.Equal(t, tt.want.message, api.ErrorMessage())
			}
			var re *awshttp.ResponseError
			require.True(t, errors.As(err, &re))
			assert.Equal(t, tt.want.status, re.HTTPStatusCode())
			if tt.want.code == "ResourceNotFoundException" {
				var rnf *types.ResourceNotFoundException
				assert.True(t, errors.As(err, &rnf))
			}
		})
	}
}

// BenchmarkMoveTaskRedrive100k measures a move task redriving 100,000 messages at 500
// messages a second: the Advance over the task's 200 virtual seconds plus the call that
// settles it, minus the same Advance on a fake with nothing to move. Bar: ≤ 2 µs a message.
func BenchmarkMoveTaskRedrive100k(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	attrs := &sqs.GetQueueAttributesInput{AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages"}}
	overhead := clockOverhead(b, 200*time.Second, 10)

	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		f := New()
		dest := benchQueue(b, f, nil)
		dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bench-dlq")})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("src"), Attributes: map[string]string{
			"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `bench-dlq","maxReceiveCount":1}`}}); err != nil {
			b.Fatal(err)
		}
		fill(b, f, dlq.QueueUrl, n)
		if _, err := f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "bench-dlq"),
			DestinationArn: aws.String(testArnPrefix + "bench")}); err != nil {
			b.Fatal(err)
		}
		attrs.QueueUrl = dest
		b.StartTimer()
		start := time.Now()
		f.Advance(200 * time.Second)
		out, err := f.GetQueueAttributes(ctx, attrs)
		total += time.Since(start)
		if err != nil || out.Attributes["ApproximateNumberOfMessages"] != strconv.Itoa(n) {
			b.Fatal(err, out)
		}
	}
	b.ReportMetric(float64(total/time.Duration(b.N)-overhead)/n, "ns/moved-msg")
}

func TestMoveTaskRedrivesAFifoDLQInGroupOrder(t *testing.T) {
	ctx := context.Background()
	f := New()
	fifo := map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
	dlq := mustCreateQueue(t, f, "dlq.fifo", fifo)
	src := mustCreateQueue(t, f, "src.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `dlq.fifo","maxReceiveCount":1}`})
	for _, b := range []string{"a1", "a2", "b1"} {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: src, MessageBody: aws.String(b), MessageGroupId: aws.String(b[:1])})
		require.NoError(t, err)
	}
	// Receive everything once, let it expire, and the next receive moves it all.
	_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: src, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	f.Advance(31 * time.Second)
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: src, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	require.Empty(t, out.Messages)
	v, _ := counts(t, f, dlq)
	require.Equal(t, 3, v)

	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "dlq.fifo")})
	require.NoError(t, err)
	f.Advance(time.Second)
	out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: src, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageGroupId", "SequenceNumber"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"a1", "a2", "b1"}, bodies(out), "groups and their order survive the round trip")
	assert.Equal(t, "a", out.Messages[0].Attributes["MessageGroupId"])
	assert.Less(t, out.Messages[0].Attributes["SequenceNumber"], out.Messages[1].Attributes["SequenceNumber"])
}

// A DLQ message that is in flight when its slot comes is not backdated: it moves when it
// becomes available, and the rate counts from that move.
func TestMoveTaskWaitsForAMessageInFlight(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, dlq := dlqPair(t, f, 1)
	other := mustCreateQueue(t, f, "other", nil)
	send(t, f, dlq, "held")
	send(t, f, dlq, "next")
	_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq, MaxNumberOfMessages: 10, VisibilityTimeout: 100})
	require.NoError(t, err)
	start := f.Now()
	_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "work-dlq"),
		DestinationArn: aws.String(testArnPrefix + "other"), MaxNumberOfMessagesPerSecond: aws.Int32(1)})
	require.NoError(t, err)
	f.Advance(200 * time.Second)
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: other, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.NoError(t, err)
	require.Equal(t, []string{"held", "next"}, bodies(out))
	assert.Equal(t, millis(start.Add(100*time.Second).UnixNano()), out.Messages[0].Attributes["SentTimestamp"],
		"moved when its visibility timeout ended, not at its slot")
	assert.Equal(t, millis(start.Add(101*time.Second).UnixNano()), out.Messages[1].Attributes["SentTimestamp"],
		"the rate counts from that move")
}

// moveScenario builds queues, dead-letters messages and starts move tasks, then moves the
// clock with advance and reports what can be observed.
type moveScenario func(t *testing.T, f *Fake, advance func(time.Duration)) string

// deadLetter sends bodies to a queue that redrives to dlq after one receive, and leaves
// them in dlq one second later.
func deadLetter(t *testing.T, f *Fake, src, dlq string, srcAttrs map[string]string, bodies ...string) *string {
	t.Helper()
	attrs := map[string]string{"VisibilityTimeout": "1",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + dlq + `","maxReceiveCount":1}`}
	for k, v := range srcAttrs {
		attrs[k] = v
	}
	q := mustCreateQueue(t, f, src, attrs)
	for _, b := range bodies {
		send(t, f, q, b)
	}
	ctx := context.Background()
	_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	f.Advance(time.Second)
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	require.Empty(t, out.Messages, "all moved to %s", dlq)
	return q
}

func startTask(t *testing.T, f *Fake, source, dest string, rate int32) {
	t.Helper()
	in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + source), MaxNumberOfMessagesPerSecond: aws.Int32(rate)}
	if dest != "" {
		in.DestinationArn = aws.String(testArnPrefix + dest)
	}
	_, err := f.StartMessageMoveTask(context.Background(), in)
	require.NoError(t, err)
}

func receivedBodies(t *testing.T, f *Fake, q *string) []string {
	t.Helper()
	out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	return bodies(out)
}

func taskSummary(t *testing.T, f *Fake, source string) string {
	t.Helper()
	task := latestTask(t, f, testArnPrefix+source)
	return fmt.Sprintf("%s moved=%d toMove=%d", *task.Status, task.ApproximateNumberOfMessagesMoved, aws.ToInt64(task.ApproximateNumberOfMessagesToMove))
}

// Move tasks settle lazily, like everything else, yet a long clock move must give what many
// short ones give: moves happen in the order of their instants, each queue brought up to
// that instant first.
func TestMoveTasksGiveTheSameResultsForOneClockMoveAsForManySmallOnes(t *testing.T) {
	tests := []struct {
		name string
		run  moveScenario
		want string
	}{
		{"a message moves before a retention period that ends after its slot", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			mustCreateQueue(t, f, "dlq", map[string]string{"MessageRetentionPeriod": "60"})
			src := deadLetter(t, f, "src", "dlq", nil, "m0", "m1", "m2") // they expire in the DLQ at 60 s
			f.Advance(49 * time.Second)
			startTask(t, f, "dlq", "", 1) // slots at 51, 52 and 53 s
			advance(20 * time.Second)
			return fmt.Sprint(receivedBodies(t, f, src), " ", taskSummary(t, f, "dlq"))
		}, "[m0 m1 m2] COMPLETED moved=3 toMove=3"},
		{"a moved message is available from the instant it moved", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			mustCreateQueue(t, f, "dlq", nil)
			deadLetter(t, f, "src", "dlq", nil, "R")
			other := mustCreateQueue(t, f, "other", nil)
			send(t, f, other, "X")
			_, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: other}) // X visible again at 31 s
			require.NoError(t, err)
			startTask(t, f, "dlq", "other", 1) // R arrives in other at 2 s
			advance(40 * time.Second)
			// X was sent to other first: it comes first, although R was available there
			// since 2 s and X only since 31 s. R's SentTimestamp is when it moved.
			out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: other, MaxNumberOfMessages: 10,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SentTimestamp"}})
			require.NoError(t, err)
			require.Len(t, out.Messages, 2)
			return fmt.Sprint(bodies(out), " R sent at ", out.Messages[1].Attributes["SentTimestamp"])
		}, fmt.Sprint("[X R] R sent at ", millis(DefaultStart.Add(2*time.Second).UnixNano()))},
		{"two tasks feeding one queue interleave", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			mustCreateQueue(t, f, "dlq1", nil)
			mustCreateQueue(t, f, "dlq2", nil)
			deadLetter(t, f, "s1", "dlq1", nil, "a0", "a1", "a2")
			deadLetter(t, f, "s2", "dlq2", nil, "b0", "b1", "b2")
			dest := mustCreateQueue(t, f, "dest", nil)
			startTask(t, f, "dlq1", "dest", 1)
			startTask(t, f, "dlq2", "dest", 1)
			advance(10 * time.Second)
			return fmt.Sprint(receivedBodies(t, f, dest))
		}, "[a0 b0 a1 b1 a2 b2]"},
		{"a message in flight in its DLQ moves when it becomes visible, whatever another task does", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			dlq1 := mustCreateQueue(t, f, "dlq1", map[string]string{"VisibilityTimeout": "30"})
			mustCreateQueue(t, f, "dlq2", nil)
			deadLetter(t, f, "s1", "dlq1", nil, "A")
			deadLetter(t, f, "s2", "dlq2", nil, "B")
			inFlight, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: dlq1}) // A in flight until 31 s
			require.NoError(t, err)
			require.Len(t, inFlight.Messages, 1)
			startTask(t, f, "dlq1", "", 1)
			startTask(t, f, "dlq2", "", 1)
			advance(60 * time.Second)
			return redriveTimes(t, f, *inFlight.Messages[0].MessageId)
		}, "redriven at 32s"},
		{"a message made visible by ChangeMessageVisibility moves then, not at an earlier slot", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			dlq := mustCreateQueue(t, f, "dlq", nil)
			deadLetter(t, f, "src", "dlq", nil, "m")
			got, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: dlq}) // in flight until 31 s
			require.NoError(t, err)
			startTask(t, f, "dlq", "", 1)
			f.Advance(9 * time.Second)
			_, err = f.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{QueueUrl: dlq, ReceiptHandle: got.Messages[0].ReceiptHandle})
			require.NoError(t, err) // visible at 10 s
			advance(30 * time.Second)
			return redriveTimes(t, f, *got.Messages[0].MessageId)
		}, "redriven at 10s"},
		{"a FIFO group whose in-flight head expires unlocks at the expiry", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			ctx := context.Background()
			fifo := map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
			mustCreateQueue(t, f, "dest.fifo", fifo)
			dlq := mustCreateQueue(t, f, "dlq.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "MessageRetentionPeriod": "60"})
			mustCreateQueue(t, f, "src.fifo", map[string]string{"FifoQueue": "true",
				"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `dlq.fifo","maxReceiveCount":1}`})
			for i, body := range []string{"A", "B"} {
				_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: dlq, MessageBody: aws.String(body), MessageGroupId: aws.String("g")})
				require.NoError(t, err)
				if i == 0 {
					f.Advance(30 * time.Second)
				}
			}
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq, VisibilityTimeout: 100}) // A, until 130 s; it expires at 60 s
			require.NoError(t, err)
			require.Len(t, got.Messages, 1)
			startTask(t, f, "dlq.fifo", "dest.fifo", 1)
			advance(200 * time.Second)
			dest, _ := f.Queue("dest.fifo")
			var moved []string
			for _, m := range dest.Messages {
				moved = append(moved, m.Body+" at "+m.SentAt.Sub(DefaultStart).String())
			}
			return fmt.Sprint(moved, " ", taskSummary(t, f, "dlq.fifo"))
		}, "[B at 1m0s] COMPLETED moved=1 toMove=2"},
		{"a task whose source a call emptied completes before another task fills it", func(t *testing.T, f *Fake, advance func(time.Duration)) string {
			ctx := context.Background()
			mustCreateQueue(t, f, "dest", nil)
			dlq1 := mustCreateQueue(t, f, "dlq1", nil)
			dlq2 := mustCreateQueue(t, f, "dlq2", nil)
			mustCreateQueue(t, f, "src1", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `dlq1","maxReceiveCount":1}`})
			mustCreateQueue(t, f, "src2", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `dlq2","maxReceiveCount":1}`})
			send(t, f, dlq2, "X")
			got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq2, VisibilityTimeout: 100})
			require.NoError(t, err)
			startTask(t, f, "dlq2", "dest", 1)
			send(t, f, dlq1, "M")
			startTask(t, f, "dlq1", "dlq2", 1) // moves M into dlq2 at 1 s
			_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: dlq2, ReceiptHandle: got.Messages[0].ReceiptHandle})
			require.NoError(t, err) // dlq2 is empty: its task is done
			advance(20 * time.Second)
			q2, _ := f.Queue("dlq2")
			return fmt.Sprint(taskSummary(t, f, "dlq2"), ", dlq2 holds ", len(q2.Messages))
		}, "COMPLETED moved=0 toMove=1, dlq2 holds 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			oneMove := tt.run(t, f, func(d time.Duration) { f.Advance(d) })
			g := New()
			smallMoves := tt.run(t, g, func(d time.Duration) {
				for ; d > 0; d -= time.Second {
					g.Advance(min(d, time.Second))
					g.Queues() // look at the fake after every step
				}
			})
			assert.Equal(t, tt.want, oneMove, "one clock move")
			assert.Equal(t, tt.want, smallMoves, "one-second moves")
		})
	}
}

// A task whose DLQ empties by other means — purged, drained by a consumer — completes, and
// a new task can start.
func TestMoveTaskCompletesWhenItsSourceEmptiesOtherwise(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		name  string
		empty func(t *testing.T, f *Fake, dlq *string)
	}{
		{"purged", func(t *testing.T, f *Fake, dlq *string) {
			_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: dlq})
			require.NoError(t, err)
		}},
		{"drained by a consumer", func(t *testing.T, f *Fake, dlq *string) {
			inFlight, err := f.InFlight("dlq")
			require.NoError(t, err)
			for _, m := range inFlight {
				_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: dlq, ReceiptHandle: aws.String(m.ReceiptHandle)})
				require.NoError(t, err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			dlq := mustCreateQueue(t, f, "dlq", nil)
			deadLetter(t, f, "src", "dlq", nil, "m0", "m1", "m2", "m3")
			_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq, MaxNumberOfMessages: 2}) // two in flight there
			require.NoError(t, err)
			startTask(t, f, "dlq", "", 1)
			f.Advance(2 * time.Second) // the two visible ones move
			tt.empty(t, f, dlq)
			f.Advance(time.Hour)
			assert.Equal(t, "COMPLETED moved=2 toMove=4", taskSummary(t, f, "dlq"))
			_, err = f.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + "dlq")})
			assert.NoError(t, err, "no task is running any more")
		})
	}
}

// ApproximateNumberOfMessagesToMove counts what the DLQ holds when the task starts: messages
// whose retention ran out before are gone, and the task has nothing to do.
func TestMoveTaskCountsWhatTheDLQHoldsAtItsStart(t *testing.T) {
	f := New()
	mustCreateQueue(t, f, "dlq", map[string]string{"MessageRetentionPeriod": "60"})
	deadLetter(t, f, "src", "dlq", nil, "m0", "m1", "m2") // they expire at 61 s
	f.Advance(2 * time.Minute)
	startTask(t, f, "dlq", "", 1)
	assert.Equal(t, "COMPLETED moved=0 toMove=0", taskSummary(t, f, "dlq"))
}

// redriveTimes says when, counted from DefaultStart, a message's timeline records its redrive.
func redriveTimes(t *testing.T, f *Fake, id string) string {
	t.Helper()
	var out []string
	for _, e := range f.Timeline(id).Events {
		if e.Kind == EventRedriven {
			out = append(out, "redriven at "+e.At.Sub(DefaultStart).String())
		}
	}
	return strings.Join(out, ", ")
}
