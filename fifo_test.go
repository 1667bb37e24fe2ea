package sqsfake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of FIFO queues (SPEC.md §3, §4, §5.8–§5.14, §7, §8.2, §9.1, §10, §11.3, §13), written
// before the implementation and through the public methods of *Fake only (issue 4).
//
// Shared helpers used here: mustCreateQueue, startPoll, allSystem, bodies (poll_test.go);
// testArnPrefix (movetasks_test.go); requireSQSAPIError, sqsErrWant, invalidParameterValue,
// md5Of, bodiesOf, msgCounts, epochMillis, uuidV4Pattern (messages_test.go); qlAttrs, qlState,
// qlFreshStandard, qlARN, qlSecondsAfterStart (queues_test.go).
//
// Where SPEC.md marks a behaviour UNVERIFIED these tests assert the decision recorded in
// issue 4's brief; each such place says so in a comment.

// ---------------------------------------------------------------------------------------
// Texts and helpers

const (
	fifoPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

	fifoNameRuleText     = "The name of a FIFO queue can only include alphanumeric characters, hyphens, or underscores, must end with .fifo suffix and be 1 to 80 in length."
	standardNameRuleText = "Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length"

	fifoNoGroupID       = "The request must contain the parameter MessageGroupId."
	fifoNoDedupID       = "The queue should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"
	fifoGroupIDRule     = " for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."
	fifoDedupIDRule     = " for parameter MessageDeduplicationId is invalid. Reason: MessageDeduplicationId can only include alphanumeric and punctuation characters. 1 to 128 in length."
	fifoDelayNotAllowed = " for parameter DelaySeconds is invalid. Reason: The request include parameter that is not valid for this queue type."
	fifoAttemptIDRule   = " for parameter ReceiveRequestAttemptId is invalid. Reason: ReceiveRequestAttemptId can only include alphanumeric and punctuation characters. 1 to 128 in length."
	fifoNotRetryable    = " for parameter ReceiveRequestAttemptId is invalid. Reason: The receiveRequestAttemptId is not valid anymore since the receive call is not retryable."
	fifoHandleExpired   = " for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."
	fifoPerGroupLimit   = "Invalid value for the parameter FifoThroughputLimit. Reason: FifoThroughputLimit perMessageGroupId is only valid with DeduplicationScope messageGroup."

	// fifoDedupWindow is the deduplication interval, and the validity of a
	// ReceiveRequestAttemptId (SPEC.md §10).
	fifoDedupWindow = 5 * time.Minute
)

// fifoContentDedup are the attributes of a FIFO queue with content-based deduplication,
// so that sends need no MessageDeduplicationId.
var fifoContentDedup = map[string]string{"ContentBasedDeduplication": "true"}

// fifoMaxUint64 is 18446744073709551615: every SequenceNumber is larger (SPEC.md §3).
var fifoMaxUint64 = new(big.Int).SetUint64(^uint64(0))

// fifoQueue creates a FIFO queue with FifoQueue=true plus attrs and returns its URL.
func fifoQueue(t *testing.T, f *Fake, name string, attrs ...map[string]string) *string {
	t.Helper()
	all := map[string]string{"FifoQueue": "true"}
	for _, a := range attrs {
		for k, v := range a {
			all[k] = v
		}
	}
	return mustCreateQueue(t, f, name, all)
}

// fifoGroupOf is the message group of a body written "<group>-<name>"; bodies without a
// dash belong to group "g".
func fifoGroupOf(body string) string {
	if g, _, ok := strings.Cut(body, "-"); ok {
		return g
	}
	return "g"
}

// fifoSend sends body to group; an empty dedup leaves MessageDeduplicationId out.
func fifoSend(t *testing.T, f *Fake, q *string, group, dedup, body string) *sqs.SendMessageOutput {
	t.Helper()
	in := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body), MessageGroupId: aws.String(group)}
	if dedup != "" {
		in.MessageDeduplicationId = aws.String(dedup)
	}
	out, err := f.SendMessage(context.Background(), in)
	require.NoError(t, err)
	return out
}

// fifoReceive receives up to max messages with visibility vt (0: the queue's default).
func fifoReceive(t *testing.T, f *Fake, q *string, max, vt int32) []types.Message {
	t.Helper()
	return fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: max, VisibilityTimeout: vt})
}

func fifoReceiveInput(t *testing.T, f *Fake, in *sqs.ReceiveMessageInput) []types.Message {
	t.Helper()
	out, err := f.ReceiveMessage(context.Background(), in)
	require.NoError(t, err)
	return out.Messages
}

func fifoDelete(t *testing.T, f *Fake, q, handle *string) {
	t.Helper()
	_, err := f.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: handle})
	require.NoError(t, err)
}

func fifoChangeVisibility(t *testing.T, f *Fake, q, handle *string, vt int32) {
	t.Helper()
	_, err := f.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{QueueUrl: q, ReceiptHandle: handle, VisibilityTimeout: vt})
	require.NoError(t, err)
}

func fifoSetAttributes(t *testing.T, f *Fake, q *string, attrs map[string]string) {
	t.Helper()
	_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: attrs})
	require.NoError(t, err)
}

// fifoCounts are ApproximateNumberOfMessages, …NotVisible and …Delayed.
func fifoCounts(t *testing.T, f *Fake, q *string) msgCounts {
	t.Helper()
	out, err := f.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: q, AttributeNames: []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	}})
	require.NoError(t, err)
	var c msgCounts
	for name, p := range map[string]*int{
		"ApproximateNumberOfMessages":           &c.visible,
		"ApproximateNumberOfMessagesNotVisible": &c.notVisible,
		"ApproximateNumberOfMessagesDelayed":    &c.delayed,
	} {
		_, err := fmt.Sscan(out.Attributes[name], p)
		require.NoError(t, err, name)
	}
	return c
}

// fifoSequence checks that s is a SequenceNumber as SQS writes them — 20 decimal digits,
// larger than any uint64 — and returns its value.
func fifoSequence(t *testing.T, s *string) *big.Int {
	t.Helper()
	require.NotNil(t, s, "SequenceNumber")
	require.Regexp(t, `^[1-9][0-9]{19}$`, *s)
	n, ok := new(big.Int).SetString(*s, 10)
	require.True(t, ok, *s)
	require.Equal(t, 1, n.Cmp(fifoMaxUint64), "SequenceNumber %s must exceed 18446744073709551615", *s)
	return n
}

func fifoSHA256(body string) string {
	sum := sha256.Sum256([]byte(body))
	return hex.EncodeToString(sum[:])
}

// fifoRequireCode asserts that err is an unmodeled service error of operation op with code.
func fifoRequireCode(t *testing.T, err error, op, code string) {
	t.Helper()
	require.Error(t, err)
	var opErr *smithy.OperationError
	require.ErrorAs(t, err, &opErr)
	assert.Equal(t, op, opErr.OperationName)
	var apiErr *smithy.GenericAPIError
	require.ErrorAs(t, err, &apiErr, "error is %T: %v", errors.Unwrap(errors.Unwrap(err)), err)
	assert.Equal(t, code, apiErr.ErrorCode())
}

// fifoDLQPair creates a FIFO DLQ "work-dlq.fifo" and a FIFO source "work.fifo" with
// content-based deduplication whose RedrivePolicy names it with maxReceiveCount.
func fifoDLQPair(t *testing.T, f *Fake, maxReceiveCount int, srcAttrs, dlqAttrs map[string]string) (src, dlq *string) {
	t.Helper()
	dlq = fifoQueue(t, f, "work-dlq.fifo", dlqAttrs)
	src = fifoQueue(t, f, "work.fifo", fifoContentDedup, map[string]string{
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":"%swork-dlq.fifo","maxReceiveCount":%d}`, testArnPrefix, maxReceiveCount),
	}, srcAttrs)
	return src, dlq
}

// ---------------------------------------------------------------------------------------
// Scenario scripts: a table row is a list of steps run against one FIFO queue. Bodies name
// their group ("g1-m1" is in group "g1") and are unique unless a row sends a duplicate on
// purpose: the queues of scripts use content-based deduplication. A step that deletes or
// changes the visibility of a body uses the receipt handle of its latest receive.

type fifoScript struct {
	t       *testing.T
	f       *Fake
	q       *string
	spacing time.Duration // clock advance after every send, receive, delete and change
	step    int
	handles map[string]*string
}

type fifoStep func(s *fifoScript)

type fifoScenario struct {
	name  string
	attrs map[string]string // besides FifoQueue and ContentBasedDeduplication
	steps []fifoStep
}

func (s *fifoScript) tick() {
	if s.spacing > 0 {
		s.f.Advance(s.spacing)
	}
}

func runFifoScenario(t *testing.T, sc fifoScenario, spacing time.Duration) {
	t.Helper()
	f := New()
	s := &fifoScript{t: t, f: f, q: fifoQueue(t, f, "script.fifo", fifoContentDedup, sc.attrs), spacing: spacing, handles: map[string]*string{}}
	for i, step := range sc.steps {
		s.step = i + 1
		step(s)
	}
}

// ffSend sends each body, in order, to its group.
func ffSend(bodies ...string) fifoStep {
	return func(s *fifoScript) {
		for _, b := range bodies {
			fifoSend(s.t, s.f, s.q, fifoGroupOf(b), "", b)
			s.tick()
		}
	}
}

// ffRecv receives up to max messages with visibility vt (0: the queue's) and requires
// exactly want, in that order.
func ffRecv(max, vt int32, want ...string) fifoStep {
	return func(s *fifoScript) {
		msgs := fifoReceive(s.t, s.f, s.q, max, vt)
		require.Equal(s.t, want, bodiesOf(msgs), "step %d: ReceiveMessage(max %d, visibility %d)", s.step, max, vt)
		for _, m := range msgs {
			s.handles[aws.ToString(m.Body)] = m.ReceiptHandle
		}
		s.tick()
	}
}

