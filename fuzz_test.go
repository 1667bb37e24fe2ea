package sqsfake

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// Fuzz targets. Each runs its seeds as an ordinary test; `go test -run '^$' -fuzz '^FuzzX$'
// -fuzztime 10s .` explores further (.ci/run runs each briefly). A crasher the fuzzer finds
// is written to testdata/fuzz/FuzzX/ and, committed, stays a regression test.

// opNames are the 23 operations in name order: a fuzzed op byte picks one.
var opNames = func() []string {
	names := make([]string, 0, len(operations))
	for name := range operations {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}()

// wireRequest is one request as a client wrote it.
type wireRequest struct {
	target string
	body   []byte
}

// recordingClient passes requests on to an HTTP client and keeps their targets and bodies.
type recordingClient struct {
	next sqs.HTTPClient
	mu   sync.Mutex
	reqs []wireRequest
}

func (c *recordingClient) Do(r *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	c.mu.Lock()
	c.reqs = append(c.reqs, wireRequest{strings.TrimPrefix(r.Header.Get("X-Amz-Target"), targetPrefix), body})
	c.mu.Unlock()
	return c.next.Do(r)
}

// corpusRequests runs the differential test's corpus through a stock SDK client on Handler
// and returns the requests the SDK wrote, in order.
func corpusRequests() []wireRequest {
	f := New()
	rec := &recordingClient{next: f.HTTPClient()}
	d := &door{name: "recorded", f: f, api: sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String("http://sqs.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient:       rec,
	})}
	ctx := context.Background()
	s := &corpusState{}
	for _, st := range corpus {
		st.call(ctx, d, s)
	}
	return rec.reqs
}

// fuzzFixture is the fake each fuzzed request meets: the queues the corpus names — jobs with
// dlq as its dead-letter queue, orders.fifo — two messages in jobs, one of them in flight,
// and one in orders.fifo. It returns the in-flight message's receipt handle.
func fuzzFixture(t testing.TB) (*Fake, string) {
	f := New()
	ctx := context.Background()
	must := func(_ any, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("dlq")}))
	must(f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Tags: map[string]string{"team": "a"},
		Attributes: attrs("RedrivePolicy", `{"deadLetterTargetArn":"`+dlqARN+`","maxReceiveCount":2}`)}))
	must(f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders.fifo"),
		Attributes: attrs("FifoQueue", "true", "ContentBasedDeduplication", "true")}))
	must(f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("one")}))
	must(f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(jobsURL), MessageBody: aws.String("two")}))
	must(f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(fifoURL), MessageBody: aws.String("first"), MessageGroupId: aws.String("g")}))
	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(jobsURL)})
	must(out, err)
	return f, aws.ToString(out.Messages[0].ReceiptHandle)
}

// serveFuzzed answers one request with f's handler. A long poll that parks is ended by moving
// the clock past the longest wait, as a client waiting 20 s would see it end.
func serveFuzzed(f *Fake, target string, body []byte) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body))
	r.Header.Set("Content-Type", jsonContentType)
	r.Header.Set("X-Amz-Target", targetPrefix+target)
	w := httptest.NewRecorder()
	ctx, cancel := context.WithCancel(context.Background())
	mover := make(chan struct{})
	go func() {
		defer close(mover)
		if f.WaitForPollers(ctx, 1) == nil {
			f.Advance(maxWaitTimeSeconds * time.Second)
		}
	}()
	f.Handler().ServeHTTP(w, r)
	cancel()
	<-mover
	return w
}

var queryErrorPattern = regexp.MustCompile(`^[A-Za-z.]+;(Sender|Receiver)$`)

