package sqsfake

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of ReceiveMessage on standard queues (fixture in messages_test.go).

func TestReceiveMessageAppliesDefaultsForZeroValues(t *testing.T) {
	t.Run("MaxNumberOfMessages 0 is 1", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", nil)
		for _, b := range []string{"a", "b", "c"} {
			fx.send(q, b)
		}
		assert.Equal(t, []string{"a"}, bodiesOf(fx.receive(q, 0, 0)))
		fx.requireCounts(q, 2, 1, 0)
	})
	t.Run("VisibilityTimeout 0 is the queue's", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", map[string]string{"VisibilityTimeout": "45"})
		fx.send(q, "a")
		fx.receiveOne(q, 0)
		fx.advance(45*time.Second - time.Nanosecond)
		fx.requireCounts(q, 0, 1, 0)
		fx.advance(time.Nanosecond)
		fx.requireCounts(q, 1, 0, 0)
	})
	t.Run("WaitTimeSeconds 0 is the queue's ReceiveMessageWaitTimeSeconds", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", map[string]string{"ReceiveMessageWaitTimeSeconds": "5"})
		poll := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: q}, 1)
		fx.advance(5*time.Second - time.Nanosecond)
		assert.Equal(t, 1, fx.f.Pollers(), "still waiting 1 ns before the queue's wait ends")
		fx.advance(time.Nanosecond)
		r := fx.pollResult(poll)
		require.NoError(t, r.err)
		assert.Equal(t, &sqs.ReceiveMessageOutput{}, r.out)
	})
	t.Run("WaitTimeSeconds 0 on a queue without a wait is a short poll", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", nil)
		assert.Empty(t, fx.receive(q, 0, 0))
		assert.Zero(t, fx.f.Pollers())
	})
}

func TestReceiveMessageRejectsOutOfRangeParameters(t *testing.T) {
	tests := []struct {
		name string
		in   sqs.ReceiveMessageInput
		msg  string
	}{
		{"MaxNumberOfMessages -1", sqs.ReceiveMessageInput{MaxNumberOfMessages: -1},
			"Value -1 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"MaxNumberOfMessages 11", sqs.ReceiveMessageInput{MaxNumberOfMessages: 11},
			"Value 11 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."},
		{"VisibilityTimeout -1", sqs.ReceiveMessageInput{VisibilityTimeout: -1},
			"Value -1 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."},
		{"VisibilityTimeout 43201", sqs.ReceiveMessageInput{VisibilityTimeout: 43201},
			"Value 43201 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."},
		{"WaitTimeSeconds -1", sqs.ReceiveMessageInput{WaitTimeSeconds: -1},
			"Value -1 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
		{"WaitTimeSeconds 21", sqs.ReceiveMessageInput{WaitTimeSeconds: 21},
			"Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			fx.send(q, "x")
			in := tt.in
			in.QueueUrl = q
			out, err := fx.f.ReceiveMessage(fx.ctx, &in)
			assert.Nil(t, out)
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "ReceiveMessage", invalidParameterValue(tt.msg))
			fx.requireCounts(q, 1, 0, 0)
			m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
			require.Len(t, m, 1)
			assert.Equal(t, map[string]string{"ApproximateReceiveCount": "1"}, m[0].Attributes, "the failed receive did not count")
		})
	}
}

func TestReceiveMessageAcceptsBoundaryValues(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	for i := range 12 {
		fx.send(q, fmt.Sprint(i))
	}
	got := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, VisibilityTimeout: 43200, WaitTimeSeconds: 20})
	assert.Len(t, got, 10)
	got = fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 1, VisibilityTimeout: 1, WaitTimeSeconds: 1})
	assert.Len(t, got, 1)
	fx.advance(43200*time.Second - time.Nanosecond)
	fx.requireCounts(q, 2, 10, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 12, 0, 0)
}

func TestReceiveMessageReturnsFirstSentFirst(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "a")                                                                                 // available at 0 s
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("b"), DelaySeconds: 5}) // at 5 s
	fx.advance(time.Second)
	fx.send(q, "c") // at 1 s
	fx.advance(time.Second)
	require.Equal(t, []string{"a"}, bodiesOf(fx.receive(q, 1, 1))) // "a" again at 3 s
	fx.advance(4 * time.Second)
	fx.send(q, "d") // at 6 s, sent in this order at the same instant
	fx.send(q, "e")
	assert.Equal(t, []string{"a", "b", "c", "d", "e"}, bodiesOf(fx.receive(q, 10, 0)),
		"in send order, whenever each became available")
}