func ffDelete(bodies ...string) fifoStep {
	return func(s *fifoScript) {
		for _, b := range bodies {
			require.Contains(s.t, s.handles, b, "step %d", s.step)
			fifoDelete(s.t, s.f, s.q, s.handles[b])
			s.tick()
		}
	}
}

func ffChangeVisibility(body string, vt int32) fifoStep {
	return func(s *fifoScript) {
		require.Contains(s.t, s.handles, body, "step %d", s.step)
		fifoChangeVisibility(s.t, s.f, s.q, s.handles[body], vt)
		s.tick()
	}
}

func ffWait(d time.Duration) fifoStep {
	return func(s *fifoScript) { s.f.Advance(d) }
}

func ffSetQueue(attrs map[string]string) fifoStep {
	return func(s *fifoScript) {
		fifoSetAttributes(s.t, s.f, s.q, attrs)
		s.tick()
	}
}

func ffCounts(visible, notVisible, delayed int) fifoStep {
	return func(s *fifoScript) {
		require.Equal(s.t, msgCounts{visible, notVisible, delayed}, fifoCounts(s.t, s.f, s.q),
			"step %d: ApproximateNumberOfMessages, …NotVisible, …Delayed", s.step)
	}
}

// ---------------------------------------------------------------------------------------
// Queue kind and FIFO attributes (SPEC.md §3, §4, §5.1, §5.6)

func TestFifoQueueNameAndFifoQueueAttributeMustAgree(t *testing.T) {
	tests := []struct {
		name, queue string
		attrs       map[string]string
		want        string
	}{
		{"FifoQueue true without the .fifo suffix", "jobs", map[string]string{"FifoQueue": "true"}, fifoNameRuleText},
		{"a .fifo name without FifoQueue", "jobs.fifo", nil, standardNameRuleText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			before := qlState(t, f)
			out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String(tt.queue), Attributes: tt.attrs})
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "CreateQueue", invalidParameterValue(tt.want))
			assert.Equal(t, before, qlState(t, f), "no queue may be created")
		})
	}
}

func TestFifoGetQueueAttributesAllAddsExactlyFourAttributes(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "jobs.fifo")
	want := qlFreshStandard("jobs.fifo", qlSecondsAfterStart(0))
	want["ContentBasedDeduplication"] = "false"
	want["DeduplicationScope"] = "queue"
	want["FifoQueue"] = "true"
	want["FifoThroughputLimit"] = "perQueue"
	assert.Equal(t, want, qlAttrs(t, f, *q))
}

func TestFifoQueueTypeCannotBeChanged(t *testing.T) {
	t.Run("FifoQueue false", func(t *testing.T) {
		for _, v := range []string{"false", "False"} {
			f := New()
			q := fifoQueue(t, f, "jobs.fifo")
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q,
				Attributes: map[string]string{"FifoQueue": v, "VisibilityTimeout": "60"}})
			requireSQSAPIError[*types.InvalidAttributeValue](t, err, "SetQueueAttributes", sqsErrWant{"InvalidAttributeValue", 400,
				"Invalid value for the parameter FifoQueue. Reason: Modifying queue type is not supported."})
			assert.Equal(t, before, qlState(t, f), "nothing is applied, not even VisibilityTimeout")
		}
	})
	t.Run("FifoQueue true is a no-op", func(t *testing.T) {
		f := New()
		q := fifoQueue(t, f, "jobs.fifo")
		before := qlAttrs(t, f, *q)
		fifoSetAttributes(t, f, q, map[string]string{"FifoQueue": "true"})
		assert.Equal(t, before, qlAttrs(t, f, *q))
	})
}

func TestFifoOnlyAttributesAreRejectedOnStandardQueues(t *testing.T) {
	tests := []struct {
		name  string
		attrs map[string]string
		want  string
	}{
		{"ContentBasedDeduplication true", map[string]string{"ContentBasedDeduplication": "true"}, "Unknown Attribute ContentBasedDeduplication."},
		{"ContentBasedDeduplication false", map[string]string{"ContentBasedDeduplication": "false"}, "Unknown Attribute ContentBasedDeduplication."},
		{"DeduplicationScope", map[string]string{"DeduplicationScope": "queue"}, "You can specify the DeduplicationScope only when FifoQueue is set to true."},
		{"FifoThroughputLimit", map[string]string{"FifoThroughputLimit": "perQueue"}, "You can specify the FifoThroughputLimit only when FifoQueue is set to true."},
	}
	for _, tt := range tests {
		want := sqsErrWant{"InvalidAttributeName", 400, tt.want}
		t.Run("CreateQueue/"+tt.name, func(t *testing.T) {
			f := New()
			before := qlState(t, f)
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: tt.attrs})
			requireSQSAPIError[*types.InvalidAttributeName](t, err, "CreateQueue", want)
			assert.Equal(t, before, qlState(t, f))
		})
		t.Run("SetQueueAttributes/"+tt.name, func(t *testing.T) {
			f := New()
			q := mustCreateQueue(t, f, "jobs", nil)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: tt.attrs})
			requireSQSAPIError[*types.InvalidAttributeName](t, err, "SetQueueAttributes", want)
			assert.Equal(t, before, qlState(t, f))
		})
	}
	t.Run("SetQueueAttributes/FifoQueue", func(t *testing.T) {
		for _, v := range []string{"true", "false"} {
			f := New()
			q := mustCreateQueue(t, f, "jobs", nil)
			before := qlState(t, f)
			_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: map[string]string{"FifoQueue": v}})
			requireSQSAPIError[*types.InvalidAttributeName](t, err, "SetQueueAttributes", sqsErrWant{"InvalidAttributeName", 400, "Unknown Attribute FifoQueue."})
			assert.Equal(t, before, qlState(t, f))
		}
	})
}

func TestFifoThroughputLimitPerMessageGroupIdRequiresMessageGroupScope(t *testing.T) {
	t.Run("CreateQueue", func(t *testing.T) {
		for _, attrs := range []map[string]string{
			{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId"},
			{"FifoQueue": "true", "FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "queue"},
		} {
			f := New()
			_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs.fifo"), Attributes: attrs})
			requireSQSAPIError[*types.InvalidAttributeValue](t, err, "CreateQueue", sqsErrWant{"InvalidAttributeValue", 400, fifoPerGroupLimit})
			assert.Equal(t, map[string]qlQueueState{}, qlState(t, f))
		}
	})
	t.Run("SetQueueAttributes", func(t *testing.T) {
		f := New()
		q := fifoQueue(t, f, "jobs.fifo")
		before := qlState(t, f)
		_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: map[string]string{"FifoThroughputLimit": "perMessageGroupId"}})
		requireSQSAPIError[*types.InvalidAttributeValue](t, err, "SetQueueAttributes", sqsErrWant{"InvalidAttributeValue", 400, fifoPerGroupLimit})
		assert.Equal(t, before, qlState(t, f))

		fifoSetAttributes(t, f, q, map[string]string{"FifoThroughputLimit": "perMessageGroupId", "DeduplicationScope": "messageGroup"})
		got := qlAttrs(t, f, *q)
		assert.Equal(t, "perMessageGroupId", got["FifoThroughputLimit"])
		assert.Equal(t, "messageGroup", got["DeduplicationScope"])

		before = qlState(t, f)
		_, err = f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: q, Attributes: map[string]string{"DeduplicationScope": "queue"}})
		requireSQSAPIError[*types.InvalidAttributeValue](t, err, "SetQueueAttributes", sqsErrWant{"InvalidAttributeValue", 400, fifoPerGroupLimit})
		assert.Equal(t, before, qlState(t, f))
	})
}

// ---------------------------------------------------------------------------------------
// Send rules (SPEC.md §5.8, §5.9, §11.3)

func TestFifoSendMessageRejectsInvalidRequestsAndStoresNothing(t *testing.T) {
	long := strings.Repeat("i", 129)
	tests := []struct {
		name  string
		attrs map[string]string
		in    sqs.SendMessageInput // QueueUrl and MessageBody are filled in
		want  sqsErrWant
	}{
		{"no MessageGroupId", fifoContentDedup, sqs.SendMessageInput{},
			sqsErrWant{"MissingParameter", 400, fifoNoGroupID}},
		{"no MessageGroupId, explicit deduplication id", nil, sqs.SendMessageInput{MessageDeduplicationId: aws.String("d")},
			sqsErrWant{"MissingParameter", 400, fifoNoGroupID}},
		{"no deduplication id and content-based deduplication off", nil, sqs.SendMessageInput{MessageGroupId: aws.String("g")},
			invalidParameterValue(fifoNoDedupID)},
		{"per-message DelaySeconds", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String("g"), DelaySeconds: 5},
			invalidParameterValue("Value 5" + fifoDelayNotAllowed)},
		{"empty MessageGroupId", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String("")},
			invalidParameterValue("Value " + fifoGroupIDRule)},
		{"MessageGroupId of 129 characters", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String(long)},
			invalidParameterValue("Value " + long + fifoGroupIDRule)},
		{"MessageGroupId with a space", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String("with space")},
			invalidParameterValue("Value with space" + fifoGroupIDRule)},
		{"MessageGroupId not ASCII", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String("é")},
			invalidParameterValue("Value é" + fifoGroupIDRule)},
		{"empty MessageDeduplicationId", nil, sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("")},
			invalidParameterValue("Value " + fifoDedupIDRule)},
		{"empty MessageDeduplicationId with content-based deduplication", fifoContentDedup, sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("")},
			invalidParameterValue("Value " + fifoDedupIDRule)},
		{"MessageDeduplicationId of 129 characters", nil, sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String(long)},
			invalidParameterValue("Value " + long + fifoDedupIDRule)},
		{"MessageDeduplicationId with a space", nil, sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("with space")},
			invalidParameterValue("Value with space" + fifoDedupIDRule)},
		{"MessageDeduplicationId not ASCII", nil, sqs.SendMessageInput{MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("é")},
			invalidParameterValue("Value é" + fifoDedupIDRule)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", tt.attrs)
			before := qlState(t, f)
			in := tt.in
			in.QueueUrl, in.MessageBody = q, aws.String("body")
			out, err := f.SendMessage(context.Background(), &in)
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", tt.want)
			assert.Equal(t, before, qlState(t, f), "no message may be stored")
			assert.Empty(t, fifoReceive(t, f, q, 10, 0))
		})
	}
}

