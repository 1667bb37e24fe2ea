package sqsfake

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
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

// Tests of the message operations of standard queues, through the public methods of *Fake
// only: SendMessage, SendMessageBatch, DeleteMessage(Batch), ChangeMessageVisibility(Batch),
// delays and retention. ReceiveMessage and redrive are in receive_test.go, counts and
// visibility expiry in queue_test.go.

// ---------------------------------------------------------------------------------------
// Fixture shared by messages_test.go, receive_test.go and queue_test.go.

// msgFixture is a Fake on its default mock clock with helpers that fail the test on any
// unexpected error.
type msgFixture struct {
	t   *testing.T
	ctx context.Context
	f   *Fake
}

func newMsgFixture(t *testing.T, opts ...Option) *msgFixture {
	t.Helper()
	return &msgFixture{t: t, ctx: context.Background(), f: New(opts...)}
}

// queue creates a standard queue and returns its URL.
func (fx *msgFixture) queue(name string, attrs map[string]string) *string {
	fx.t.Helper()
	out, err := fx.f.CreateQueue(fx.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(fx.t, err)
	return out.QueueUrl
}

func (fx *msgFixture) arn(name string) string { return "arn:aws:sqs:us-east-1:123456789012:" + name }

func (fx *msgFixture) send(url *string, body string) *sqs.SendMessageOutput {
	fx.t.Helper()
	return fx.sendInput(&sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String(body)})
}

func (fx *msgFixture) sendInput(in *sqs.SendMessageInput) *sqs.SendMessageOutput {
	fx.t.Helper()
	out, err := fx.f.SendMessage(fx.ctx, in)
	require.NoError(fx.t, err)
	return out
}

// receive receives up to max messages with visibility vt (0: the queue's defaults).
func (fx *msgFixture) receive(url *string, max, vt int32) []types.Message {
	fx.t.Helper()
	return fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: max, VisibilityTimeout: vt})
}

func (fx *msgFixture) receiveInput(in *sqs.ReceiveMessageInput) []types.Message {
	fx.t.Helper()
	out, err := fx.f.ReceiveMessage(fx.ctx, in)
	require.NoError(fx.t, err)
	return out.Messages
}

// receiveOne receives exactly one message.
func (fx *msgFixture) receiveOne(url *string, vt int32) types.Message {
	fx.t.Helper()
	msgs := fx.receive(url, 1, vt)
	require.Len(fx.t, msgs, 1)
	return msgs[0]
}

func (fx *msgFixture) delete(url, handle *string) {
	fx.t.Helper()
	_, err := fx.f.DeleteMessage(fx.ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: handle})
	require.NoError(fx.t, err)
}

func (fx *msgFixture) changeVisibility(url, handle *string, vt int32) error {
	_, err := fx.f.ChangeMessageVisibility(fx.ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: handle, VisibilityTimeout: vt})
	return err
}

func (fx *msgFixture) setAttrs(url *string, attrs map[string]string) {
	fx.t.Helper()
	_, err := fx.f.SetQueueAttributes(fx.ctx, &sqs.SetQueueAttributesInput{QueueUrl: url, Attributes: attrs})
	require.NoError(fx.t, err)
}

// msgCounts are ApproximateNumberOfMessages, …NotVisible and …Delayed.
type msgCounts struct{ visible, notVisible, delayed int }

func (fx *msgFixture) counts(url *string) msgCounts {
	fx.t.Helper()
	out, err := fx.f.GetQueueAttributes(fx.ctx, &sqs.GetQueueAttributesInput{QueueUrl: url, AttributeNames: []types.QueueAttributeName{
		types.QueueAttributeNameApproximateNumberOfMessages,
		types.QueueAttributeNameApproximateNumberOfMessagesNotVisible,
		types.QueueAttributeNameApproximateNumberOfMessagesDelayed,
	}})
	require.NoError(fx.t, err)
	var c msgCounts
	for name, p := range map[string]*int{
		"ApproximateNumberOfMessages":           &c.visible,
		"ApproximateNumberOfMessagesNotVisible": &c.notVisible,
		"ApproximateNumberOfMessagesDelayed":    &c.delayed,
	} {
		_, err := fmt.Sscan(out.Attributes[name], p)
		require.NoError(fx.t, err, name)
	}
	return c
}

// requireCounts asserts the three counts, exactly.
func (fx *msgFixture) requireCounts(url *string, visible, notVisible, delayed int, msgAndArgs ...any) {
	fx.t.Helper()
	require.Equal(fx.t, msgCounts{visible, notVisible, delayed}, fx.counts(url), msgAndArgs...)
}

func (fx *msgFixture) advance(d time.Duration) { fx.f.Advance(d) }

// msgPoll is the result of a ReceiveMessage run in another goroutine.
type msgPoll struct {
	out *sqs.ReceiveMessageOutput
	err error
}

// pollParked starts a ReceiveMessage in a goroutine and returns once it is parked as the
// fake's n-th long poll.
func (fx *msgFixture) pollParked(in *sqs.ReceiveMessageInput, n int) <-chan msgPoll {
	fx.t.Helper()
	ch := make(chan msgPoll, 1)
	go func() {
		out, err := fx.f.ReceiveMessage(fx.ctx, in)
		ch <- msgPoll{out, err}
	}()
	ctx, cancel := context.WithTimeout(fx.ctx, 5*time.Second)
	defer cancel()
	require.NoError(fx.t, fx.f.WaitForPollers(ctx, n), "the receive must park as a long poll")
	return ch
}

func (fx *msgFixture) pollResult(ch <-chan msgPoll) msgPoll {
	fx.t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(5 * time.Second):
		fx.t.Fatal("the long poll did not return")
		return msgPoll{}
	}
}

// epochMillis is a time on the fake's clock as SQS reports message timestamps.
func epochMillis(d time.Duration) string {
	return fmt.Sprint(DefaultStart.Add(d).UnixMilli())
}

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func bodiesOf(msgs []types.Message) []string {
	var out []string
	for _, m := range msgs {
		out = append(out, aws.ToString(m.Body))
	}
	return out
}

const (
	awsTrace          = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	awsTraceMD5       = "5ae4d5d7636402d80f4eb6d213245a88" // SPEC §9.3 [AWS]
	myAttributeMD5    = "adb59cd4678ea5a855436b949cd07ab6" // {MyAttribute: String "foobar"} [AWS]
	allowedCharsTail  = "the set of allowed characters is #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]."
	uuidV4Pattern     = `^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`
	receiptNotValidFm = `The input receipt handle "%s" is not a valid receipt handle.`
	receiptOtherQFm   = `The receipt handle "%s" is not valid for this queue.`
	cmvGoneFm         = "Value %s for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change."
	cmvGoneEntry      = "Message does not exist or is not available for visibility timeout change" // no period
)

func traceSys(value string) map[string]types.MessageSystemAttributeValue {
	return map[string]types.MessageSystemAttributeValue{
		"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String(value)},
	}
}

func myAttribute() map[string]types.MessageAttributeValue {
	return map[string]types.MessageAttributeValue{"MyAttribute": {DataType: aws.String("String"), StringValue: aws.String("foobar")}}
}

// sqsErrWant is a service error as a caller of the real client sees it.
type sqsErrWant struct {
	code   string // ErrorCode(): the legacy query code
	status int    // HTTP status
	msg    string // ErrorMessage()
}

func invalidParameterValue(msg string) sqsErrWant {
	return sqsErrWant{"InvalidParameterValue", 400, msg}
}

