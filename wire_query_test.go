package sqsfake

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/xml"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
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

// Raw requests in the query protocol: what SDKs never send (GET with a query string, no
// Action, an unknown one, a queue's URL as the path), and the exact XML of answers. The
// differential test runs the whole corpus through this protocol as well
// (TestThreeDoorsGiveIdenticalResults), and querytest/ runs real query-protocol SDKs.

// queryRequest sends one query request to h: form is the form-encoded body of a POST, or
// the query string of a GET.
func queryRequest(h http.Handler, method, path, form string, header ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if method == http.MethodGet {
		r = httptest.NewRequest(method, path+"?"+form, nil)
	} else {
		r = httptest.NewRequest(method, path, strings.NewReader(form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

var requestIDElement = regexp.MustCompile(`<RequestId>[0-9a-f-]{36}</RequestId>`)

// maskRequestID replaces the request id of an answer, after checking that the header and the
// body give the same one.
func maskRequestID(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	id := w.Header().Get("X-Amzn-Requestid")
	assert.Regexp(t, uuidPattern, id)
	body := w.Body.String()
	if strings.Contains(body, "<RequestId>") {
		assert.Contains(t, body, "<RequestId>"+id+"</RequestId>")
	}
	return requestIDElement.ReplaceAllString(body, "<RequestId>ID</RequestId>")
}

const xmlHead = `<?xml version="1.0"?>`

func queryAnswer(op, result string) string {
	return xmlHead + `<` + op + `Response xmlns="http://queue.amazonaws.com/doc/2012-11-05/">` + result +
		`<ResponseMetadata><RequestId>ID</RequestId></ResponseMetadata></` + op + `Response>`
}

func queryErrorAnswer(fault, code, message string) string {
	return xmlHead + `<ErrorResponse xmlns="http://queue.amazonaws.com/doc/2012-11-05/"><Error><Type>` + fault +
		`</Type><Code>` + code + `</Code><Message>` + message + `</Message><Detail/></Error><RequestId>ID</RequestId></ErrorResponse>`
}

func TestQueryAnswersAreTheModelsXML(t *testing.T) {
	f := New()
	h := f.Handler()
	for _, tc := range []struct {
		name, form, want string
	}{
		{"CreateQueue with attributes and tags",
			"Action=CreateQueue&Version=2012-11-05&QueueName=jobs&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=40&Tag.1.Key=team&Tag.1.Value=a",
			queryAnswer("CreateQueue", `<CreateQueueResult><QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/jobs</QueueUrl></CreateQueueResult>`)},
		{"CreateQueue of a dead-letter queue",
			"Action=CreateQueue&Version=2012-11-05&QueueName=dlq",
			queryAnswer("CreateQueue", `<CreateQueueResult><QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/dlq</QueueUrl></CreateQueueResult>`)},
		{"SetQueueAttributes has no result",
			"Action=SetQueueAttributes&Version=2012-11-05&QueueUrl=jobs&Attribute.1.Name=RedrivePolicy&Attribute.1.Value=" +
				url.QueryEscape(`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":"5"}`),
			queryAnswer("SetQueueAttributes", ``)},
		{"ListQueues repeats QueueUrl",
			"Action=ListQueues&Version=2012-11-05",
			queryAnswer("ListQueues", `<ListQueuesResult><QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/dlq</QueueUrl>`+
				`<QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/jobs</QueueUrl></ListQueuesResult>`)},
		{"ListQueues with no match has an empty result",
			"Action=ListQueues&Version=2012-11-05&QueueNamePrefix=x",
			queryAnswer("ListQueues", `<ListQueuesResult/>`)},
		{"ListDeadLetterSourceQueues",
			"Action=ListDeadLetterSourceQueues&Version=2012-11-05&QueueUrl=dlq",
			queryAnswer("ListDeadLetterSourceQueues", `<ListDeadLetterSourceQueuesResult><QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/jobs</QueueUrl></ListDeadLetterSourceQueuesResult>`)},
		{"GetQueueAttributes gives Attribute pairs in name order",
			"Action=GetQueueAttributes&Version=2012-11-05&QueueUrl=jobs&AttributeName.1=VisibilityTimeout&AttributeName.2=QueueArn",
			queryAnswer("GetQueueAttributes", `<GetQueueAttributesResult><Attribute><Name>QueueArn</Name><Value>arn:aws:sqs:us-east-1:123456789012:jobs</Value></Attribute>`+
				`<Attribute><Name>VisibilityTimeout</Name><Value>40</Value></Attribute></GetQueueAttributesResult>`)},
		{"TagQueue has no result",
			"Action=TagQueue&Version=2012-11-05&QueueUrl=jobs&Tag.1.Key=env&Tag.1.Value=test",
			queryAnswer("TagQueue", ``)},
		{"ListQueueTags gives Tag pairs",
			"Action=ListQueueTags&Version=2012-11-05&QueueUrl=jobs",
			queryAnswer("ListQueueTags", `<ListQueueTagsResult><Tag><Key>env</Key><Value>test</Value></Tag><Tag><Key>team</Key><Value>a</Value></Tag></ListQueueTagsResult>`)},
		{"SendMessage with a message attribute",
			"Action=SendMessage&Version=2012-11-05&QueueUrl=jobs&MessageBody=hello&MessageAttribute.1.Name=n&MessageAttribute.1.Value.DataType=Number&MessageAttribute.1.Value.StringValue=42",
			queryAnswer("SendMessage", `<SendMessageResult><MD5OfMessageAttributes>`+md5OfMessageAttributes(map[string]types.MessageAttributeValue{"n": {DataType: aws.String("Number"), StringValue: aws.String("42")}})+
				`</MD5OfMessageAttributes><MD5OfMessageBody>5d41402abc4b2a76b9719d911017c592</MD5OfMessageBody><MessageId>e971d095-7520-4d94-b0f9-05ed8b12ebc5</MessageId></SendMessageResult>`)},
		{"ReceiveMessage repeats Message, with Attribute and MessageAttribute elements",
			"Action=ReceiveMessage&Version=2012-11-05&QueueUrl=jobs&AttributeName.1=ApproximateReceiveCount&AttributeName.2=SentTimestamp&MessageAttributeName.1=All",
			queryAnswer("ReceiveMessage", `<ReceiveMessageResult><Message><Attribute><Name>ApproximateReceiveCount</Name><Value>1</Value></Attribute>`+
				`<Attribute><Name>SentTimestamp</Name><Value>1735689600000</Value></Attribute><Body>hello</Body><MD5OfBody>5d41402abc4b2a76b9719d911017c592</MD5OfBody>`+
				`<MD5OfMessageAttributes>`+md5OfMessageAttributes(map[string]types.MessageAttributeValue{"n": {DataType: aws.String("Number"), StringValue: aws.String("42")}})+`</MD5OfMessageAttributes>`+
				`<MessageAttribute><Name>n</Name><Value><DataType>Number</DataType><StringValue>42</StringValue></Value></MessageAttribute>`+
				`<MessageId>e971d095-7520-4d94-b0f9-05ed8b12ebc5</MessageId><ReceiptHandle>RH</ReceiptHandle></Message></ReceiveMessageResult>`)},
		{"an empty receive has an empty result",
			"Action=ReceiveMessage&Version=2012-11-05&QueueUrl=jobs",
			queryAnswer("ReceiveMessage", `<ReceiveMessageResult/>`)},
		{"SendMessageBatch lists successes and failures",
			"Action=SendMessageBatch&Version=2012-11-05&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x" +
				"&SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.2.MessageBody=y&SendMessageBatchRequestEntry.2.DelaySeconds=901",
			queryAnswer("SendMessageBatch", `<SendMessageBatchResult><BatchResultErrorEntry><Code>InvalidParameterValue</Code><Id>b</Id>`+
				`<Message>Value 901 for parameter DelaySeconds is invalid. Reason: DelaySeconds must be &gt;= 0 and &lt;= 900.</Message><SenderFault>true</SenderFault></BatchResultErrorEntry>`+
				`<SendMessageBatchResultEntry><Id>a</Id><MD5OfMessageBody>9dd4e461268c8034f5c8564e155c67a6</MD5OfMessageBody><MessageId>MID</MessageId></SendMessageBatchResultEntry></SendMessageBatchResult>`)},
		{"PurgeQueue has no result",
			"Action=PurgeQueue&Version=2012-11-05&QueueUrl=jobs",
			queryAnswer("PurgeQueue", ``)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := queryRequest(h, http.MethodPost, "/", tc.form)
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, "text/xml", w.Header().Get("Content-Type"))
			got := maskRequestID(t, w)
			got = regexp.MustCompile(`<ReceiptHandle>[^<]+</ReceiptHandle>`).ReplaceAllString(got, "<ReceiptHandle>RH</ReceiptHandle>")
			if strings.Contains(tc.want, "<MessageId>MID</MessageId>") {
				got = regexp.MustCompile(`<MessageId>[^<]+</MessageId>`).ReplaceAllString(got, "<MessageId>MID</MessageId>")
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestQueryRefusesWhatItCannotServe(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, tc := range []struct {
		name, method, path, form string
		status                   int
		want                     string
	}{
		{"no Action", http.MethodPost, "/", "Version=2012-11-05&QueueName=jobs", 400,
			queryErrorAnswer("Sender", "MissingAction", "The request is missing an action or a required parameter.")},
		{"a GET of the endpoint", http.MethodGet, "/", "", 400,
			queryErrorAnswer("Sender", "MissingAction", "The request is missing an action or a required parameter.")},
		{"a GET of a queue's URL without Action", http.MethodGet, "/123456789012/jobs", "", 404, "<UnknownOperationException/>"},
		{"an unknown Action", http.MethodPost, "/", "Action=SendMessages&Version=2012-11-05", 400,
			queryErrorAnswer("Sender", "InvalidAction", "The action SendMessages is not valid for this endpoint.")},
		{"CreateQueue on a queue's URL", http.MethodPost, "/123456789012/jobs", "Action=CreateQueue&QueueName=other", 400,
			queryErrorAnswer("Sender", "InvalidAction", "The action CreateQueue is not valid for this endpoint.")},
		{"ListQueues on a queue's URL", http.MethodGet, "/123456789012/jobs", "Action=ListQueues", 400,
			queryErrorAnswer("Sender", "InvalidAction", "The action ListQueues is not valid for this endpoint.")},
		{"a broken escape", http.MethodPost, "/", "Action=ListQueues&QueueNamePrefix=%zz", 404,
			queryErrorAnswer("Sender", "MalformedQueryString", "The query string contains a syntax error.")},
		{"an integer that is not one", http.MethodPost, "/", "Action=ReceiveMessage&QueueUrl=jobs&MaxNumberOfMessages=abc", 400,
			queryErrorAnswer("Sender", "InvalidParameterValue", "Value abc for parameter MaxNumberOfMessages is invalid. Reason: Must be an integer.")},
		{"an integer out of int32's range", http.MethodPost, "/", "Action=ReceiveMessage&QueueUrl=jobs&WaitTimeSeconds=4294967296", 400,
			queryErrorAnswer("Sender", "InvalidParameterValue", "Value 4294967296 for parameter WaitTimeSeconds is invalid. Reason: Must be an integer.")},
		{"a batch entry's integer that is not one", http.MethodPost, "/",
			"Action=SendMessageBatch&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x&SendMessageBatchRequestEntry.1.DelaySeconds=1.5", 400,
			queryErrorAnswer("Sender", "InvalidParameterValue", "Value 1.5 for parameter SendMessageBatchRequestEntry.1.DelaySeconds is invalid. Reason: Must be an integer.")},
		{"a binary value that is not base64", http.MethodPost, "/",
			"Action=SendMessage&QueueUrl=jobs&MessageBody=x&MessageAttribute.1.Name=b&MessageAttribute.1.Value.DataType=Binary&MessageAttribute.1.Value.BinaryValue=%21%21", 400,
			queryErrorAnswer("Sender", "InvalidParameterValue", "Value !! for parameter MessageAttribute.1.Value.BinaryValue is invalid. Reason: Must be base64-encoded.")},
		{"a message attribute without a name", http.MethodPost, "/",
			"Action=SendMessage&QueueUrl=jobs&MessageBody=x&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=v", 400,
			queryErrorAnswer("Sender", "MissingParameter", "The request must contain the parameter MessageAttribute.1.Name.")},
		{"a queue attribute without a value", http.MethodPost, "/",
			"Action=SetQueueAttributes&QueueUrl=jobs&Attribute.1.Name=DelaySeconds", 400,
			queryErrorAnswer("Sender", "MissingParameter", "The request must contain the parameter Attribute.1.Value.")},
		{"no QueueUrl", http.MethodPost, "/", "Action=SendMessage&MessageBody=x", 400,
			queryErrorAnswer("Sender", "MissingParameter", "The request must contain the parameter QueueUrl.")},
		{"a queue that does not exist", http.MethodPost, "/", "Action=GetQueueUrl&QueueName=missing", 400,
			queryErrorAnswer("Sender", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist for this wsdl version.")},
		{"a queue's URL that names no queue", http.MethodGet, "/123456789012/missing", "Action=SendMessage&MessageBody=x", 400,
			queryErrorAnswer("Sender", "AWS.SimpleQueueService.NonExistentQueue", "The specified queue does not exist for this wsdl version.")},
		{"an error with a status of its own", http.MethodPost, "/", "Action=DeleteMessage&QueueUrl=jobs&ReceiptHandle=nope", 404,
			queryErrorAnswer("Sender", "ReceiptHandleIsInvalid", `The input receipt handle "nope" is not a valid receipt handle.`)},
		{"an empty list", http.MethodPost, "/", "Action=UntagQueue&QueueUrl=jobs&TagKey=", 400,
			queryErrorAnswer("Sender", "InvalidParameterValue", "Tag keys must be between 1 and 128 characters in length.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := queryRequest(h, tc.method, tc.path, tc.form)
			assert.Equal(t, tc.status, w.Code)
			assert.Equal(t, "text/xml", w.Header().Get("Content-Type"))
			assert.Equal(t, tc.want, maskRequestID(t, w))
		})
	}
}

func TestQueryRefusesABodyOverMaxRequestBytes(t *testing.T) {
	h := New().Handler()
	w := queryRequest(h, http.MethodPost, "/", "Action=ListQueues&QueueNamePrefix="+strings.Repeat("x", MaxRequestBytes))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code)
	assert.Equal(t, queryErrorAnswer("Sender", "RequestEntityTooLargeException", "Request body must be no longer than 8388608 bytes."), maskRequestID(t, w))
}

// TestQueryRequestForms sends one ListQueueTags in each form a query request takes.
func TestQueryRequestForms(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs&Tag.1.Key=team&Tag.1.Value=a")
	want := queryAnswer("ListQueueTags", `<ListQueueTagsResult><Tag><Key>team</Key><Value>a</Value></Tag></ListQueueTagsResult>`)
	for _, tc := range []struct {
		name   string
		req    func() *http.Request
		status int
	}{
		{"a form-encoded POST", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("Action=ListQueueTags&Version=2012-11-05&QueueUrl=https%3A%2F%2Fsqs.us-east-1.amazonaws.com%2F123456789012%2Fjobs"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			return r
		}, 200},
		{"a GET with a query string", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/?Action=ListQueueTags&Version=2012-11-05&QueueUrl=jobs", nil)
		}, 200},
		{"a POST with the Action in its URL and no body (curl -X POST)", func() *http.Request {
			return httptest.NewRequest(http.MethodPost, "/?Action=ListQueueTags&QueueUrl=jobs", nil)
		}, 200},
		{"no Version", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/?Action=ListQueueTags&QueueUrl=jobs", nil)
		}, 200},
		{"a queue's URL as the path, without QueueUrl", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9324/123456789012/jobs?Action=ListQueueTags", nil)
		}, 200},
		{"a queue's URL with a slash after it", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/123456789012/jobs/?Action=ListQueueTags", nil)
		}, 200},
		{"QueueUrl wins over the path", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/123456789012/missing?Action=ListQueueTags&QueueUrl=jobs", nil)
		}, 200},
		{"a semicolon in a value", func() *http.Request {
			return httptest.NewRequest(http.MethodGet, "/?Action=ListQueueTags&QueueUrl=jobs&Ignored=a;b", nil)
		}, 200},
		{"the body wins over the query string", func() *http.Request {
			r := httptest.NewRequest(http.MethodPost, "/?Action=DeleteQueue&QueueUrl=missing", strings.NewReader("Action=ListQueueTags&QueueUrl=jobs"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded; charset=utf-8")
			return r
		}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, tc.req())
			assert.Equal(t, tc.status, w.Code)
			assert.Equal(t, want, maskRequestID(t, w))
		})
	}
}

// TestQueryAndJSONShareOneEngine sends with one protocol and receives with the other, both
// ways, and finds the same message, attributes and digests.
func TestQueryAndJSONShareOneEngine(t *testing.T) {
	ctx := context.Background()
	f := New()
	h := f.Handler()
	client := memoryClientOf(f)
	_, err := client.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)

	// JSON in, query out.
	sent, err := client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("from json"),
		MessageAttributes: map[string]types.MessageAttributeValue{"b": {DataType: aws.String("Binary"), BinaryValue: []byte{0, 1, 255}}}})
	require.NoError(t, err)
	w := queryRequest(h, http.MethodPost, "/", "Action=ReceiveMessage&QueueUrl=jobs&MessageAttributeName.1=All")
	var got struct {
		Messages []struct {
			MessageId, Body, MD5OfBody, MD5OfMessageAttributes, ReceiptHandle string
			Attrs                                                             []struct {
				Name  string
				Value struct{ DataType, BinaryValue string }
			} `xml:"MessageAttribute"`
		} `xml:"ReceiveMessageResult>Message"`
	}
	require.NoError(t, xml.Unmarshal(w.Body.Bytes(), &got), w.Body.String())
	require.Len(t, got.Messages, 1)
	m := got.Messages[0]
	assert.Equal(t, *sent.MessageId, m.MessageId)
	assert.Equal(t, "from json", m.Body)
	assert.Equal(t, *sent.MD5OfMessageBody, m.MD5OfBody)
	assert.Equal(t, *sent.MD5OfMessageAttributes, m.MD5OfMessageAttributes)
	require.Len(t, m.Attrs, 1)
	assert.Equal(t, "AAH/", m.Attrs[0].Value.BinaryValue)

	// The receipt handle from the query answer deletes through JSON.
	_, err = client.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(jobsURL), ReceiptHandle: aws.String(m.ReceiptHandle)})
	require.NoError(t, err)

	// Query in, JSON out.
	w = queryRequest(h, http.MethodPost, "/", "Action=SendMessage&QueueUrl=jobs&MessageBody=from+query&MessageAttribute.1.Name=s&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=v")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var sendResult struct {
		Result struct{ MessageId, MD5OfMessageBody, MD5OfMessageAttributes string } `xml:"SendMessageResult"`
	}
	require.NoError(t, xml.Unmarshal(w.Body.Bytes(), &sendResult))
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL), MessageAttributeNames: []string{"All"}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, sendResult.Result.MessageId, *out.Messages[0].MessageId)
	assert.Equal(t, "from query", *out.Messages[0].Body)
	assert.Equal(t, sendResult.Result.MD5OfMessageBody, *out.Messages[0].MD5OfBody)
	assert.Equal(t, sendResult.Result.MD5OfMessageAttributes, *out.Messages[0].MD5OfMessageAttributes)
	assert.Equal(t, map[string]types.MessageAttributeValue{"s": {DataType: aws.String("String"), StringValue: aws.String("v")}}, out.Messages[0].MessageAttributes)
}