func TestFifoSendMessageAcceptsIdsOfOneTo128AlphanumericOrPunctuationCharacters(t *testing.T) {
	for _, id := range []string{"a", "Z9", strings.Repeat("i", 128), fifoPunctuation} {
		t.Run(id, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo")
			out := fifoSend(t, f, q, id, id, "body")
			fifoSequence(t, out.SequenceNumber)
			msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: allSystem})
			require.Len(t, msgs, 1)
			assert.Equal(t, id, msgs[0].Attributes["MessageGroupId"])
			assert.Equal(t, id, msgs[0].Attributes["MessageDeduplicationId"])
		})
	}
}

func TestFifoSendMessageBatchWholeRequestErrorsStoreNothing(t *testing.T) {
	entry := func(id, group, dedup string) types.SendMessageBatchRequestEntry {
		e := types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String("body-" + id)}
		if group != "" {
			e.MessageGroupId = aws.String(group)
		}
		if dedup != "" {
			e.MessageDeduplicationId = aws.String(dedup)
		}
		return e
	}
	tests := []struct {
		name    string
		attrs   map[string]string
		entries []types.SendMessageBatchRequestEntry
		want    string
	}{
		// Not MissingParameter as in SendMessage (SPEC.md §5.9).
		{"an entry without MessageGroupId", fifoContentDedup,
			[]types.SendMessageBatchRequestEntry{entry("a", "g", ""), entry("b", "", "")}, fifoNoGroupID},
		{"an entry without MessageGroupId, explicit deduplication ids", nil,
			[]types.SendMessageBatchRequestEntry{entry("a", "g", "d1"), entry("b", "", "d2"), entry("c", "g", "d3")}, fifoNoGroupID},
		{"an entry without a deduplication id and content-based deduplication off", nil,
			[]types.SendMessageBatchRequestEntry{entry("a", "g", "d1"), entry("b", "g", "")}, fifoNoDedupID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", tt.attrs)
			before := qlState(t, f)
			out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: tt.entries})
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessageBatch", invalidParameterValue(tt.want))
			assert.Equal(t, before, qlState(t, f), "no entry may be stored")
			assert.Empty(t, fifoReceive(t, f, q, 10, 0))
		})
	}
}

func TestFifoSendMessageBatchReportsInvalidEntriesAndStoresTheRestInRequestOrder(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("one"), MessageBody: aws.String("g1-one"), MessageGroupId: aws.String("g1")},
		{Id: aws.String("delayed"), MessageBody: aws.String("g1-delayed"), MessageGroupId: aws.String("g1"), DelaySeconds: 5},
		{Id: aws.String("badGroup"), MessageBody: aws.String("g1-bad-group"), MessageGroupId: aws.String("with space")},
		{Id: aws.String("badDedup"), MessageBody: aws.String("g1-bad-dedup"), MessageGroupId: aws.String("g1"), MessageDeduplicationId: aws.String("with space")},
		{Id: aws.String("two"), MessageBody: aws.String("g1-two"), MessageGroupId: aws.String("g1")},
	}})
	require.NoError(t, err, "per-entry failures are not a request error")
	failed := func(id, msg string) types.BatchResultErrorEntry {
		return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String("InvalidParameterValue"), Message: aws.String(msg), SenderFault: true}
	}
	assert.Equal(t, []types.BatchResultErrorEntry{
		failed("delayed", "Value 5"+fifoDelayNotAllowed),
		// UNVERIFIED per-entry form of the id format errors (SPEC.md §5.9): the SendMessage texts.
		failed("badGroup", "Value with space"+fifoGroupIDRule),
		failed("badDedup", "Value with space"+fifoDedupIDRule),
	}, out.Failed)
	require.Len(t, out.Successful, 2)
	assert.Equal(t, []string{"one", "two"}, []string{aws.ToString(out.Successful[0].Id), aws.ToString(out.Successful[1].Id)})
	first, second := fifoSequence(t, out.Successful[0].SequenceNumber), fifoSequence(t, out.Successful[1].SequenceNumber)
	assert.Equal(t, 1, second.Cmp(first))
	assert.Equal(t, msgCounts{2, 0, 0}, fifoCounts(t, f, q))
	assert.Equal(t, []string{"g1-one", "g1-two"}, bodiesOf(fifoReceive(t, f, q, 10, 0)))
}

func TestFifoSendMessageBatchWithSeveralGroupsKeepsPerGroupOrder(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	bodiesInRequestOrder := []string{"g1-1", "g2-1", "g1-2", "g3-1", "g2-2", "g1-3"}
	var entries []types.SendMessageBatchRequestEntry
	for i, b := range bodiesInRequestOrder {
		entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), MessageBody: aws.String(b), MessageGroupId: aws.String(fifoGroupOf(b))})
	}
	out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries})
	require.NoError(t, err)
	assert.Nil(t, out.Failed)
	require.Len(t, out.Successful, len(entries))
	seqOf := map[string]string{}
	var prev *big.Int
	for i, s := range out.Successful {
		assert.Equal(t, fmt.Sprint("e", i), aws.ToString(s.Id), "Successful is in request order")
		assert.Regexp(t, uuidV4Pattern, aws.ToString(s.MessageId))
		assert.Equal(t, md5Of(bodiesInRequestOrder[i]), aws.ToString(s.MD5OfMessageBody))
		n := fifoSequence(t, s.SequenceNumber)
		if prev != nil {
			assert.Equal(t, 1, n.Cmp(prev), "entries are enqueued in request order")
		}
		prev = n
		seqOf[bodiesInRequestOrder[i]] = aws.ToString(s.SequenceNumber)
	}

	msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	assert.Equal(t, []string{"g1-1", "g1-2", "g1-3", "g2-1", "g2-2", "g3-1"}, bodiesOf(msgs),
		"each group in order, groups in the order of their first entry")
	for _, m := range msgs {
		assert.Equal(t, seqOf[aws.ToString(m.Body)], m.Attributes["SequenceNumber"])
		assert.Equal(t, fifoGroupOf(aws.ToString(m.Body)), m.Attributes["MessageGroupId"])
	}
}

// ---------------------------------------------------------------------------------------
// Sequence numbers and system attributes (SPEC.md §3, §7, §9.1)

func TestFifoSequenceNumbersExceedUint64AndIncreaseAcrossSends(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	var order []string
	seqOf := map[string]*string{}
	single := func(body string) {
		out := fifoSend(t, f, q, fifoGroupOf(body), "", body)
		order, seqOf[body] = append(order, body), out.SequenceNumber
	}
	single("g1-a")
	f.Advance(time.Second)
	single("g2-b")
	batch, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("c"), MessageBody: aws.String("g1-c"), MessageGroupId: aws.String("g1")},
		{Id: aws.String("d"), MessageBody: aws.String("g3-d"), MessageGroupId: aws.String("g3")},
		{Id: aws.String("e"), MessageBody: aws.String("g2-e"), MessageGroupId: aws.String("g2")},
	}})
	require.NoError(t, err)
	require.Len(t, batch.Successful, 3)
	for i, b := range []string{"g1-c", "g3-d", "g2-e"} {
		order, seqOf[b] = append(order, b), batch.Successful[i].SequenceNumber
	}
	single("g1-f")

	var prev *big.Int
	for _, b := range order {
		n := fifoSequence(t, seqOf[b])
		if prev != nil {
			assert.Equal(t, 1, n.Cmp(prev), "%s: strictly increasing in send order, across groups", b)
		}
		prev = n
	}

	msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.Len(t, msgs, 6)
	for _, m := range msgs {
		b := aws.ToString(m.Body)
		assert.Equal(t, aws.ToString(seqOf[b]), m.Attributes["SequenceNumber"], b)
		assert.Equal(t, fifoGroupOf(b), m.Attributes["MessageGroupId"], b)
		assert.Equal(t, fifoSHA256(b), m.Attributes["MessageDeduplicationId"], b)
	}
}

func TestFifoSendMessageReturnsASequenceNumber(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo")
	out := fifoSend(t, f, q, "g", "d", "hello")
	assert.Regexp(t, uuidV4Pattern, aws.ToString(out.MessageId))
	assert.Equal(t, md5Of("hello"), aws.ToString(out.MD5OfMessageBody))
	assert.Nil(t, out.MD5OfMessageAttributes)
	assert.Nil(t, out.MD5OfMessageSystemAttributes)
	fifoSequence(t, out.SequenceNumber)

	std := mustCreateQueue(t, f, "std", nil)
	assert.Nil(t, send(t, f, std, "x").SequenceNumber, "standard queues have no sequence numbers")
}

