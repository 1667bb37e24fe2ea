package sqsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/schemas"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/aws/smithy-go/transport/http/protocol/awsjson"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sdkJSON serializes v with the SDK's own awsJson1_0 serializer.
func sdkJSON(t testing.TB, v smithy.Serializable) string {
	t.Helper()
	req := smithyhttp.NewStackRequest().(*smithyhttp.Request)
	// The protocol serializes an operation's input; any non-nil input schema makes it
	// serialize v.
	op := smithy.NewOperationSchema(schemas.SendMessage, schemas.SendMessageResult, nil)
	require.NoError(t, awsjson.New10(schemas.AmazonSQS).SerializeRequest(context.Background(), op, v, req))
	b, err := io.ReadAll(req.GetStream())
	require.NoError(t, err)
	return string(b)
}

// ourJSON serializes v with the handler's jsonWriter.
func ourJSON(v smithy.Serializable) string {
	w := newJSONWriter()
	defer w.release()
	v.Serialize(w)
	return string(w.Bytes())
}

// awkward is a string with everything the escaper treats specially.
const awkward = "q\"b\\s/\n\r\t\x00\x1f\x7f é ☃ 😀 \u2028\u2029 <&> \ufffd"

// outputsOfEveryOperation holds an output of each of the 23 operations, with every member
// set and the awkward string in the string members. Its maps have one entry each, so the
// SDK's serializer writes them the same way every time.
func outputsOfEveryOperation() map[string]smithy.Serializable {
	s := aws.String
	batchFailed := []types.BatchResultErrorEntry{
		{Id: s("a"), Code: s("ReceiptHandleIsInvalid"), Message: s(awkward), SenderFault: true},
		{Id: s("b"), Code: s("InternalError"), SenderFault: false},
	}
	return map[string]smithy.Serializable{
		"AddPermission":           &sqs.AddPermissionOutput{},
		"CancelMessageMoveTask":   &sqs.CancelMessageMoveTaskOutput{ApproximateNumberOfMessagesMoved: 1 << 40},
		"ChangeMessageVisibility": &sqs.ChangeMessageVisibilityOutput{},
		"ChangeMessageVisibilityBatch": &sqs.ChangeMessageVisibilityBatchOutput{Failed: batchFailed,
			Successful: []types.ChangeMessageVisibilityBatchResultEntry{{Id: s("c")}, {Id: s(awkward)}}},
		"CreateQueue":   &sqs.CreateQueueOutput{QueueUrl: s("http://127.0.0.1:9324/123456789012/q")},
		"DeleteMessage": &sqs.DeleteMessageOutput{},
		"DeleteMessageBatch": &sqs.DeleteMessageBatchOutput{Failed: batchFailed,
			Successful: []types.DeleteMessageBatchResultEntry{{Id: s("c")}}},
		"DeleteQueue":                &sqs.DeleteQueueOutput{},
		"GetQueueAttributes":         &sqs.GetQueueAttributesOutput{Attributes: map[string]string{"Policy": awkward}},
		"GetQueueUrl":                &sqs.GetQueueUrlOutput{QueueUrl: s("http://127.0.0.1:9324/123456789012/q")},
		"ListDeadLetterSourceQueues": &sqs.ListDeadLetterSourceQueuesOutput{QueueUrls: []string{"u1", "u2"}, NextToken: s(awkward)},
		"ListMessageMoveTasks": &sqs.ListMessageMoveTasksOutput{Results: []types.ListMessageMoveTasksResultEntry{
			{ApproximateNumberOfMessagesMoved: 3, ApproximateNumberOfMessagesToMove: aws.Int64(-9), DestinationArn: s("arn:d"),
				FailureReason: s(awkward), MaxNumberOfMessagesPerSecond: aws.Int32(500), SourceArn: s("arn:s"),
				StartedTimestamp: 1735689600000, Status: s("RUNNING"), TaskHandle: s("h")},
			{Status: s("COMPLETED")},
		}},
		"ListQueueTags": &sqs.ListQueueTagsOutput{Tags: map[string]string{awkward: awkward}},
		"ListQueues":    &sqs.ListQueuesOutput{QueueUrls: []string{}, NextToken: s("t")},
		"PurgeQueue":    &sqs.PurgeQueueOutput{},
		"ReceiveMessage": &sqs.ReceiveMessageOutput{Messages: []types.Message{
			{Body: s(awkward), MD5OfBody: s("m"), MD5OfMessageAttributes: s("n"), MessageId: s("id"), ReceiptHandle: s("rh"),
				Attributes: map[string]string{"ApproximateReceiveCount": "1"},
				MessageAttributes: map[string]types.MessageAttributeValue{"bin": {DataType: s("Binary.x"),
					BinaryValue: []byte{0, 1, 2, 0xff}, BinaryListValues: [][]byte{{1}, {}}, StringListValues: []string{"x"}, StringValue: s("")}}},
			{Body: s(""), Attributes: map[string]string{}, MessageAttributes: map[string]types.MessageAttributeValue{}},
		}},
		"RemovePermission": &sqs.RemovePermissionOutput{},
		"SendMessage": &sqs.SendMessageOutput{MD5OfMessageAttributes: s("a"), MD5OfMessageBody: s("b"),
			MD5OfMessageSystemAttributes: s("c"), MessageId: s("d"), SequenceNumber: s("18849496460467696128")},
		"SendMessageBatch": &sqs.SendMessageBatchOutput{Failed: batchFailed, Successful: []types.SendMessageBatchResultEntry{
			{Id: s("e"), MD5OfMessageBody: s("b"), MessageId: s("d"), MD5OfMessageAttributes: s("a"),
				MD5OfMessageSystemAttributes: s("c"), SequenceNumber: s("1")}}},
		"SetQueueAttributes":   &sqs.SetQueueAttributesOutput{},
		"StartMessageMoveTask": &sqs.StartMessageMoveTaskOutput{TaskHandle: s("th")},
		"TagQueue":             &sqs.TagQueueOutput{},
		"UntagQueue":           &sqs.UntagQueueOutput{},
	}
}

