package sqsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// post sends one raw awsJson1_0 request to h.
func post(h http.Handler, target, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-amz-json-1.0")
	if target != "" {
		r.Header.Set("X-Amz-Target", "AmazonSQS."+target)
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var uuidPattern = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestHandlerWritesOutputsAsSQS(t *testing.T) {
	f := New()
	h := f.Handler()
	w := post(h, "CreateQueue", `{"QueueName":"dlq"}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, `{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/dlq"}`, w.Body.String())
	assert.Equal(t, "application/x-amz-json-1.0", w.Header().Get("Content-Type"))
	assert.Regexp(t, uuidPattern, w.Header().Get("x-amzn-RequestId"))
	assert.Empty(t, w.Header().Get("Date"), "no Date from the virtual clock: it would skew the SDK's signing clock")

	// CreateQueue's tags member is lower-case on the wire.
	w = post(h, "CreateQueue", `{"QueueName":"jobs","tags":{"team":"a"},"Attributes":{"RedrivePolicy":"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:dlq\",\"maxReceiveCount\":3}"}}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = post(h, "ListQueueTags", `{"QueueUrl":"jobs"}`)
	assert.Equal(t, `{"Tags":{"team":"a"}}`, w.Body.String())

	// ListDeadLetterSourceQueues answers with a lower-case queueUrls, which the SDKs require.
	w = post(h, "ListDeadLetterSourceQueues", `{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/dlq"}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, `{"queueUrls":["https://sqs.us-east-1.amazonaws.com/123456789012/jobs"]}`, w.Body.String())

	// Outputs without members are an empty object; absent members are omitted.
	w = post(h, "TagQueue", `{"QueueUrl":"jobs","Tags":{"x":"y"}}`)
	assert.Equal(t, `{}`, w.Body.String())
	w = post(h, "ReceiveMessage", `{"QueueUrl":"jobs"}`)
	assert.Equal(t, `{}`, w.Body.String())

	// Blobs are base64 both ways.
	w = post(h, "SendMessage", `{"QueueUrl":"jobs","MessageBody":"hi","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"AAEC"}}}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = post(h, "ReceiveMessage", `{"QueueUrl":"jobs","MessageAttributeNames":["All"]}`)
	assert.Contains(t, w.Body.String(), `"MessageAttributes":{"b":{"BinaryValue":"AAEC","DataType":"Binary"}}`)
}

func TestHandlerWritesErrorsAsSQS(t *testing.T) {
	h := New().Handler()
	require.Equal(t, http.StatusOK, post(h, "CreateQueue", `{"QueueName":"q"}`).Code)
	for _, tc := range []struct {
		name, target, body string
		status             int
		wantBody, query    string
	}{
		{"typed error", "GetQueueUrl", `{"QueueName":"missing"}`, 400,
			`{"__type":"com.amazonaws.sqs#QueueDoesNotExist","message":"The specified queue does not exist."}`, "AWS.SimpleQueueService.NonExistentQueue;Sender"},
		{"unmodeled error", "ReceiveMessage", `{"QueueUrl":"q","WaitTimeSeconds":21}`, 400,
			`{"__type":"com.amazonaws.sqs#InvalidParameterValueException","message":"Value 21 for parameter WaitTimeSeconds is invalid. Reason: Must be >= 0 and <= 20, if provided."}`, "InvalidParameterValue;Sender"},
		{"status of the error", "DeleteMessage", `{"QueueUrl":"q","ReceiptHandle":"<x>"}`, 404,
			`{"__type":"com.amazonaws.sqs#ReceiptHandleIsInvalid","message":"The input receipt handle \"<x>\" is not a valid receipt handle."}`, "ReceiptHandleIsInvalid;Sender"},
		{"missing member", "SendMessage", `{"QueueUrl":"q"}`, 400,
			`{"__type":"com.amazonaws.sqs#MissingRequiredParameterException","message":"The request must contain the parameter MessageBody."}`, "MissingParameter;Sender"},
		{"missing nested member", "DeleteMessageBatch", `{"QueueUrl":"q","Entries":[{"Id":"a"}]}`, 400,
			`{"__type":"com.amazonaws.sqs#MissingRequiredParameterException","message":"The request must contain the parameter Entries[0].ReceiptHandle."}`, "MissingParameter;Sender"},
		{"malformed JSON", "ListQueues", `{"QueueNamePrefix":`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"unexpected end of JSON input"}`, ""},
		{"wrong member type", "ReceiveMessage", `{"QueueUrl":"q","WaitTimeSeconds":"20"}`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"STRING_VALUE can not be converted to an Integer"}`, ""},
		{"wrong member type, number for a string", "SendMessage", `{"QueueUrl":"q","MessageBody":7}`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"NUMBER_VALUE can not be converted to a String"}`, ""},
		{"wrong member type, object for a list", "ReceiveMessage", `{"QueueUrl":"q","AttributeNames":{}}`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"Start of structure or map found where not expected."}`, ""},
		{"not an object", "ListQueues", `[1,2]`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"Start of list found where not expected."}`, ""},
		{"bad base64", "SendMessage", `{"QueueUrl":"q","MessageBody":"x","MessageAttributes":{"b":{"DataType":"Binary","BinaryValue":"!"}}}`, 400,
			`{"__type":"com.amazon.coral.service#SerializationException","message":"illegal base64 data at input byte 0"}`, ""},
		{"unknown operation", "Frobnicate", `{}`, 400,
			`{"__type":"com.amazon.coral.service#UnknownOperationException","message":"Unknown operation \"AmazonSQS.Frobnicate\"."}`, ""},
		{"no target", "", `{}`, 400,
			`{"__type":"com.amazon.coral.service#UnknownOperationException","message":"Missing X-Amz-Target header."}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := post(h, tc.target, tc.body)
			assert.Equal(t, tc.status, w.Code)
			assert.Equal(t, tc.wantBody, w.Body.String())
			assert.Equal(t, tc.query, w.Header().Get("x-amzn-query-error"))
			assert.Equal(t, "application/x-amz-json-1.0", w.Header().Get("Content-Type"))
			assert.Regexp(t, uuidPattern, w.Header().Get("x-amzn-RequestId"))
		})
	}
}

func TestHandlerRefusesWhatIsNotAnAWSJSONRequest(t *testing.T) {
	h := New().Handler()

	// GET requests and form-encoded bodies are the query protocol's (wire_query_test.go).
	r := httptest.NewRequest(http.MethodPut, "/", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
	assert.Contains(t, w.Body.String(), "UnknownOperationException")

	w = post(h, "ListQueues", "Action=ListQueues&Version=2012-11-05", "Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "SerializationException")

	w = post(h, "ListQueues", "{}", "Content-Type", "text/xml")
	assert.Equal(t, http.StatusBadRequest, w.Code)
	assert.Contains(t, w.Body.String(), "SerializationException")

	w = post(h, "ListQueues", "{}", "Content-Type", "application/x-amz-json-1.0; charset=utf-8")
	assert.Equal(t, http.StatusOK, w.Code, "parameters of the media type are ignored")
	w = post(h, "ListQueues", "", "Content-Type", "")
	assert.Equal(t, http.StatusOK, w.Code, "an empty body is an empty input")

	big := `{"QueueUrl":"q","MessageBody":"` + strings.Repeat("x", MaxRequestBytes) + `"}`
	w = post(h, "SendMessage", big)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Contains(t, w.Body.String(), "RequestEntityTooLargeException")
}

func TestHandlerTakesTheLargestMessagesHowEverEscaped(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := memoryClientOf(f)
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	// Go's JSON encoder writes each "<" as \u003c: six bytes on the wire for one in the body.
	body := strings.Repeat("<", 1000000)
	_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)})
	require.NoError(t, err)
	out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, body, *out.Messages[0].Body)
}

func TestHandlerNeverPanicsOnGarbage(t *testing.T) {
	h := New().Handler()
	bodies := []string{"", "null", "{}", "[]", `"x"`, "1e999", `{"QueueUrl":null}`, `{"Entries":[null]}`,
		`{"Entries":{}}`, `{"MessageAttributes":{"a":null}}`, `{"Attributes":[]}`, `{"MaxResults":-1}`, "\x00\xff", `{"QueueUrl":"q"`}
	for name := range operations {
		for _, body := range bodies {
			w := post(h, name, body)
			assert.NotEqual(t, http.StatusInternalServerError, w.Code, "%s %q: %s", name, body, w.Body.String())
			assert.True(t, json.Valid(w.Body.Bytes()), "%s %q: %s", name, body, w.Body.String())
		}
	}
}

func TestHandlerSetsTheTraceHeaderOfSentMessages(t *testing.T) {
	ctx := context.Background()
	f := New()
	h := f.Handler()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	const trace = "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1"
	w := post(h, "SendMessage", `{"QueueUrl":"q","MessageBody":"a"}`, "X-Amzn-Trace-Id", trace)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Contains(t, w.Body.String(), `"MD5OfMessageSystemAttributes":"5ae4d5d7636402d80f4eb6d213245a88"`)
	w = post(h, "SendMessage", `{"QueueUrl":"q","MessageBody":"b","MessageSystemAttributes":{"AWSTraceHeader":{"DataType":"String","StringValue":"Root=mine"}}}`, "X-Amzn-Trace-Id", trace)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = post(h, "SendMessageBatch", `{"QueueUrl":"q","Entries":[{"Id":"c","MessageBody":"c"}]}`, "X-Amzn-Trace-Id", trace)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	w = post(h, "SendMessage", `{"QueueUrl":"q","MessageBody":"d"}`)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{"AWSTraceHeader"}})
	require.NoError(t, err)
	got := map[string]string{}
	for _, m := range out.Messages {
		got[*m.Body] = m.Attributes["AWSTraceHeader"]
	}
	assert.Equal(t, map[string]string{"a": trace, "b": "Root=mine", "c": trace, "d": ""}, got)
}

func TestHandlerRequestIDs(t *testing.T) {
	f1, f2 := New(), New()
	var ids1, ids2 []string
	for _, c := range []struct {
		target, body string
	}{{"CreateQueue", `{"QueueName":"q"}`}, {"GetQueueUrl", `{"QueueName":"nope"}`}, {"Nope", `{}`}, {"ListQueues", `{}`}} {
		ids1 = append(ids1, post(f1.Handler(), c.target, c.body).Header().Get("x-amzn-RequestId"))
		ids2 = append(ids2, post(f2.Handler(), c.target, c.body).Header().Get("x-amzn-RequestId"))
	}
	assert.Equal(t, ids1, ids2, "the same requests give the same ids")
	seen := map[string]bool{}
	for _, id := range ids1 {
		assert.False(t, seen[id], "ids are unique")
		seen[id] = true
	}
	// An error's id in the response is the one door 1 put in the error.
	_, err := f1.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
	w := post(f2.Handler(), "GetQueueUrl", `{"QueueName":"nope"}`)
	assert.Contains(t, err.Error(), "RequestID: "+w.Header().Get("x-amzn-RequestId"))
}

func TestHandlerAnswersOnTheQueueURLPathToo(t *testing.T) {
	f := New()
	r := httptest.NewRequest(http.MethodPost, "/123456789012/jobs", strings.NewReader(`{"QueueName":"jobs"}`))
	r.Header.Set("X-Amz-Target", "AmazonSQS.CreateQueue")
	w := httptest.NewRecorder()
	f.Handler().ServeHTTP(w, r)
	assert.Equal(t, http.StatusOK, w.Code, w.Body.String())
}

func TestWithEndpointNamesTheServerInQueueURLs(t *testing.T) {
	ctx := context.Background()
	f := New(WithEndpoint("http://127.0.0.1:9324/"))
	assert.Equal(t, "http://127.0.0.1:9324", f.endpoint)
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9324/123456789012/dlq", *dlq.QueueUrl)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
		Attributes: attrs("RedrivePolicy", `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":3}`)})
	require.NoError(t, err)
	u, err := f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Equal(t, "http://127.0.0.1:9324/123456789012/jobs", *u.QueueUrl)
	l, err := f.ListQueues(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"http://127.0.0.1:9324/123456789012/dlq", "http://127.0.0.1:9324/123456789012/jobs"}, l.QueueUrls)
	s, err := f.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq.QueueUrl})
	require.NoError(t, err)
	assert.Equal(t, []string{"http://127.0.0.1:9324/123456789012/jobs"}, s.QueueUrls)
	// Any form of the URL still names the queue.
	for _, u := range []string{"http://127.0.0.1:9324/123456789012/jobs", "https://sqs.us-east-1.amazonaws.com/123456789012/jobs", "jobs"} {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(u), MessageBody: aws.String("x")})
		assert.NoError(t, err, u)
	}
}

func TestHTTPClientRunsTheWholeSDKPath(t *testing.T) {
	ctx := context.Background()
	f := New()
	var requests atomic.Int32
	var authorization atomic.Value
	inner := f.Handler()
	spy := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		authorization.Store(r.Header.Get("Authorization"))
		inner.ServeHTTP(w, r)
	})
	c := sqs.New(sqs.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
		}),
		HTTPClient: &memoryClient{h: spy},
	})
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	id, ok := awsmiddleware.GetRequestIDMetadata(q.ResultMetadata)
	require.True(t, ok)
	assert.Regexp(t, uuidPattern, id)
	assert.Contains(t, authorization.Load(), "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/", "the request is signed")

	_, err = c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String("x")})
	var rhi *types.ReceiptHandleIsInvalid
	require.ErrorAs(t, err, &rhi)
	assert.Equal(t, int32(2), requests.Load(), "a client error is not retried")
}