func TestFifoReceivedMessagesCarryGroupDeduplicationIdAndSequenceNumber(t *testing.T) {
	f := New()
	// Visibility 0 keeps the message visible, so every row receives it again.
	q := fifoQueue(t, f, "q.fifo", map[string]string{"VisibilityTimeout": "0"})
	f.Advance(time.Second)
	sent := fifoSend(t, f, q, "orders", "order-1", "hello")
	f.Advance(time.Second)

	msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: allSystem})
	require.Len(t, msgs, 1)
	assert.Equal(t, types.Message{
		MessageId:     sent.MessageId,
		ReceiptHandle: msgs[0].ReceiptHandle,
		MD5OfBody:     aws.String(md5Of("hello")),
		Body:          aws.String("hello"),
		Attributes: map[string]string{
			"SenderId":                         DefaultSenderID,
			"SentTimestamp":                    epochMillis(time.Second),
			"ApproximateReceiveCount":          "1",
			"ApproximateFirstReceiveTimestamp": epochMillis(2 * time.Second),
			"MessageGroupId":                   "orders",
			"MessageDeduplicationId":           "order-1",
			"SequenceNumber":                   aws.ToString(sent.SequenceNumber),
		},
	}, msgs[0])

	for name, want := range map[types.MessageSystemAttributeName]string{
		types.MessageSystemAttributeNameSequenceNumber:         aws.ToString(sent.SequenceNumber),
		types.MessageSystemAttributeNameMessageGroupId:         "orders",
		types.MessageSystemAttributeNameMessageDeduplicationId: "order-1",
	} {
		msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: []types.MessageSystemAttributeName{name}})
		require.Len(t, msgs, 1)
		assert.Equal(t, map[string]string{string(name): want}, msgs[0].Attributes, name)
	}
}

// ---------------------------------------------------------------------------------------
// Deduplication (SPEC.md §7)

// A duplicate send succeeds, stores nothing, and answers with the original message's
// MessageId and SequenceNumber and the MD5 of the body it carried (SPEC.md §7 and §13 leave
// the answer UNVERIFIED; this is the fake's documented choice).
func TestFifoDuplicateSendReturnsTheOriginalIdsAndStoresNothing(t *testing.T) {
	type answer struct{ id, seq, md5 string }
	viaSingle := func(t *testing.T, f *Fake, q *string, body string) answer {
		out := fifoSend(t, f, q, "g", "dedup-1", body)
		return answer{aws.ToString(out.MessageId), aws.ToString(out.SequenceNumber), aws.ToString(out.MD5OfMessageBody)}
	}
	viaBatch := func(t *testing.T, f *Fake, q *string, body string) answer {
		out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("e"), MessageBody: aws.String(body), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("dedup-1")},
		}})
		require.NoError(t, err)
		assert.Nil(t, out.Failed)
		require.Len(t, out.Successful, 1)
		s := out.Successful[0]
		return answer{aws.ToString(s.MessageId), aws.ToString(s.SequenceNumber), aws.ToString(s.MD5OfMessageBody)}
	}
	viaOneBatch := func(t *testing.T, f *Fake, q *string) (answer, answer) {
		out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
			{Id: aws.String("original"), MessageBody: aws.String("original"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("dedup-1")},
			{Id: aws.String("duplicate"), MessageBody: aws.String("duplicate"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("dedup-1")},
		}})
		require.NoError(t, err)
		assert.Nil(t, out.Failed)
		require.Len(t, out.Successful, 2)
		assert.Equal(t, "duplicate", aws.ToString(out.Successful[1].Id))
		a, b := out.Successful[0], out.Successful[1]
		return answer{aws.ToString(a.MessageId), aws.ToString(a.SequenceNumber), aws.ToString(a.MD5OfMessageBody)},
			answer{aws.ToString(b.MessageId), aws.ToString(b.SequenceNumber), aws.ToString(b.MD5OfMessageBody)}
	}
	type sender func(t *testing.T, f *Fake, q *string, body string) answer
	tests := []struct {
		name          string
		first, second sender // nil: both in one batch
	}{
		{"SendMessage after SendMessage", viaSingle, viaSingle},
		{"SendMessageBatch entry after SendMessage", viaSingle, viaBatch},
		{"SendMessage after SendMessageBatch entry", viaBatch, viaSingle},
		{"two entries of one SendMessageBatch", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo")
			var orig, dup answer
			if tt.first == nil {
				orig, dup = viaOneBatch(t, f, q)
			} else {
				orig = tt.first(t, f, q, "original")
				f.Advance(time.Minute)
				dup = tt.second(t, f, q, "duplicate")
			}
			assert.Equal(t, answer{orig.id, orig.seq, md5Of("duplicate")}, dup)
			assert.Equal(t, md5Of("original"), orig.md5)
			assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, q))
			msgs := fifoReceive(t, f, q, 10, 0)
			assert.Equal(t, []string{"original"}, bodiesOf(msgs))
			assert.Equal(t, orig.id, aws.ToString(msgs[0].MessageId))
		})
	}
}

func TestFifoContentBasedDeduplicationIdIsTheSHA256OfTheBody(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	first := fifoSend(t, f, q, "g1", "", "hello")

	withAttrs, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("hello"), MessageGroupId: aws.String("g1"),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
	require.NoError(t, err)
	assert.Equal(t, first.MessageId, withAttrs.MessageId, "message attributes are not part of the hash")

	explicit := fifoSend(t, f, q, "g1", "explicit", "hello")
	assert.NotEqual(t, first.MessageId, explicit.MessageId, "an explicit id overrides the hash of the body")

	msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageDeduplicationId}})
	require.Len(t, msgs, 2)
	// UNVERIFIED form (SPEC.md §7, §13): lower-case hex SHA-256 of the body.
	assert.Equal(t, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", fifoSHA256("hello"))
	assert.Equal(t, map[string]string{"MessageDeduplicationId": fifoSHA256("hello")}, msgs[0].Attributes)
	assert.Equal(t, map[string]string{"MessageDeduplicationId": "explicit"}, msgs[1].Attributes)
}

func TestFifoDeduplicationWindowIsFiveMinutesFromTheFirstAcceptedSend(t *testing.T) {
	type sendAt struct {
		at  time.Duration
		dup bool
	}
	tests := []struct {
		name  string
		sends []sendAt
	}{
		{"a resend inside the window is a duplicate", []sendAt{{0, false}, {time.Minute, true}, {fifoDedupWindow - time.Second, true}}},
		{"duplicates do not extend the window", []sendAt{{0, false}, {4 * time.Minute, true}, {fifoDedupWindow + time.Second, false}}},
		{"the send accepted after the window opens a new one", []sendAt{
			{0, false}, {fifoDedupWindow + time.Second, false}, {9 * time.Minute, true}, {2*fifoDedupWindow + 2*time.Second, false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo")
			var original *sqs.SendMessageOutput
			seen := map[string]bool{}
			stored := 0
			for i, s := range tt.sends {
				f.Advance(DefaultStart.Add(s.at).Sub(f.Now()))
				out := fifoSend(t, f, q, "g", "same-id", fmt.Sprint("body-", i))
				if s.dup {
					assert.Equal(t, aws.ToString(original.MessageId), aws.ToString(out.MessageId), "send %d at %v is a duplicate", i, s.at)
					assert.Equal(t, aws.ToString(original.SequenceNumber), aws.ToString(out.SequenceNumber), "send %d", i)
					continue
				}
				assert.False(t, seen[aws.ToString(out.MessageId)], "send %d at %v is a new message", i, s.at)
				if original != nil {
					assert.Equal(t, 1, fifoSequence(t, out.SequenceNumber).Cmp(fifoSequence(t, original.SequenceNumber)), "send %d", i)
				}
				seen[aws.ToString(out.MessageId)] = true
				original = out
				stored++
			}
			assert.Equal(t, msgCounts{stored, 0, 0}, fifoCounts(t, f, q))
		})
	}
}

func TestFifoDeduplicationSurvivesDeleteAndIsClearedByPurge(t *testing.T) {
	tests := []struct {
		name      string
		between   func(t *testing.T, f *Fake, q *string)
		duplicate bool
		after     []string // what a receive then returns
	}{
		{"after the original was received", func(t *testing.T, f *Fake, q *string) {
			require.Len(t, fifoReceive(t, f, q, 10, 60), 1)
		}, true, nil},
		{"after the original was received and deleted", func(t *testing.T, f *Fake, q *string) {
			msgs := fifoReceive(t, f, q, 10, 60)
			require.Len(t, msgs, 1)
			fifoDelete(t, f, q, msgs[0].ReceiptHandle)
		}, true, nil},
		{"after PurgeQueue", func(t *testing.T, f *Fake, q *string) {
			_, err := f.PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: q})
			require.NoError(t, err)
		}, false, []string{"second"}},
		{"after the original was received and deleted, then PurgeQueue", func(t *testing.T, f *Fake, q *string) {
			msgs := fifoReceive(t, f, q, 10, 60)
			require.Len(t, msgs, 1)
			fifoDelete(t, f, q, msgs[0].ReceiptHandle)
			_, err := f.PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: q})
			require.NoError(t, err)
		}, false, []string{"second"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo")
			first := fifoSend(t, f, q, "g", "same-id", "first")
			f.Advance(time.Second)
			tt.between(t, f, q)
			f.Advance(time.Second)
			second := fifoSend(t, f, q, "g", "same-id", "second")
			if tt.duplicate {
				assert.Equal(t, aws.ToString(first.MessageId), aws.ToString(second.MessageId))
				assert.Equal(t, aws.ToString(first.SequenceNumber), aws.ToString(second.SequenceNumber))
			} else {
				assert.NotEqual(t, aws.ToString(first.MessageId), aws.ToString(second.MessageId))
				assert.Equal(t, 1, fifoSequence(t, second.SequenceNumber).Cmp(fifoSequence(t, first.SequenceNumber)))
			}
			assert.Equal(t, tt.after, bodiesOf(fifoReceive(t, f, q, 10, 0)))
		})
	}
}

