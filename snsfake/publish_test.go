package snsfake_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	sqstypes "github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

func subscribe(t *testing.T, s *snsfake.Fake, topic, queue string, attrs map[string]string) string {
	t.Helper()
	out, err := s.Subscribe(context.Background(), &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue), Attributes: attrs})
	require.NoError(t, err)
	return *out.SubscriptionArn
}

func TestRawDeliveryCarriesTheAttributesAsSQSMessageAttributes(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("body"), Subject: aws.String("dropped"),
		MessageAttributes: map[string]types.MessageAttributeValue{
			"attr1": {DataType: aws.String("Number"), StringValue: aws.String("99.12")},
			"bin":   {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}},
			"list":  {DataType: aws.String("String.Array"), StringValue: aws.String(`["a",1]`)},
		}})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	assert.Equal(t, "body", *msgs[0].Body)
	assert.Equal(t, map[string]sqstypes.MessageAttributeValue{
		"attr1": {DataType: aws.String("Number"), StringValue: aws.String("99.12")},
		"bin":   {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}},
		"list":  {DataType: aws.String("String.Array"), StringValue: aws.String(`["a",1]`)},
	}, msgs[0].MessageAttributes)
}

func TestRawDigestOfOneAttributeIsSQSs(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"),
		MessageAttributes: map[string]types.MessageAttributeValue{"attr1": {DataType: aws.String("Number"), StringValue: aws.String("99.12")}}})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	assert.Equal(t, "d302007e9aa062660afc85fd0a482472", *msgs[0].MD5OfMessageAttributes)
}

func TestMessageStructureJSONSendsTheSQSPart(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	for _, m := range []string{`{"default":"d","sqs":"for sqs"}`, `{"default":"d","sqs":{"not":"a string"}}`} {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(m), MessageStructure: aws.String("json")})
		require.NoError(t, err)
	}
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 2)
	assert.Equal(t, "for sqs", *msgs[0].Body)
	assert.Equal(t, "d", *msgs[1].Body)
}