// TestStandardQueueMessageVisibleAgainTakesItsPlaceBySendOrder pins where a message that
// was invisible takes its place among the visible ones on a standard queue: by when it was
// sent, not by when it became visible. AWS shows this order for a lapsed visibility (send
// test1, send test2, receive test1 with a 3 s visibility, let it lapse: the next receive of
// one message returns test1), and calls standard order best effort; the other ways back
// follow the same rule.
func TestStandardQueueMessageVisibleAgainTakesItsPlaceBySendOrder(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  func(fx *msgFixture, q *string)
		want []string
	}{
		{"its visibility lapses", func(fx *msgFixture, q *string) {
			fx.send(q, "test1")
			fx.send(q, "test2")
			require.Equal(t, []string{"test1"}, bodiesOf(fx.receive(q, 1, 3)))
			fx.advance(3 * time.Second)
		}, []string{"test1", "test2"}},
		{"its visibility lapses after later sends", func(fx *msgFixture, q *string) {
			fx.send(q, "a")
			require.Equal(t, []string{"a"}, bodiesOf(fx.receive(q, 1, 3)))
			fx.send(q, "b")
			fx.advance(time.Second)
			fx.send(q, "c")
			fx.advance(5 * time.Second)
		}, []string{"a", "b", "c"}},
		{"two visibilities lapse in the other order", func(fx *msgFixture, q *string) {
			fx.send(q, "a")
			fx.send(q, "b")
			fx.send(q, "c")
			require.Equal(t, []string{"a"}, bodiesOf(fx.receive(q, 1, 10)))
			require.Equal(t, []string{"b"}, bodiesOf(fx.receive(q, 1, 5)))
			fx.advance(10 * time.Second) // b is back at 5 s, a at 10 s
		}, []string{"a", "b", "c"}},
		{"its visibility is changed to 0", func(fx *msgFixture, q *string) {
			fx.send(q, "a")
			fx.send(q, "b")
			m := fx.receiveOne(q, 30)
			fx.advance(time.Second)
			require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, 0))
		}, []string{"a", "b"}},
		{"it is received with a visibility of 0 and stays", func(fx *msgFixture, q *string) {
			fx.send(q, "a")
			fx.send(q, "b")
			fx.setAttrs(q, map[string]string{"VisibilityTimeout": "0"})
			require.Equal(t, []string{"a"}, bodiesOf(fx.receive(q, 1, 0)))
			fx.advance(time.Second)
		}, []string{"a", "b"}},
		{"its delay ends", func(fx *msgFixture, q *string) {
			fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("a"), DelaySeconds: 5})
			fx.send(q, "b")
			fx.advance(5 * time.Second)
		}, []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, max := range []int32{1, 10} {
				fx := newMsgFixture(t)
				q := fx.queue("q", nil)
				tc.run(fx, q)
				assert.Equal(t, tc.want[:min(int(max), len(tc.want))], bodiesOf(fx.receive(q, max, 0)), "a receive of up to %d", max)
			}
		})
	}
}

// TestStandardQueueOrderAfterALapsedVisibilityThroughEveryDoor runs AWS's recorded case
// through the three doors.
func TestStandardQueueOrderAfterALapsedVisibilityThroughEveryDoor(t *testing.T) {
	ctx := context.Background()
	for _, d := range doors(t) {
		t.Run(d.name, func(t *testing.T) {
			out, err := d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
			require.NoError(t, err)
			for _, body := range []string{"test1", "test2"} {
				_, err := d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String(body)})
				require.NoError(t, err)
			}
			receive := func(vt int32) []string {
				got, err := d.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl, VisibilityTimeout: vt})
				require.NoError(t, err)
				return bodiesOf(got.Messages)
			}
			require.Equal(t, []string{"test1"}, receive(3))
			d.f.Advance(3 * time.Second)
			assert.Equal(t, []string{"test1"}, receive(30))
			assert.Equal(t, []string{"test2"}, receive(30))
		})
	}
}