func TestFifoDeduplicationScope(t *testing.T) {
	messageGroup := map[string]string{"DeduplicationScope": "messageGroup"}
	highThroughput := map[string]string{"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId"}
	withContent := func(m map[string]string) map[string]string {
		out := map[string]string{"ContentBasedDeduplication": "true"}
		for k, v := range m {
			out[k] = v
		}
		return out
	}
	type msg struct{ group, dedup, body string }
	tests := []struct {
		name          string
		attrs         map[string]string
		first, second msg
		duplicate     bool
	}{
		{"queue scope: the same id in another group is a duplicate", nil, msg{"g1", "d", "first"}, msg{"g2", "d", "second"}, true},
		{"queue scope: the same id in the same group is a duplicate", nil, msg{"g1", "d", "first"}, msg{"g1", "d", "second"}, true},
		{"queue scope: another id is new", nil, msg{"g1", "d1", "first"}, msg{"g1", "d2", "second"}, false},
		{"messageGroup scope: the same id in another group is new", messageGroup, msg{"g1", "d", "first"}, msg{"g2", "d", "second"}, false},
		{"messageGroup scope: the same id in the same group is a duplicate", messageGroup, msg{"g1", "d", "first"}, msg{"g1", "d", "second"}, true},
		{"high throughput mode: the same id in another group is new", highThroughput, msg{"g1", "d", "first"}, msg{"g2", "d", "second"}, false},
		{"high throughput mode: the same id in the same group is a duplicate", highThroughput, msg{"g1", "d", "first"}, msg{"g1", "d", "second"}, true},
		{"content-based, queue scope: the same body in another group is a duplicate", withContent(nil), msg{"g1", "", "same"}, msg{"g2", "", "same"}, true},
		{"content-based, messageGroup scope: the same body in another group is new", withContent(messageGroup), msg{"g1", "", "same"}, msg{"g2", "", "same"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", tt.attrs)
			first := fifoSend(t, f, q, tt.first.group, tt.first.dedup, tt.first.body)
			second := fifoSend(t, f, q, tt.second.group, tt.second.dedup, tt.second.body)
			msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameMessageGroupId}})
			if tt.duplicate {
				assert.Equal(t, aws.ToString(first.MessageId), aws.ToString(second.MessageId))
				require.Len(t, msgs, 1)
				assert.Equal(t, tt.first.body, aws.ToString(msgs[0].Body))
				assert.Equal(t, tt.first.group, msgs[0].Attributes["MessageGroupId"], "the original keeps its group")
			} else {
				assert.NotEqual(t, aws.ToString(first.MessageId), aws.ToString(second.MessageId))
				assert.Len(t, msgs, 2)
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// Ordering and group locks (SPEC.md §7)

// TestFifoGroupsServedInHeadAvailabilityOrder reproduces the five group orderings recorded
// on AWS (SPEC.md §7 (a)–(e); LocalStack's AWS-validated tests) with the rule the fake
// follows: groups are served in the order their current head message became available —
// its send time (plus delay), or the moment it became visible again — ties in the order
// those events happened. Each row runs twice: with every call at the same instant (as tests
// against the fake usually run), and with 1 ms between calls (as on AWS).
func TestFifoGroupsServedInHeadAvailabilityOrder(t *testing.T) {
	tests := []fifoScenario{
		{"AWS (a): heads that expired together follow a head that never left, in hand-out order",
			map[string]string{"VisibilityTimeout": "1"}, []fifoStep{
				ffSend("g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1", "g3-m1"),
				ffRecv(2, 0, "g1-m1", "g1-m2"),
				ffRecv(1, 0, "g2-m1"),
				ffWait(2 * time.Second),
				ffRecv(10, 0, "g3-m1", "g1-m1", "g1-m2", "g1-m3", "g1-m4", "g2-m1"),
			}},
		// AWS received with VisibilityTimeout 0, which a Go caller cannot send (SPEC.md §1.3):
		// the queue's VisibilityTimeout is 0 instead.
		{"AWS (b): a receive with visibility 0 makes its groups available after the groups it left alone",
			map[string]string{"VisibilityTimeout": "0"}, []fifoStep{
				ffSend("g1-m1", "g2-m1", "g2-m2", "g3-m1", "g1-m2"),
				ffRecv(3, 0, "g1-m1", "g1-m2", "g2-m1"),
				ffRecv(10, 0, "g3-m1", "g1-m1", "g1-m2", "g2-m1", "g2-m2"),
			}},
		{"AWS (c): a group whose received messages were deleted is served by its new head's send time",
			nil, []fifoStep{
				// The second "g1-m2" is a content-based duplicate, as in AWS's test: not stored.
				ffSend("g1-m1", "g2-m1", "g1-m2", "g2-m2", "g1-m2", "g1-m3", "g1-m4", "g3-m1"),
				ffRecv(2, 0, "g1-m1", "g1-m2"),
				ffDelete("g1-m1", "g1-m2"),
				ffRecv(10, 0, "g2-m1", "g2-m2", "g1-m3", "g1-m4", "g3-m1"),
			}},
		{"AWS (d): a head made visible by ChangeMessageVisibility 0 follows a waiting group",
			map[string]string{"VisibilityTimeout": "30"}, []fifoStep{
				ffSend("g1-m1", "g1-m2", "g2-m1"),
				ffRecv(2, 0, "g1-m1", "g1-m2"),
				ffChangeVisibility("g1-m1", 0),
				ffRecv(3, 0, "g2-m1", "g1-m1"),
			}},
		{"AWS (e): a head whose shortened visibility expired follows a waiting group",
			map[string]string{"VisibilityTimeout": "30"}, []fifoStep{
				ffSend("g1-m1", "g1-m2", "g2-m1"),
				ffRecv(2, 0, "g1-m1", "g1-m2"),
				ffChangeVisibility("g1-m1", 1),
				ffWait(2 * time.Second),
				ffRecv(3, 0, "g2-m1", "g1-m1"),
			}},
		{"a head that expired earlier is served first",
			nil, []fifoStep{
				ffSend("g1-m1", "g2-m1"),
				ffRecv(1, 20, "g1-m1"),
				ffRecv(1, 10, "g2-m1"),
				ffWait(25 * time.Second),
				ffRecv(10, 0, "g2-m1", "g1-m1"),
			}},
		{"heads that were never received are served in send order",
			nil, []fifoStep{
				ffSend("g2-m1", "g1-m1", "g3-m1", "g1-m2", "g2-m2"),
				ffRecv(10, 0, "g2-m1", "g2-m2", "g1-m1", "g1-m2", "g3-m1"),
			}},
	}
	for _, sc := range tests {
		for _, spacing := range []time.Duration{0, time.Millisecond} {
			t.Run(fmt.Sprintf("%s/%v between calls", sc.name, spacing), func(t *testing.T) {
				runFifoScenario(t, sc, spacing)
			})
		}
	}
}

func TestFifoHeadInFlightBlocksItsGroup(t *testing.T) {
	tests := []fifoScenario{
		{"AWS: one receive drains a group before moving to the next", nil, []fifoStep{
			ffSend("g1-m1", "g2-m1", "g1-m2", "g1-m3"),
			ffRecv(10, 0, "g1-m1", "g1-m2", "g1-m3", "g2-m1"),
		}},
		{"AWS: a group comes back in order after its visibility timeout", map[string]string{"VisibilityTimeout": "1"}, []fifoStep{
			ffSend("m0", "m1", "m2"),
			ffRecv(10, 0, "m0", "m1", "m2"),
			ffWait(2 * time.Second),
			ffRecv(10, 0, "m0", "m1", "m2"),
		}},
		{"the rest of a partly received group is skipped", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3", "g2-m1"),
			ffRecv(2, 0, "g1-m1", "g1-m2"),
			ffRecv(10, 0, "g2-m1"),
			ffRecv(10, 0),
		}},
		{"a group whose only received message is its head is skipped", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2"),
			ffRecv(1, 0, "g1-m1"),
			ffRecv(10, 0),
		}},
		{"deleting the received head unblocks the group", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3"),
			ffRecv(1, 0, "g1-m1"),
			ffDelete("g1-m1"),
			ffRecv(10, 0, "g1-m2", "g1-m3"),
		}},
		{"AWS: deleting only m1 while m2 is in flight keeps the group blocked", nil, []fifoStep{
			ffSend("g1-m1", "g2-m1", "g1-m2", "g2-m2", "g1-m2", "g1-m3", "g1-m4", "g3-m1"),
			ffRecv(2, 0, "g1-m1", "g1-m2"),
			ffDelete("g1-m1"),
			ffRecv(10, 0, "g2-m1", "g2-m2", "g3-m1"),
			ffDelete("g1-m2"),
			ffRecv(10, 0, "g1-m3", "g1-m4"),
		}},
		{"a new message to a blocked group does not unblock it", nil, []fifoStep{
			ffSend("g1-m1"),
			ffRecv(1, 0, "g1-m1"),
			ffSend("g1-m2", "g2-m1"),
			ffRecv(10, 0, "g2-m1"),
			ffRecv(10, 0),
			ffDelete("g1-m1"),
			ffRecv(10, 0, "g1-m2"),
		}},
		{"visibility expiry unblocks the group from its head", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3"),
			ffRecv(1, 10, "g1-m1"),
			ffWait(9 * time.Second),
			ffRecv(10, 0),
			ffWait(2 * time.Second),
			ffRecv(10, 0, "g1-m1", "g1-m2", "g1-m3"),
		}},
		{"ChangeMessageVisibility 0 of the head returns the run up to the next in-flight message", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3"),
			ffRecv(2, 30, "g1-m1", "g1-m2"),
			ffChangeVisibility("g1-m1", 0),
			ffRecv(10, 30, "g1-m1"),
			ffDelete("g1-m1"),
			ffRecv(10, 0),
			ffWait(31 * time.Second),
			ffRecv(10, 0, "g1-m2", "g1-m3"),
		}},
		{"MaxNumberOfMessages cuts a run; the rest stays locked behind it", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3", "g1-m4"),
			ffRecv(3, 0, "g1-m1", "g1-m2", "g1-m3"),
			ffRecv(10, 0),
			ffDelete("g1-m1", "g1-m2"),
			ffRecv(10, 0),
			ffDelete("g1-m3"),
			ffRecv(10, 0, "g1-m4"),
		}},
	}
	for _, sc := range tests {
		t.Run(sc.name, func(t *testing.T) { runFifoScenario(t, sc, 0) })
	}
}