// TestQueryBodiesRoundTripEveryCharacterSQSAllows sends bodies through the query protocol and
// reads them back from its XML with an XML parser: tabs, line feeds, carriage returns (which
// a parser turns into line feeds unless they are escaped), markup characters, and the edges of
// the ranges SQS allows.
func TestQueryBodiesRoundTripEveryCharacterSQSAllows(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, body := range []string{
		"tab\there", "line\nfeed", "carriage\rreturn", "crlf\r\nend", "\r", "\r\n\r\n",
		`markup <a href="x">&amp;</a> ]]> '`, "\u0020\ud7ff\ue000\ufffd\U00010000\U0010ffff",
		"ünïcödé ✓ 日本語", "  leading and trailing spaces  ",
	} {
		t.Run(strings.ToValidUTF8(url.QueryEscape(body), "?"), func(t *testing.T) {
			w := queryRequest(h, http.MethodPost, "/", "Action=SendMessage&QueueUrl=jobs&MessageBody="+url.QueryEscape(body))
			require.Equal(t, http.StatusOK, w.Code, w.Body.String())
			w = queryRequest(h, http.MethodPost, "/", "Action=ReceiveMessage&QueueUrl=jobs")
			var answer struct {
				Message struct{ Body, MD5OfBody, ReceiptHandle string } `xml:"ReceiveMessageResult>Message"`
			}
			require.NoError(t, xml.Unmarshal(w.Body.Bytes(), &answer), w.Body.String())
			got := answer.Message
			assert.Equal(t, body, got.Body)
			sum := md5.Sum([]byte(body))
			assert.Equal(t, hex.EncodeToString(sum[:]), got.MD5OfBody)
			queryRequest(h, http.MethodPost, "/", "Action=DeleteMessage&QueueUrl=jobs&ReceiptHandle="+url.QueryEscape(got.ReceiptHandle))
		})
	}
}