func TestReceiveMessageSelectsSystemAttributes(t *testing.T) {
	const sent, firstReceive = 0, 1500 * time.Millisecond
	all := map[string]string{
		"SenderId":                         DefaultSenderID,
		"SentTimestamp":                    epochMillis(sent),
		"ApproximateReceiveCount":          "1",
		"ApproximateFirstReceiveTimestamp": epochMillis(firstReceive),
		"AWSTraceHeader":                   awsTrace,
		"MessageGroupId":                   "g1",
	}
	type names = []types.MessageSystemAttributeName
	type queueNames = []types.QueueAttributeName
	tests := []struct {
		name   string
		system names
		legacy queueNames // the deprecated AttributeNames
		want   map[string]string
	}{
		{name: "none", want: nil},
		{name: "empty lists", system: names{}, legacy: queueNames{}, want: nil},
		{name: "All", system: names{"All"}, want: all},
		{name: "deprecated All", legacy: queueNames{"All"}, want: all},
		{name: "union of both lists", system: names{"SenderId"}, legacy: queueNames{"SentTimestamp"},
			want: map[string]string{"SenderId": DefaultSenderID, "SentTimestamp": epochMillis(sent)}},
		{name: "All with a legacy name", system: names{"All"}, legacy: queueNames{"SenderId"}, want: all},
		{name: "one", system: names{"ApproximateReceiveCount"}, want: map[string]string{"ApproximateReceiveCount": "1"}},
		{name: "first receive timestamp", system: names{"ApproximateFirstReceiveTimestamp"},
			want: map[string]string{"ApproximateFirstReceiveTimestamp": epochMillis(firstReceive)}},
		{name: "trace header and group", system: names{"AWSTraceHeader", "MessageGroupId"},
			want: map[string]string{"AWSTraceHeader": awsTrace, "MessageGroupId": "g1"}},
		{name: "names that do not apply to standard queues", system: names{"SequenceNumber", "MessageDeduplicationId", "DeadLetterQueueSourceArn"}, want: nil},
		{name: "queue attribute names are ignored", legacy: queueNames{"VisibilityTimeout", "QueueArn"}, want: nil},
		{name: "unknown names are ignored", system: names{"Bogus", "senderid"}, want: nil},
		{name: "repeated names", system: names{"SenderId", "SenderId"}, legacy: queueNames{"SenderId"},
			want: map[string]string{"SenderId": DefaultSenderID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			sentOut := fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("body"),
				MessageSystemAttributes: traceSys(awsTrace), MessageGroupId: aws.String("g1")})
			fx.advance(firstReceive)
			//lint:ignore SA1019 the deprecated AttributeNames is what this test exercises
			m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: tt.system, AttributeNames: tt.legacy})
			require.Len(t, m, 1)
			assert.Equal(t, types.Message{
				MessageId:     sentOut.MessageId,
				ReceiptHandle: m[0].ReceiptHandle,
				MD5OfBody:     aws.String(md5Of("body")),
				Body:          aws.String("body"),
				Attributes:    tt.want,
			}, m[0])
		})
	}
}

func TestReceiveMessageAllOmitsAttributesAMessageDoesNotHave(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "plain")
	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	require.Len(t, m, 1)
	assert.Equal(t, map[string]string{
		"SenderId":                         DefaultSenderID,
		"SentTimestamp":                    epochMillis(0),
		"ApproximateReceiveCount":          "1",
		"ApproximateFirstReceiveTimestamp": epochMillis(0),
	}, m[0].Attributes)
}

func TestReceiveMessageTimestampsAndReceiveCountFollowTheVirtualClock(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.advance(250 * time.Millisecond)
	fx.send(q, "x")
	in := &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 10, MessageSystemAttributeNames: []types.MessageSystemAttributeName{
		"SentTimestamp", "ApproximateReceiveCount", "ApproximateFirstReceiveTimestamp"}}
	fx.advance(2 * time.Second)
	want := func(count string) map[string]string {
		return map[string]string{
			"SentTimestamp":                    epochMillis(250 * time.Millisecond),
			"ApproximateReceiveCount":          count,
			"ApproximateFirstReceiveTimestamp": epochMillis(2250 * time.Millisecond),
		}
	}
	for _, count := range []string{"1", "2", "3"} {
		m := fx.receiveInput(in)
		require.Len(t, m, 1)
		assert.Equal(t, want(count), m[0].Attributes, "receive %s", count)
		fx.advance(10*time.Second + 7*time.Millisecond)
	}
	assert.Equal(t, "1735689600250", epochMillis(250*time.Millisecond), "epoch milliseconds of DefaultStart + 250 ms")
}

func TestReceiveMessageFirstReceiveTimestampOnClockAtUnixEpoch(t *testing.T) {
	mock := clock.NewMock() // starts at 1970-01-01T00:00:00Z: the first receive happens at 0
	fx := newMsgFixture(t, WithClock(mock))
	q := fx.queue("q", nil)
	fx.send(q, "x")
	in := &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}}
	m := fx.receiveInput(in)
	require.Len(t, m, 1)
	assert.Equal(t, map[string]string{"SenderId": DefaultSenderID, "SentTimestamp": "0", "ApproximateReceiveCount": "1",
		"ApproximateFirstReceiveTimestamp": "0"}, m[0].Attributes)
	fx.advance(time.Second)
	m = fx.receiveInput(in)
	require.Len(t, m, 1)
	assert.Equal(t, "0", m[0].Attributes["ApproximateFirstReceiveTimestamp"], "the first receive stays the first")
	assert.Equal(t, "2", m[0].Attributes["ApproximateReceiveCount"])
}