// A batch g:[foo,bar,baz] is received; one of them is hidden for longer; once the others'
// visibility expires, a receive returns the leading run of visible messages only.
func TestFifoLongerVisibilityOfOneMessageStopsTheRunAtIt(t *testing.T) {
	tests := []struct {
		extended string
		want     []string
	}{
		{"foo", nil},
		{"bar", []string{"foo"}},
		{"baz", []string{"foo", "bar"}},
	}
	for _, tt := range tests {
		t.Run("extend "+tt.extended, func(t *testing.T) {
			runFifoScenario(t, fifoScenario{steps: []fifoStep{
				ffSend("foo", "bar", "baz"),
				ffRecv(10, 10, "foo", "bar", "baz"),
				ffChangeVisibility(tt.extended, 60),
				ffWait(11 * time.Second),
				ffRecv(10, 0, tt.want...),
			}}, 0)
		})
	}
}

func TestFifoLongPollWakesWhenItsGroupUnblocks(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		unblock func(t *testing.T, f *Fake, q, head *string)
		want    []string
	}{
		{"the head is deleted", func(t *testing.T, f *Fake, q, head *string) { fifoDelete(t, f, q, head) }, []string{"g1-m2", "g1-m3"}},
		{"the head's visibility is set to 0", func(t *testing.T, f *Fake, q, head *string) { fifoChangeVisibility(t, f, q, head, 0) },
			[]string{"g1-m1", "g1-m2", "g1-m3"}},
		{"the head's visibility expires", func(_ *testing.T, f *Fake, _, _ *string) { f.Advance(10 * time.Second) }, []string{"g1-m1", "g1-m2", "g1-m3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
			fifoSend(t, f, q, "g1", "", "g1-m1")
			fifoSend(t, f, q, "g1", "", "g1-m2")
			head := fifoReceive(t, f, q, 1, 10)
			require.Equal(t, []string{"g1-m1"}, bodiesOf(head))

			ch := startPoll(t, ctx, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, WaitTimeSeconds: 20})
			fifoSend(t, f, q, "g1", "", "g1-m3")
			select {
			case r := <-ch:
				t.Fatalf("a message to a blocked group woke the long poll: %v, %v", bodies(r.out), r.err)
			default:
			}
			assert.Equal(t, 1, f.Pollers())

			tt.unblock(t, f, q, head[0].ReceiptHandle)
			select {
			case r := <-ch:
				require.NoError(t, r.err)
				assert.Equal(t, tt.want, bodies(r.out))
			case <-time.After(5 * time.Second):
				t.Fatal("the long poll did not return when the group unblocked")
			}
		})
	}
}

// ---------------------------------------------------------------------------------------
// Counts and queue delay (SPEC.md §4, §6, §7)

func TestFifoCountsIncludeGroupLockedMessagesAsVisible(t *testing.T) {
	tests := []fifoScenario{
		{"AWS: received messages leave the count; deleting them changes nothing visible", nil, []fifoStep{
			ffCounts(0, 0, 0),
			ffSend("g1-m1", "g1-m2", "g1-m3", "g2-m1", "g3-m1"),
			ffCounts(5, 0, 0),
			ffRecv(4, 0, "g1-m1", "g1-m2", "g1-m3", "g2-m1"),
			ffCounts(1, 4, 0),
			ffDelete("g1-m1", "g1-m2", "g1-m3", "g2-m1"),
			ffCounts(1, 0, 0),
		}},
		{"messages blocked only by the group lock count as visible", nil, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g1-m3"),
			ffRecv(1, 10, "g1-m1"),
			ffCounts(2, 1, 0),
			ffRecv(10, 0),
			ffCounts(2, 1, 0),
			ffWait(10 * time.Second),
			ffCounts(3, 0, 0),
		}},
		{"delayed messages count as delayed", map[string]string{"DelaySeconds": "10"}, []fifoStep{
			ffSend("g1-m1", "g1-m2", "g2-m1"),
			ffCounts(0, 0, 3),
			ffWait(10 * time.Second),
			ffCounts(3, 0, 0),
			ffRecv(1, 0, "g1-m1"),
			ffCounts(2, 1, 0),
		}},
	}
	for _, sc := range tests {
		t.Run(sc.name, func(t *testing.T) { runFifoScenario(t, sc, 0) })
	}
}

// On FIFO queues a change of the queue's DelaySeconds applies to messages already waiting
// (SPEC.md §4, §7): a message not yet received is available at its send time plus the
// queue's current delay. (Counting the new delay from the send, not from the change, is the
// fake's reading of "retroactive".)
func TestFifoQueueDelayAppliesToEveryMessageAndIsRetroactive(t *testing.T) {
	tests := []fifoScenario{
		{"AWS: the queue delay applies to every message, in order", map[string]string{"DelaySeconds": "2"}, []fifoStep{
			ffSend("m1", "m2", "m3"),
			ffRecv(10, 0),
			ffWait(3 * time.Second),
			ffRecv(3, 0, "m1", "m2", "m3"),
		}},
		{"raising the delay delays a waiting message again", nil, []fifoStep{
			ffSend("g1-m1"),
			ffWait(10 * time.Second),
			ffCounts(1, 0, 0),
			ffSetQueue(map[string]string{"DelaySeconds": "60"}),
			ffCounts(0, 0, 1),
			ffRecv(10, 0),
			ffWait(49 * time.Second), // 59 s after the send
			ffCounts(0, 0, 1),
			ffWait(time.Second),
			ffCounts(1, 0, 0),
			ffRecv(10, 0, "g1-m1"),
		}},
		{"lowering the delay releases a delayed message", map[string]string{"DelaySeconds": "60"}, []fifoStep{
			ffSend("g1-m1", "g1-m2"),
			ffWait(10 * time.Second),
			ffCounts(0, 0, 2),
			ffSetQueue(map[string]string{"DelaySeconds": "5"}),
			ffCounts(2, 0, 0),
			ffRecv(10, 0, "g1-m1", "g1-m2"),
		}},
		{"lowering the delay to a later time keeps the message delayed until then", map[string]string{"DelaySeconds": "60"}, []fifoStep{
			ffSend("g1-m1"),
			ffWait(10 * time.Second),
			ffSetQueue(map[string]string{"DelaySeconds": "30"}),
			ffCounts(0, 0, 1),
			ffWait(19 * time.Second), // 29 s after the send
			ffRecv(10, 0),
			ffWait(time.Second),
			ffRecv(10, 0, "g1-m1"),
		}},
		{"a message already received is not delayed again", nil, []fifoStep{
			ffSend("g1-m1"),
			ffRecv(1, 10, "g1-m1"),
			ffWait(11 * time.Second),
			ffSetQueue(map[string]string{"DelaySeconds": "60"}),
			ffCounts(1, 0, 0),
			ffRecv(10, 0, "g1-m1"),
		}},
	}
	for _, sc := range tests {
		t.Run(sc.name, func(t *testing.T) { runFifoScenario(t, sc, 0) })
	}
}

// ---------------------------------------------------------------------------------------
// ReceiveRequestAttemptId (SPEC.md §7, §10)

func TestFifoReceiveRequestAttemptIdRetryReturnsTheSameMessagesAndHandles(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	fifoSend(t, f, q, "g1", "", "g1-a")
	fifoSend(t, f, q, "g1", "", "g1-b")
	in := &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, VisibilityTimeout: 30,
		ReceiveRequestAttemptId: aws.String("attempt-1"), MessageSystemAttributeNames: allSystem}
	first := fifoReceiveInput(t, f, in)
	require.Equal(t, []string{"g1-a", "g1-b"}, bodiesOf(first))

	f.Advance(20 * time.Second)
	fifoSend(t, f, q, "g2", "", "g2-c")
	retry := fifoReceiveInput(t, f, in)
	assert.Equal(t, first, retry, "the same messages, receipt handles and attributes; the receive count is not incremented")
	assert.Equal(t, msgCounts{1, 2, 0}, fifoCounts(t, f, q))

	// The retry reset the visibility timeout: hidden until 20 s + 30 s, not until 30 s.
	f.Advance(29 * time.Second)
	assert.Equal(t, msgCounts{1, 2, 0}, fifoCounts(t, f, q))
	assert.Equal(t, []string{"g2-c"}, bodiesOf(fifoReceive(t, f, q, 10, 100)))
	f.Advance(time.Second)
	again := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.Equal(t, []string{"g1-a", "g1-b"}, bodiesOf(again))
	for i, m := range again {
		assert.Equal(t, "2", m.Attributes["ApproximateReceiveCount"])
		assert.NotEqual(t, aws.ToString(first[i].ReceiptHandle), aws.ToString(m.ReceiptHandle))
	}
}