// requireSQSAPIError asserts that err is the service error want of operation op, reached
// with errors.As as T (a typed error of the types package, or *smithy.GenericAPIError for
// unmodeled codes), inside *awshttp.ResponseError with the HTTP status, inside
// *smithy.OperationError, with the SDK's exact Error() text.
func requireSQSAPIError[T smithy.APIError](t *testing.T, err error, op string, want sqsErrWant) T {
	t.Helper()
	require.Error(t, err, "want %s: %s", want.code, want.msg)
	var opErr *smithy.OperationError
	require.ErrorAs(t, err, &opErr)
	assert.Equal(t, "SQS", opErr.ServiceID)
	assert.Equal(t, op, opErr.OperationName)
	var respErr *awshttp.ResponseError
	require.ErrorAs(t, err, &respErr)
	assert.Equal(t, want.status, respErr.HTTPStatusCode())
	require.NotEmpty(t, respErr.ServiceRequestID())
	var apiErr T
	require.ErrorAs(t, err, &apiErr, "error is %T: %v", errors.Unwrap(errors.Unwrap(err)), err)
	assert.Equal(t, want.code, apiErr.ErrorCode())
	assert.Equal(t, want.msg, apiErr.ErrorMessage())
	assert.Equal(t, smithy.FaultClient, apiErr.ErrorFault())
	inner := want.code + ": " + want.msg
	if _, generic := any(apiErr).(*smithy.GenericAPIError); generic {
		inner = "api error " + inner
	}
	assert.Equal(t, fmt.Sprintf("operation error SQS: %s, https response error StatusCode: %d, RequestID: %s, %s",
		op, want.status, respErr.ServiceRequestID(), inner), err.Error())
	return apiErr
}

// ---------------------------------------------------------------------------------------
// SendMessage

func TestSendMessageReturnsMessageIDAndBodyMD5(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	out := fx.send(q, "message")
	require.Regexp(t, uuidV4Pattern, aws.ToString(out.MessageId))
	assert.Equal(t, &sqs.SendMessageOutput{
		MessageId:        out.MessageId,
		MD5OfMessageBody: aws.String("78e731027d8fd50ed642340b7c9a63b3"), // SPEC §9.3 [AWS]
	}, out)

	second := fx.send(q, "message")
	assert.NotEqual(t, aws.ToString(out.MessageId), aws.ToString(second.MessageId), "every message gets its own id")
	got := fx.receive(q, 10, 0)
	require.Len(t, got, 2)
	assert.Equal(t, out.MessageId, got[0].MessageId, "the id sent is the id received")
	assert.Equal(t, second.MessageId, got[1].MessageId)
}

func TestSendMessageDigestsOfAttributesOnlyWhenSent(t *testing.T) {
	tests := []struct {
		name    string
		attrs   map[string]types.MessageAttributeValue
		sys     map[string]types.MessageSystemAttributeValue
		wantOut sqs.SendMessageOutput
	}{
		{name: "neither", wantOut: sqs.SendMessageOutput{}},
		{name: "empty maps", attrs: map[string]types.MessageAttributeValue{}, sys: map[string]types.MessageSystemAttributeValue{},
			wantOut: sqs.SendMessageOutput{}},
		{name: "message attributes", attrs: myAttribute(),
			wantOut: sqs.SendMessageOutput{MD5OfMessageAttributes: aws.String(myAttributeMD5)}},
		{name: "system attributes", sys: traceSys(awsTrace),
			wantOut: sqs.SendMessageOutput{MD5OfMessageSystemAttributes: aws.String(awsTraceMD5)}},
		{name: "both", attrs: myAttribute(), sys: traceSys(awsTrace),
			wantOut: sqs.SendMessageOutput{MD5OfMessageAttributes: aws.String(myAttributeMD5), MD5OfMessageSystemAttributes: aws.String(awsTraceMD5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			out := fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("hello"),
				MessageAttributes: tt.attrs, MessageSystemAttributes: tt.sys})
			want := tt.wantOut
			want.MessageId = out.MessageId
			want.MD5OfMessageBody = aws.String(md5Of("hello"))
			assert.Equal(t, &want, out)
		})
	}
}

func TestSendMessageTraceHeaderIsReceivedAsSystemAttribute(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("traced"), MessageSystemAttributes: traceSys(awsTrace)})
	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAWSTraceHeader}})
	require.Len(t, m, 1)
	assert.Equal(t, map[string]string{"AWSTraceHeader": awsTrace}, m[0].Attributes)
	assert.Nil(t, m[0].MessageAttributes, "a system attribute is not a message attribute")
	assert.Nil(t, m[0].MD5OfMessageAttributes)
}

func TestSendMessageGroupIDOnStandardQueueIsEchoedAsSystemAttribute(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	out := fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("tenant"), MessageGroupId: aws.String("tenant-1")})
	assert.Nil(t, out.SequenceNumber, "standard queues have no sequence numbers")
	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll}})
	require.Len(t, m, 1)
	assert.Equal(t, "tenant-1", m[0].Attributes["MessageGroupId"])
	assert.NotContains(t, m[0].Attributes, "SequenceNumber")
	assert.NotContains(t, m[0].Attributes, "MessageDeduplicationId")

	// Any 1–128 alphanumeric or punctuation characters are a valid group id.
	punct := "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"
	for _, id := range []string{"a", strings.Repeat("g", 128), punct} {
		fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("ok"), MessageGroupId: aws.String(id)})
	}
}

func TestSendMessageRejectsInvalidGroupID(t *testing.T) {
	for _, id := range []string{"", strings.Repeat("g", 129), "with space", "tab\tid", "é"} {
		t.Run(id, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"), MessageGroupId: aws.String(id)})
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", invalidParameterValue(
				"Value "+id+" for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."))
			fx.requireCounts(q, 0, 0, 0)
		})
	}
}

func TestSendMessageRejectsDeduplicationIDOnStandardQueue(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d1")})
	requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", invalidParameterValue(
		"Value d1 for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type."))
	fx.requireCounts(q, 0, 0, 0)
}

func TestSendMessageDelayZeroMeansQueueDefaultAndPerMessageDelayOverrides(t *testing.T) {
	tests := []struct {
		name         string
		queueDelay   string
		messageDelay int32
		visibleAfter time.Duration
	}{
		{"no delay", "0", 0, 0},
		{"message delay", "0", 10, 10 * time.Second},
		{"queue delay", "30", 0, 30 * time.Second},
		{"shorter message delay overrides", "30", 5, 5 * time.Second},
		{"longer message delay overrides", "30", 60, 60 * time.Second},
		{"maximum", "0", 900, 900 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", map[string]string{"DelaySeconds": tt.queueDelay})
			fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("later"), DelaySeconds: tt.messageDelay})
			if tt.visibleAfter == 0 {
				fx.requireCounts(q, 1, 0, 0)
				require.Len(t, fx.receive(q, 1, 0), 1)
				return
			}
			fx.requireCounts(q, 0, 0, 1)
			fx.advance(tt.visibleAfter - time.Nanosecond)
			assert.Empty(t, fx.receive(q, 10, 0), "still delayed 1 ns before the delay ends")
			fx.requireCounts(q, 0, 0, 1)
			fx.advance(time.Nanosecond)
			fx.requireCounts(q, 1, 0, 0)
			m := fx.receive(q, 10, 0)
			require.Len(t, m, 1)
			assert.Equal(t, "later", aws.ToString(m[0].Body))
		})
	}
}

func TestSendMessageRejectsDelayOutOfRange(t *testing.T) {
	for _, delay := range []int32{-1, 901, -900, 1 << 30} {
		t.Run(fmt.Sprint(delay), func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"), DelaySeconds: delay})
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", invalidParameterValue(
				fmt.Sprintf("Value %d for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900.", delay)))
			fx.requireCounts(q, 0, 0, 0)
		})
	}
}

func TestSendMessageRejectsEmptyBodyAsMissingParameter(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("")})
	requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", sqsErrWant{"MissingParameter", 400,
		"The request must contain the parameter MessageBody."})
	fx.requireCounts(q, 0, 0, 0)
}