func TestReceiveMessageFiltersMessageAttributes(t *testing.T) {
	str := func(v string) types.MessageAttributeValue {
		return types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String(v)}
	}
	// The attribute set and digests AWS recorded (SPEC §9.3).
	sent := map[string]types.MessageAttributeValue{"Help.Me": str("Me"), "Hello": str("There"), "General": str("Kenobi")}
	pick := func(names ...string) map[string]types.MessageAttributeValue {
		out := map[string]types.MessageAttributeValue{}
		for _, n := range names {
			out[n] = sent[n]
		}
		return out
	}
	const allMD5 = "4c360f3fdafd970e05fae2f149d997f5"
	tests := []struct {
		name  string
		names []string
		want  map[string]types.MessageAttributeValue
		md5   string
	}{
		{"nil", nil, nil, ""},
		{"empty", []string{}, nil, ""},
		{"All", []string{"All"}, sent, allMD5},
		{".*", []string{".*"}, sent, allMD5},
		{"*", []string{"*"}, sent, allMD5},
		{"All among others", []string{"Hello", "All"}, sent, allMD5},
		{"prefix", []string{"Hel.*"}, pick("Help.Me", "Hello"), "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"exact", []string{"Hello"}, pick("Hello"), "a311262e065454b75da111d535b8dacd"},
		{"two exact", []string{"General", "Hello"}, pick("General", "Hello"), "fca026605781cb4126a1e9044df24232"},
		{"exact and overlapping prefix", []string{"Hello", "Hel.*"}, pick("Help.Me", "Hello"), "83fee93c1bcd8b9a5a923ffacdc636c7"},
		{"every name exactly", []string{"Help.Me", "Hello", "General"}, sent, allMD5},
		{"case-sensitive", []string{"hello", "HELLO"}, nil, ""},
		{"absent name", []string{"Missing"}, nil, ""},
		{"invalid names are ignored", []string{"AWS.", "..foo", ""}, nil, ""},
		{"prefix matching nothing", []string{"Nope.*"}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			out := fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("kenobi"), MessageAttributes: sent})
			require.Equal(t, allMD5, aws.ToString(out.MD5OfMessageAttributes))
			m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageAttributeNames: tt.names})
			require.Len(t, m, 1)
			want := types.Message{MessageId: out.MessageId, ReceiptHandle: m[0].ReceiptHandle, MD5OfBody: aws.String(md5Of("kenobi")),
				Body: aws.String("kenobi"), MessageAttributes: tt.want}
			if tt.md5 != "" {
				want.MD5OfMessageAttributes = aws.String(tt.md5)
			}
			assert.Equal(t, want, m[0])
		})
	}
}

func TestReceiveMessageAttributeDigestIsOverWhatSQSStored(t *testing.T) {
	// The SDK sends invalid UTF-8 as U+FFFD; both the digest at send and the one over every
	// attribute at receive are of that text, as is the digest over a subset.
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	sent := map[string]types.MessageAttributeValue{
		"a": {DataType: aws.String("String"), StringValue: aws.String("bad\xff")},
		"b": {DataType: aws.String("String"), StringValue: aws.String("fine")},
	}
	stored := map[string]types.MessageAttributeValue{
		"a": {DataType: aws.String("String"), StringValue: aws.String("bad\uFFFD")},
		"b": {DataType: aws.String("String"), StringValue: aws.String("fine")},
	}
	out := fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"), MessageAttributes: sent,
		MessageSystemAttributes: traceSys("Root=\xfe")})
	assert.Equal(t, md5OfMessageAttributes(stored), aws.ToString(out.MD5OfMessageAttributes))
	assert.Equal(t, md5OfSystemAttributes(traceSys("Root=\uFFFD")), aws.ToString(out.MD5OfMessageSystemAttributes))

	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageAttributeNames: []string{"All"}, VisibilityTimeout: 1,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"AWSTraceHeader"}})
	require.Len(t, m, 1)
	assert.Equal(t, stored, m[0].MessageAttributes)
	assert.Equal(t, out.MD5OfMessageAttributes, m[0].MD5OfMessageAttributes)
	assert.Equal(t, map[string]string{"AWSTraceHeader": "Root=\uFFFD"}, m[0].Attributes)
	fx.advance(time.Second)
	m = fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageAttributeNames: []string{"a"}})
	require.Len(t, m, 1)
	assert.Equal(t, md5OfMessageAttributes(map[string]types.MessageAttributeValue{"a": stored["a"]}), aws.ToString(m[0].MD5OfMessageAttributes))
}