func TestFifoReceiveRequestAttemptIdIsNotRetryableOnceAMessageWasChanged(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name   string
		change func(t *testing.T, f *Fake, q *string, msgs []types.Message)
	}{
		{"DeleteMessage", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			fifoDelete(t, f, q, msgs[0].ReceiptHandle)
		}},
		{"DeleteMessageBatch", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			out, err := f.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String("b"), ReceiptHandle: msgs[1].ReceiptHandle}}})
			require.NoError(t, err)
			require.Len(t, out.Successful, 1)
		}},
		{"ChangeMessageVisibility", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			fifoChangeVisibility(t, f, q, msgs[1].ReceiptHandle, 60)
		}},
		{"ChangeMessageVisibilityBatch", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			out, err := f.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: msgs[0].ReceiptHandle, VisibilityTimeout: 45}}})
			require.NoError(t, err)
			require.Len(t, out.Successful, 1)
		}},
		{"PurgeQueue", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: q})
			require.NoError(t, err)
			fifoSend(t, f, q, "g1", "", "after the purge")
		}},
		{"ChangeMessageVisibility to 0", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			fifoChangeVisibility(t, f, q, msgs[0].ReceiptHandle, 0)
		}},
		{"ChangeMessageVisibility whose new deadline has passed", func(t *testing.T, f *Fake, q *string, msgs []types.Message) {
			fifoChangeVisibility(t, f, q, msgs[0].ReceiptHandle, 5)
			f.Advance(10 * time.Second)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
			fifoSend(t, f, q, "g1", "", "g1-a")
			fifoSend(t, f, q, "g1", "", "g1-b")
			in := &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, VisibilityTimeout: 30, ReceiveRequestAttemptId: aws.String("attempt-1")}
			msgs := fifoReceiveInput(t, f, in)
			require.Len(t, msgs, 2)
			f.Advance(time.Second)
			tt.change(t, f, q, msgs)
			before := qlState(t, f)

			out, err := f.ReceiveMessage(ctx, in)
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "ReceiveMessage", invalidParameterValue("Value attempt-1"+fifoNotRetryable))
			assert.Equal(t, before, qlState(t, f), "the rejected retry changes nothing")
		})
	}
}

func TestFifoReceiveRequestAttemptIdIsValidForFiveMinutes(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	fifoSend(t, f, q, "g1", "", "g1-a")
	in := &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 30, ReceiveRequestAttemptId: aws.String("attempt-1"), MessageSystemAttributeNames: allSystem}
	first := fifoReceiveInput(t, f, in)
	require.Len(t, first, 1)

	f.Advance(fifoDedupWindow + time.Second)
	later := fifoReceiveInput(t, f, in)
	require.Len(t, later, 1, "after 5 minutes the id starts a new receive")
	assert.Equal(t, first[0].MessageId, later[0].MessageId)
	assert.NotEqual(t, aws.ToString(first[0].ReceiptHandle), aws.ToString(later[0].ReceiptHandle))
	assert.Equal(t, "2", later[0].Attributes["ApproximateReceiveCount"])
	assert.Equal(t, msgCounts{0, 1, 0}, fifoCounts(t, f, q))
}

func TestFifoReceiveRequestAttemptIdFormat(t *testing.T) {
	long := strings.Repeat("a", 129)
	for _, id := range []string{"", long, "with space"} {
		t.Run(fmt.Sprintf("invalid %.10q", id), func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
			fifoSend(t, f, q, "g1", "", "g1-a")
			before := qlState(t, f)
			out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q, ReceiveRequestAttemptId: aws.String(id)})
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "ReceiveMessage", invalidParameterValue("Value "+id+fifoAttemptIDRule))
			assert.Equal(t, before, qlState(t, f))
		})
	}
	for _, id := range []string{"a", strings.Repeat("a", 128), fifoPunctuation} {
		t.Run(fmt.Sprintf("valid %.10q", id), func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
			fifoSend(t, f, q, "g1", "", "g1-a")
			msgs := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: q, ReceiveRequestAttemptId: aws.String(id)})
			assert.Equal(t, []string{"g1-a"}, bodiesOf(msgs))
		})
	}
}

// ---------------------------------------------------------------------------------------
// Receipt handles (SPEC.md §5.11–§5.14, §11.3)

func TestFifoDeleteMessageWithAnExpiredReceiptHandleFails(t *testing.T) {
	tests := []struct {
		name      string
		reReceive bool
	}{
		{"the message is visible again", false},
		// UNVERIFIED on AWS (SPEC.md §5.11): the same error once another consumer received it.
		{"another consumer received the message again", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New()
			q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
			fifoSend(t, f, q, "g1", "", "g1-a")
			old := fifoReceive(t, f, q, 1, 10)
			require.Len(t, old, 1)
			f.Advance(11 * time.Second)
			var newer []types.Message
			if tt.reReceive {
				newer = fifoReceive(t, f, q, 1, 30)
				require.Len(t, newer, 1)
			}
			before := qlState(t, f)

			_, err := f.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: old[0].ReceiptHandle})
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "DeleteMessage", invalidParameterValue("Value "+aws.ToString(old[0].ReceiptHandle)+fifoHandleExpired))
			assert.Equal(t, before, qlState(t, f), "the message is not deleted")

			if tt.reReceive {
				fifoDelete(t, f, q, newer[0].ReceiptHandle)
				assert.Equal(t, msgCounts{0, 0, 0}, fifoCounts(t, f, q))
			} else {
				assert.Equal(t, []string{"g1-a"}, bodiesOf(fifoReceive(t, f, q, 10, 0)))
			}
		})
	}
}

func TestFifoDeleteMessageBatchReportsAnExpiredReceiptHandlePerEntry(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	fifoSend(t, f, q, "g1", "", "g1-a")
	fifoSend(t, f, q, "g2", "", "g2-b")
	a := fifoReceive(t, f, q, 1, 10)
	b := fifoReceive(t, f, q, 1, 60)
	require.Equal(t, []string{"g1-a", "g2-b"}, append(bodiesOf(a), bodiesOf(b)...))
	f.Advance(11 * time.Second)

	out, err := f.DeleteMessageBatch(context.Background(), &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("expired"), ReceiptHandle: a[0].ReceiptHandle},
		{Id: aws.String("current"), ReceiptHandle: b[0].ReceiptHandle},
	}})
	require.NoError(t, err)
	assert.Equal(t, []types.DeleteMessageBatchResultEntry{{Id: aws.String("current")}}, out.Successful)
	// UNVERIFIED per-entry form (SPEC.md §5.12): the DeleteMessage error as an entry.
	assert.Equal(t, []types.BatchResultErrorEntry{{Id: aws.String("expired"), Code: aws.String("InvalidParameterValue"),
		Message: aws.String("Value " + aws.ToString(a[0].ReceiptHandle) + fifoHandleExpired), SenderFault: true}}, out.Failed)
	assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, q))
	assert.Equal(t, []string{"g1-a"}, bodiesOf(fifoReceive(t, f, q, 10, 0)))
}

// FIFO ChangeMessageVisibility with an expired handle is UNVERIFIED (SPEC.md §5.13, §13): as
// on standard queues it succeeds and changes nothing.
// TestFifoChangeMessageVisibilityWithAnExpiredHandleFails pins issue 4's rule: on a FIFO
// queue, changing visibility with a handle whose visibility has lapsed fails as deleting
// with it does, and changes nothing.
func TestFifoChangeMessageVisibilityWithAnExpiredHandleFails(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	fifoSend(t, f, q, "g1", "", "g1-a")
	fifoSend(t, f, q, "g1", "", "g1-b")
	old := fifoReceive(t, f, q, 1, 10)
	require.Len(t, old, 1)
	f.Advance(11 * time.Second)
	before := fifoCounts(t, f, q)
	_, err := f.ChangeMessageVisibility(context.Background(), &sqs.ChangeMessageVisibilityInput{QueueUrl: q, ReceiptHandle: old[0].ReceiptHandle, VisibilityTimeout: 600})
	requireSQSAPIError[*smithy.GenericAPIError](t, err, "ChangeMessageVisibility",
		invalidParameterValue("Value "+*old[0].ReceiptHandle+" for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired."))
	assert.Equal(t, before, fifoCounts(t, f, q))
	assert.Equal(t, msgCounts{2, 0, 0}, before)
	assert.Equal(t, []string{"g1-a", "g1-b"}, bodiesOf(fifoReceive(t, f, q, 10, 0)), "the message was not hidden again")
}

func TestFifoDeletingADeletedMessageAgainSucceeds(t *testing.T) {
	f := New()
	q := fifoQueue(t, f, "q.fifo", fifoContentDedup)
	fifoSend(t, f, q, "g1", "", "g1-a")
	fifoSend(t, f, q, "g1", "", "g1-b")
	msgs := fifoReceive(t, f, q, 1, 30)
	require.Len(t, msgs, 1)
	fifoDelete(t, f, q, msgs[0].ReceiptHandle)
	f.Advance(time.Second)
	fifoDelete(t, f, q, msgs[0].ReceiptHandle)
	assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, q))
	assert.Equal(t, []string{"g1-b"}, bodiesOf(fifoReceive(t, f, q, 10, 0)))
}

// ---------------------------------------------------------------------------------------
// FIFO dead-letter queues (SPEC.md §8.1, §8.2)