// checkWireAnswer requires a well-formed answer: a 200 with a JSON object, or an AWS error
// of the sender's making — never a 5xx, which would be the fake's own failure.
func checkWireAnswer(t *testing.T, w *httptest.ResponseRecorder) {
	t.Helper()
	if got := w.Header().Get("Content-Type"); got != jsonContentType {
		t.Errorf("Content-Type %q", got)
	}
	if w.Header().Get("X-Amzn-Requestid") == "" {
		t.Error("no x-amzn-RequestId")
	}
	body := w.Body.Bytes()
	if w.Code == http.StatusOK {
		var out map[string]json.RawMessage
		if err := json.Unmarshal(body, &out); err != nil || out == nil {
			t.Errorf("200 with a body that is not a JSON object: %q", body)
		}
		return
	}
	switch w.Code {
	case http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusRequestEntityTooLarge:
	default:
		t.Errorf("status %d: %s", w.Code, body)
	}
	var e struct {
		Type    *string `json:"__type"`
		Message *string `json:"message"`
	}
	if err := json.Unmarshal(body, &e); err != nil || e.Type == nil || e.Message == nil || *e.Message == "" {
		t.Fatalf("an error that is not AWS's shape: %q", body)
	}
	switch {
	case strings.HasPrefix(*e.Type, sqsNamespace):
		if q := w.Header().Get("X-Amzn-Query-Error"); !queryErrorPattern.MatchString(q) {
			t.Errorf("%s with x-amzn-query-error %q", *e.Type, q)
		}
	case strings.HasPrefix(*e.Type, coralNamespace):
	default:
		t.Errorf("__type %q", *e.Type)
	}
}

// strictJSONString decodes a JSON string as written, and reports false for what is not a
// string of Unicode text: a lone surrogate escape, or bytes that are not UTF-8. It is
// written apart from the handler's own check, on package unicode/utf16.
func strictJSONString(raw json.RawMessage) (string, bool) {
	raw = bytes.Trim(raw, jsonSpace)
	if len(raw) < 2 || raw[0] != '"' || !utf8.Valid(raw) {
		return "", false
	}
	s := string(raw[1 : len(raw)-1])
	var units []uint16
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r, size := utf8.DecodeRuneInString(s[i:])
			units = utf16.AppendRune(units, r)
			i += size
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch c := s[i+1]; c {
		case 'u':
			if i+6 > len(s) {
				return "", false
			}
			v, err := strconv.ParseUint(s[i+2:i+6], 16, 16)
			if err != nil {
				return "", false
			}
			units = append(units, uint16(v))
			i += 6
			continue
		case '"', '\\', '/':
			units = append(units, uint16(c))
		case 'b':
			units = append(units, '\b')
		case 'f':
			units = append(units, '\f')
		case 'n':
			units = append(units, '\n')
		case 'r':
			units = append(units, '\r')
		case 't':
			units = append(units, '\t')
		default:
			return "", false
		}
		i += 2
	}
	for i := 0; i < len(units); i++ {
		if u := rune(units[i]); utf16.IsSurrogate(u) {
			if u < 0xDC00 && i+1 < len(units) && 0xDC00 <= units[i+1] && units[i+1] <= 0xDFFF {
				i++
				continue
			}
			return "", false
		}
	}
	return string(utf16.Decode(units)), true
}

// sentMessage is a message of a request as its client wrote it.
type sentMessage struct {
	Id                                         string
	MessageBody                                json.RawMessage
	MessageAttributes, MessageSystemAttributes map[string]struct{ DataType, StringValue json.RawMessage }
}

// checkSentAsWritten requires a message the handler took to be text as written, and its
// MD5OfMessageBody to be the digest of that text: nothing was altered on the way in.
func checkSentAsWritten(t *testing.T, m sentMessage, md5Body string) {
	t.Helper()
	body, ok := strictJSONString(m.MessageBody)
	if !ok {
		t.Errorf("a message with body %s was taken", m.MessageBody)
	}
	if got := md5Of(body); got != md5Body {
		t.Errorf("MD5OfMessageBody %s, the body sent %q has %s", md5Body, body, got)
	}
	for _, attrs := range []map[string]struct{ DataType, StringValue json.RawMessage }{m.MessageAttributes, m.MessageSystemAttributes} {
		for name, a := range attrs {
			for _, raw := range []json.RawMessage{a.DataType, a.StringValue} {
				if len(raw) > 0 && raw[0] == '"' {
					if _, ok := strictJSONString(raw); !ok {
						t.Errorf("a message with attribute %q %s was taken", name, raw)
					}
				}
			}
		}
	}
}