func TestReceiveMessageEmptyResultHasNilMessages(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	out, err := fx.f.ReceiveMessage(fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	assert.Equal(t, &sqs.ReceiveMessageOutput{}, out)
	assert.Nil(t, out.Messages)

	fx.send(q, "x")
	fx.receiveOne(q, 0)
	out, err = fx.f.ReceiveMessage(fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	assert.Nil(t, out.Messages, "nothing visible: still nil")
}

func TestReceiveMessageIssuesANewReceiptHandleEachReceive(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	other := fx.queue("other", nil)
	fx.send(q, "x")
	fx.send(other, "x")
	seen := map[string]bool{}
	var id string
	for range 5 {
		m := fx.receiveOne(q, 1)
		h := aws.ToString(m.ReceiptHandle)
		assert.False(t, seen[h], "handle %s repeated", h)
		seen[h] = true
		assert.True(t, strings.HasPrefix(h, "AQEB"), "handles look like AWS's")
		assert.LessOrEqual(t, len(h), 1024)
		if id == "" {
			id = *m.MessageId
		}
		assert.Equal(t, id, *m.MessageId)
		fx.advance(time.Second)
	}
	assert.False(t, seen[*fx.receiveOne(other, 0).ReceiptHandle], "another queue's first handle is another handle")
}

func TestQueueVisibilityTimeoutZeroKeepsMessagesVisible(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"VisibilityTimeout": "0"})
	fx.send(q, "a")
	fx.send(q, "b")
	in := &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}}
	first := fx.receiveInput(in)
	require.Equal(t, []string{"a", "b"}, bodiesOf(first), "each message once per receive")
	fx.requireCounts(q, 2, 0, 0)
	second := fx.receiveInput(in)
	require.Equal(t, []string{"a", "b"}, bodiesOf(second))
	assert.Equal(t, "2", second[0].Attributes["ApproximateReceiveCount"])
	assert.NotEqual(t, *first[0].ReceiptHandle, *second[0].ReceiptHandle)
	// Visibility can still be set per receive.
	assert.Len(t, fx.receive(q, 10, 5), 2)
	fx.requireCounts(q, 0, 2, 0)
	// And a handle of such a receive deletes.
	fx.advance(5 * time.Second)
	fx.delete(q, first[0].ReceiptHandle)
	fx.requireCounts(q, 1, 0, 0)
}

// ---------------------------------------------------------------------------------------
// Redrive

// redriveFixture is a source queue whose DLQ is "dlq" after maxReceiveCount receives.
func redriveFixture(t *testing.T, maxReceiveCount int, opts ...Option) (fx *msgFixture, src, dlq *string) {
	fx = newMsgFixture(t, opts...)
	dlq = fx.queue("dlq", nil)
	src = fx.queue("src", map[string]string{
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":%d}`, fx.arn("dlq"), maxReceiveCount),
	})
	return fx, src, dlq
}

func TestRedriveMovesAMessageOnTheReceiveAfterMaxReceiveCount(t *testing.T) {
	for _, max := range []int{1, 2, 5} {
		t.Run(fmt.Sprint("maxReceiveCount ", max), func(t *testing.T) {
			fx, src, dlq := redriveFixture(t, max)
			fx.send(src, "poison")
			for i := range max {
				assert.Len(t, fx.receive(src, 10, 1), 1, "receive %d delivers", i+1)
				fx.advance(time.Second)
			}
			assert.Empty(t, fx.receive(src, 10, 1), "the next attempt moves it and returns nothing")
			fx.requireCounts(src, 0, 0, 0)
			fx.requireCounts(dlq, 1, 0, 0)
		})
	}
}

func TestRedriveReceiveStillReturnsOtherMessages(t *testing.T) {
	fx, src, dlq := redriveFixture(t, 1)
	fx.send(src, "poison")
	fx.receiveOne(src, 1)
	fx.advance(time.Second)
	fx.send(src, "fresh")
	assert.Equal(t, []string{"fresh"}, bodiesOf(fx.receive(src, 10, 0)))
	fx.requireCounts(dlq, 1, 0, 0)
}