func TestSendMessageRejectsInvalidCharactersAsInvalidMessageContents(t *testing.T) {
	tests := []struct{ body, char string }{
		{"bell\a", "#x7"},
		{"nul\x00", "#x0"},
		{"\x1b[0m", "#x1B"},
		{"vt\v", "#xB"},
		{"first \x01 then \x02", "#x1"},
		{"nonchar \uFFFE", "#xFFFE"},
		{"nonchar \uFFFF", "#xFFFF"},
	}
	for _, tt := range tests {
		t.Run(tt.char, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(tt.body)})
			requireSQSAPIError[*types.InvalidMessageContents](t, err, "SendMessage", sqsErrWant{"InvalidMessageContents", 400,
				"Invalid binary character '" + tt.char + "' was found in the message body, " + allowedCharsTail})
			fx.requireCounts(q, 0, 0, 0)
		})
	}
	// The allowed set's edges.
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	for _, body := range []string{"\t\n\r", " ~", "\u007f\u0080", "\uD7FF", "\uE000", "\uFFFD", "\U00010000", "\U0010FFFF"} {
		fx.send(q, body)
	}
	fx.requireCounts(q, 8, 0, 0)
}

func TestSendMessageSizeLimitCountsBodyAndAttributes(t *testing.T) {
	str := func(name, value string) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: {DataType: aws.String("String"), StringValue: aws.String(value)}}
	}
	bin := func(name string, n int) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: {DataType: aws.String("Binary"), BinaryValue: bytes.Repeat([]byte{1}, n)}}
	}
	tests := []struct {
		name    string
		maxSize string
		body    string
		attrs   map[string]types.MessageAttributeValue
		sys     map[string]types.MessageSystemAttributeValue
		tooBig  bool
	}{
		{"body exactly at the limit", "1024", strings.Repeat("x", 1024), nil, nil, false},
		{"body one over", "1024", strings.Repeat("x", 1025), nil, nil, true},
		{"multi-byte body at the limit", "1024", strings.Repeat("é", 512), nil, nil, false},
		{"multi-byte body one character over", "1024", strings.Repeat("é", 513), nil, nil, true},
		// 1000 + len("n") + len("String") + 17 = 1024
		{"string attribute reaches the limit", "1024", strings.Repeat("x", 1000), str("n", strings.Repeat("v", 17)), nil, false},
		{"string attribute one over", "1024", strings.Repeat("x", 1000), str("n", strings.Repeat("v", 18)), nil, true},
		// 1000 + len("b") + len("Binary") + 17 = 1024
		{"binary attribute reaches the limit", "1024", strings.Repeat("x", 1000), bin("b", 17), nil, false},
		{"binary attribute one over", "1024", strings.Repeat("x", 1000), bin("b", 18), nil, true},
		{"system attributes do not count", "1024", strings.Repeat("x", 1024), nil, traceSys(awsTrace), false},
		{"default limit exactly", "", strings.Repeat("x", 1048576), nil, nil, false},
		{"default limit one over", "", strings.Repeat("x", 1048577), nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			var attrs map[string]string
			limit := "1048576"
			if tt.maxSize != "" {
				attrs = map[string]string{"MaximumMessageSize": tt.maxSize}
				limit = tt.maxSize
			}
			q := fx.queue("q", attrs)
			_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(tt.body),
				MessageAttributes: tt.attrs, MessageSystemAttributes: tt.sys})
			if !tt.tooBig {
				require.NoError(t, err)
				fx.requireCounts(q, 1, 0, 0)
				return
			}
			requireSQSAPIError[*smithy.GenericAPIError](t, err, "SendMessage", invalidParameterValue(
				"One or more parameters are invalid. Reason: Message must be shorter than "+limit+" bytes."))
			fx.requireCounts(q, 0, 0, 0)
		})
	}
}

func TestSendMessageToMissingQueueIsQueueDoesNotExist(t *testing.T) {
	fx := newMsgFixture(t)
	_, err := fx.f.SendMessage(fx.ctx, &sqs.SendMessageInput{
		QueueUrl: aws.String("https://sqs.us-east-1.amazonaws.com/123456789012/nope"), MessageBody: aws.String("x")})
	requireSQSAPIError[*types.QueueDoesNotExist](t, err, "SendMessage", sqsErrWant{"AWS.SimpleQueueService.NonExistentQueue", 400,
		"The specified queue does not exist."})
}

func TestSendMessageDoesNotRetainTheInput(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	attrs := map[string]types.MessageAttributeValue{
		"s": {DataType: aws.String("String"), StringValue: aws.String("value")},
		"b": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2, 3}},
	}
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"), MessageAttributes: attrs})
	*attrs["s"].StringValue = "changed"
	attrs["b"].BinaryValue[0] = 9
	attrs["new"] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("n")}

	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageAttributeNames: []string{"All"}, VisibilityTimeout: 1})
	require.Len(t, m, 1)
	want := map[string]types.MessageAttributeValue{
		"s": {DataType: aws.String("String"), StringValue: aws.String("value")},
		"b": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2, 3}},
	}
	assert.Equal(t, want, m[0].MessageAttributes)

	// Nor is the output shared with the fake.
	*m[0].MessageAttributes["s"].StringValue = "mutated"
	m[0].MessageAttributes["b"].BinaryValue[1] = 7
	fx.advance(time.Second)
	again := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageAttributeNames: []string{"All"}})
	require.Len(t, again, 1)
	assert.Equal(t, want, again[0].MessageAttributes)
}

// ---------------------------------------------------------------------------------------
// Invalid UTF-8 and the SDK's checksum validation

// stubTransport answers every request with one canned JSON body.
type stubTransport struct{ body []byte }

func (s *stubTransport) Do(*http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: 200,
		Header:     http.Header{"Content-Type": []string{"application/x-amz-json-1.0"}},
		Body:       io.NopCloser(bytes.NewReader(s.body)),
	}, nil
}

// sdkClientAnswering is a real v1.53.0 client whose server answers with reply, so the SDK's
// own checksum middleware judges it.
func sdkClientAnswering(t *testing.T, reply any) *sqs.Client {
	t.Helper()
	b, err := json.Marshal(reply)
	require.NoError(t, err)
	return sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://sqs.test"),
		Credentials:  aws.AnonymousCredentials{},
		HTTPClient:   &stubTransport{body: b},
		Retryer:      aws.NopRetryer{},
	})
}

func disableChecksums(o *sqs.Options) { o.DisableMessageChecksumValidation = true }

func TestSendMessageInvalidUTF8BodyFailsTheSDKChecksumUnlessDisabled(t *testing.T) {
	const raw = "ok\xffbody\xc3"
	const stored = "ok\uFFFDbody\uFFFD"

	// What the service answers, seen with the check turned off per call.
	off := newMsgFixture(t)
	qOff := off.queue("q", nil)
	reply, err := off.f.SendMessage(off.ctx, &sqs.SendMessageInput{QueueUrl: qOff, MessageBody: aws.String(raw)}, disableChecksums)
	require.NoError(t, err)
	assert.Equal(t, md5Of(stored), aws.ToString(reply.MD5OfMessageBody), "SQS hashes the text it received")

	// The same call with the check on: the real client's exact error, message enqueued anyway.
	on := newMsgFixture(t)
	qOn := on.queue("q", nil)
	out, err := on.f.SendMessage(on.ctx, &sqs.SendMessageInput{QueueUrl: qOn, MessageBody: aws.String(raw)})
	require.Error(t, err)
	assert.Nil(t, out)
	sdk := sdkClientAnswering(t, map[string]string{"MessageId": *reply.MessageId, "MD5OfMessageBody": *reply.MD5OfMessageBody})
	_, sdkErr := sdk.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: aws.String("q"), MessageBody: aws.String(raw)})
	require.Error(t, sdkErr)
	assert.Equal(t, sdkErr.Error(), err.Error())
	assert.Equal(t, fmt.Sprintf("operation error SQS: SendMessage, message checksum validation failed, message %s has invalid checksum, expected MD5 checksum %s, got %s",
		*reply.MessageId, md5Of(stored), md5Of(raw)), err.Error())
	var opErr *smithy.OperationError
	require.ErrorAs(t, err, &opErr)
	assert.False(t, errors.As(err, new(*awshttp.ResponseError)), "not a service error")
	on.requireCounts(qOn, 1, 0, 0)

	// The check is off for the whole client too.
	whole := newMsgFixture(t)
	whole.f.opts.DisableMessageChecksumValidation = true
	_, err = whole.f.SendMessage(whole.ctx, &sqs.SendMessageInput{QueueUrl: whole.queue("q", nil), MessageBody: aws.String(raw)})
	require.NoError(t, err)

	// Receiving it is fine: body and MD5OfBody agree.
	m := on.receiveOne(qOn, 0)
	assert.Equal(t, stored, aws.ToString(m.Body))
	assert.Equal(t, md5Of(stored), aws.ToString(m.MD5OfBody))
}