func TestHTTPClientHonoursTheContext(t *testing.T) {
	f := New()
	c := memoryClientOf(f)
	q, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.ListQueues(ctx, nil)
	require.ErrorIs(t, err, context.Canceled)

	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		done <- err
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	var ce *smithy.CanceledError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "operation error SQS: ReceiveMessage, https response error StatusCode: 0, RequestID: , canceled, context canceled", err.Error())
	assert.Zero(t, f.Pollers())
}

// TestStockClientOverLoopbackRunsEveryOperation drives every operation of a stock SDK client
// against the handler on a loopback server.
func TestStockClientOverLoopbackRunsEveryOperation(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := loopbackClientOf(t, f)
	called := map[string]bool{}
	must := func(op string, _ any, err error) {
		t.Helper()
		called[op] = true
		require.NoError(t, err, op)
	}
	dlq, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")})
	must("CreateQueue", dlq, err)
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
		Attributes: attrs("RedrivePolicy", `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":1}`)})
	must("CreateQueue", q, err)
	u, err := c.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("jobs")})
	must("GetQueueUrl", u, err)
	l, err := c.ListQueues(ctx, nil)
	must("ListQueues", l, err)
	assert.Len(t, l.QueueUrls, 2)
	out, err := c.TagQueue(ctx, &sqs.TagQueueInput{QueueUrl: q.QueueUrl, Tags: map[string]string{"a": "1", "b": "2"}})
	must("TagQueue", out, err)
	out2, err := c.UntagQueue(ctx, &sqs.UntagQueueInput{QueueUrl: q.QueueUrl, TagKeys: []string{"b"}})
	must("UntagQueue", out2, err)
	tags, err := c.ListQueueTags(ctx, &sqs.ListQueueTagsInput{QueueUrl: q.QueueUrl})
	must("ListQueueTags", tags, err)
	assert.Equal(t, map[string]string{"a": "1"}, tags.Tags)
	ap, err := c.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("l"), AWSAccountIds: []string{"111122223333"}, Actions: []string{"*"}})
	must("AddPermission", ap, err)
	rp, err := c.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: q.QueueUrl, Label: aws.String("l")})
	must("RemovePermission", rp, err)
	sa, err := c.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: attrs("VisibilityTimeout", "10")})
	must("SetQueueAttributes", sa, err)
	ga, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.QueueUrl, AttributeNames: []types.QueueAttributeName{"All"}})
	must("GetQueueAttributes", ga, err)
	assert.Equal(t, "10", ga.Attributes["VisibilityTimeout"])
	sm, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("one"),
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("x")}}})
	must("SendMessage", sm, err)
	assert.Equal(t, "a45daa70926828a2f0a1db3418e6feb4", aws.ToString(sm.MD5OfMessageAttributes))
	sb, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: sendEntries(3)})
	must("SendMessageBatch", sb, err)
	rm, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageAttributeNames: []string{"All"}})
	must("ReceiveMessage", rm, err)
	require.Len(t, rm.Messages, 4)
	assert.Equal(t, "x", aws.ToString(rm.Messages[0].MessageAttributes["k"].StringValue))
	cv, err := c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl, ReceiptHandle: rm.Messages[0].ReceiptHandle, VisibilityTimeout: 100})
	must("ChangeMessageVisibility", cv, err)
	cvb, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q.QueueUrl,
		Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: rm.Messages[1].ReceiptHandle, VisibilityTimeout: 100}}})
	must("ChangeMessageVisibilityBatch", cvb, err)
	dm, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: rm.Messages[2].ReceiptHandle})
	must("DeleteMessage", dm, err)
	dmb, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q.QueueUrl,
		Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("a"), ReceiptHandle: rm.Messages[3].ReceiptHandle}}})
	must("DeleteMessageBatch", dmb, err)
	assert.Len(t, dmb.Successful, 1)
	f.Advance(100 * time.Second)
	rm, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
	must("ReceiveMessage", rm, err)
	assert.Empty(t, rm.Messages, "the two messages went to the DLQ")
	ds, err := c.ListDeadLetterSourceQueues(ctx, &sqs.ListDeadLetterSourceQueuesInput{QueueUrl: dlq.QueueUrl})
	must("ListDeadLetterSourceQueues", ds, err)
	assert.Equal(t, []string{*q.QueueUrl}, ds.QueueUrls, "queueUrls decodes")
	dlqArn := "arn:aws:sqs:us-east-1:123456789012:dlq"
	st, err := c.StartMessageMoveTask(ctx, &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(dlqArn)})
	called["StartMessageMoveTask"] = true
	if err == nil {
		lt, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqArn)})
		must("ListMessageMoveTasks", lt, err)
		ct, err := c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: st.TaskHandle})
		must("CancelMessageMoveTask", ct, err)
	} else {
		// Move tasks may be unsupported by the engine; the error must still decode.
		assert.ErrorContains(t, err, "UnsupportedOperation")
		_, err := c.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(dlqArn)})
		called["ListMessageMoveTasks"] = err != nil
		_, err = c.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: aws.String("x")})
		called["CancelMessageMoveTask"] = err != nil
	}
	pq, err := c.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: q.QueueUrl})
	must("PurgeQueue", pq, err)
	dq, err := c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: q.QueueUrl})
	must("DeleteQueue", dq, err)
	assert.Len(t, called, len(operations), "every operation was called")
}