func TestJSONWriterMatchesSDK(t *testing.T) {
	outputs := outputsOfEveryOperation()
	require.Len(t, outputs, len(operations), "one output per operation")
	for name, out := range outputs {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, sdkJSON(t, out), ourJSON(out))
		})
	}
}

func TestJSONWriterEscapesStringsAsSDK(t *testing.T) {
	pieces := []string{"a", "Z", " ", "\"", "\\", "/", "\n", "\r", "\t", "\b", "\f", "\x00", "\x01", "\x1f", "\x7f",
		"\x80", "\xbf", "\xc3", "\xe2\x80", "\xff", "é", "☃", "😀", "\u2028", "\u2029", "\ufffd", "\ufeff", "<", ">", "&"}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		out := &sqs.SendMessageOutput{MessageId: aws.String(b.String())}
		if got, want := ourJSON(out), sdkJSON(t, out); got != want {
			t.Fatalf("case %d, %q: got %s, want %s", i, b.String(), got, want)
		}
	}
}

func TestJSONWriterWritesMapsInKeyOrder(t *testing.T) {
	out := &sqs.ReceiveMessageOutput{Messages: []types.Message{{
		Attributes: map[string]string{"SentTimestamp": "1", "ApproximateReceiveCount": "2", "SenderId": "3", "MessageGroupId": "g"},
		MessageAttributes: map[string]types.MessageAttributeValue{
			"zeta":  {DataType: aws.String("String"), StringValue: aws.String("z")},
			"alpha": {DataType: aws.String("Number"), StringValue: aws.String("1")},
			"mid":   {DataType: aws.String("Binary"), BinaryValue: []byte("m")},
		},
		MessageId: aws.String("id"),
	}}}
	want := `{"Messages":[{"Attributes":{"ApproximateReceiveCount":"2","MessageGroupId":"g","SenderId":"3","SentTimestamp":"1"},` +
		`"MessageAttributes":{"alpha":{"DataType":"Number","StringValue":"1"},"mid":{"BinaryValue":"bQ==","DataType":"Binary"},` +
		`"zeta":{"DataType":"String","StringValue":"z"}},"MessageId":"id"}]}`
	for range 50 { // Go's map order changes from one range to the next
		got := ourJSON(out)
		require.Equal(t, want, got)
		require.JSONEq(t, sdkJSON(t, out), got)
	}
}