func TestPublishRefusesAsSNSDoes(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	std, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	fifo, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	attr := func(name, typ, value string) map[string]types.MessageAttributeValue {
		return map[string]types.MessageAttributeValue{name: {DataType: aws.String(typ), StringValue: aws.String(value)}}
	}
	tests := []struct {
		name          string
		in            sns.PublishInput
		code, message string
	}{
		{"empty", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("")}, "InvalidParameter", "Invalid parameter: Empty message"},
		{"too long", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String(strings.Repeat("x", 262145))}, "InvalidParameter", "Invalid parameter: Message too long"},
		{"too long with attributes", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String(strings.Repeat("x", 262140)), MessageAttributes: attr("a", "String", "v")}, "InvalidParameter", "Invalid parameter: Message too long"},
		{"empty subject", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), Subject: aws.String("")}, "InvalidParameter", "Invalid parameter: Subject"},
		{"subject with a newline", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), Subject: aws.String("a\nb")}, "InvalidParameter", "Invalid parameter: Subject"},
		{"json without default", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String(`{"sqs":"x"}`), MessageStructure: aws.String("json")}, "InvalidParameter", "Invalid parameter: Message Structure - No default entry in JSON message body"},
		{"json not json", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String(`nope`), MessageStructure: aws.String("json")}, "InvalidParameter", "Invalid parameter: Message Structure - JSON message body failed to parse"},
		{"fifo without group", sns.PublishInput{TopicArn: fifo.TopicArn, Message: aws.String("m")}, "InvalidParameter", "Invalid parameter: The MessageGroupId parameter is required for FIFO topics"},
		{"fifo without dedup", sns.PublishInput{TopicArn: fifo.TopicArn, Message: aws.String("m"), MessageGroupId: aws.String("g")}, "InvalidParameter", "Invalid parameter: The topic should either have ContentBasedDeduplication enabled or MessageDeduplicationId provided explicitly"},
		{"standard with dedup", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageDeduplicationId: aws.String("d")}, "InvalidParameter", "Invalid parameter: MessageDeduplicationId Reason: The request includes MessageDeduplicationId parameter that is not valid for this topic type"},
		{"phone number", sns.PublishInput{PhoneNumber: aws.String("12"), Message: aws.String("m")}, "InvalidParameter", "Invalid parameter: PhoneNumber Reason: 12 is not valid to publish to"},
		{"endpoint target", sns.PublishInput{TargetArn: aws.String("arn:aws:sns:us-east-1:123456789012:endpoint/APNS/app/1"), Message: aws.String("m")}, "InvalidParameter", "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified"},
		{"other region", sns.PublishInput{TopicArn: aws.String("arn:aws:sns:eu-west-1:123456789012:t"), Message: aws.String("m")}, "InvalidParameter", "Invalid parameter: TopicArn"},
		{"attribute name", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("a^b", "String", "v")}, "ParameterValueInvalid", "Invalid non-alphanumeric character '#x5E' was found in the message attribute name. Can only include alphanumeric characters, hyphens, underscores, or dots."},
		{"attribute starts with a dot", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr(".a", "String", "v")}, "ParameterValueInvalid", "Invalid message attribute name starting with character '.' was found."},
		{"attribute ends with a dot", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("a.", "String", "v")}, "ParameterValueInvalid", "Invalid message attribute name ending with character '.' was found."},
		{"successive dots", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("a..b", "String", "v")}, "ParameterValueInvalid", "Message attribute name can not have successive '.' character."},
		{"long name", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr(strings.Repeat("a", 257), "String", "v")}, "ParameterValueInvalid", "Length of message attribute name must be less than 256 bytes."},
		{"bad type", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("attr1", "Stringx", "v")}, "ParameterValueInvalid", "The message attribute 'attr1' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."},
		{"bad custom type", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("attr1", "String.", "v")}, "ParameterValueInvalid", "The message attribute 'attr1' has an invalid message attribute type, the set of supported type prefixes is Binary, Number, and String."},
		{"empty value", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("attr1", "String", "")}, "ParameterValueInvalid", "The message attribute 'attr1' must contain non-empty message attribute value for message attribute type 'String'."},
		{"binary in string", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: map[string]types.MessageAttributeValue{"attr1": {DataType: aws.String("Number"), BinaryValue: []byte{1}}}}, "ParameterValueInvalid", "The message attribute 'attr1' with type 'Number' must use field 'String'."},
		{"string in binary", sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: map[string]types.MessageAttributeValue{"attr1": {DataType: aws.String("Binary"), StringValue: aws.String("x")}}}, "ParameterValueInvalid", "The message attribute 'attr1' with type 'Binary' must use field 'Binary'."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Publish(ctx, &tt.in)
			requireSNSError(t, err, tt.code, tt.message)
		})
	}
	// Exactly 262,144 bytes pass; String.  x. is a valid custom type; a standard topic takes a group id.
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String(strings.Repeat("x", 262144))})
	assert.NoError(t, err)
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: std.TopicArn, Message: aws.String("m"), MessageAttributes: attr("a", "String.  x.", "v")})
	assert.NoError(t, err)
	_, err = s.Publish(ctx, &sns.PublishInput{TargetArn: std.TopicArn, Message: aws.String("m"), MessageGroupId: aws.String("g")})
	assert.NoError(t, err)
	assert.Len(t, published(t, s, *std.TopicArn), 3, "refused publishes are not publications")
}

func TestPublishBatchRefusesTheWholeBatch(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	e := func(id, msg string) types.PublishBatchRequestEntry {
		return types.PublishBatchRequestEntry{Id: aws.String(id), Message: aws.String(msg)}
	}
	var eleven []types.PublishBatchRequestEntry
	for i := range 11 {
		eleven = append(eleven, e(string(rune('a'+i)), "m"))
	}
	tests := []struct {
		entries       []types.PublishBatchRequestEntry
		code, message string
	}{
		{[]types.PublishBatchRequestEntry{}, "EmptyBatchRequest", "The batch request doesn't contain any entries."},
		{eleven, "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."},
		{[]types.PublishBatchRequestEntry{e("a", "m"), e("a", "n")}, "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."},
		{[]types.PublishBatchRequestEntry{e("a b", "m")}, "InvalidBatchEntryId", "The Id of a batch entry in the batch request contains an impermissible character: a b"},
		{[]types.PublishBatchRequestEntry{e(strings.Repeat("a", 81), "m")}, "InvalidBatchEntryId", "The Id of a batch entry in the batch request is too long: " + strings.Repeat("a", 81)},
		{[]types.PublishBatchRequestEntry{e("a", "m"), e("b", "")}, "InvalidParameter", "Invalid parameter: Empty message"},
		{[]types.PublishBatchRequestEntry{e("a", strings.Repeat("x", 200000)), e("b", strings.Repeat("x", 100000))}, "BatchRequestTooLong", "The length of all the messages put together is more than the limit."},
	}
	for _, tt := range tests {
		_, err := s.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: tp.TopicArn, PublishBatchRequestEntries: tt.entries})
		requireSNSError(t, err, tt.code, tt.message)
	}
	assert.Empty(t, published(t, s, ""), "nothing of a refused batch is published")
	out, err := s.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: tp.TopicArn, PublishBatchRequestEntries: []types.PublishBatchRequestEntry{e("one", "1"), e("two", "2")}})
	require.NoError(t, err)
	require.Len(t, out.Successful, 2)
	assert.Equal(t, "one", *out.Successful[0].Id)
	assert.Equal(t, "two", *out.Successful[1].Id)
	assert.Equal(t, []types.BatchResultErrorEntry{}, out.Failed)
}

