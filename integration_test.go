package sqsfake

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scenario suite: stories every SQS must tell the same way, written once against sqsAPI and
// run through each door of the fake — and, in integration mode, against any SQS endpoint:
//
//	SQSFAKE_INTEGRATION_ENDPOINT=https://sqs.eu-west-1.amazonaws.com AWS_REGION=eu-west-1 \
//	AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… go test -run TestScenarios/endpoint -v
//
// (LocalStack: http://localhost:4566; a real-clock sqsfake server: http://127.0.0.1:9324.)
// Against an endpoint, time passes for real: the scenarios keep their timeouts to a few
// seconds, create queues with unique names and delete them afterwards.

const integrationEnv = "SQSFAKE_INTEGRATION_ENDPOINT"

// scenarioEnv is what a scenario runs against.
type scenarioEnv struct {
	api    sqsAPI
	fake   *Fake // nil against a real endpoint
	prefix string
}

// real reports whether the scenario runs against a real endpoint, where time passes by
// itself and results are eventually consistent.
func (e *scenarioEnv) real() bool { return e.fake == nil }

// pass lets d go by: on the fake's clock, or in real time with a margin.
func (e *scenarioEnv) pass(d time.Duration) {
	if e.real() {
		time.Sleep(d + time.Second)
		return
	}
	e.fake.Advance(d)
}

// queue creates a queue for the scenario and returns its URL and ARN.
func (e *scenarioEnv) queue(t *testing.T, name string, attrs map[string]string) (string, string) {
	t.Helper()
	ctx := context.Background()
	out, err := e.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(e.prefix + name), Attributes: attrs})
	require.NoError(t, err)
	url := *out.QueueUrl
	if e.real() {
		t.Cleanup(func() { e.api.DeleteQueue(context.Background(), &sqs.DeleteQueueInput{QueueUrl: aws.String(url)}) })
	}
	a, err := e.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl, AttributeNames: []types.QueueAttributeName{"QueueArn"}})
	require.NoError(t, err)
	return url, a.Attributes["QueueArn"]
}

// receive receives from url. Against a real endpoint it waits up to a second, since a short
// poll of a standard queue may sample servers that hold none of the messages; the fake
// answers a short poll from the whole queue.
func (e *scenarioEnv) receive(t *testing.T, url string, in sqs.ReceiveMessageInput) []types.Message {
	t.Helper()
	in.QueueUrl = aws.String(url)
	if e.real() && in.WaitTimeSeconds == 0 {
		in.WaitTimeSeconds = 1
	}
	out, err := e.api.ReceiveMessage(context.Background(), &in)
	require.NoError(t, err)
	return out.Messages
}

// waitingReceive runs a long poll and, once it is waiting, calls then.
func (e *scenarioEnv) waitingReceive(t *testing.T, url string, wait int32, then func()) []types.Message {
	t.Helper()
	type result struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := e.api.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: wait})
		done <- result{out, err}
	}()
	if e.real() {
		time.Sleep(time.Second) // no way to see a real server's parked polls
	} else {
		require.NoError(t, e.fake.WaitForPollers(context.Background(), 1))
	}
	then()
	r := <-done
	require.NoError(t, r.err)
	return r.out.Messages
}

// sendToGroup sends body to the FIFO queue url in group, and returns its MessageId.
func (e *scenarioEnv) sendToGroup(t *testing.T, url, group, body string, dedupID *string) string {
	t.Helper()
	out, err := e.api.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body),
		MessageGroupId: aws.String(group), MessageDeduplicationId: dedupID})
	require.NoError(t, err)
	return aws.ToString(out.MessageId)
}

// receiveBodies receives from url until it holds n messages or five receives came back
// short, and returns their bodies in the order received. With del it deletes each message
// as it comes, which a FIFO queue needs to hand out the rest of a group; a real FIFO queue
// may spread a group's messages over several receives.
func (e *scenarioEnv) receiveBodies(t *testing.T, url string, n int, del bool) []string {
	t.Helper()
	var bodies []string
	for attempt := 0; attempt < 5 && len(bodies) < n; attempt++ {
		for _, m := range e.receive(t, url, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}) {
			bodies = append(bodies, *m.Body)
			if del {
				_, err := e.api.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				require.NoError(t, err)
			}
		}
	}
	return bodies
}