func TestFifoRedrivePolicyRequiresADeadLetterQueueOfTheSameType(t *testing.T) {
	policy := func(dlq string) string {
		return fmt.Sprintf(`{"deadLetterTargetArn":"%s%s","maxReceiveCount":3}`, testArnPrefix, dlq)
	}
	t.Run("CreateQueue of a FIFO source naming a standard DLQ", func(t *testing.T) {
		f := New()
		mustCreateQueue(t, f, "dlq", nil)
		before := qlState(t, f)
		_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("src.fifo"),
			Attributes: map[string]string{"FifoQueue": "true", "RedrivePolicy": policy("dlq")}})
		fifoRequireCode(t, err, "CreateQueue", "InvalidParameterValue")
		assert.Equal(t, before, qlState(t, f))
	})
	t.Run("SetQueueAttributes of a FIFO source naming a standard DLQ", func(t *testing.T) {
		f := New()
		mustCreateQueue(t, f, "dlq", nil)
		src := fifoQueue(t, f, "src.fifo")
		before := qlState(t, f)
		_, err := f.SetQueueAttributes(context.Background(), &sqs.SetQueueAttributesInput{QueueUrl: src, Attributes: map[string]string{"RedrivePolicy": policy("dlq")}})
		fifoRequireCode(t, err, "SetQueueAttributes", "InvalidParameterValue")
		assert.Equal(t, before, qlState(t, f))
	})
	t.Run("CreateQueue of a standard source naming a FIFO DLQ", func(t *testing.T) {
		f := New()
		fifoQueue(t, f, "dlq.fifo")
		before := qlState(t, f)
		_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("src"),
			Attributes: map[string]string{"RedrivePolicy": policy("dlq.fifo")}})
		fifoRequireCode(t, err, "CreateQueue", "InvalidParameterValue")
		assert.Equal(t, before, qlState(t, f))
	})
}

func TestFifoRedriveMovesAMessageOnTheThirdReceiveWithMaxReceiveCountTwo(t *testing.T) {
	f := New()
	src, dlq := fifoDLQPair(t, f, 2, nil, nil)
	a := fifoSend(t, f, src, "g1", "", "g1-a")
	fifoSend(t, f, src, "g1", "", "g1-b")
	for i := range 2 {
		require.Equal(t, []string{"g1-a"}, bodiesOf(fifoReceive(t, f, src, 1, 5)), "receive %d delivers", i+1)
		f.Advance(6 * time.Second)
	}
	third := fifoReceive(t, f, src, 10, 30)
	assert.NotContains(t, bodiesOf(third), "g1-a", "the third receive attempt moves the head instead of returning it")
	// Whether the moving receive already returns the next message of the group is not
	// recorded; between it and the next receive, g1-b comes exactly once.
	next := fifoReceive(t, f, src, 10, 30)
	assert.Equal(t, []string{"g1-b"}, append(bodiesOf(third), bodiesOf(next)...), "the group is unblocked once its head moved")
	assert.Equal(t, msgCounts{0, 1, 0}, fifoCounts(t, f, src))
	assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, dlq))

	moved := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: dlq, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.Len(t, moved, 1)
	m := moved[0]
	assert.Equal(t, a.MessageId, m.MessageId)
	assert.Equal(t, "g1-a", aws.ToString(m.Body))
	assert.Equal(t, "g1", m.Attributes["MessageGroupId"])
	assert.Equal(t, aws.ToString(a.MessageId), m.Attributes["MessageDeduplicationId"], "a FIFO DLQ replaces the deduplication id by the MessageId")
	assert.Equal(t, testArnPrefix+"work.fifo", m.Attributes["DeadLetterQueueSourceArn"])
	assert.Equal(t, "3", m.Attributes["ApproximateReceiveCount"], "the receive count continues")
	seq := m.Attributes["SequenceNumber"]
	fifoSequence(t, &seq)
}

func TestFifoRedriveKeepsGroupAndOrderInTheDeadLetterQueue(t *testing.T) {
	f := New()
	// messageGroup scope lets g1-a and g2-x share a deduplication id in the source; in the
	// DLQ (queue scope) they stay two messages because their ids become their MessageIds.
	src, dlq := fifoDLQPair(t, f, 1, map[string]string{"DeduplicationScope": "messageGroup"}, nil)
	sent := map[string]*sqs.SendMessageOutput{
		"g1-a": fifoSend(t, f, src, "g1", "same", "g1-a"),
		"g2-x": fifoSend(t, f, src, "g2", "same", "g2-x"),
		"g1-b": fifoSend(t, f, src, "g1", "b", "g1-b"),
		"g1-c": fifoSend(t, f, src, "g1", "c", "g1-c"),
	}
	require.Equal(t, []string{"g1-a", "g1-b", "g1-c", "g2-x"}, bodiesOf(fifoReceive(t, f, src, 10, 1)))
	f.Advance(2 * time.Second)
	for i := 0; i < 4 && fifoCounts(t, f, src) != (msgCounts{}); i++ {
		assert.Empty(t, bodiesOf(fifoReceive(t, f, src, 10, 1)), "moved messages are not returned")
	}
	assert.Equal(t, msgCounts{0, 0, 0}, fifoCounts(t, f, src))
	assert.Equal(t, msgCounts{4, 0, 0}, fifoCounts(t, f, dlq))

	moved := fifoReceiveInput(t, f, &sqs.ReceiveMessageInput{QueueUrl: dlq, MaxNumberOfMessages: 10, MessageSystemAttributeNames: allSystem})
	require.Len(t, moved, 4)
	perGroup := map[string][]string{}
	lastSeq := map[string]*big.Int{}
	for _, m := range moved {
		b := aws.ToString(m.Body)
		g := m.Attributes["MessageGroupId"]
		assert.Equal(t, fifoGroupOf(b), g, b)
		perGroup[g] = append(perGroup[g], b)
		assert.Equal(t, sent[b].MessageId, m.MessageId, b)
		assert.Equal(t, aws.ToString(sent[b].MessageId), m.Attributes["MessageDeduplicationId"], b)
		seq := m.Attributes["SequenceNumber"]
		n := fifoSequence(t, &seq)
		if prev := lastSeq[g]; prev != nil {
			assert.Equal(t, 1, n.Cmp(prev), "%s: sequence numbers increase within a group", b)
		}
		lastSeq[g] = n
	}
	assert.Equal(t, map[string][]string{"g1": {"g1-a", "g1-b", "g1-c"}, "g2": {"g2-x"}}, perGroup)
}

func TestFifoDeadLetterQueueRestartsRetention(t *testing.T) {
	f := New()
	retention := map[string]string{"MessageRetentionPeriod": "60"}
	src, dlq := fifoDLQPair(t, f, 1, retention, retention)
	fifoSend(t, f, src, "g1", "", "g1-a")
	require.Len(t, fifoReceive(t, f, src, 1, 50), 1)
	f.Advance(50 * time.Second)
	assert.Empty(t, fifoReceive(t, f, src, 10, 0), "the receive at 50 s moves the message")
	assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, dlq))

	f.Advance(55 * time.Second) // 105 s after the send, 55 s after the move
	assert.Equal(t, msgCounts{1, 0, 0}, fifoCounts(t, f, dlq), "retention counts from the move")
	assert.Equal(t, []string{"g1-a"}, bodiesOf(fifoReceive(t, f, dlq, 10, 0)))
	f.Advance(6 * time.Second) // 61 s after the move
	assert.Equal(t, msgCounts{0, 0, 0}, fifoCounts(t, f, dlq), "and ends 60 s after it")
}

// TestFifoDeadLetterQueueNumbersMovedMessagesInItsOwnOrder: a message moved into a FIFO DLQ
// takes a sequence number there, so a group's numbers increase in the DLQ's order even when
// the DLQ also receives sends of its own; its MessageId, now its deduplication id, is
// remembered there.
func TestFifoDeadLetterQueueNumbersMovedMessagesInItsOwnOrder(t *testing.T) {
	ctx := context.Background()
	f := New()
	fifo := map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
	dlq := mustCreateQueue(t, f, "dlq.fifo", fifo)
	src := mustCreateQueue(t, f, "src.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true",
		"RedrivePolicy": `{"deadLetterTargetArn":"` + testArnPrefix + `dlq.fifo","maxReceiveCount":1}`})
	sent, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: src, MessageBody: aws.String("g1-a"), MessageGroupId: aws.String("g1")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: dlq, MessageBody: aws.String("direct"), MessageGroupId: aws.String("g1")})
	require.NoError(t, err)
	_, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: src, VisibilityTimeout: 1})
	require.NoError(t, err)
	f.Advance(time.Second)
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: src})
	require.NoError(t, err)
	require.Empty(t, out.Messages, "the second receive moved it")

	out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: dlq, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"SequenceNumber", "MessageDeduplicationId"}})
	require.NoError(t, err)
	require.Equal(t, []string{"direct", "g1-a"}, bodies(out))
	first, _ := new(big.Int).SetString(out.Messages[0].Attributes["SequenceNumber"], 10)
	second, _ := new(big.Int).SetString(out.Messages[1].Attributes["SequenceNumber"], 10)
	assert.Equal(t, -1, first.Cmp(second), "numbers increase in the DLQ's order")
	assert.Equal(t, *sent.MessageId, out.Messages[1].Attributes["MessageDeduplicationId"])

	dup, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: dlq, MessageBody: aws.String("again"), MessageGroupId: aws.String("g1"),
		MessageDeduplicationId: sent.MessageId})
	require.NoError(t, err)
	assert.Equal(t, *sent.MessageId, *dup.MessageId, "the moved message's id deduplicates in the DLQ")
}