func TestRedriveKeepsTheMessageAndAddsDeadLetterQueueSourceArn(t *testing.T) {
	fx, src, dlq := redriveFixture(t, 1)
	attrs := map[string]types.MessageAttributeValue{
		"s": {DataType: aws.String("String"), StringValue: aws.String("v")},
		"b": {DataType: aws.String("Binary.gif"), BinaryValue: []byte{0, 1}},
	}
	sent := fx.sendInput(&sqs.SendMessageInput{QueueUrl: src, MessageBody: aws.String("poison"), MessageAttributes: attrs,
		MessageSystemAttributes: traceSys(awsTrace), MessageGroupId: aws.String("tenant")})
	fx.advance(time.Second)
	fx.receiveOne(src, 10)
	fx.advance(10 * time.Second)
	require.Empty(t, fx.receive(src, 1, 0))
	fx.advance(time.Second)

	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: dlq, MessageAttributeNames: []string{"All"},
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	require.Len(t, m, 1)
	assert.Equal(t, types.Message{
		MessageId:              sent.MessageId,
		ReceiptHandle:          m[0].ReceiptHandle,
		MD5OfBody:              sent.MD5OfMessageBody,
		Body:                   aws.String("poison"),
		MessageAttributes:      attrs,
		MD5OfMessageAttributes: sent.MD5OfMessageAttributes,
		Attributes: map[string]string{
			"SenderId":                         DefaultSenderID,
			"SentTimestamp":                    epochMillis(0),
			"ApproximateReceiveCount":          "2", // continues counting
			"ApproximateFirstReceiveTimestamp": epochMillis(time.Second),
			"AWSTraceHeader":                   awsTrace,
			"MessageGroupId":                   "tenant",
			"DeadLetterQueueSourceArn":         fx.arn("src"),
		},
	}, m[0])

	// The DLQ's handle works on the DLQ, and the source's old handles no longer name it.
	fx.delete(dlq, m[0].ReceiptHandle)
	fx.requireCounts(dlq, 0, 0, 0)
}

func TestRedriveStandardDLQKeepsTheOriginalRetentionStart(t *testing.T) {
	fx := newMsgFixture(t)
	dlq := fx.queue("dlq", map[string]string{"MessageRetentionPeriod": "60"})
	src := fx.queue("src", map[string]string{
		"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, fx.arn("dlq")),
	})
	fx.send(src, "x")
	fx.receiveOne(src, 40)
	fx.advance(40 * time.Second)
	require.Empty(t, fx.receive(src, 1, 0))
	fx.requireCounts(dlq, 1, 0, 0)
	fx.advance(20*time.Second - time.Nanosecond)
	fx.requireCounts(dlq, 1, 0, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(dlq, 0, 0, 0, "60 s after the original send")
}

func TestRedriveWithDeletedDLQDeliversNormally(t *testing.T) {
	fx, src, dlq := redriveFixture(t, 1)
	fx.send(src, "x")
	fx.receiveOne(src, 1)
	fx.advance(time.Second)
	_, err := fx.f.DeleteQueue(fx.ctx, &sqs.DeleteQueueInput{QueueUrl: dlq})
	require.NoError(t, err)
	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: src, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	require.Len(t, m, 1)
	assert.Equal(t, "2", m[0].Attributes["ApproximateReceiveCount"])
	assert.NotContains(t, m[0].Attributes, "DeadLetterQueueSourceArn")
}

func TestRedriveHandsTheMovedMessageToALongPollOnTheDLQ(t *testing.T) {
	fx, src, dlq := redriveFixture(t, 1)
	sent := fx.send(src, "x")
	fx.receiveOne(src, 1)
	fx.advance(time.Second)
	poll := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: dlq, WaitTimeSeconds: 20,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"DeadLetterQueueSourceArn"}}, 1)
	require.Empty(t, fx.receive(src, 1, 0))
	r := fx.pollResult(poll)
	require.NoError(t, r.err)
	require.Len(t, r.out.Messages, 1)
	assert.Equal(t, sent.MessageId, r.out.Messages[0].MessageId)
	assert.Equal(t, map[string]string{"DeadLetterQueueSourceArn": fx.arn("src")}, r.out.Messages[0].Attributes)
	fx.requireCounts(dlq, 0, 1, 0)
}

func TestRedriveToTheQueueItselfDeliversInsteadOfLooping(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.setAttrs(q, map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, fx.arn("q"))})
	fx.send(q, "x")
	fx.receiveOne(q, 1)
	fx.advance(time.Second)
	done := make(chan []types.Message, 1)
	go func() {
		out, _ := fx.f.ReceiveMessage(fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
		done <- out.Messages
	}()
	select {
	case msgs := <-done:
		assert.Len(t, msgs, 1)
	case <-time.After(5 * time.Second):
		t.Fatal("a receive on a queue that is its own DLQ never returned")
	}
}