func TestAppendXMLText(t *testing.T) {
	for in, want := range map[string]string{
		"plain":             "plain",
		"a&b<c>d":           "a&amp;b&lt;c&gt;d",
		"\r\n\t":            "&#xD;\n\t",
		`"'`:                `"'`,
		"bell\x07":          "bell\ufffd",
		"nul\x00":           "nul\ufffd",
		"bad \xff byte":     "bad \ufffd byte",
		"\ufffe\uffff":      "\ufffd\ufffd",
		"\U0010ffff\u2028ü": "\U0010ffff\u2028ü",
	} {
		assert.Equal(t, want, string(appendXMLText(nil, in)), "%q", in)
	}
}

// TestQueryHonoursTheJSONPathsExtras: an explicit 0 is honoured as other clients' 0 is on
// awsJson1_0, X-Amzn-Trace-Id becomes AWSTraceHeader, and an injected lost response drops the
// connection after the operation took effect.
func TestQueryHonoursTheJSONPathsExtras(t *testing.T) {
	ctx := context.Background()
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs&Attribute.1.Name=DelaySeconds&Attribute.1.Value=60")

	w := queryRequest(h, http.MethodPost, "/", "Action=SendMessage&QueueUrl=jobs&MessageBody=now&DelaySeconds=0",
		"X-Amzn-Trace-Id", "Root=1-5759e988-bd862e3fe1be46a994272793")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("jobs"), MessageSystemAttributeNames: []types.MessageSystemAttributeName{"AWSTraceHeader"}})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1, "DelaySeconds=0 skips the queue's delay")
	assert.Equal(t, "Root=1-5759e988-bd862e3fe1be46a994272793", out.Messages[0].Attributes["AWSTraceHeader"])

	f.InjectFault(Fault{Operation: "SendMessage", Times: 1, LoseResponse: true})
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("Action=SendMessage&QueueUrl=jobs&MessageBody=lost"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	assert.True(t, serveRecovering(h, httptest.NewRecorder(), r), "the connection is dropped")
	f.Advance(time.Minute) // past the queue's delay
	out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("jobs"), MaxNumberOfMessages: 10})
	require.NoError(t, err)
	require.Len(t, out.Messages, 2)
	assert.Equal(t, "lost", *out.Messages[1].Body, "the send took effect")
}