// checkNothingAltered applies checkSentAsWritten to what a 200 SendMessage or
// SendMessageBatch took. The request is decoded by the same encoding/json rules as the
// handler's, so each member is the one the handler used.
func checkNothingAltered(t *testing.T, target string, body []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	if w.Code != http.StatusOK {
		return
	}
	switch target {
	case "SendMessage":
		var in sentMessage
		var out struct{ MD5OfMessageBody string }
		if json.Unmarshal(body, &in) != nil || json.Unmarshal(w.Body.Bytes(), &out) != nil {
			t.Fatalf("a SendMessage answered 200 that does not decode: %q → %s", body, w.Body.Bytes())
		}
		checkSentAsWritten(t, in, out.MD5OfMessageBody)
	case "SendMessageBatch":
		var in struct{ Entries []sentMessage }
		var out struct {
			Successful []struct{ Id, MD5OfMessageBody string }
		}
		if json.Unmarshal(body, &in) != nil || json.Unmarshal(w.Body.Bytes(), &out) != nil {
			t.Fatalf("a SendMessageBatch answered 200 that does not decode: %q → %s", body, w.Body.Bytes())
		}
		for _, s := range out.Successful {
			i := slices.IndexFunc(in.Entries, func(e sentMessage) bool { return e.Id == s.Id })
			if i < 0 {
				t.Fatalf("entry %q succeeded but was not sent", s.Id)
			}
			checkSentAsWritten(t, in.Entries[i], s.MD5OfMessageBody)
		}
	}
}

// replayClient answers every request with one recorded response.
type replayClient struct{ w *httptest.ResponseRecorder }

func (c *replayClient) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	res := c.w.Result()
	res.Body = io.NopCloser(bytes.NewReader(c.w.Body.Bytes()))
	res.Request = r
	return res, nil
}

// checkSDKReads hands the handler's answer to a stock SDK client, which calls the operation
// with the request decoded into its input: the SDK must read a 200 without error — its MD5
// checks of message bodies and attributes included — and an error as the API error the
// answer states, with its status. A request the SDK would refuse before sending is skipped.
func checkSDKReads(t *testing.T, client *sqs.Client, replay *replayClient, target string, body []byte, w *httptest.ResponseRecorder) {
	t.Helper()
	method := reflect.ValueOf(client).MethodByName(target)
	in := reflect.New(method.Type().In(1).Elem())
	if len(bytes.Trim(body, jsonSpace)) > 0 && json.Unmarshal(body, in.Interface()) != nil {
		return
	}
	replay.w = w
	results := method.Call([]reflect.Value{reflect.ValueOf(context.Background()), in})
	err, _ := results[1].Interface().(error)
	var invalid smithy.InvalidParamsError
	if errors.As(err, &invalid) {
		return
	}
	if w.Code == http.StatusOK {
		if err != nil {
			t.Errorf("the SDK cannot read a 200 answer: %v\n%s", err, w.Body.Bytes())
		}
		return
	}
	var ae smithy.APIError
	var re *awshttp.ResponseError
	if !errors.As(err, &ae) || !errors.As(err, &re) {
		t.Fatalf("the SDK reads a %d answer as %v", w.Code, err)
	}
	want := ae.ErrorCode()
	if q := w.Header().Get("X-Amzn-Query-Error"); q != "" {
		want, _, _ = strings.Cut(q, ";")
	}
	if ae.ErrorCode() != want || re.HTTPStatusCode() != w.Code {
		t.Errorf("the SDK reads code %s status %d; the answer says %s status %d", ae.ErrorCode(), re.HTTPStatusCode(), want, w.Code)
	}
}