func apiError(t *testing.T, err error) smithy.APIError {
	t.Helper()
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	return ae
}

var scenarios = []struct {
	name string
	run  func(t *testing.T, e *scenarioEnv)
}{
	{"send, receive and delete", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "basic", map[string]string{"VisibilityTimeout": "2"})
		sent, err := e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("message"),
			MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("x")}}})
		require.NoError(t, err)
		assert.Equal(t, "78e731027d8fd50ed642340b7c9a63b3", aws.ToString(sent.MD5OfMessageBody))
		assert.Equal(t, "a45daa70926828a2f0a1db3418e6feb4", aws.ToString(sent.MD5OfMessageAttributes))

		got := e.receive(t, url, sqs.ReceiveMessageInput{MessageAttributeNames: []string{"All"},
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SentTimestamp"}})
		require.Len(t, got, 1)
		m := got[0]
		assert.Equal(t, *sent.MessageId, *m.MessageId)
		assert.Equal(t, "message", *m.Body)
		assert.Equal(t, "78e731027d8fd50ed642340b7c9a63b3", *m.MD5OfBody)
		assert.Equal(t, "a45daa70926828a2f0a1db3418e6feb4", aws.ToString(m.MD5OfMessageAttributes))
		assert.Equal(t, "x", aws.ToString(m.MessageAttributes["k"].StringValue))
		assert.Equal(t, "1", m.Attributes["ApproximateReceiveCount"])
		assert.NotEmpty(t, m.Attributes["SentTimestamp"])

		_, err = e.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
		require.NoError(t, err)
		e.pass(2 * time.Second)
		assert.Empty(t, e.receive(t, url, sqs.ReceiveMessageInput{}), "a deleted message does not come back")
	}},
	{"the visibility timeout returns an unacknowledged message", func(t *testing.T, e *scenarioEnv) {
		url, _ := e.queue(t, "visibility", map[string]string{"VisibilityTimeout": "2"})
		_, err := e.api.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("again")})
		require.NoError(t, err)
		first := e.receive(t, url, sqs.ReceiveMessageInput{})
		require.Len(t, first, 1)
		assert.Empty(t, e.receive(t, url, sqs.ReceiveMessageInput{}), "in flight")
		e.pass(2 * time.Second)
		second := e.receive(t, url, sqs.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
		require.Len(t, second, 1)
		assert.Equal(t, *first[0].MessageId, *second[0].MessageId)
		assert.NotEqual(t, *first[0].ReceiptHandle, *second[0].ReceiptHandle, "each receive has its own handle")
		assert.Equal(t, "2", second[0].Attributes["ApproximateReceiveCount"])
	}},
	{"visibility 0 makes a message visible at once", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "visible-now", nil)
		_, err := e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("now")})
		require.NoError(t, err)
		got := e.receive(t, url, sqs.ReceiveMessageInput{})
		require.Len(t, got, 1)
		_, err = e.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(url), ReceiptHandle: got[0].ReceiptHandle, VisibilityTimeout: 0})
		require.NoError(t, err)
		again := e.receive(t, url, sqs.ReceiveMessageInput{})
		require.Len(t, again, 1)
		assert.Equal(t, *got[0].MessageId, *again[0].MessageId)
	}},
	{"a message received maxReceiveCount times moves to the dead-letter queue", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		dlq, dlqARN := e.queue(t, "dlq", nil)
		src, srcARN := e.queue(t, "src", map[string]string{"VisibilityTimeout": "1",
			"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"1"}`})
		sent, err := e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(src), MessageBody: aws.String("poison")})
		require.NoError(t, err)
		require.Len(t, e.receive(t, src, sqs.ReceiveMessageInput{}), 1)
		e.pass(time.Second)
		assert.Empty(t, e.receive(t, src, sqs.ReceiveMessageInput{}), "this receive moves the message instead of delivering it")
		dead := e.receive(t, dlq, sqs.ReceiveMessageInput{MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
		require.Len(t, dead, 1)
		assert.Equal(t, *sent.MessageId, *dead[0].MessageId)
		assert.Equal(t, srcARN, dead[0].Attributes["DeadLetterQueueSourceArn"])
		sources, err := e.api.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: aws.String(dlq)})
		require.NoError(t, err)
		assert.Equal(t, []string{src}, sources.QueueUrls)
	}},
	{"a delayed message appears after its delay", func(t *testing.T, e *scenarioEnv) {
		url, _ := e.queue(t, "delay", nil)
		_, err := e.api.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("later"), DelaySeconds: 2})
		require.NoError(t, err)
		assert.Empty(t, e.receive(t, url, sqs.ReceiveMessageInput{}))
		e.pass(2 * time.Second)
		assert.Len(t, e.receive(t, url, sqs.ReceiveMessageInput{}), 1)
	}},
	{"batches report failures per entry", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "batch", nil)
		sent, err := e.api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("ok"), MessageBody: aws.String("fine")},
			{Id: aws.String("bad"), MessageBody: aws.String("too late"), DelaySeconds: 1000},
		}})
		require.NoError(t, err)
		require.Len(t, sent.Successful, 1)
		require.Len(t, sent.Failed, 1)
		assert.Equal(t, "bad", *sent.Failed[0].Id)
		assert.Equal(t, "InvalidParameterValue", *sent.Failed[0].Code)
		assert.True(t, sent.Failed[0].SenderFault)

		got := e.receive(t, url, sqs.ReceiveMessageInput{})
		require.Len(t, got, 1)
		deleted, err := e.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(url), Entries: []types.DeleteMessageBatchRequestEntry{
			{Id: aws.String("a"), ReceiptHandle: got[0].ReceiptHandle},
			{Id: aws.String("b"), ReceiptHandle: aws.String("garbage")},
		}})
		require.NoError(t, err)
		require.Len(t, deleted.Successful, 1)
		require.Len(t, deleted.Failed, 1)
		assert.Equal(t, "ReceiptHandleIsInvalid", *deleted.Failed[0].Code)
	}},
	{"errors are typed and carry SQS's codes", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "errors", map[string]string{"VisibilityTimeout": "30"})

		_, err := e.api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(e.prefix + "missing")})
		var qdne *types.QueueDoesNotExist
		require.ErrorAs(t, err, &qdne)
		assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", qdne.ErrorCode())

		_, err = e.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("garbage")})
		var rhi *types.ReceiptHandleIsInvalid
		require.ErrorAs(t, err, &rhi)
		assert.Equal(t, "ReceiptHandleIsInvalid", rhi.ErrorCode())

		_, err = e.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 21})
		assert.Equal(t, "InvalidParameterValue", apiError(t, err).ErrorCode())

		_, err = e.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(e.prefix + "errors"), Attributes: map[string]string{"VisibilityTimeout": "60"}})
		var qne *types.QueueNameExists
		require.ErrorAs(t, err, &qne)
		assert.Equal(t, "QueueAlreadyExists", qne.ErrorCode())

		_, err = e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url)})
		var ipe smithy.InvalidParamsError
		require.ErrorAs(t, err, &ipe, "the SDK's own validation")
	}},
	{"a long poll returns when a message arrives", func(t *testing.T, e *scenarioEnv) {
		url, _ := e.queue(t, "long-poll", nil)
		got := e.waitingReceive(t, url, 10, func() {
			_, err := e.api.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("wake")})
			require.NoError(t, err)
		})
		require.Len(t, got, 1)
		assert.Equal(t, "wake", *got[0].Body)
	}},
	{"a long poll on an empty queue returns empty after its wait time", func(t *testing.T, e *scenarioEnv) {
		url, _ := e.queue(t, "empty-poll", nil)
		got := e.waitingReceive(t, url, 2, func() {
			if !e.real() {
				e.fake.Advance(2 * time.Second)
			}
		})
		assert.Empty(t, got)
	}},
	{"queue attributes and tags round-trip", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "attrs", map[string]string{"DelaySeconds": "1", "MaximumMessageSize": "2048"})
		_, err := e.api.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: map[string]string{"VisibilityTimeout": "45"}})
		require.NoError(t, err)
		got, err := e.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
			AttributeNames: []types.QueueAttributeName{"DelaySeconds", "MaximumMessageSize", "VisibilityTimeout"}})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"DelaySeconds": "1", "MaximumMessageSize": "2048", "VisibilityTimeout": "45"}, got.Attributes)
		_, err = e.api.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: aws.String(url), Tags: map[string]string{"a": "1", "b": "2"}})
		require.NoError(t, err)
		_, err = e.api.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: aws.String(url), TagKeys: []string{"b"}})
		require.NoError(t, err)
		tags, err := e.api.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: aws.String(url)})
		require.NoError(t, err)
		assert.Equal(t, map[string]string{"a": "1"}, tags.Tags)
	}},
	{"a FIFO queue delivers a group in order, once", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "order.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
		var seqs []string
		for _, body := range []string{"a", "b", "a", "c"} {
			out, err := e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body), MessageGroupId: aws.String("g")})
			require.NoError(t, err)
			seqs = append(seqs, aws.ToString(out.SequenceNumber))
		}
		assert.Equal(t, seqs[0], seqs[2], "the duplicate of a gets a's sequence number")
		// Sequence numbers are decimal strings that may exceed 64 bits.
		increases := func(a, b string) bool { return len(a) < len(b) || len(a) == len(b) && a < b }
		assert.True(t, increases(seqs[0], seqs[1]) && increases(seqs[1], seqs[3]), "sequence numbers increase: %v", seqs)
		// Receive and delete until the group is drained; a group stays locked while any of
		// its messages is in flight.
		var bodies []string
		for attempt := 0; attempt < 5 && len(bodies) < 3; attempt++ {
			for _, m := range e.receive(t, url, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}) {
				bodies = append(bodies, *m.Body)
				_, err := e.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: m.ReceiptHandle})
				require.NoError(t, err)
			}
		}
		assert.Equal(t, []string{"a", "b", "c"}, bodies)

		_, err := e.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("x")})
		assert.Equal(t, "MissingParameter", apiError(t, err).ErrorCode())
	}},
	{"a FIFO group stays locked while its head is in flight", func(t *testing.T, e *scenarioEnv) {
		// No clock moves: the visibility timeout is long enough that nothing expires on the
		// way, on the fake or in real time.
		url, _ := e.queue(t, "group-lock.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "60"})
		e.sendToGroup(t, url, "g1", "a", nil)
		e.sendToGroup(t, url, "g1", "b", nil)
		head := e.receive(t, url, sqs.ReceiveMessageInput{MaxNumberOfMessages: 1})
		require.Len(t, head, 1)
		require.Equal(t, "a", *head[0].Body, "a group is delivered in send order")

		assert.Empty(t, e.receive(t, url, sqs.ReceiveMessageInput{MaxNumberOfMessages: 10}), "b waits while a, the head of its group, is in flight")
		e.sendToGroup(t, url, "g1", "c", nil) // a new message does not unblock the group
		e.sendToGroup(t, url, "g2", "x", nil) // nor does the lock hold other groups back
		assert.Equal(t, []string{"x"}, e.receiveBodies(t, url, 1, true), "only the other group is receivable")

		_, err := e.api.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: head[0].ReceiptHandle})
		require.NoError(t, err)
		assert.Equal(t, []string{"b", "c"}, e.receiveBodies(t, url, 2, true), "deleting the head unblocks the group at once")
	}},
	{"a FIFO duplicate is dropped even after the original was deleted", func(t *testing.T, e *scenarioEnv) {
		ctx := context.Background()
		url, _ := e.queue(t, "dedup-after-delete.fifo", map[string]string{"FifoQueue": "true"})
		original := e.sendToGroup(t, url, "g", "once", aws.String("d1"))
		got := e.receive(t, url, sqs.ReceiveMessageInput{})
		require.Len(t, got, 1)
		assert.Equal(t, original, *got[0].MessageId)
		_, err := e.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: got[0].ReceiptHandle})
		require.NoError(t, err)

		duplicate := e.sendToGroup(t, url, "g", "once more", aws.String("d1")) // accepted, not enqueued
		if !e.real() {
			// AWS's answer to a duplicate is not recorded (SPEC.md §7); the fake gives the
			// original's MessageId.
			assert.Equal(t, original, duplicate)
		}
		e.sendToGroup(t, url, "g", "next", aws.String("d2"))
		assert.Equal(t, []string{"next"}, e.receiveBodies(t, url, 1, true), "the duplicate was dropped, the next message was not")

		if e.real() {
			return // the deduplication window is 5 minutes of real time
		}
		e.pass(5 * time.Minute)
		e.sendToGroup(t, url, "g", "once, later", aws.String("d1"))
		assert.Equal(t, []string{"once, later"}, e.receiveBodies(t, url, 1, true), "after the window the id is new again")
	}},
}