func TestHandlerAnswersAreTheSameBytesEveryTime(t *testing.T) {
	run := func() []string {
		f := New()
		c := sqs.New(sqs.Options{Region: "us-east-1", HTTPClient: f.HTTPClient(), BaseEndpoint: aws.String("http://sqs.test"),
			Credentials: aws.AnonymousCredentials{}})
		ctx := context.Background()
		q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q"),
			Tags: map[string]string{"team": "a", "env": "b", "cost": "c", "owner": "d"}})
		require.NoError(t, err)
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi"),
			MessageAttributes: map[string]types.MessageAttributeValue{
				"a": {DataType: aws.String("String"), StringValue: aws.String("1")},
				"b": {DataType: aws.String("Number"), StringValue: aws.String("2")},
				"c": {DataType: aws.String("Binary"), BinaryValue: []byte("3")},
			}})
		require.NoError(t, err)
		var bodies []string
		for _, req := range []string{
			`{"QueueUrl":"` + *q.QueueUrl + `","AttributeNames":["All"]}`,
			`{"QueueUrl":"` + *q.QueueUrl + `"}`,
			`{"QueueUrl":"` + *q.QueueUrl + `","MessageSystemAttributeNames":["All"],"MessageAttributeNames":["All"]}`,
		} {
			for _, target := range []string{"GetQueueAttributes", "ListQueueTags", "ReceiveMessage"} {
				bodies = append(bodies, target+" "+post(f.Handler(), target, req).Body.String())
			}
		}
		return bodies
	}
	first := run()
	for range 5 {
		require.Equal(t, first, run())
	}
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimPrefix(first[0], "GetQueueAttributes ")), &v))
	require.Contains(t, v, "Attributes")
}