func TestSendMessageBatchInvalidUTF8BodiesFailTheSDKChecksumUnlessDisabled(t *testing.T) {
	entries := func() []types.SendMessageBatchRequestEntry {
		return []types.SendMessageBatchRequestEntry{
			{Id: aws.String("a"), MessageBody: aws.String("fine")},
			{Id: aws.String("b"), MessageBody: aws.String("bad\xfe")},
			{Id: aws.String("c"), MessageBody: aws.String("\x80also bad")},
		}
	}
	off := newMsgFixture(t)
	reply, err := off.f.SendMessageBatch(off.ctx, &sqs.SendMessageBatchInput{QueueUrl: off.queue("q", nil), Entries: entries()}, disableChecksums)
	require.NoError(t, err)
	require.Len(t, reply.Successful, 3)

	on := newMsgFixture(t)
	q := on.queue("q", nil)
	out, err := on.f.SendMessageBatch(on.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries()})
	require.Error(t, err)
	assert.Nil(t, out)
	type entry struct{ Id, MessageId, MD5OfMessageBody string }
	var successful []entry
	for _, s := range reply.Successful {
		successful = append(successful, entry{*s.Id, *s.MessageId, *s.MD5OfMessageBody})
	}
	sdk := sdkClientAnswering(t, map[string]any{"Successful": successful})
	_, sdkErr := sdk.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String("q"), Entries: entries()})
	require.Error(t, sdkErr)
	assert.Equal(t, sdkErr.Error(), err.Error())
	assert.Equal(t, "operation error SQS: SendMessageBatch, message checksum validation failed, message checksum errors"+
		fmt.Sprintf("\n\tmessage %s has invalid checksum, expected MD5 checksum %s, got %s", *reply.Successful[1].MessageId, md5Of("bad\uFFFD"), md5Of("bad\xfe"))+
		fmt.Sprintf("\n\tmessage %s has invalid checksum, expected MD5 checksum %s, got %s", *reply.Successful[2].MessageId, md5Of("\uFFFDalso bad"), md5Of("\x80also bad")),
		err.Error())
	on.requireCounts(q, 3, 0, 0)
}

// ---------------------------------------------------------------------------------------
// SendMessageBatch

func batchEntry(id, body string) types.SendMessageBatchRequestEntry {
	return types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(body)}
}

func TestSendMessageBatchWholeRequestErrorsStoreNothing(t *testing.T) {
	many := func(n int) []types.SendMessageBatchRequestEntry {
		var es []types.SendMessageBatchRequestEntry
		for i := range n {
			es = append(es, batchEntry(fmt.Sprint("e", i), "body"))
		}
		return es
	}
	badIDText := "A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."
	half := strings.Repeat("x", 524288)
	tests := []struct {
		name    string
		entries []types.SendMessageBatchRequestEntry
		check   func(t *testing.T, err error)
	}{
		{"no entries", []types.SendMessageBatchRequestEntry{}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.EmptyBatchRequest](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.EmptyBatchRequest", 400,
				"There should be at least one SendMessageBatchRequestEntry in the request."})
		}},
		{"11 entries", many(11), func(t *testing.T, err error) {
			requireSQSAPIError[*types.TooManyEntriesInBatchRequest](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400,
				"Maximum number of entries per request are 10. You have sent 11."})
		}},
		{"11 entries, one of them invalid", append(many(10), batchEntry("bad", "\a")), func(t *testing.T, err error) {
			requireSQSAPIError[*types.TooManyEntriesInBatchRequest](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400,
				"Maximum number of entries per request are 10. You have sent 11."})
		}},
		{"id with a colon", []types.SendMessageBatchRequestEntry{batchEntry("ok", "a"), batchEntry("a:b", "b")}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.InvalidBatchEntryId](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.InvalidBatchEntryId", 400, badIDText})
		}},
		{"empty id", []types.SendMessageBatchRequestEntry{batchEntry("", "a")}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.InvalidBatchEntryId](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.InvalidBatchEntryId", 400, badIDText})
		}},
		{"id of 81 characters", []types.SendMessageBatchRequestEntry{batchEntry(strings.Repeat("i", 81), "a")}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.InvalidBatchEntryId](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.InvalidBatchEntryId", 400, badIDText})
		}},
		{"duplicate ids", []types.SendMessageBatchRequestEntry{batchEntry("x", "a"), batchEntry("y", "b"), batchEntry("x", "c")}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.BatchEntryIdsNotDistinct](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400,
				"Id x repeated."})
		}},
		{"more than 1 MiB in total", []types.SendMessageBatchRequestEntry{batchEntry("a", strings.Repeat("x", 600000)), batchEntry("b", strings.Repeat("y", 600000))}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.BatchRequestTooLong](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.BatchRequestTooLong", 400,
				"Batch requests cannot be longer than 1048576 bytes. You have sent 1200000 bytes."})
		}},
		{"attributes count toward the total", []types.SendMessageBatchRequestEntry{batchEntry("a", half), {Id: aws.String("b"), MessageBody: aws.String(half),
			MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}}}, func(t *testing.T, err error) {
			requireSQSAPIError[*types.BatchRequestTooLong](t, err, "SendMessageBatch", sqsErrWant{"AWS.SimpleQueueService.BatchRequestTooLong", 400,
				"Batch requests cannot be longer than 1048576 bytes. You have sent 1048584 bytes."})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			out, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: tt.entries})
			assert.Nil(t, out)
			tt.check(t, err)
			fx.requireCounts(q, 0, 0, 0, "no message may be stored")
		})
	}
}

func TestSendMessageBatchExactlyOneMiBIsAccepted(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	half := strings.Repeat("x", 524288)
	out, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q,
		Entries: []types.SendMessageBatchRequestEntry{batchEntry("a", half), batchEntry(strings.Repeat("B", 80), half)}})
	require.NoError(t, err)
	assert.Len(t, out.Successful, 2)
	assert.Nil(t, out.Failed)
	fx.requireCounts(q, 2, 0, 0)
}