func TestFIFOTopicKeepsOrderDeduplicatesAndCarriesIDs(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}, "q.fifo")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	first, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("Test"), MessageGroupId: aws.String("g")})
	require.NoError(t, err)
	require.NotNil(t, first.SequenceNumber)
	assert.Len(t, *first.SequenceNumber, 20)
	dup, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("Test"), MessageGroupId: aws.String("other")})
	require.NoError(t, err)
	assert.Equal(t, *first.MessageId, *dup.MessageId, "a duplicate returns the first MessageId")
	assert.Equal(t, *first.SequenceNumber, *dup.SequenceNumber)
	second, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("Two"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("id-2")})
	require.NoError(t, err)
	assert.Greater(t, *second.SequenceNumber, *first.SequenceNumber)

	msgs := receiveAll(t, s.SQS(), "q.fifo")
	require.Len(t, msgs, 2)
	assert.Equal(t, "Test", *msgs[0].Body)
	assert.Equal(t, "g", msgs[0].Attributes["MessageGroupId"])
	assert.Equal(t, "532eaabd9574880dbf76b9b8cc00832c20a6ec113d682299550d7a6e0f345e25", msgs[0].Attributes["MessageDeduplicationId"])
	assert.Equal(t, "Two", *msgs[1].Body)
	assert.Equal(t, "id-2", msgs[1].Attributes["MessageDeduplicationId"])
	pubs := published(t, s, topic)
	require.Len(t, pubs, 3)
	assert.True(t, pubs[1].Duplicate)
	assert.Empty(t, pubs[1].Deliveries)

	// After the 5-minute window the same content is a new message.
	s.SQS().Advance(5 * time.Minute)
	again, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("Test"), MessageGroupId: aws.String("g")})
	require.NoError(t, err)
	assert.NotEqual(t, *first.MessageId, *again.MessageId)
}

func TestFIFOEnvelopeHasASequenceNumberAndNoSignature(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t.fifo", map[string]string{"FifoTopic": "true"}, "q.fifo")
	sub := subscribe(t, s, topic, queue, nil)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"), MessageGroupId: aws.String("g"), MessageDeduplicationId: aws.String("d")})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q.fifo")
	require.Len(t, msgs, 1)
	assert.Equal(t, "{\n"+
		`  "Type" : "Notification",`+"\n"+
		`  "MessageId" : "`+*out.MessageId+`",`+"\n"+
		`  "SequenceNumber" : "`+*out.SequenceNumber+`",`+"\n"+
		`  "TopicArn" : "`+topic+`",`+"\n"+
		`  "Message" : "m",`+"\n"+
		`  "Timestamp" : "2025-01-01T00:00:00.000Z",`+"\n"+
		`  "UnsubscribeURL" : "https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=`+sub+`"`+"\n}", *msgs[0].Body)
}

func TestStandardTopicForwardsTheGroupAndAFIFOTopicFeedsStandardQueuesWithout(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"), MessageGroupId: aws.String("tenant-1")})
	require.NoError(t, err)
	msgs := receiveAll(t, s.SQS(), "q")
	require.Len(t, msgs, 1)
	assert.Equal(t, "tenant-1", msgs[0].Attributes["MessageGroupId"])

	s2, fifoTopic, stdQueue := setup(t, "f.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}, "std")
	subscribe(t, s2, fifoTopic, stdQueue, map[string]string{"RawMessageDelivery": "true"})
	_, err = s2.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(fifoTopic), Message: aws.String("m"), MessageGroupId: aws.String("g")})
	require.NoError(t, err)
	msgs = receiveAll(t, s2.SQS(), "std")
	require.Len(t, msgs, 1)
	assert.NotContains(t, msgs[0].Attributes, "MessageGroupId")
	assert.NotContains(t, msgs[0].Attributes, "MessageDeduplicationId")
}