// opsWithoutOutput are the operations that aws-sdk-go v1.47.5's api-2.json gives no output:
// their query answers have no Result element.
var opsWithoutOutput = []string{"AddPermission", "ChangeMessageVisibility", "DeleteMessage", "DeleteQueue", "PurgeQueue",
	"RemovePermission", "SetQueueAttributes", "TagQueue", "UntagQueue"}

// TestQueryDecodesEveryInputShape walks the input of every operation: each has a schema, and
// holds only shapes the query decoder reads; the operations without a Result element are the
// ones the query model gives no output.
func TestQueryDecodesEveryInputShape(t *testing.T) {
	var walk func(op, path string, s *smithy.Schema)
	walk = func(op, path string, s *smithy.Schema) {
		switch s.Type() {
		case smithy.ShapeTypeString, smithy.ShapeTypeEnum, smithy.ShapeTypeInteger, smithy.ShapeTypeBlob:
		case smithy.ShapeTypeList:
			walk(op, path+".member", s.ListMember())
		case smithy.ShapeTypeMap:
			walk(op, path+".key", s.MapKey())
			walk(op, path+".value", s.MapValue())
		case smithy.ShapeTypeStructure:
			for name, m := range s.Members() {
				walk(op, path+"."+name, m)
			}
		default:
			t.Errorf("%s: %s has shape type %d, which the query decoder does not read", op, path, s.Type())
		}
	}
	assert.Len(t, wireOps, 23)
	for name, op := range wireOps {
		require.NotNil(t, op.input, name)
		walk(name, name, op.input)
	}
	var without []string
	for name, schema := range opOutputSchemas() {
		if schema == nil {
			without = append(without, name)
		}
	}
	assert.ElementsMatch(t, opsWithoutOutput, without)
}