func TestSendMessageBatchSucceedsWithFailedNilAndPerEntryDigests(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	out, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		batchEntry("plain", "alpha"),
		{Id: aws.String("attrs"), MessageBody: aws.String("beta"), MessageAttributes: myAttribute()},
		{Id: aws.String("trace"), MessageBody: aws.String("gamma"), MessageSystemAttributes: traceSys(awsTrace)},
		{Id: aws.String("group"), MessageBody: aws.String("delta"), MessageGroupId: aws.String("g")},
	}})
	require.NoError(t, err)
	require.Len(t, out.Successful, 4)
	for _, s := range out.Successful {
		require.Regexp(t, uuidV4Pattern, aws.ToString(s.MessageId))
	}
	assert.Equal(t, &sqs.SendMessageBatchOutput{Successful: []types.SendMessageBatchResultEntry{
		{Id: aws.String("plain"), MessageId: out.Successful[0].MessageId, MD5OfMessageBody: aws.String(md5Of("alpha"))},
		{Id: aws.String("attrs"), MessageId: out.Successful[1].MessageId, MD5OfMessageBody: aws.String(md5Of("beta")), MD5OfMessageAttributes: aws.String(myAttributeMD5)},
		{Id: aws.String("trace"), MessageId: out.Successful[2].MessageId, MD5OfMessageBody: aws.String(md5Of("gamma")), MD5OfMessageSystemAttributes: aws.String(awsTraceMD5)},
		{Id: aws.String("group"), MessageId: out.Successful[3].MessageId, MD5OfMessageBody: aws.String(md5Of("delta"))},
	}}, out)

	got := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"AWSTraceHeader", "MessageGroupId"}})
	require.Len(t, got, 4)
	assert.Equal(t, []string{"alpha", "beta", "gamma", "delta"}, bodiesOf(got), "entries are stored in request order")
	for i := range got {
		assert.Equal(t, out.Successful[i].MessageId, got[i].MessageId)
	}
	assert.Equal(t, map[string]string{"AWSTraceHeader": awsTrace}, got[2].Attributes)
	assert.Equal(t, map[string]string{"MessageGroupId": "g"}, got[3].Attributes)
}

func TestSendMessageBatchAppliesPerEntryDelay(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"DelaySeconds": "20"})
	_, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("queueDefault"), MessageBody: aws.String("twenty")},
		{Id: aws.String("five"), MessageBody: aws.String("five"), DelaySeconds: 5},
	}})
	require.NoError(t, err)
	fx.requireCounts(q, 0, 0, 2)
	fx.advance(5 * time.Second)
	fx.requireCounts(q, 1, 0, 1)
	assert.Equal(t, []string{"five"}, bodiesOf(fx.receive(q, 10, 0)))
	fx.advance(15 * time.Second)
	assert.Equal(t, []string{"twenty"}, bodiesOf(fx.receive(q, 10, 0)))
}

func TestSendMessageBatchReportsPerEntryFailuresAndStoresTheRest(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"MaximumMessageSize": "1024"})
	out, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		batchEntry("ok1", "first"),
		batchEntry("badChar", "bell\a"),
		batchEntry("tooBig", strings.Repeat("x", 1025)),
		{Id: aws.String("delay901"), MessageBody: aws.String("x"), DelaySeconds: 901},
		{Id: aws.String("delayNeg"), MessageBody: aws.String("x"), DelaySeconds: -1},
		{Id: aws.String("dedup"), MessageBody: aws.String("x"), MessageDeduplicationId: aws.String("d")},
		{Id: aws.String("group"), MessageBody: aws.String("x"), MessageGroupId: aws.String("")},
		batchEntry("empty", ""),
		{Id: aws.String("attr"), MessageBody: aws.String("x"), MessageAttributes: map[string]types.MessageAttributeValue{
			"k": {DataType: aws.String("String"), StringValue: aws.String("")}}},
		batchEntry("ok2", strings.Repeat("y", 1024)),
	}})
	require.NoError(t, err)
	require.Len(t, out.Successful, 2)
	assert.Equal(t, []types.SendMessageBatchResultEntry{
		{Id: aws.String("ok1"), MessageId: out.Successful[0].MessageId, MD5OfMessageBody: aws.String(md5Of("first"))},
		{Id: aws.String("ok2"), MessageId: out.Successful[1].MessageId, MD5OfMessageBody: aws.String(md5Of(strings.Repeat("y", 1024)))},
	}, out.Successful)
	failed := func(id, code, msg string) types.BatchResultErrorEntry {
		return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), Message: aws.String(msg), SenderFault: true}
	}
	assert.Equal(t, []types.BatchResultErrorEntry{
		failed("badChar", "InvalidMessageContents", "Invalid binary character '#x7' was found in the message body, "+allowedCharsTail),
		failed("tooBig", "InvalidParameterValue", "One or more parameters cannot be validated. Reason: Message must be shorter than 1024 bytes."),
		failed("delay901", "InvalidParameterValue", "Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."),
		failed("delayNeg", "InvalidParameterValue", "Value -1 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."),
		failed("dedup", "InvalidParameterValue", "Value d for parameter MessageDeduplicationId is invalid. Reason: The request include parameter that is not valid for this queue type."),
		failed("group", "InvalidParameterValue", "Value  for parameter MessageGroupId is invalid. Reason: MessageGroupId can only include alphanumeric and punctuation characters. 1 to 128 in length."),
		// The batch reports a missing parameter as InvalidParameterValue with SendMessage's
		// message, as AWS does for a FIFO entry without MessageGroupId (SPEC.md §5.9, §11.3).
		failed("empty", "InvalidParameterValue", "The request must contain the parameter MessageBody."),
		failed("attr", "InvalidParameterValue", "Message (user) attribute 'k' must contain a non-empty value of type 'String'."),
	}, out.Failed)
	fx.requireCounts(q, 2, 0, 0)
	assert.Equal(t, []string{"first", strings.Repeat("y", 1024)}, bodiesOf(fx.receive(q, 10, 0)))
}

func TestSendMessageBatchAllEntriesFailing(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	out, err := fx.f.SendMessageBatch(fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		batchEntry("a", "\a"), batchEntry("b", "\b"),
	}})
	require.NoError(t, err, "per-entry failures are not a request error")
	assert.Empty(t, out.Successful)
	assert.Len(t, out.Failed, 2)
	fx.requireCounts(q, 0, 0, 0)
}

// ---------------------------------------------------------------------------------------
// DeleteMessage

func TestDeleteMessageWithStaleHandleDeletesOnStandardQueue(t *testing.T) {
	t.Run("visibility expired, not received again", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", nil)
		fx.send(q, "x")
		m := fx.receiveOne(q, 10)
		fx.advance(10 * time.Second)
		fx.requireCounts(q, 1, 0, 0)
		fx.delete(q, m.ReceiptHandle)
		fx.requireCounts(q, 0, 0, 0)
		assert.Empty(t, fx.receive(q, 10, 0))
	})
	t.Run("older handle while in flight under a newer one", func(t *testing.T) {
		fx := newMsgFixture(t)
		q := fx.queue("q", nil)
		fx.send(q, "x")
		first := fx.receiveOne(q, 10)
		fx.advance(10 * time.Second)
		second := fx.receiveOne(q, 100)
		require.NotEqual(t, *first.ReceiptHandle, *second.ReceiptHandle)
		fx.delete(q, first.ReceiptHandle) // UNVERIFIED on AWS (SPEC §5.11); documented: it deletes
		fx.requireCounts(q, 0, 0, 0)
		fx.delete(q, second.ReceiptHandle)
	})
}

func TestDeleteMessageRepeatedlySucceeds(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)
	for range 3 {
		fx.delete(q, m.ReceiptHandle)
	}
	fx.requireCounts(q, 0, 0, 0)
}

func TestDeleteMessageRejectsGarbageHandle(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)
	other := newMsgFixture(t, WithSeed(42)) // same shape, sealed with another seed
	oq := other.queue("q", nil)
	other.send(oq, "x")
	foreign := other.receiveOne(oq, 0)
	h := *m.ReceiptHandle
	for _, handle := range []string{"garbage", "", "AQEB", h[:len(h)-1], h + "A", h[:10] + "!" + h[11:], *foreign.ReceiptHandle} {
		_, err := fx.f.DeleteMessage(fx.ctx, &sqs.DeleteMessageInput{QueueUrl: q, ReceiptHandle: aws.String(handle)})
		requireSQSAPIError[*types.ReceiptHandleIsInvalid](t, err, "DeleteMessage", sqsErrWant{"ReceiptHandleIsInvalid", 404,
			fmt.Sprintf(receiptNotValidFm, handle)})
	}
	fx.requireCounts(q, 0, 1, 0)
}