func TestRedriveCycleWithLongPollsOnBothQueuesTerminates(t *testing.T) {
	fx := newMsgFixture(t)
	a := fx.queue("a", nil)
	b := fx.queue("b", map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, fx.arn("a"))})
	fx.setAttrs(a, map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, fx.arn("b"))})
	fx.send(a, "x")
	fx.receiveOne(a, 1)
	pa := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: a, WaitTimeSeconds: 5}, 1)
	pb := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: b, WaitTimeSeconds: 5}, 2)
	advanced := make(chan struct{})
	go func() { fx.advance(5 * time.Second); close(advanced) }()
	select {
	case <-advanced:
	case <-time.After(5 * time.Second):
		t.Fatal("moving a message around a redrive cycle never ended")
	}
	ra, rb := fx.pollResult(pa), fx.pollResult(pb)
	require.NoError(t, ra.err)
	require.NoError(t, rb.err)
	total := fx.counts(a)
	other := fx.counts(b)
	assert.Equal(t, 1, total.visible+total.notVisible+other.visible+other.notVisible, "the message is in exactly one queue")
}

func TestRedriveCycleNeverAnswersALongPollTwice(t *testing.T) {
	// A's DLQ is B after 1 receive, B's is A after 3. When B's poll is served, B's worn-out
	// message moves to A, whose poll moves A's message to B, where it could be delivered to
	// B's poll — which is still being answered further up the stack. Every message a poll
	// took must be in its answer.
	fx := newMsgFixture(t)
	a := fx.queue("a", nil)
	b := fx.queue("b", map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":3}`, fx.arn("a"))})
	fx.setAttrs(a, map[string]string{"RedrivePolicy": fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":1}`, fx.arn("b"))})
	fx.send(b, "b-worn")
	fx.receiveOne(b, 1)
	fx.advance(time.Second)
	fx.receiveOne(b, 1)
	fx.advance(time.Second)
	fx.receiveOne(b, 8) // received 3 times, visible again at 10 s
	fx.send(a, "a-once")
	fx.receiveOne(a, 8) // received once, visible again at 10 s
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: b, MessageBody: aws.String("b-fresh"), DelaySeconds: 8})

	pb := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: b, WaitTimeSeconds: 20, MaxNumberOfMessages: 10}, 1)
	pa := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: a, WaitTimeSeconds: 20, MaxNumberOfMessages: 10}, 2)
	fx.advance(8 * time.Second)
	fx.advance(20 * time.Second)
	rb, ra := fx.pollResult(pb), fx.pollResult(pa)
	require.NoError(t, rb.err)
	require.NoError(t, ra.err)
	delivered := append(bodiesOf(rb.out.Messages), bodiesOf(ra.out.Messages)...)
	assert.Contains(t, delivered, "b-fresh")
	ca, cb := fx.counts(a), fx.counts(b)
	assert.Equal(t, len(delivered), ca.notVisible+cb.notVisible, "in flight exactly what the polls returned (%v)", delivered)
	assert.Equal(t, 3, ca.visible+ca.notVisible+cb.visible+cb.notVisible, "no message lost or doubled")
}

// ---------------------------------------------------------------------------------------
// In-flight limit