// TestWireExplicitZerosOverrideQueueDefaults sends the zeros that Go cannot send but boto3,
// the AWS CLI and other SDKs do: SQS applies them instead of the queue's settings.
func TestWireExplicitZerosOverrideQueueDefaults(t *testing.T) {
	f := New()
	h := f.Handler()
	ok := func(target, body string) string {
		t.Helper()
		done := make(chan string, 1)
		go func() { w := post(h, target, body); done <- fmt.Sprint(w.Code, " ", w.Body.String()) }()
		select {
		case got := <-done:
			require.True(t, strings.HasPrefix(got, "200 "), "%s %s: %s", target, body, got)
			return strings.TrimPrefix(got, "200 ")
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s is still waiting", target, body)
			return ""
		}
	}
	attrs := func() string {
		return ok("GetQueueAttributes", `{"QueueUrl":"q","AttributeNames":["ApproximateNumberOfMessages","ApproximateNumberOfMessagesNotVisible","ApproximateNumberOfMessagesDelayed"]}`)
	}
	ok("CreateQueue", `{"QueueName":"q","Attributes":{"ReceiveMessageWaitTimeSeconds":"20","VisibilityTimeout":"30","DelaySeconds":"60"}}`)

	// WaitTimeSeconds 0 is a short poll, though the queue long-polls by default.
	assert.Equal(t, `{}`, ok("ReceiveMessage", `{"QueueUrl":"q","WaitTimeSeconds":0}`))

	// DelaySeconds 0 sends without the queue's delay; leaving it out takes the queue's.
	ok("SendMessage", `{"QueueUrl":"q","MessageBody":"now","DelaySeconds":0}`)
	ok("SendMessage", `{"QueueUrl":"q","MessageBody":"later"}`)
	ok("SendMessageBatch", `{"QueueUrl":"q","Entries":[{"Id":"a","MessageBody":"now","DelaySeconds":0},{"Id":"b","MessageBody":"later"}]}`)
	assert.Equal(t, `{"Attributes":{"ApproximateNumberOfMessages":"2","ApproximateNumberOfMessagesDelayed":"2","ApproximateNumberOfMessagesNotVisible":"0"}}`, attrs())

	// VisibilityTimeout 0 leaves received messages visible.
	out := ok("ReceiveMessage", `{"QueueUrl":"q","MaxNumberOfMessages":10,"VisibilityTimeout":0,"WaitTimeSeconds":0}`)
	assert.Equal(t, 2, strings.Count(out, `"ReceiptHandle"`), out)
	assert.Equal(t, `{"Attributes":{"ApproximateNumberOfMessages":"2","ApproximateNumberOfMessagesDelayed":"2","ApproximateNumberOfMessagesNotVisible":"0"}}`, attrs())

	// MaxNumberOfMessages 0 is out of range, and ChangeMessageVisibility requires its timeout.
	w := post(h, "ReceiveMessage", `{"QueueUrl":"q","MaxNumberOfMessages":0}`)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, `{"__type":"com.amazonaws.sqs#InvalidParameterValueException","message":"Value 0 for parameter MaxNumberOfMessages is invalid. Reason: Must be between 1 and 10, if provided."}`, w.Body.String())
	var handle struct {
		Messages []struct{ ReceiptHandle string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &handle))
	w = post(h, "ChangeMessageVisibility", `{"QueueUrl":"q","ReceiptHandle":"`+handle.Messages[0].ReceiptHandle+`"}`)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Equal(t, `{"__type":"com.amazonaws.sqs#MissingRequiredParameterException","message":"The request must contain the parameter VisibilityTimeout."}`, w.Body.String())
	assert.Equal(t, "MissingParameter;Sender", w.Header().Get("x-amzn-query-error"))
	ok("ChangeMessageVisibility", `{"QueueUrl":"q","ReceiptHandle":"`+handle.Messages[0].ReceiptHandle+`","VisibilityTimeout":0}`)

	// A FIFO queue takes DelaySeconds 0, though it refuses any other per-message delay.
	ok("CreateQueue", `{"QueueName":"q.fifo","Attributes":{"FifoQueue":"true","ContentBasedDeduplication":"true"}}`)
	ok("SendMessage", `{"QueueUrl":"q.fifo","MessageBody":"m","MessageGroupId":"g","DelaySeconds":0}`)
	ok("SendMessageBatch", `{"QueueUrl":"q.fifo","Entries":[{"Id":"a","MessageBody":"n","MessageGroupId":"g","DelaySeconds":0}]}`)
	assert.Equal(t, http.StatusBadRequest, post(h, "SendMessage", `{"QueueUrl":"q.fifo","MessageBody":"m","MessageGroupId":"g","DelaySeconds":1}`).Code)
}

// Writing an answer whose maps need reordering allocates nothing once the writer is warm.
func TestJSONWriterReordersMapsWithoutAllocating(t *testing.T) {
	out := &sqs.GetQueueAttributesOutput{Attributes: map[string]string{
		"VisibilityTimeout": "30", "DelaySeconds": "0", "QueueArn": "arn", "Policy": "{}", "ApproximateNumberOfMessages": "3"}}
	w := &jsonWriter{}
	write := func() {
		w.buf, w.frames, w.keys, w.keyed = w.buf[:0], w.frames[:0], w.keys[:0], false
		out.Serialize(w)
	}
	write()
	assert.Zero(t, testing.AllocsPerRun(100, write))
}