// opOutputSchemas returns the schema of each operation's output, nil for the operations
// whose output has none, read from the SDK's types through the method set.
func opOutputSchemas() map[string]*smithy.Schema {
	m := map[string]*smithy.Schema{}
	api := reflect.TypeFor[sqsAPI]()
	for i := range api.NumMethod() {
		method := api.Method(i)
		out := reflect.New(method.Type.Out(0).Elem()).Interface().(smithy.Serializable)
		m[method.Name] = schemaOf(out)
	}
	return m
}

func TestQueryKeepsASemicolonInAValue(t *testing.T) {
	ctx := context.Background()
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	w := queryRequest(h, http.MethodGet, "/123456789012/jobs", "Action=SendMessage&MessageBody=a;b")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("jobs")})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	assert.Equal(t, "a;b", *out.Messages[0].Body)
}

// FuzzQueryRequest sends arbitrary parameters in the query protocol: every answer is an XML
// document with a request id — a result or an ErrorResponse — or the 404 of a queue's URL
// without an Action, and nothing panics.
func FuzzQueryRequest(f *testing.F) {
	for _, seed := range []string{
		"Action=CreateQueue&QueueName=jobs&Attribute.1.Name=DelaySeconds&Attribute.1.Value=1",
		"Action=SendMessage&QueueUrl=jobs&MessageBody=x&MessageAttribute.1.Name=a&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=v",
		"Action=SendMessageBatch&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x&SendMessageBatchRequestEntry.2.Id=b",
		"Action=ReceiveMessage&QueueUrl=jobs&AttributeName.1=All&MaxNumberOfMessages=10&WaitTimeSeconds=0",
		"Action=ChangeMessageVisibilityBatch&QueueUrl=jobs&ChangeMessageVisibilityBatchRequestEntry.0.Id=a",
		"Action=TagQueue&QueueUrl=jobs&Tag.1.Key=&Tag.2.Value=v",
		"Action=AddPermission&QueueUrl=jobs&Label=l&AWSAccountId.1=111122223333&ActionName.1=SendMessage",
		"Action=UntagQueue&QueueUrl=jobs&TagKey=", "Action=%", "Action=Nope", "", "&&=&", "Action=ListQueues;x",
		// Issue 25: an unsigned pair with ';', a repeated name, a form large enough for the index.
		"QueueUrl=http://x;/123456789012/other&Action=ReceiveMessage&QueueUrl=jobs",
		"Action=SendMessage&QueueUrl=jobs&MessageBody=a&MessageBody=b",
		"Action=SendMessageBatch&QueueUrl=jobs" + strings.Repeat("&SendMessageBatchRequestEntry.3.Id=c&SendMessageBatchRequestEntry.3.MessageBody=x&P=1", 12),
	} {
		f.Add(http.MethodPost, "/", seed)
		f.Add(http.MethodGet, "/123456789012/jobs", seed)
	}
	f.Fuzz(func(t *testing.T, method, path, form string) {
		if method != http.MethodGet {
			method = http.MethodPost
		}
		fake := New()
		fake.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		var r *http.Request
		if method == http.MethodGet {
			r = httptest.NewRequest(method, "/", nil)
			r.URL.RawQuery = form
		} else {
			r = httptest.NewRequest(method, "/", strings.NewReader(form))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		r.URL.Path = path
		// A long poll would wait on the virtual clock: keep every receive short.
		if strings.Contains(form, "WaitTimeSeconds") {
			return
		}
		w := httptest.NewRecorder()
		fake.Handler().ServeHTTP(w, r)
		assert.Equal(t, "text/xml", w.Header().Get("Content-Type"))
		assert.Regexp(t, uuidPattern, w.Header().Get("X-Amzn-Requestid"))
		if w.Code == http.StatusNotFound && w.Body.String() == "<UnknownOperationException/>" {
			return
		}
		dec := xml.NewDecoder(strings.NewReader(w.Body.String()))
		for {
			_, err := dec.Token()
			if err != nil {
				assert.ErrorIs(t, err, io.EOF, "%d %s", w.Code, w.Body.String())
				break
			}
		}
	})
}

// TestQueryRefusesTextThatIsNotUnicode pins that a parameter whose %-escapes decode to bytes
// that are not UTF-8 (an encoded surrogate among them) is refused as the awsJson1_0 door
// refuses the same bytes, with the same code and message, and nothing is sent: the query
// door never stores U+FFFD in their place.
func TestQueryRefusesTextThatIsNotUnicode(t *testing.T) {
	for _, tc := range []struct {
		name, form, code, message string
	}{
		{"body", "Action=SendMessage&QueueUrl=q&MessageBody=a%FFb", "InvalidMessageContents",
			"Invalid UTF-8 byte '#xFF' was found in the message body, " + allowedCharsTail},
		{"encoded surrogate", "Action=SendMessage&QueueUrl=q&MessageBody=%ED%A0%80", "InvalidMessageContents",
			"Invalid UTF-8 byte '#xED' was found in the message body, " + allowedCharsTail},
		{"attribute value", "Action=SendMessage&QueueUrl=q&MessageBody=x&MessageAttribute.1.Name=a" +
			"&MessageAttribute.1.Value.DataType=String&MessageAttribute.1.Value.StringValue=1%C0", "InvalidParameterValue",
			"Invalid UTF-8 byte '#xC0' was found in the message attribute 'a' value, " + allowedCharsTail},
		{"batch entry", "Action=SendMessageBatch&QueueUrl=q&SendMessageBatchRequestEntry.1.Id=a" +
			"&SendMessageBatchRequestEntry.1.MessageBody=%FF", "", ""},
		{"queue attribute", "Action=SetQueueAttributes&QueueUrl=q&Attribute.1.Name=Policy&Attribute.1.Value=%FF",
			"InvalidAttributeValue", "Invalid value for the parameter Policy."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			h := f.Handler()
			require.Equal(t, http.StatusOK, queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=q").Code)
			w := queryRequest(h, http.MethodPost, "/", tc.form)
			if tc.code == "" { // a batch: the entry fails, the call succeeds
				require.Equal(t, http.StatusOK, w.Code, w.Body.String())
				assert.Contains(t, w.Body.String(), "<BatchResultErrorEntry><Code>InvalidMessageContents</Code>")
			} else {
				assert.Equal(t, http.StatusBadRequest, w.Code)
				assert.Equal(t, queryErrorAnswer("Sender", tc.code, tc.message), maskRequestID(t, w))
			}
			info, _ := f.Queue("q")
			assert.Empty(t, info.Messages, "nothing is sent")
			assert.Empty(t, info.Attributes["Policy"], "nothing is set")
		})
	}
}

// TestQueryBatchWithoutEntriesIsAnEmptyBatch pins the answer to a batch request that gives no
// entry parameters at all: EmptyBatchRequest, as real SQS answered aws-sdk-php v3 when it sent
// DeleteMessageBatch's entries under names SQS did not read (aws/aws-sdk-php#630), not a
// MissingParameter naming the JSON member Entries.
func TestQueryBatchWithoutEntriesIsAnEmptyBatch(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, op := range []string{"SendMessageBatch", "DeleteMessageBatch", "ChangeMessageVisibilityBatch"} {
		for _, form := range []string{"Action=" + op + "&QueueUrl=jobs", "Action=" + op + "&QueueUrl=jobs&" + op + "RequestEntry="} {
			t.Run(form, func(t *testing.T) {
				w := queryRequest(h, http.MethodPost, "/", form)
				assert.Equal(t, http.StatusBadRequest, w.Code)
				assert.Equal(t, queryErrorAnswer("Sender", "AWS.SimpleQueueService.EmptyBatchRequest",
					"There should be at least one "+op+"RequestEntry in the request."), maskRequestID(t, w))
			})
		}
	}
}

// TestQueryMissingParameterNamesTheQueryParameter pins that a missing member is named as the
// query protocol names it: DeleteMessageBatchRequestEntry.1.Id, as real SQS answered
// aws-sdk-js v2 (aws/aws-sdk-js#2388), where awsJson1_0 says Entries[0].Id.
func TestQueryMissingParameterNamesTheQueryParameter(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, tc := range []struct{ form, param string }{
		{"Action=DeleteMessageBatch&QueueUrl=jobs&DeleteMessageBatchRequestEntry.1.ReceiptHandle=h", "DeleteMessageBatchRequestEntry.1.Id"},
		{"Action=SendMessageBatch&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.2.Id=b", "SendMessageBatchRequestEntry.1.MessageBody"},
		// An entry is named by the number the request gave it.
		{"Action=ChangeMessageVisibilityBatch&QueueUrl=jobs&ChangeMessageVisibilityBatchRequestEntry.3.Id=a", "ChangeMessageVisibilityBatchRequestEntry.3.ReceiptHandle"},
		{"Action=SendMessageBatch&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x&SendMessageBatchRequestEntry.5.MessageBody=y", "SendMessageBatchRequestEntry.5.Id"},
		{"Action=SendMessageBatch&QueueUrl=jobs&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=k&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=v",
			`SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType`},
		{"Action=SendMessage&QueueUrl=jobs&MessageBody=x&MessageAttribute.1.Name=k&MessageAttribute.1.Value.StringValue=v", "MessageAttribute.1.Value.DataType"},
		{"Action=SendMessage&QueueUrl=jobs&MessageBody=x&MessageSystemAttribute.1.Name=AWSTraceHeader&MessageSystemAttribute.1.Value.StringValue=v", "MessageSystemAttribute.1.Value.DataType"},
		{"Action=AddPermission&QueueUrl=jobs&Label=l&ActionName.1=SendMessage", "AWSAccountId"},
		{"Action=AddPermission&QueueUrl=jobs&Label=l&AWSAccountId.1=123456789012", "ActionName"},
		{"Action=TagQueue&QueueUrl=jobs", "Tag"},
		{"Action=UntagQueue&QueueUrl=jobs", "TagKey"},
	} {
		t.Run(tc.param, func(t *testing.T) {
			w := queryRequest(h, http.MethodPost, "/", tc.form)
			assert.Equal(t, http.StatusBadRequest, w.Code)
			assert.Equal(t, queryErrorAnswer("Sender", "MissingParameter", "The request must contain the parameter "+tc.param+"."), maskRequestID(t, w))
		})
	}
}

// TestQueryServesOnlyGETAndPOST pins that a request in another method is no query request:
// SQS's query API is "HTTP GET or POST" (Amazon SQS Developer Guide, "Making Query API
// requests"), and the fake answers the other methods as its awsJson1_0 path does, with 405.
func TestQueryServesOnlyGETAndPOST(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, method := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
		t.Run(method, func(t *testing.T) {
			w := queryRequest(h, method, "/123456789012/jobs", "Action=DeleteQueue")
			assert.Equal(t, http.StatusMethodNotAllowed, w.Code)
			assert.Equal(t, `{"__type":"com.amazon.coral.service#UnknownOperationException","message":"SQS requests are POSTs with an X-Amz-Target header; got `+method+`."}`, w.Body.String())
		})
	}
	assert.Equal(t, []string{"jobs"}, f.allQueueNames(), "no request deleted the queue")
}