// A long poll parked at the limit is answered when a slot frees: by a delete, or by a
// visibility timeout that runs out. On a FIFO queue a short poll at the limit gets nothing,
// without an error.
func TestInFlightLimitAnswersAParkedPollWhenASlotFrees(t *testing.T) {
	fx := newMsgFixture(t, WithInFlightLimit(1))
	q := fx.queue("q", map[string]string{"VisibilityTimeout": "30"})
	fx.send(q, "a")
	fx.send(q, "b")
	a := fx.receive(q, 10, 0)
	require.Equal(t, []string{"a"}, bodiesOf(a))

	poll := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20}, 1)
	fx.delete(q, a[0].ReceiptHandle)
	r := fx.pollResult(poll)
	require.NoError(t, r.err)
	assert.Equal(t, []string{"b"}, bodiesOf(r.out.Messages), "the delete freed the slot")

	fx.advance(15 * time.Second)
	poll = fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}}, 1)
	fx.advance(15 * time.Second)
	r = fx.pollResult(poll)
	require.NoError(t, r.err)
	assert.Equal(t, []string{"b"}, bodiesOf(r.out.Messages), "b's visibility ran out, at 30 s: its slot is free")
	assert.Equal(t, "2", r.out.Messages[0].Attributes["ApproximateReceiveCount"])

	ff := newMsgFixture(t, WithInFlightLimit(1))
	fq, err := ff.f.CreateQueue(ff.ctx, &sqs.CreateQueueInput{QueueName: aws.String("q.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}})
	require.NoError(t, err)
	for _, g := range []string{"g1", "g2"} {
		_, err := ff.f.SendMessage(ff.ctx, &sqs.SendMessageInput{QueueUrl: fq.QueueUrl, MessageBody: aws.String(g), MessageGroupId: aws.String(g)})
		require.NoError(t, err)
	}
	assert.Len(t, ff.receive(fq.QueueUrl, 10, 0), 1, "a receive of several gets what fits")
	assert.Empty(t, ff.receive(fq.QueueUrl, 10, 0), "no slot left: nothing, without an error")
}

func TestInFlightLimitFailsShortPollWithOverLimitAndEmptiesLongPoll(t *testing.T) {
	fx := newMsgFixture(t, WithInFlightLimit(3))
	q := fx.queue("q", nil)
	for i := range 5 {
		fx.send(q, fmt.Sprint(i))
	}
	got := fx.receive(q, 10, 0)
	assert.Equal(t, []string{"0", "1", "2"}, bodiesOf(got), "a receive stops at the limit")
	fx.requireCounts(q, 2, 3, 0)

	_, err := fx.f.ReceiveMessage(fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
	requireSQSAPIError[*types.OverLimit](t, err, "ReceiveMessage", sqsErrWant{"OverLimit", 403,
		"Too many messages have been received without being deleted. Please delete your received messages or let them timeout before receiving more."})
	fx.requireCounts(q, 2, 3, 0)

	poll := fx.pollParked(&sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 2}, 1)
	fx.advance(2 * time.Second)
	r := fx.pollResult(poll)
	require.NoError(t, r.err, "a long poll gets nothing, without error")
	assert.Nil(t, r.out.Messages)

	fx.delete(q, got[0].ReceiptHandle)
	assert.Equal(t, []string{"3"}, bodiesOf(fx.receive(q, 10, 0)))
	fx.requireCounts(q, 1, 3, 0)

	// Messages kept visible (VisibilityTimeout 0 on the queue) are not in flight.
	fx2 := newMsgFixture(t, WithInFlightLimit(1))
	q2 := fx2.queue("q", map[string]string{"VisibilityTimeout": "0"})
	fx2.send(q2, "a")
	fx2.send(q2, "b")
	assert.Len(t, fx2.receive(q2, 10, 0), 2)
	assert.Len(t, fx2.receive(q2, 10, 0), 2)
}

// The strings of a send's and a receive's answer share the answer's memory: they read the
// same after later calls as when they were returned, and match the message's own.
func TestAnswerStringsStayAsReturned(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := benchQueue(t, f, nil)
	type seen struct{ sentID, sentMD5, id, md5, handle, body string }
	var kept []seen
	var ptrs []*types.Message
	var sents []*sqs.SendMessageOutput
	for i := range 5 {
		body := fmt.Sprint("body ", i)
		sent, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: &body})
		require.NoError(t, err)
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q})
		require.NoError(t, err)
		require.Len(t, out.Messages, 1)
		m := out.Messages[0]
		kept = append(kept, seen{strings.Clone(*sent.MessageId), strings.Clone(*sent.MD5OfMessageBody),
			strings.Clone(*m.MessageId), strings.Clone(*m.MD5OfBody), strings.Clone(*m.ReceiptHandle), body})
		ptrs = append(ptrs, &out.Messages[0])
		sents = append(sents, sent)
		assert.Equal(t, *sent.MessageId, *m.MessageId)
		assert.Equal(t, md5Hex(body), *m.MD5OfBody)
		assert.Equal(t, *m.MD5OfBody, *sent.MD5OfMessageBody)
	}
	for i, m := range ptrs {
		assert.Equal(t, kept[i].sentID, *sents[i].MessageId)
		assert.Equal(t, kept[i].sentMD5, *sents[i].MD5OfMessageBody)
		assert.Equal(t, kept[i].id, *m.MessageId)
		assert.Equal(t, kept[i].md5, *m.MD5OfBody)
		assert.Equal(t, kept[i].handle, *m.ReceiptHandle)
		assert.Equal(t, kept[i].body, *m.Body)
		_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: m.ReceiptHandle})
		require.NoError(t, err)
	}
}