// TestLoopbackServerUnderConcurrentClients hammers the handler on loopback from many
// goroutines, with keep-alive connections, as a load test of the server side: no call may
// fail (in particular not with "use of closed network connection", aws-sdk-go-v2#2737).
func TestLoopbackServerUnderConcurrentClients(t *testing.T) {
	ctx := context.Background()
	f := New()
	// The SDK's default retry policy, as a user's client has it: since aws-sdk-go-v2 PR
	// #2949 (the fix for issue 2737) it retries the rare "use of closed network connection"
	// that net/http's client side can report under load; the handler itself reads every
	// request body whole before it answers and never closes a connection.
	c := loopbackClientOf(t, f, func(o *sqs.Options) { o.RetryMaxAttempts = 3 })
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	var wg sync.WaitGroup
	var failures atomic.Int32
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				body := fmt.Sprintf("g%d-%d %s", g, i, strings.Repeat("x", i*100))
				if _, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)}); err != nil {
					failures.Add(1)
					t.Error(err)
					return
				}
				out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
				if err != nil {
					failures.Add(1)
					t.Error(err)
					return
				}
				for _, m := range out.Messages {
					if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
						failures.Add(1)
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, failures.Load())
}

func TestHTTPClientClosesTheRequestBody(t *testing.T) {
	body := &closeSpy{Reader: strings.NewReader(`{}`)}
	r, err := http.NewRequest(http.MethodPost, "http://sqs.fake.invalid/", body)
	require.NoError(t, err)
	r.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	resp, err := New().HTTPClient().Do(r)
	require.NoError(t, err)
	b, _ := io.ReadAll(resp.Body)
	assert.Equal(t, `{}`, string(b))
	assert.True(t, body.closed)
}