// TestQueryDuplicateParameterKeepsItsFirstValue pins the rule for a parameter given twice
// (see formDecoder.parse): the first value counts, in the body as in the query string.
func TestQueryDuplicateParameterKeepsItsFirstValue(t *testing.T) {
	f := New()
	h := f.Handler()
	queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&QueueName=jobs")
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		t.Run(method, func(t *testing.T) {
			w := queryRequest(h, method, "/", "Action=GetQueueUrl&QueueName=jobs&QueueName=missing")
			assert.Equal(t, http.StatusOK, w.Code)
			assert.Equal(t, queryAnswer("GetQueueUrl", `<GetQueueUrlResult><QueueUrl>https://sqs.us-east-1.amazonaws.com/123456789012/jobs</QueueUrl></GetQueueUrlResult>`), maskRequestID(t, w))
		})
	}
}

// A form large enough to be looked up through the decoder's index reads as the same form
// scanned: the parameters that pad it are unknown ones, which the input ignores.
func TestQueryDecoderIndexedReadsAsScanned(t *testing.T) {
	padding := strings.Repeat("&Unknown=1", indexedParams)
	for _, tc := range []struct{ action, form string }{
		{"SendMessageBatch", "SendMessageBatchRequestEntry.2.Id=b&SendMessageBatchRequestEntry.1.Id=a&SendMessageBatchRequestEntry.1.MessageBody=x&SendMessageBatchRequestEntry.2.MessageBody=y&SendMessageBatchRequestEntry.1.MessageAttribute.1.Name=k&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.DataType=String&SendMessageBatchRequestEntry.1.MessageAttribute.1.Value.StringValue=v"},
		{"CreateQueue", "QueueName=q&Attribute.2.Name=DelaySeconds&Attribute.2.Value=5&Attribute.1.Name=VisibilityTimeout&Attribute.1.Value=9&Tag.1.Key=k&Tag.1.Value=v"},
		{"ReceiveMessage", "QueueUrl=q&AttributeName.1=All&MessageAttributeName.2=b&MessageAttributeName.1=a&MaxNumberOfMessages=3"},
		{"SendMessage", "QueueUrl=q&MessageBody=first&MessageBody=second"},
	} {
		decode := func(form string) string {
			d := formDecoders.Get().(*formDecoder)
			defer d.release()
			r := httptest.NewRequest(http.MethodPost, "/", nil)
			require.Nil(t, d.parse(r, []byte(form)))
			require.Nil(t, d.structure(wireOps[tc.action].input, ""))
			return string(d.buf)
		}
		form := "Action=" + tc.action + "&" + tc.form
		assert.Equal(t, decode(form), decode(form+padding), tc.action)
		assert.Equal(t, decode(form), decode(strings.TrimPrefix(padding, "&")+"&"+form), tc.action)
	}
}