// TestScenarios runs the scenario suite through every door of the fake, and against
// $SQSFAKE_INTEGRATION_ENDPOINT when it is set.
func TestScenarios(t *testing.T) {
	type target struct {
		name string
		env  func(t *testing.T) *scenarioEnv
	}
	targets := []target{
		{"methods", func(t *testing.T) *scenarioEnv { f := New(); return &scenarioEnv{api: f, fake: f} }},
		{"Client", func(t *testing.T) *scenarioEnv { f := New(); return &scenarioEnv{api: f.Client(), fake: f} }},
		{"HTTPClient", func(t *testing.T) *scenarioEnv { f := New(); return &scenarioEnv{api: memoryClientOf(f), fake: f} }},
		{"loopback", func(t *testing.T) *scenarioEnv { f := New(); return &scenarioEnv{api: loopbackClientOf(t, f), fake: f} }},
		{"query protocol", func(t *testing.T) *scenarioEnv { f := New(); return &scenarioEnv{api: queryClientOf(f), fake: f} }},
		{"endpoint", integrationTarget},
	}
	for _, tg := range targets {
		t.Run(tg.name, func(t *testing.T) {
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					e := tg.env(t)
					if e.real() {
						t.Parallel() // real time: let the scenarios wait side by side
					}
					sc.run(t, e)
				})
			}
		})
	}
}

// integrationTarget builds the environment of a real endpoint, or skips.
func integrationTarget(t *testing.T) *scenarioEnv {
	endpoint := os.Getenv(integrationEnv)
	if endpoint == "" {
		t.Skipf("set %s to run the scenarios against an SQS endpoint (AWS, LocalStack, go run ./cmd/sqsfake)", integrationEnv)
	}
	region := os.Getenv("AWS_REGION")
	if region == "" {
		region = os.Getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		region = "us-east-1"
	}
	creds := aws.Credentials{AccessKeyID: os.Getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: os.Getenv("AWS_SECRET_ACCESS_KEY"), SessionToken: os.Getenv("AWS_SESSION_TOKEN")}
	if creds.AccessKeyID == "" {
		creds.AccessKeyID, creds.SecretAccessKey = "test", "test" // LocalStack and sqsfake accept any
	}
	api := sqs.New(sqs.Options{
		Region:       region,
		BaseEndpoint: aws.String(endpoint),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return creds, nil
		}),
	})
	// Unique names: scenarios run side by side, and AWS keeps a deleted name for 60 seconds.
	return &scenarioEnv{api: api, prefix: fmt.Sprintf("sqsfake-it-%d-", time.Now().UnixNano())}
}