func TestDeliveryFollowsTheQueuePolicy(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	f := s.SQS()
	// A queue of the topic's own account without a policy: SNS is refused, silently.
	bare, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bare")})
	require.NoError(t, err)
	bareArn := "arn:aws:sqs:us-east-1:123456789012:bare"
	// A queue whose policy names another topic.
	otherArn := "arn:aws:sqs:us-east-1:123456789012:other"
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other"),
		Attributes: map[string]string{"Policy": snsfake.QueuePolicy(otherArn, "arn:aws:sns:us-east-1:123456789012:elsewhere")}})
	require.NoError(t, err)
	subscribe(t, s, topic, queue, nil)
	subscribe(t, s, topic, bareArn, nil)
	subscribe(t, s, topic, otherArn, nil)
	subscribe(t, s, topic, "arn:aws:sqs:us-east-1:123456789012:missing", nil)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
	require.NoError(t, err, "Publish succeeds whatever becomes of the deliveries")

	p := publication(t, s, *out.MessageId)
	require.Len(t, p.Deliveries, 4)
	outcomes := map[string]string{}
	for _, d := range p.Deliveries {
		outcomes[d.Endpoint] = d.Outcome.String() + " " + d.Reason
	}
	assert.Equal(t, map[string]string{
		queue:    "delivered ",
		bareArn:  "lost AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: " + bareArn + " because no resource-based policy allows the sqs:sendmessage action",
		otherArn: "lost AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: " + otherArn + " because no resource-based policy allows the sqs:sendmessage action",
		"arn:aws:sqs:us-east-1:123456789012:missing": "lost AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.",
	}, outcomes)
	got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: bare.QueueUrl})
	require.NoError(t, err)
	assert.Empty(t, got.Messages)
	assert.NoError(t, f.LastError(), "SNS's refused deliveries are not the test's errors")
}

func TestALostDeliveryGoesToTheSubscriptionsDeadLetterQueue(t *testing.T) {
	ctx := context.Background()
	s, topic, dlqArn := setup(t, "t", nil, "dlq")
	f := s.SQS()
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bare")})
	require.NoError(t, err)
	bareArn := "arn:aws:sqs:us-east-1:123456789012:bare"
	subscribe(t, s, topic, bareArn, map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + dlqArn + `"}`, "RawMessageDelivery": "true"})
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
	require.NoError(t, err)
	d := deliveries(t, s, "bare")
	require.Len(t, d, 1)
	assert.Equal(t, snsfake.DeadLettered, d[0].Outcome)
	assert.Equal(t, dlqArn, d[0].DeadLetterQueue)
	msgs := receiveAll(t, f, "dlq")
	require.Len(t, msgs, 1)
	assert.Equal(t, "m", *msgs[0].Body, "the DLQ gets what the queue would have had")
	assert.Equal(t, "v", *msgs[0].MessageAttributes["k"].StringValue)

	// A deleted queue loses its deliveries too.
	info, _ := f.Queue("dlq")
	_, err = f.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(info.URL)})
	require.NoError(t, err)
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m2")})
	require.NoError(t, err)
	d = deliveries(t, s, "bare")
	require.Len(t, d, 2)
	assert.Equal(t, snsfake.Lost, d[1].Outcome)
	assert.Contains(t, d[1].Reason, "the dead-letter queue "+dlqArn+" refused it too: AWS.SimpleQueueService.NonExistentQueue")
}

func TestEnvelopeIsDeterministic(t *testing.T) {
	run := func() string {
		ctx := context.Background()
		s, topic, queue := setup(t, "t", nil, "q")
		subscribe(t, s, topic, queue, nil)
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m")})
		require.NoError(t, err)
		b, _ := json.Marshal(receiveAll(t, s.SQS(), "q")[0].Body)
		return string(b)
	}
	assert.Equal(t, run(), run())
}