// FuzzHandler sends one request of any operation, its body seeded with every request the
// differential test's corpus makes, to a fixture fake. The handler never panics; it answers
// a well-formed AWS error or a 200, which a stock SDK client reads; a message it takes is the
// text that was sent; and the same request to the same fixture gives the same bytes.
func FuzzHandler(f *testing.F) {
	index := map[string]uint8{}
	for i, name := range opNames {
		index[name] = uint8(i)
	}
	for _, r := range corpusRequests() {
		f.Add(index[r.target], r.body)
	}
	_, handle := fuzzFixture(f)
	for _, seed := range []struct{ target, body string }{
		{"DeleteMessage", `{"QueueUrl":"` + jobsURL + `","ReceiptHandle":"` + handle + `"}`},
		{"ChangeMessageVisibility", `{"QueueUrl":"jobs","ReceiptHandle":"` + handle + `","VisibilityTimeout":0}`},
		{"ReceiveMessage", `{"QueueUrl":"` + fifoURL + `","WaitTimeSeconds":20,"MaxNumberOfMessages":0}`},
		{"SendMessage", `{"QueueUrl":"jobs","MessageBody":"a\ud800b\ud83d\ude00","MessageAttributes":{"a":{"DataType":"String.\udc00","StringValue":"\\ud800"}}}`},
		{"SendMessage", "{\"QueueUrl\":\"jobs\",\"MessageBody\":\"\xff\",\"MessageBody\":\"ok\"}"},
		{"SendMessageBatch", `{"QueueUrl":"jobs","Entries":[{"Id":"a","MessageBody":"\udc00"},{"Id":"b","MessageBody":"x"}],"Entries":[{"Id":"a"}]}`},
		{"CreateQueue", `{"QueueName":"q","Attributes":{"Policy":"{\"a\":\"\ud800\"}"},"tags":{"k":"\ud800"}}`},
		{"ListQueues", "\v{}"},
		{"ListQueues", `{"QueueNamePrefix":"j"} {}`},
	} {
		f.Add(index[seed.target], []byte(seed.body))
	}
	replay := &replayClient{}
	client := sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String("http://sqs.fake.invalid"),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient:       replay,
	})
	f.Fuzz(func(t *testing.T, op uint8, body []byte) {
		target := opNames[int(op)%len(opNames)]
		fake, _ := fuzzFixture(t)
		w := serveFuzzed(fake, target, body)
		checkWireAnswer(t, w)
		checkNothingAltered(t, target, body, w)
		checkSDKReads(t, client, replay, target, body, w)
		again, _ := fuzzFixture(t)
		w2 := serveFuzzed(again, target, body)
		if w2.Code != w.Code || !bytes.Equal(w2.Body.Bytes(), w.Body.Bytes()) ||
			w2.Header().Get("X-Amzn-Requestid") != w.Header().Get("X-Amzn-Requestid") {
			t.Errorf("the same request gave two answers:\n%d %s\n%d %s", w.Code, w.Body.Bytes(), w2.Code, w2.Body.Bytes())
		}
	})
}