func TestDeleteMessageRejectsHandleOfAnotherQueue(t *testing.T) {
	fx := newMsgFixture(t)
	a := fx.queue("a", nil)
	b := fx.queue("b", nil)
	fx.send(a, "x")
	fx.send(b, "y")
	m := fx.receiveOne(a, 0)
	_, err := fx.f.DeleteMessage(fx.ctx, &sqs.DeleteMessageInput{QueueUrl: b, ReceiptHandle: m.ReceiptHandle})
	requireSQSAPIError[*types.ReceiptHandleIsInvalid](t, err, "DeleteMessage", sqsErrWant{"ReceiptHandleIsInvalid", 404,
		fmt.Sprintf(receiptOtherQFm, *m.ReceiptHandle)})
	fx.requireCounts(a, 0, 1, 0)
	fx.requireCounts(b, 1, 0, 0)
}

func TestDeleteMessageAfterPurgeSucceeds(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)
	_, err := fx.f.PurgeQueue(fx.ctx, &sqs.PurgeQueueInput{QueueUrl: q})
	require.NoError(t, err)
	fx.delete(q, m.ReceiptHandle)
	fx.requireCounts(q, 0, 0, 0)
}

// ---------------------------------------------------------------------------------------
// ChangeMessageVisibility

func TestChangeMessageVisibilityCountsFromTheCall(t *testing.T) {
	tests := []struct {
		name         string
		timeout      int32
		visibleAfter time.Duration // after the call, made 10 s after the receive
	}{
		{"extend", 60, 60 * time.Second},
		{"shorten", 5, 5 * time.Second},
		{"zero makes it visible at once", 0, 0},
		{"one second", 1, time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil) // VisibilityTimeout 30
			fx.send(q, "x")
			m := fx.receiveOne(q, 0)
			fx.advance(10 * time.Second)
			require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, tt.timeout))
			if tt.visibleAfter > 0 {
				fx.advance(tt.visibleAfter - time.Nanosecond)
				fx.requireCounts(q, 0, 1, 0, "1 ns before the new deadline")
				fx.advance(time.Nanosecond)
			}
			fx.requireCounts(q, 1, 0, 0)
			again := fx.receiveOne(q, 0)
			assert.Equal(t, m.MessageId, again.MessageId)
			// The changed value is not remembered: this receive uses the queue's 30 s.
			fx.advance(30*time.Second - time.Nanosecond)
			fx.requireCounts(q, 0, 1, 0)
			fx.advance(time.Nanosecond)
			fx.requireCounts(q, 1, 0, 0)
		})
	}
}

func TestChangeMessageVisibilityCapsTotalAtTwelveHoursFromTheReceive(t *testing.T) {
	total := func(n int32) sqsErrWant {
		return invalidParameterValue(fmt.Sprintf("Value %d for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds].", n))
	}
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)

	require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, 43200), "12 h right at the receive is allowed")
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, 43201), "ChangeMessageVisibility", total(43201))

	fx.advance(100 * time.Second)
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, 43101), "ChangeMessageVisibility", total(43101))
	require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, 43100), "exactly 12 h in total")
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, 43101), "ChangeMessageVisibility", total(43101))

	// The failed calls changed nothing: the deadline is still 100 s + 43100 s after the receive.
	fx.advance(43100*time.Second - time.Nanosecond)
	fx.requireCounts(q, 0, 1, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 1, 0, 0)

	// A new receive starts a new 12 h.
	m = fx.receiveOne(q, 43200)
	fx.advance(43199 * time.Second)
	require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, 1))
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, 2), "ChangeMessageVisibility", total(2))
}

func TestChangeMessageVisibilityRejectsNegativeTimeout(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)
	// UNVERIFIED wording (SPEC §5.13): the receive's range text.
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, -1), "ChangeMessageVisibility",
		invalidParameterValue("Value -1 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."))
	fx.requireCounts(q, 0, 1, 0)
	fx.advance(30 * time.Second)
	fx.requireCounts(q, 1, 0, 0, "the original deadline still holds")
}

func TestChangeMessageVisibilityOfDeletedMessageFails(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 0)
	fx.delete(q, m.ReceiptHandle)
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, m.ReceiptHandle, 10), "ChangeMessageVisibility",
		invalidParameterValue(fmt.Sprintf(cmvGoneFm, *m.ReceiptHandle)))
}

func TestChangeMessageVisibilityAfterExpiryIsANoOp(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	m := fx.receiveOne(q, 10)
	fx.advance(10 * time.Second)
	require.NoError(t, fx.changeVisibility(q, m.ReceiptHandle, 60), "AWS answers 200")
	fx.requireCounts(q, 1, 0, 0, "and the message stays visible")
	assert.Equal(t, m.MessageId, fx.receiveOne(q, 0).MessageId)
}

func TestChangeMessageVisibilityWithOlderHandleStillApplies(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "x")
	first := fx.receiveOne(q, 10)
	fx.advance(10 * time.Second)
	fx.receiveOne(q, 100)
	require.NoError(t, fx.changeVisibility(q, first.ReceiptHandle, 0))
	fx.requireCounts(q, 1, 0, 0)
	m := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
	require.Len(t, m, 1)
	assert.Equal(t, map[string]string{"ApproximateReceiveCount": "3"}, m[0].Attributes)
}

func TestChangeMessageVisibilityRejectsInvalidHandles(t *testing.T) {
	fx := newMsgFixture(t)
	a := fx.queue("a", nil)
	b := fx.queue("b", nil)
	fx.send(a, "x")
	m := fx.receiveOne(a, 0)
	requireSQSAPIError[*types.ReceiptHandleIsInvalid](t, fx.changeVisibility(a, aws.String("garbage"), 10), "ChangeMessageVisibility",
		sqsErrWant{"ReceiptHandleIsInvalid", 404, fmt.Sprintf(receiptNotValidFm, "garbage")})
	requireSQSAPIError[*types.ReceiptHandleIsInvalid](t, fx.changeVisibility(b, m.ReceiptHandle, 10), "ChangeMessageVisibility",
		sqsErrWant{"ReceiptHandleIsInvalid", 404, fmt.Sprintf(receiptOtherQFm, *m.ReceiptHandle)})
	fx.advance(30 * time.Second)
	fx.requireCounts(a, 1, 0, 0, "the original deadline still holds")
}

// ---------------------------------------------------------------------------------------
// Batch delete and change visibility

func TestDeleteAndChangeVisibilityBatchWholeRequestErrors(t *testing.T) {
	type call func(fx *msgFixture, q *string, ids ...string) error
	del := func(fx *msgFixture, q *string, ids ...string) error {
		in := &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{}}
		for _, id := range ids {
			in.Entries = append(in.Entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(id), ReceiptHandle: aws.String("garbage")})
		}
		_, err := fx.f.DeleteMessageBatch(fx.ctx, in)
		return err
	}
	cmv := func(fx *msgFixture, q *string, ids ...string) error {
		in := &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{}}
		for _, id := range ids {
			in.Entries = append(in.Entries, types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(id), ReceiptHandle: aws.String("garbage")})
		}
		_, err := fx.f.ChangeMessageVisibilityBatch(fx.ctx, in)
		return err
	}
	eleven := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"}
	badID := sqsErrWant{"AWS.SimpleQueueService.InvalidBatchEntryId", 400,
		"A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long."}
	for _, op := range []struct {
		name, entry string
		call        call
	}{
		{"DeleteMessageBatch", "DeleteMessageBatchRequestEntry", del},
		{"ChangeMessageVisibilityBatch", "ChangeMessageVisibilityBatchRequestEntry", cmv},
	} {
		t.Run(op.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			requireSQSAPIError[*types.EmptyBatchRequest](t, op.call(fx, q), op.name, sqsErrWant{"AWS.SimpleQueueService.EmptyBatchRequest", 400,
				"There should be at least one " + op.entry + " in the request."})
			requireSQSAPIError[*types.TooManyEntriesInBatchRequest](t, op.call(fx, q, eleven...), op.name, sqsErrWant{"AWS.SimpleQueueService.TooManyEntriesInBatchRequest", 400,
				"Maximum number of entries per request are 10. You have sent 11."})
			requireSQSAPIError[*types.InvalidBatchEntryId](t, op.call(fx, q, "ok", "not ok"), op.name, badID)
			requireSQSAPIError[*types.InvalidBatchEntryId](t, op.call(fx, q, strings.Repeat("x", 81)), op.name, badID)
			requireSQSAPIError[*types.BatchEntryIdsNotDistinct](t, op.call(fx, q, "a", "b", "b"), op.name, sqsErrWant{"AWS.SimpleQueueService.BatchEntryIdsNotDistinct", 400,
				"Id b repeated."})
		})
	}
}