func TestFIFODeduplicationScopeMessageGroup(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true", "FifoThroughputScope": "MessageGroup"}})
	require.NoError(t, err)
	topic, queue := *tp.TopicArn, "arn:aws:sqs:us-east-1:123456789012:q.fifo"
	// The queue deduplicates too: per group as well, or it would drop group b's message.
	_, err = s.SQS().CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q.fifo"), Attributes: map[string]string{"FifoQueue": "true",
		"DeduplicationScope": "messageGroup", "FifoThroughputLimit": "perMessageGroupId", "Policy": snsfake.QueuePolicy(queue, topic)}})
	require.NoError(t, err)
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	pub := func(group string) string {
		out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(group), MessageGroupId: aws.String(group), MessageDeduplicationId: aws.String("same")})
		require.NoError(t, err)
		return *out.MessageId
	}
	a, b, again := pub("a"), pub("b"), pub("a")
	assert.NotEqual(t, a, b, "the same id in another group is another message")
	assert.Equal(t, a, again)
	assert.Len(t, receiveAll(t, s.SQS(), "q.fifo"), 2)
}

func TestFIFOPublishBatchKeepsOrderWithRisingSequenceNumbers(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t.fifo", map[string]string{"FifoTopic": "true", "ContentBasedDeduplication": "true"}, "q.fifo")
	subscribe(t, s, topic, queue, map[string]string{"RawMessageDelivery": "true"})
	var entries []types.PublishBatchRequestEntry
	for _, m := range []string{"1", "2", "3"} {
		entries = append(entries, types.PublishBatchRequestEntry{Id: aws.String("e" + m), Message: aws.String(m), MessageGroupId: aws.String("g")})
	}
	out, err := s.PublishBatch(ctx, &sns.PublishBatchInput{TopicArn: aws.String(topic), PublishBatchRequestEntries: entries})
	require.NoError(t, err)
	require.Len(t, out.Successful, 3)
	assert.Less(t, *out.Successful[0].SequenceNumber, *out.Successful[1].SequenceNumber)
	assert.Less(t, *out.Successful[1].SequenceNumber, *out.Successful[2].SequenceNumber)
	var got []string
	for _, m := range receiveAll(t, s.SQS(), "q.fifo") {
		got = append(got, *m.Body)
	}
	assert.Equal(t, []string{"1", "2", "3"}, got)
}

func TestTheRecordKeepsNothingOfTheCallersInput(t *testing.T) {
	ctx := context.Background()
	s, topic, _ := setup(t, "t", nil, "q")
	v, b := "before", []byte{1}
	in := &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("m"), MessageAttributes: map[string]types.MessageAttributeValue{
		"s": {DataType: aws.String("String"), StringValue: &v}, "b": {DataType: aws.String("Binary"), BinaryValue: b}}}
	out, err := s.Publish(ctx, in)
	require.NoError(t, err)
	v, b[0] = "after", 9
	p := publication(t, s, *out.MessageId)
	assert.Equal(t, "before", *p.MessageAttributes["s"].StringValue)
	assert.Equal(t, []byte{1}, p.MessageAttributes["b"].BinaryValue)
	*p.MessageAttributes["s"].StringValue = "changed"
	again := publication(t, s, *out.MessageId)
	assert.Equal(t, "before", *again.MessageAttributes["s"].StringValue, "nor hands out its own")
}

func TestDeliveriesCrossRegionsAndJSONStructureDropsAttributes(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	eu := sqsfake.ActAs(sqsfake.Identity{Region: "eu-west-1"})
	queue := "arn:aws:sqs:eu-west-1:123456789012:far"
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("far"), Attributes: map[string]string{"Policy": snsfake.QueuePolicy(queue, *tp.TopicArn)}}, eu)
	require.NoError(t, err)
	subscribe(t, s, *tp.TopicArn, queue, nil)
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String(`{"default":"d","sqs":"q"}`), MessageStructure: aws.String("json"),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}})
	require.NoError(t, err)
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}, eu)
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	var env map[string]any
	require.NoError(t, json.Unmarshal([]byte(*out.Messages[0].Body), &env))
	assert.Equal(t, "q", env["Message"])
	assert.NotContains(t, env, "MessageAttributes", "attributes are sent only when the message structure is String")
	assert.Contains(t, env["UnsubscribeURL"], "https://sns.us-east-1.amazonaws.com/", "the topic's region names the links")
}