var (
	standardQueueName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,80}$`)
	fifoQueueName     = regexp.MustCompile(`^[A-Za-z0-9_-]{1,75}\.fifo$`)
)

// apiErrorCode returns the code of an API error, failing the test for any other error.
func apiErrorCode(t *testing.T, err error) string {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("not an API error: %v", err)
	}
	if ae.ErrorMessage() == "" {
		t.Errorf("%s without a message", ae.ErrorCode())
	}
	return ae.ErrorCode()
}

// FuzzQueueName creates a standard and a FIFO queue of one name. A name is taken exactly when
// it matches SQS's pattern, a taken name's queue is found again by name, URL and ARN, and a
// refused one is InvalidParameterValue and leaves no queue behind.
func FuzzQueueName(f *testing.F) {
	for _, name := range []string{"jobs", "orders.fifo", "a", strings.Repeat("a", 80), strings.Repeat("a", 81),
		strings.Repeat("b", 75) + ".fifo", strings.Repeat("b", 76) + ".fifo", ".fifo", "bad name!", "", "q.FIFO",
		"ü", "a\x00", "x.fifo.fifo", "a/b", "%2F", "jobs\n"} {
		f.Add(name)
	}
	f.Fuzz(func(t *testing.T, name string) {
		ctx := context.Background()
		for _, fifo := range []bool{false, true} {
			fake := New()
			in := &sqs.CreateQueueInput{QueueName: aws.String(name)}
			if fifo {
				in.Attributes = attrs("FifoQueue", "true")
			}
			out, err := fake.CreateQueue(ctx, in)
			valid := standardQueueName.MatchString(name)
			if fifo {
				valid = fifoQueueName.MatchString(name)
			}
			if err != nil {
				if valid {
					t.Fatalf("fifo=%v: %q refused: %v", fifo, name, err)
				}
				if code := apiErrorCode(t, err); code != "InvalidParameterValue" {
					t.Errorf("fifo=%v: %q refused with %s", fifo, name, code)
				}
				if qs := fake.Queues(); len(qs) != 0 {
					t.Errorf("a refused name left %d queues", len(qs))
				}
				continue
			}
			if !valid {
				t.Fatalf("fifo=%v: %q taken", fifo, name)
			}
			got, err := fake.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String(name)})
			if err != nil || aws.ToString(got.QueueUrl) != aws.ToString(out.QueueUrl) {
				t.Fatalf("GetQueueUrl(%q) = %v, %v; CreateQueue gave %s", name, got, err, aws.ToString(out.QueueUrl))
			}
			a, err := fake.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: out.QueueUrl,
				AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameQueueArn}})
			if err != nil {
				t.Fatal(err)
			}
			arn := a.Attributes["QueueArn"]
			if !strings.HasSuffix(arn, ":"+name) {
				t.Errorf("QueueArn %q of %q", arn, name)
			}
			if _, err := fake.Queue(arn); err != nil {
				t.Errorf("no queue by its ARN %q", arn)
			}
		}
	})
}

// settableAttributes are what GetQueueAttributes returns that SetQueueAttributes takes back.
var settableAttributes = []string{"DelaySeconds", "MaximumMessageSize", "MessageRetentionPeriod", "Policy",
	"ReceiveMessageWaitTimeSeconds", "RedriveAllowPolicy", "RedrivePolicy", "VisibilityTimeout",
	"KmsMasterKeyId", "KmsDataKeyReusePeriodSeconds", "SqsManagedSseEnabled",
	"ContentBasedDeduplication", "DeduplicationScope", "FifoThroughputLimit"}

// queueAttributes returns every attribute of a queue.
//
// A queue's policy can deny its own owner GetQueueAttributes with an explicit Deny, as SQS's
// can; the attributes are then read through inspection, which no queue policy binds.
func queueAttributes(t *testing.T, fake *Fake, url string) map[string]string {
	t.Helper()
	out, err := fake.GetQueueAttributes(context.Background(), &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url),
		AttributeNames: []types.QueueAttributeName{types.QueueAttributeNameAll}})
	if err != nil && deniedByPolicy(t, err) {
		info, err := fake.Queue(url)
		if err != nil {
			t.Fatal(err)
		}
		return info.Attributes
	}
	if err != nil {
		t.Fatal(err)
	}
	return out.Attributes
}

// deniedByPolicy reports whether err is the refusal of a caller by an explicit Deny in the
// queue's policy, which binds the queue's owner too.
func deniedByPolicy(t *testing.T, err error) bool {
	t.Helper()
	return apiErrorCode(t, err) == "AccessDenied" && strings.Contains(err.Error(), "with an explicit deny in a resource-based policy")
}

// FuzzQueueAttributes sets two queue attributes at once, the RedrivePolicy and
// RedriveAllowPolicy JSON included, on a standard or FIFO queue with dead-letter queues of
// both kinds at hand. A refusal is a queue-attribute error that changes nothing; what is
// taken reads back as a fixpoint: setting the attributes GetQueueAttributes returns changes
// nothing more.
func FuzzQueueAttributes(f *testing.F) {
	dlqFifoARN := "arn:aws:sqs:us-east-1:123456789012:dlq.fifo"
	for _, seed := range [][4]string{
		{"VisibilityTimeout", "30", "DelaySeconds", "0"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + dlqARN + `","maxReceiveCount":"2"}`, "", ""},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + dlqFifoARN + `","maxReceiveCount":5}`, "MessageRetentionPeriod", "60"},
		{"RedrivePolicy", `{"deadLetterTargetArn":"` + missingARN + `","maxReceiveCount":1001}`, "", ""},
		{"RedriveAllowPolicy", `{"redrivePermission":"byQueue","sourceQueueArns":["` + jobsARN + `"]}`, "", ""},
		{"RedriveAllowPolicy", `{"redrivePermission":"denyAll"}`, "RedrivePolicy", ""},
		{"Policy", `{"Version":"2012-10-17","Statement":[]}`, "KmsMasterKeyId", "alias/aws/sqs"},
		{"SqsManagedSseEnabled", "TRUE", "KmsMasterKeyId", "k"},
		{"FifoQueue", "true", "ContentBasedDeduplication", "false"},
		{"DeduplicationScope", "messageGroup", "FifoThroughputLimit", "perMessageGroupId"},
		{"MaximumMessageSize", " 1024", "ReceiveMessageWaitTimeSeconds", "21"},
		{"Bogus", "1", "QueueArn", "x"},
		// A policy that denies its owner the calls this target reads and writes with.
		{"Policy", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:GetQueueAttributes","Resource":"*"}]}`, "", ""},
		{"Policy", `{"Statement":[{"Effect":"Deny","Principal":"*","Action":["sqs:SetQueueAttributes","sqs:CreateQueue"],"Resource":"*"}]}`, "DelaySeconds", "5"},
	} {
		for _, fifo := range []bool{false, true} {
			f.Add(fifo, seed[0], seed[1], seed[2], seed[3])
		}
	}
	f.Fuzz(func(t *testing.T, fifo bool, name1, value1, name2, value2 string) {
		ctx := context.Background()
		fake := New()
		for _, dlq := range []*sqs.CreateQueueInput{
			{QueueName: aws.String("dlq")},
			{QueueName: aws.String("dlq.fifo"), Attributes: attrs("FifoQueue", "true")},
		} {
			if _, err := fake.CreateQueue(ctx, dlq); err != nil {
				t.Fatal(err)
			}
		}
		in := &sqs.CreateQueueInput{QueueName: aws.String("q")}
		if fifo {
			in.QueueName, in.Attributes = aws.String("q.fifo"), attrs("FifoQueue", "true")
		}
		q, err := fake.CreateQueue(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		url := aws.ToString(q.QueueUrl)
		before := queueAttributes(t, fake, url)
		set := map[string]string{name1: value1}
		if name2 != "" {
			set[name2] = value2
		}
		_, err = fake.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: set})
		after := queueAttributes(t, fake, url)
		if err != nil {
			switch code := apiErrorCode(t, err); code {
			case "InvalidAttributeName", "InvalidAttributeValue", "InvalidParameterValue", "OverLimit":
			default:
				t.Errorf("refused with %s: %v", code, err)
			}
			if !mapsEqual(before, after) {
				t.Errorf("a refused SetQueueAttributes changed the queue:\n%v\n%v", before, after)
			}
			return
		}
		back := map[string]string{}
		for _, name := range settableAttributes {
			if v, ok := after[name]; ok {
				back[name] = v
			}
		}
		if _, err := fake.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: back}); err != nil {
			if deniedByPolicy(t, err) {
				return // the Policy just set denies its owner SetQueueAttributes
			}
			t.Fatalf("the attributes GetQueueAttributes returned are refused: %v\n%v", err, back)
		}
		if again := queueAttributes(t, fake, url); !mapsEqual(after, again) {
			t.Errorf("setting the attributes read back changed them:\n%v\n%v", after, again)
		}
		// The same attributes create a queue too, unless they are SetQueueAttributes' own.
		create := &sqs.CreateQueueInput{QueueName: aws.String("created"), Attributes: set}
		if fifo {
			create.QueueName = aws.String("created.fifo")
			create.Attributes = attrs("FifoQueue", "true")
			for k, v := range set {
				create.Attributes[k] = v
			}
		}
		if _, err := fake.CreateQueue(ctx, create); err != nil && !strings.Contains(err.Error(), "FifoQueue") {
			apiErrorCode(t, err)
		}
	})
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// FuzzPolicy sets a queue Policy, then adds a permission with AddPermission and removes it
// with RemovePermission. A policy that is taken reads back as it was written; one that is
// refused is InvalidAttributeValue; after a permission is added the policy is a JSON object
// with the permission's statement, and removing it leaves the statements as they were.
func FuzzPolicy(f *testing.F) {
	for _, seed := range [][3]string{
		{`{"Version":"2012-10-17","Statement":[{"Sid":"s","Effect":"Allow","Principal":"*","Action":"sqs:*","Resource":"*"}]}`, "label", "111122223333"},
		{`{"Statement":{"Sid":"one"}}`, "one", "111122223333"},
		{`{"Statement":5}`, "x", "123456789012"},
		{`{}`, "l", "000000000000"},
		{``, "l", "111122223333"},
		{`[]`, "l", "111122223333"},
		{`{"Id":"\u2028","Statement":[null]}`, "bad label!", "1"},
		// Issue 25: a Deny whose second effect in another case would grant; another partition's root.
		{`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:*","Resource":"*","effect":"Allow"}]}`, "l", "111122223333"},
		{`{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws-cn:iam::111122223333:root"},"Action":"sqs:*","Resource":"*"}]}`, "l", "111122223333"},
		// An explicit Deny binds the queue's owner too: reading the policy back, or adding a
		// permission, may be refused by the policy itself (found by CI's fuzzing).
		{`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:GetQueueAttributes","Resource":"*"}]}`, "l", "111122223333"},
		{`{"Statement":[{"Effect":"Deny","Principal":"*","Action":"sqs:AddPermission","Resource":"*"}]}`, "l", "111122223333"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, policy, label, account string) {
		ctx := context.Background()
		fake := New()
		q, err := fake.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
		if err != nil {
			t.Fatal(err)
		}
		_, err = fake.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: attrs("Policy", policy)})
		if err != nil {
			if code := apiErrorCode(t, err); code != "InvalidAttributeValue" && code != "OverLimit" {
				t.Errorf("Policy refused with %s", code)
			}
			return
		}
		// The policy is read through inspection, which no queue policy binds: the policy may
		// deny its owner GetQueueAttributes.
		policyOf := func() string {
			info, err := fake.Queue("q")
			if err != nil {
				t.Fatal(err)
			}
			return info.Attributes["Policy"]
		}
		if got := policyOf(); got != policy {
			t.Errorf("Policy %q reads back as %q", policy, got)
		}
		statements := func() []string {
			var doc struct{ Statement statementList }
			json.Unmarshal([]byte(policyOf()), &doc)
			var out []string
			for _, st := range doc.Statement {
				var buf bytes.Buffer
				json.Compact(&buf, st)
				out = append(out, buf.String())
			}
			return out
		}
		original := statements()
		_, err = fake.AddPermission(ctx, &sqs.AddPermissionInput{QueueUrl: q.QueueUrl, Label: aws.String(label),
			AWSAccountIds: []string{account}, Actions: []string{"SendMessage"}})
		if err != nil {
			if code := apiErrorCode(t, err); code != "InvalidParameterValue" && code != "OverLimit" && !deniedByPolicy(t, err) {
				t.Errorf("AddPermission refused with %s: %v", code, err)
			}
			return
		}
		policyNow := policyOf()
		if !isJSONObject(policyNow) {
			t.Fatalf("the policy after AddPermission is not a JSON object: %q", policyNow)
		}
		var doc struct{ Statement statementList }
		if err := json.Unmarshal([]byte(policyNow), &doc); err != nil {
			t.Fatalf("the policy after AddPermission does not decode: %v", err)
		}
		if !slices.ContainsFunc(doc.Statement, func(st json.RawMessage) bool { return statementSid(st) == label }) {
			t.Errorf("no statement %q in %s", label, policyNow)
		}
		if _, err := fake.RemovePermission(ctx, &sqs.RemovePermissionInput{QueueUrl: q.QueueUrl, Label: aws.String(label)}); err != nil {
			if deniedByPolicy(t, err) {
				return // the policy as written denies its owner RemovePermission
			}
			t.Fatalf("RemovePermission of the label just added: %v", err)
		}
		if got := statements(); !slices.Equal(got, original) {
			t.Errorf("adding and removing %q changed the statements:\n%q\n%q", label, original, got)
		}
	})
}