func TestDeleteMessageBatchReportsPerEntryErrors(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	other := fx.queue("other", nil)
	for _, b := range []string{"one", "two", "three"} {
		fx.send(q, b)
	}
	fx.send(other, "foreign")
	msgs := fx.receive(q, 10, 0)
	require.Len(t, msgs, 3)
	foreign := fx.receiveOne(other, 0)
	fx.delete(q, msgs[2].ReceiptHandle)

	out, err := fx.f.DeleteMessageBatch(fx.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("one"), ReceiptHandle: msgs[0].ReceiptHandle},
		{Id: aws.String("garbage"), ReceiptHandle: aws.String("garbage")},
		{Id: aws.String("foreign"), ReceiptHandle: foreign.ReceiptHandle},
		{Id: aws.String("alreadyDeleted"), ReceiptHandle: msgs[2].ReceiptHandle},
	}})
	require.NoError(t, err)
	assert.Equal(t, &sqs.DeleteMessageBatchOutput{
		Successful: []types.DeleteMessageBatchResultEntry{{Id: aws.String("one")}, {Id: aws.String("alreadyDeleted")}},
		Failed: []types.BatchResultErrorEntry{
			{Id: aws.String("garbage"), Code: aws.String("ReceiptHandleIsInvalid"), SenderFault: true,
				Message: aws.String(fmt.Sprintf(receiptNotValidFm, "garbage"))},
			{Id: aws.String("foreign"), Code: aws.String("ReceiptHandleIsInvalid"), SenderFault: true,
				Message: aws.String(fmt.Sprintf(receiptOtherQFm, *foreign.ReceiptHandle))},
		},
	}, out)
	fx.requireCounts(q, 0, 1, 0, "only 'two' is left")
	fx.requireCounts(other, 0, 1, 0)

	all, err := fx.f.DeleteMessageBatch(fx.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("two"), ReceiptHandle: msgs[1].ReceiptHandle},
	}})
	require.NoError(t, err)
	assert.Equal(t, &sqs.DeleteMessageBatchOutput{Successful: []types.DeleteMessageBatchResultEntry{{Id: aws.String("two")}}}, all, "Failed is nil")
	fx.requireCounts(q, 0, 0, 0)
}

func TestChangeMessageVisibilityBatchReportsPerEntryErrorsAndAppliesTheRest(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	for _, b := range []string{"extend", "show", "deleted", "tooLong", "negative"} {
		fx.send(q, b)
	}
	msgs := fx.receive(q, 10, 0)
	require.Len(t, msgs, 5)
	fx.delete(q, msgs[2].ReceiptHandle)
	fx.advance(10 * time.Second)

	entry := func(id string, h *string, vt int32) types.ChangeMessageVisibilityBatchRequestEntry {
		return types.ChangeMessageVisibilityBatchRequestEntry{Id: aws.String(id), ReceiptHandle: h, VisibilityTimeout: vt}
	}
	out, err := fx.f.ChangeMessageVisibilityBatch(fx.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		entry("extend", msgs[0].ReceiptHandle, 100),
		entry("show", msgs[1].ReceiptHandle, 0),
		entry("deleted", msgs[2].ReceiptHandle, 10),
		entry("tooLong", msgs[3].ReceiptHandle, 43191),
		entry("negative", msgs[4].ReceiptHandle, -5),
		entry("garbage", aws.String("garbage"), 10),
	}})
	require.NoError(t, err)
	failed := func(id, code, msg string) types.BatchResultErrorEntry {
		return types.BatchResultErrorEntry{Id: aws.String(id), Code: aws.String(code), Message: aws.String(msg), SenderFault: true}
	}
	assert.Equal(t, &sqs.ChangeMessageVisibilityBatchOutput{
		Successful: []types.ChangeMessageVisibilityBatchResultEntry{{Id: aws.String("extend")}, {Id: aws.String("show")}},
		Failed: []types.BatchResultErrorEntry{
			// Not the single call's InvalidParameterValue: AWS's batch answer (SPEC.md §5.14, §11.4).
			failed("deleted", "ReceiptHandleIsInvalid", cmvGoneEntry),
			failed("tooLong", "InvalidParameterValue", "Value 43191 for parameter VisibilityTimeout is invalid. Reason: Total VisibilityTimeout for the message is beyond the limit [43200 seconds]."),
			failed("negative", "InvalidParameterValue", "Value -5 for parameter VisibilityTimeout is invalid. Reason: Must be >= 0 and <= 43200, if provided."),
			failed("garbage", "ReceiptHandleIsInvalid", fmt.Sprintf(receiptNotValidFm, "garbage")),
		},
	}, out)
	fx.requireCounts(q, 1, 3, 0, "'show' is visible")
	fx.advance(20 * time.Second) // 30 s after the receive: the unchanged ones come back
	fx.requireCounts(q, 3, 1, 0)
	fx.advance(80 * time.Second)
	fx.requireCounts(q, 4, 0, 0)
}

// ---------------------------------------------------------------------------------------
// Delay and retention

func TestQueueDelayChangeIsNotRetroactiveOnStandardQueue(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"DelaySeconds": "60"})
	fx.send(q, "old")
	fx.advance(10 * time.Second)
	fx.setAttrs(q, map[string]string{"DelaySeconds": "0"})
	fx.send(q, "new")
	fx.requireCounts(q, 1, 0, 1)
	assert.Equal(t, []string{"new"}, bodiesOf(fx.receive(q, 10, 300)))
	fx.advance(50*time.Second - time.Nanosecond)
	fx.requireCounts(q, 0, 1, 1, "'old' keeps the delay it was sent with")
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 1, 1, 0)

	fx.setAttrs(q, map[string]string{"DelaySeconds": "900"})
	fx.requireCounts(q, 1, 1, 0, "raising the delay does not hide a visible message")
}

func TestRetentionRemovesMessagesWhateverTheirState(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"MessageRetentionPeriod": "60"})
	fx.send(q, "in flight")
	inFlight := fx.receiveOne(q, 300)
	fx.send(q, "visible")
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("delayed"), DelaySeconds: 120})
	fx.advance(60*time.Second - time.Nanosecond)
	fx.requireCounts(q, 1, 1, 1)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 0, 0, 0, "60 s after the send every message is gone")
	assert.Empty(t, fx.receive(q, 10, 0))
	fx.advance(10 * time.Minute)
	assert.Empty(t, fx.receive(q, 10, 0), "the delayed one never shows up")

	fx.delete(q, inFlight.ReceiptHandle) // deleting an expired message succeeds [AWS]
	requireSQSAPIError[*smithy.GenericAPIError](t, fx.changeVisibility(q, inFlight.ReceiptHandle, 10), "ChangeMessageVisibility",
		invalidParameterValue(fmt.Sprintf(cmvGoneFm, *inFlight.ReceiptHandle)))
}