type closeSpy struct {
	io.Reader
	closed bool
}

func (c *closeSpy) Close() error { c.closed = true; return nil }

// BenchmarkHTTPClientSendMessage measures a SendMessage of a stock SDK client through
// HTTPClient: serialization, the handler, deserialization (bar: 60 µs).
func BenchmarkHTTPClientSendMessage(b *testing.B) {
	ctx := context.Background()
	f := New()
	c := memoryClientOf(f)
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bench")})
	if err != nil {
		b.Fatal(err)
	}
	in := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body100)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.SendMessage(ctx, in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkHandlerSendMessageWithAttribute measures the handler alone on a raw awsJson1_0
// SendMessage request with a 100-byte body and one attribute: reading, decoding (with the
// check that the text is Unicode), the send, and the answer.
func BenchmarkHandlerSendMessageWithAttribute(b *testing.B) {
	f := New()
	h := f.Handler()
	if w := post(h, "CreateQueue", `{"QueueName":"bench"}`); w.Code != http.StatusOK {
		b.Fatal(w.Body.String())
	}
	body := `{"QueueUrl":"bench","MessageBody":"` + body100 + `","MessageAttributes":{"a":{"DataType":"String","StringValue":"v"}}}`
	b.ReportAllocs()
	for b.Loop() {
		if w := post(h, "SendMessage", body); w.Code != http.StatusOK {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkLoopbackCycle measures send+receive+delete cycles of stock SDK clients against the
// handler on a loopback server, from parallel goroutines, and reports cycles per second
// (bar: 10,000).
func BenchmarkLoopbackCycle(b *testing.B) {
	ctx := context.Background()
	f := New()
	srv := httptest.NewServer(f.Handler())
	defer srv.Close()
	c := sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(srv.URL),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	})
	q, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("bench")})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetParallelism(4)
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		send := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body100)}
		recv := &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}
		for pb.Next() {
			if _, err := c.SendMessage(ctx, send); err != nil {
				b.Fatal(err)
			}
			out, err := c.ReceiveMessage(ctx, recv)
			if err != nil {
				b.Fatal(err)
			}
			for _, m := range out.Messages {
				if _, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "cycles/s")
}

// stingyBody gives its first bytes, then fails the test if the handler reads on: a client
// that declared a huge Content-Length and sent little.
type stingyBody struct {
	first io.Reader
	over  atomic.Bool
}

func (b *stingyBody) Read(p []byte) (int, error) {
	if n, err := b.first.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	b.over.Store(true)
	return 0, fmt.Errorf("the handler read past the first bytes of a body declared too large")
}

func (b *stingyBody) Close() error { return nil }

func TestHandlerRefusesADeclaredContentLengthOverTheCapBeforeReadingTheBody(t *testing.T) {
	for _, declared := range []int64{MaxRequestBytes + 1, 1 << 40} {
		body := &stingyBody{first: strings.NewReader(`{"QueueUrl":"q","MessageBody":"`)}
		r := httptest.NewRequest(http.MethodPost, "/", body)
		r.ContentLength = declared
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
		w := httptest.NewRecorder()
		New().Handler().ServeHTTP(w, r)
		assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, declared)
		assert.JSONEq(t, `{"__type":"com.amazon.coral.service#RequestEntityTooLargeException","message":"Request body must be no longer than 8388608 bytes."}`, w.Body.String())
		assert.False(t, body.over.Load(), "the body was read although its declared length was over the cap")
	}
}