func TestRetentionCountsFromTheSendNotTheLastReceive(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"MessageRetentionPeriod": "60", "VisibilityTimeout": "20"})
	fx.send(q, "x")
	for range 2 {
		fx.receiveOne(q, 0)
		fx.advance(20 * time.Second)
	}
	fx.receiveOne(q, 0)
	fx.advance(20*time.Second - time.Nanosecond)
	fx.requireCounts(q, 0, 1, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 0, 0, 0)
}

func TestLoweringRetentionExpiresOldMessagesAtOnce(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.send(q, "old")
	fx.advance(100 * time.Second)
	fx.send(q, "new")
	fx.setAttrs(q, map[string]string{"MessageRetentionPeriod": "60"})
	fx.requireCounts(q, 1, 0, 0)
	fx.advance(60*time.Second - time.Nanosecond)
	fx.requireCounts(q, 1, 0, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 0, 0, 0)
}

// ---------------------------------------------------------------------------------------
// Every bad input leaves the queue as it was.

func TestBadInputsLeaveStateUnchanged(t *testing.T) {
	type setup struct {
		fx       *msgFixture
		q, other *string
		handle   *string // the in-flight message's receipt handle
	}
	tests := []struct {
		name string
		call func(s setup) error
	}{
		{"send empty body", func(s setup) error {
			_, err := s.fx.f.SendMessage(s.fx.ctx, &sqs.SendMessageInput{QueueUrl: s.q, MessageBody: aws.String("")})
			return err
		}},
		{"send bad delay", func(s setup) error {
			_, err := s.fx.f.SendMessage(s.fx.ctx, &sqs.SendMessageInput{QueueUrl: s.q, MessageBody: aws.String("x"), DelaySeconds: 901})
			return err
		}},
		{"send bad attribute", func(s setup) error {
			_, err := s.fx.f.SendMessage(s.fx.ctx, &sqs.SendMessageInput{QueueUrl: s.q, MessageBody: aws.String("x"),
				MessageAttributes: map[string]types.MessageAttributeValue{"AWS.x": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
			return err
		}},
		{"send too big", func(s setup) error {
			_, err := s.fx.f.SendMessage(s.fx.ctx, &sqs.SendMessageInput{QueueUrl: s.q, MessageBody: aws.String(strings.Repeat("x", 1048577))})
			return err
		}},
		{"send missing required field", func(s setup) error {
			_, err := s.fx.f.SendMessage(s.fx.ctx, &sqs.SendMessageInput{QueueUrl: s.q})
			return err
		}},
		{"batch duplicate ids", func(s setup) error {
			_, err := s.fx.f.SendMessageBatch(s.fx.ctx, &sqs.SendMessageBatchInput{QueueUrl: s.q,
				Entries: []types.SendMessageBatchRequestEntry{batchEntry("a", "x"), batchEntry("a", "y")}})
			return err
		}},
		{"receive bad max", func(s setup) error {
			_, err := s.fx.f.ReceiveMessage(s.fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: s.q, MaxNumberOfMessages: 11})
			return err
		}},
		{"receive bad visibility", func(s setup) error {
			_, err := s.fx.f.ReceiveMessage(s.fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: s.q, VisibilityTimeout: -1})
			return err
		}},
		{"receive bad wait", func(s setup) error {
			_, err := s.fx.f.ReceiveMessage(s.fx.ctx, &sqs.ReceiveMessageInput{QueueUrl: s.q, WaitTimeSeconds: 21})
			return err
		}},
		{"delete garbage", func(s setup) error {
			_, err := s.fx.f.DeleteMessage(s.fx.ctx, &sqs.DeleteMessageInput{QueueUrl: s.q, ReceiptHandle: aws.String("garbage")})
			return err
		}},
		{"delete with another queue's URL", func(s setup) error {
			_, err := s.fx.f.DeleteMessage(s.fx.ctx, &sqs.DeleteMessageInput{QueueUrl: s.other, ReceiptHandle: s.handle})
			return err
		}},
		{"change visibility beyond 12 h", func(s setup) error { return s.fx.changeVisibility(s.q, s.handle, 43201) }},
		{"change visibility negative", func(s setup) error { return s.fx.changeVisibility(s.q, s.handle, -1) }},
		{"delete batch too many", func(s setup) error {
			var es []types.DeleteMessageBatchRequestEntry
			for i := range 11 {
				es = append(es, types.DeleteMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), ReceiptHandle: s.handle})
			}
			_, err := s.fx.f.DeleteMessageBatch(s.fx.ctx, &sqs.DeleteMessageBatchInput{QueueUrl: s.q, Entries: es})
			return err
		}},
		{"change visibility batch bad id", func(s setup) error {
			_, err := s.fx.f.ChangeMessageVisibilityBatch(s.fx.ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: s.q,
				Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("a.b"), ReceiptHandle: s.handle}}})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			other := fx.queue("other", nil)
			fx.send(q, "in flight")
			m := fx.receiveOne(q, 0)
			fx.send(q, "visible")
			fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("delayed"), DelaySeconds: 60})
			fx.requireCounts(q, 1, 1, 1)

			require.Error(t, tt.call(setup{fx, q, other, m.ReceiptHandle}))

			fx.requireCounts(q, 1, 1, 1)
			fx.requireCounts(other, 0, 0, 0)
			fx.advance(30*time.Second - time.Nanosecond)
			fx.requireCounts(q, 1, 1, 1, "the in-flight deadline is unchanged")
			fx.advance(30*time.Second + time.Nanosecond)
			fx.requireCounts(q, 3, 0, 0)
			got := fx.receiveInput(&sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}})
			// First sent first, whenever each became available.
			assert.Equal(t, []string{"in flight", "visible", "delayed"}, bodiesOf(got))
			assert.Equal(t, []map[string]string{{"ApproximateReceiveCount": "2"}, {"ApproximateReceiveCount": "1"}, {"ApproximateReceiveCount": "1"}},
				[]map[string]string{got[0].Attributes, got[1].Attributes, got[2].Attributes})
		})
	}
}

// ---------------------------------------------------------------------------------------
// Cost

func TestSendReceiveDeleteCycleStaysWithinAllocationBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts")
	}
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	send := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(`{"order":1234}`)}
	recv := &sqs.ReceiveMessageInput{QueueUrl: q}
	del := &sqs.DeleteMessageInput{QueueUrl: q}
	allocs := testing.AllocsPerRun(500, func() {
		if _, err := fx.f.SendMessage(fx.ctx, send); err != nil {
			panic(err)
		}
		out, err := fx.f.ReceiveMessage(fx.ctx, recv)
		if err != nil || len(out.Messages) != 1 {
			panic(fmt.Sprint("receive: ", err))
		}
		del.ReceiptHandle = out.Messages[0].ReceiptHandle
		if _, err := fx.f.DeleteMessage(fx.ctx, del); err != nil {
			panic(err)
		}
	})
	assert.LessOrEqual(t, allocs, 15.0)
	t.Logf("send+receive+delete: %v allocations", allocs)
}

// A batch none of whose entries succeeds answers with Successful nil, not empty, in each of
// the three batch operations: the SDK's answer as SQS's JSON decodes, and what a test that
// compares whole outputs writes.
func TestABatchWithNoSuccessAnswersSuccessfulNil(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	bad := aws.String("garbage")
	sent, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("x"), DelaySeconds: 901}}})
	require.NoError(t, err)
	assert.Nil(t, sent.Successful)
	assert.Len(t, sent.Failed, 1)
	deleted, err := f.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: bad}}})
	require.NoError(t, err)
	assert.Nil(t, deleted.Successful)
	assert.Len(t, deleted.Failed, 1)
	changed, err := f.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
		{Id: aws.String("a"), ReceiptHandle: bad}}})
	require.NoError(t, err)
	assert.Nil(t, changed.Successful)
	assert.Len(t, changed.Failed, 1)
}
