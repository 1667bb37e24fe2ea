package sqsfake

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// consoleRequest answers one request of the console on f.Handler(): method, a path under
// ConsolePath, and header pairs; the Host is 127.0.0.1:9324 unless a "Host" pair says.
func consoleRequest(f *Fake, method, path string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, nil)
	r.Host = "127.0.0.1:9324"
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			r.Host = header[i+1]
			continue
		}
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	f.Handler().ServeHTTP(w, r)
	return w
}

// consoleAPI gets a console endpoint with the control header and decodes its answer.
func consoleAPI[T any](t testing.TB, f *Fake, path string) T {
	t.Helper()
	w := consoleRequest(f, http.MethodGet, ConsolePath+"api/"+path, "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var v T
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &v))
	return v
}

func TestConsoleAnswersOnlyItsOwnPageAndGuardsItsEndpoints(t *testing.T) {
	f := New(WithEndpoint("http://sqs.internal:9324"))
	const ctl = "X-Sqsfake-Control"
	api := ConsolePath + "api/overview"
	for _, c := range []struct {
		name, method, path string
		header             []string
		status             int
		contentType, body  string
	}{
		{"the page", "GET", ConsolePath, nil, 200, "text/html; charset=utf-8", "<title>sqsfake console</title>"},
		{"its script", "GET", ConsolePath + "console.js", nil, 200, "text/javascript; charset=utf-8", `"use strict";`},
		{"its style", "HEAD", ConsolePath + "console.css", nil, 200, "text/css; charset=utf-8", ""},
		{"the path without its slash goes to the page", "GET", "/_sqsfake/console", nil, 301, "text/html; charset=utf-8", ""},
		{"no other file", "GET", ConsolePath + "secrets.txt", nil, 404, "application/json", `no console file`},
		{"no file of a directory", "GET", ConsolePath + "../go.mod", nil, 404, "application/json", `no console file`},
		{"the page is only read", "POST", ConsolePath, nil, 405, "application/json", `use GET or HEAD`},
		{"an address typed by the user", "GET", ConsolePath, []string{"Sec-Fetch-Site", "none"}, 200, "text/html; charset=utf-8", ""},
		{"a link of another site", "GET", ConsolePath, []string{"Sec-Fetch-Site", "cross-site"}, 403, "application/json", `cross-site request: Sec-Fetch-Site: "cross-site"`},
		{"a page of the same site on another port", "GET", api, []string{ctl, "1", "Sec-Fetch-Site", "same-site"}, 403, "application/json", `cross-site`},
		{"a fetch of another origin", "GET", api, []string{ctl, "1", "Origin", "http://evil.example"}, 403, "application/json", `Origin "http://evil.example"`},
		{"a fetch of its own origin", "GET", api, []string{ctl, "1", "Origin", "http://127.0.0.1:9324", "Sec-Fetch-Site", "same-origin"}, 200, "application/json", `"queues":[]`},
		{"the endpoints need the control header", "GET", api, nil, 403, "application/json", `need the header X-Sqsfake-Control: 1`},
		{"a host of DNS rebinding", "GET", api, []string{ctl, "1", "Host", "evil.example:9324"}, 403, "application/json", `Host "evil.example:9324" is not this fake's`},
		{"its page for a host of DNS rebinding", "GET", ConsolePath, []string{"Host", "evil.example"}, 403, "application/json", `is not this fake's`},
		{"localhost", "GET", api, []string{ctl, "1", "Host", "localhost:1234"}, 200, "application/json", `"clock":"virtual"`},
		{"IPv6 loopback", "GET", api, []string{ctl, "1", "Host", "[::1]:9324"}, 200, "application/json", `"clock":"virtual"`},
		{"the endpoint's host", "GET", api, []string{ctl, "1", "Host", "SQS.internal:9324"}, 200, "application/json", `"clock":"virtual"`},
		{"an endpoint is only read", "POST", api, []string{ctl, "1"}, 405, "application/json", `use GET`},
		{"no other endpoint", "GET", ConsolePath + "api/state", []string{ctl, "1"}, 404, "application/json", `no console endpoint`},
		{"a limit past the most", "GET", api + "?limit=5000", []string{ctl, "1"}, 400, "application/json", `want ?limit=<an integer from 0 to 1000>`},
		{"a parameter twice", "GET", api + "?limit=1&limit=2", []string{ctl, "1"}, 400, "application/json", `give ?limit= once`},
		{"messages of no queue", "GET", ConsolePath + "api/messages?queue=nope", []string{ctl, "1"}, 404, "application/json", `no queue "nope"`},
		{"a message without its id", "GET", ConsolePath + "api/message", []string{ctl, "1"}, 400, "application/json", `want ?id=<MessageId>`},
		{"no such message", "GET", ConsolePath + "api/message?id=x", []string{ctl, "1"}, 404, "application/json", `no message "x"`},
		{"advance is a post", "GET", ConsolePath + "api/advance?d=1s", []string{ctl, "1"}, 405, "application/json", `use POST`},
		{"advance by a bad duration", "POST", ConsolePath + "api/advance?d=soon", []string{ctl, "1"}, 400, "application/json", `want ?d=<duration>`},
		{"advance back", "POST", ConsolePath + "api/advance?d=-1s", []string{ctl, "1"}, 400, "application/json", `non-negative`},
		{"advance past the latest time", "POST", ConsolePath + "api/advance?d=2562047h", []string{ctl, "1"}, 400, "application/json", `cannot move past`},
		{"advance without the header", "POST", ConsolePath + "api/advance?d=1s", nil, 403, "application/json", `need the header`},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := consoleRequest(f, c.method, c.path, c.header...)
			assert.Equal(t, c.status, w.Code, w.Body.String())
			assert.Equal(t, c.contentType, w.Header().Get("Content-Type"))
			text := w.Body.String()
			var answer struct{ Error string }
			if json.Unmarshal(w.Body.Bytes(), &answer) == nil && answer.Error != "" {
				text = answer.Error
			}
			assert.Contains(t, text, c.body)
			assert.Equal(t, consoleHeaders["Content-Security-Policy"], w.Header().Get("Content-Security-Policy"), "every answer carries the policy")
			assert.Equal(t, "DENY", w.Header().Get("X-Frame-Options"))
			assert.Equal(t, "nosniff", w.Header().Get("X-Content-Type-Options"))
		})
	}
	assert.Equal(t, ConsolePath, consoleRequest(f, "GET", "/_sqsfake/console").Header().Get("Location"))
}

// The page's files hold nothing of the fake: a page of another site that could read them
// (it cannot: no CORS) would learn nothing.
func TestConsolePageHoldsNothingOfTheFake(t *testing.T) {
	f := New(WithAccountID("210987654321"), WithRegion("eu-west-1"))
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("secret-queue")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("secret-body")})
	require.NoError(t, err)
	for _, name := range []string{"", "console.js", "console.css"} {
		body := consoleRequest(f, "GET", ConsolePath+name).Body.String()
		for _, secret := range []string{"210987654321", "eu-west-1", "secret-queue", "secret-body"} {
			assert.NotContains(t, body, secret, name)
		}
	}
}

// consoleOverviewAnswer is api/overview as the page reads it.
type consoleOverviewAnswer struct {
	Now       time.Time      `json:"now"`
	Clock     string         `json:"clock"`
	Advance   string         `json:"advance"`
	Reset     string         `json:"reset"`
	Account   string         `json:"account"`
	Region    string         `json:"region"`
	Spaces    []consoleSpace `json:"spaces"`
	Total     int            `json:"total"`
	Queues    []consoleQueue `json:"queues"`
	Truncated bool           `json:"truncated"`
	Next      uint64         `json:"next"`
}

func TestConsoleOverviewShowsSpacesCountsKindsAndRedriveWiring(t *testing.T) {
	ctx := context.Background()
	f := New()
	mustCreate := func(c sqsAPI, name string, attrs map[string]string) *string {
		out, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
		require.NoError(t, err)
		return out.QueueUrl
	}
	mustCreate(f, "jobs-dlq", nil)
	jobs := mustCreate(f, "jobs", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"3"}`})
	mustCreate(f, "a.fifo", map[string]string{"FifoQueue": "true"})
	mustCreate(f.Client(ActAs(Identity{AccountID: "210987654321", Region: "eu-west-1"})), "reports", nil)
	for i, delay := range []int32{0, 0, 0, 30} {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: jobs, MessageBody: aws.String(fmt.Sprint(i)), DelaySeconds: delay})
		require.NoError(t, err)
	}
	_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: jobs})
	require.NoError(t, err)

	got := consoleAPI[consoleOverviewAnswer](t, f, "overview")
	assert.Equal(t, consoleOverviewAnswer{
		Now: f.Now().UTC(), Clock: "virtual", Advance: ConsolePath + "api/advance", Reset: ConsolePath + "api/reset",
		Account: "123456789012", Region: "us-east-1",
		Spaces: []consoleSpace{{"123456789012", "us-east-1", 3}, {"210987654321", "eu-west-1", 1}},
		Total:  4,
		Queues: []consoleQueue{
			{Name: "a.fifo", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/a.fifo", Arn: "arn:aws:sqs:us-east-1:123456789012:a.fifo", Account: "123456789012", Region: "us-east-1", FIFO: true},
			{Name: "jobs", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/jobs", Arn: "arn:aws:sqs:us-east-1:123456789012:jobs", Account: "123456789012", Region: "us-east-1",
				Visible: 2, InFlight: 1, Delayed: 1, DeadLetterTarget: "arn:aws:sqs:us-east-1:123456789012:jobs-dlq", MaxReceiveCount: 3},
			{Name: "jobs-dlq", URL: "https://sqs.us-east-1.amazonaws.com/123456789012/jobs-dlq", Arn: "arn:aws:sqs:us-east-1:123456789012:jobs-dlq", Account: "123456789012", Region: "us-east-1",
				DeadLetterSources: []string{"arn:aws:sqs:us-east-1:123456789012:jobs"}},
			{Name: "reports", URL: "https://sqs.eu-west-1.amazonaws.com/210987654321/reports", Arn: "arn:aws:sqs:eu-west-1:210987654321:reports", Account: "210987654321", Region: "eu-west-1"},
		},
	}, got)

	page := consoleAPI[consoleOverviewAnswer](t, f, "overview?limit=3")
	assert.Equal(t, []string{"a.fifo", "jobs", "jobs-dlq"}, queueNamesOf(page.Queues))
	assert.True(t, page.Truncated)
	assert.Equal(t, uint64(3), page.Next)
	page = consoleAPI[consoleOverviewAnswer](t, f, "overview?limit=3&after=3")
	assert.Equal(t, []string{"reports"}, queueNamesOf(page.Queues))
	assert.False(t, page.Truncated)
	assert.Equal(t, 4, page.Total)
}

func queueNamesOf(qs []consoleQueue) []string {
	var names []string
	for _, q := range qs {
		names = append(names, q.Name)
	}
	return names
}

func TestConsoleOverviewSaysWhenTheClockCannotBeMoved(t *testing.T) {
	f := New(WithClock(RealClock{}))
	got := consoleAPI[consoleOverviewAnswer](t, f, "overview")
	assert.Equal(t, "real", got.Clock)
	assert.Equal(t, "", got.Advance)
	w := consoleRequest(f, "POST", ConsolePath+"api/advance?d=1s", "X-Sqsfake-Control", "1")
	assert.Equal(t, http.StatusConflict, w.Code)
	assert.Contains(t, w.Body.String(), "time passes by itself")
}

// consoleMessagesAnswer is api/messages as the page reads it.
type consoleMessagesAnswer struct {
	Queue     string           `json:"queue"`
	Visible   int              `json:"visible"`
	Messages  []consoleMessage `json:"messages"`
	Truncated bool             `json:"truncated"`
	Next      uint64           `json:"next"`
}

func TestConsoleMessagesArePagedInArrivalOrderWithTheirBodiesCut(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	long := strings.Repeat("é", 150) // 300 bytes: cut at 200, a character boundary
	var ids []string
	for i := range 120 {
		body := fmt.Sprint("m", i)
		in := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)}
		if i == 0 {
			in.MessageBody = aws.String(long)
			in.MessageAttributes = map[string]types.MessageAttributeValue{
				"tenant": {DataType: aws.String("String"), StringValue: aws.String("acme")},
				"blob":   {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2, 3}},
			}
		}
		out, err := f.SendMessage(ctx, in)
		require.NoError(t, err)
		ids = append(ids, *out.MessageId)
	}

	first := consoleAPI[consoleMessagesAnswer](t, f, "messages?queue=jobs")
	require.Len(t, first.Messages, 50)
	assert.Equal(t, consoleMessage{MessageID: ids[0], State: "visible", SentAt: f.Now().UTC(),
		Body: strings.Repeat("é", 100), BodyBytes: 300, BodyTruncated: true,
		Attributes: []consoleMessageAttr{{Name: "blob", DataType: "Binary", Value: "AQID"}, {Name: "tenant", DataType: "String", Value: "acme"}}},
		first.Messages[0])
	assert.True(t, first.Truncated)
	var got []string
	for _, page := range []consoleMessagesAnswer{first,
		consoleAPI[consoleMessagesAnswer](t, f, fmt.Sprint("messages?queue=jobs&after=", first.Next)),
		consoleAPI[consoleMessagesAnswer](t, f, fmt.Sprint("messages?queue=jobs&limit=50&after=", first.Next+50)),
	} {
		for _, m := range page.Messages {
			got = append(got, m.MessageID)
		}
	}
	assert.Equal(t, ids, got)
	last := consoleAPI[consoleMessagesAnswer](t, f, "messages?queue=arn:aws:sqs:us-east-1:123456789012:jobs&after=100")
	assert.Len(t, last.Messages, 20)
	assert.False(t, last.Truncated)
	assert.Equal(t, 120, last.Visible)
}

// consoleMessageAnswer is api/message as the page reads it.
type consoleMessageAnswer struct {
	Queue   string          `json:"queue"`
	Message *consoleMessage `json:"message"`
	Events  []consoleEvent  `json:"events"`
}

func kindsOf(evs []consoleEvent) []string {
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

func TestConsoleMessageTimelineShowsRedeliveryAndTheDLQMoveAndOutlivesTheMessage(t *testing.T) {
	ctx := context.Background()
	f := New()
	dlq, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	require.NoError(t, err)
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
		"VisibilityTimeout": "30", "RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"2"}`}})
	require.NoError(t, err)
	sent, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("order")})
	require.NoError(t, err)
	for range 3 {
		_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		require.NoError(t, err)
		f.Advance(30 * time.Second)
	}
	start := f.Now().Add(-90 * time.Second).UTC()

	got := consoleAPI[consoleMessageAnswer](t, f, "message?queue=jobs&id="+*sent.MessageId)
	assert.Equal(t, "jobs-dlq", got.Queue, "found where it is now")
	require.NotNil(t, got.Message)
	assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:jobs", got.Message.DeadLetterSourceArn)
	assert.Equal(t, []string{"sent", "received", "visibleAgain", "received", "visibleAgain", "movedToDLQ"}, kindsOf(got.Events))
	redelivery := got.Events[3]
	at, visible := start.Add(30*time.Second), start.Add(60*time.Second)
	assert.Equal(t, consoleEvent{Kind: "received", At: at, Queue: "jobs", ReceiveCount: 2, VisibleAt: &visible, Text: redelivery.Text}, redelivery)
	assert.Contains(t, redelivery.Text, "received from jobs (receive 2")
	assert.Equal(t, consoleEvent{Kind: "movedToDLQ", At: start.Add(60 * time.Second), Queue: "jobs", ToQueue: "jobs-dlq",
		Text: "2025-01-01T00:01:00Z  moved from jobs to jobs-dlq"}, got.Events[5])

	_, err = f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: dlq.QueueUrl})
	require.NoError(t, err)
	gone := consoleAPI[consoleMessageAnswer](t, f, "message?id="+*sent.MessageId)
	assert.Nil(t, gone.Message)
	assert.Equal(t, "", gone.Queue)
	assert.Equal(t, "purged", gone.Events[len(gone.Events)-1].Kind)
}

func TestConsoleAdvanceAndResetOnHandler(t *testing.T) {
	ctx := context.Background()
	f := New()
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	before := f.Now()
	w := consoleRequest(f, "POST", ConsolePath+"api/advance?d=90s", "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, before.Add(90*time.Second), f.Now())
	assert.JSONEq(t, `{"now":"`+f.Now().UTC().Format(time.RFC3339Nano)+`"}`, w.Body.String())

	w = consoleRequest(f, "POST", ConsolePath+"api/reset", "X-Sqsfake-Control", "1")
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Empty(t, f.allQueueNames())
}

func TestCutTextCutsOnACharacterBoundary(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 3, "abc", false},
		{"abcd", 3, "abc", true},
		{"aé", 2, "a", true},
		{"éé", 3, "é", true},
		{"😀", 3, "", true},
		{"", 0, "", false},
	} {
		got, cut := truncate(c.in, c.n)
		assert.Equal(t, c.want, got, "%q %d", c.in, c.n)
		assert.Equal(t, c.cut, cut, "%q %d", c.in, c.n)
	}
}

// consoleBenchFake is a fake with a queue "jobs" of 100,000 messages of 1 KiB, half of them
// received once, and the MessageId of the first.
func consoleBenchFake(b *testing.B) (*Fake, string) {
	ctx := context.Background()
	f := New()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(b, err)
	const n = 100_000
	body := strings.Repeat("x", 1024)
	var first string
	for i := 0; i < n; i += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for j := range 10 {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(j)), MessageBody: aws.String(body)})
		}
		out, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries})
		require.NoError(b, err)
		if first == "" {
			first = *out.Successful[0].MessageId
		}
	}
	for i := 0; i < n/2; i += 10 {
		_, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		require.NoError(b, err)
	}
	return f, first
}

// BenchmarkConsoleFirstView measures the requests of the console's first view of a queue of
// 100,000 messages: the overview, the first page of messages, one message with its timeline,
// the three together; a page far into the queue; and the three together on a fake that has
// not been read yet (cold: the first message opened indexes the MessageIds). The bar: the
// first view well under a second (it takes milliseconds).
func BenchmarkConsoleFirstView(b *testing.B) {
	get := func(b *testing.B, f *Fake, path string) {
		w := consoleRequest(f, http.MethodGet, ConsolePath+"api/"+path, "X-Sqsfake-Control", "1")
		if w.Code != http.StatusOK {
			b.Fatal(w.Body.String())
		}
	}
	firstView := func(b *testing.B, f *Fake, id string) {
		get(b, f, "overview")
		get(b, f, "messages?queue=jobs")
		get(b, f, "message?queue=jobs&id="+id)
	}
	b.Run("first-view-cold", func(b *testing.B) {
		for range b.N {
			b.StopTimer()
			f, id := consoleBenchFake(b)
			b.StartTimer()
			firstView(b, f, id)
		}
	})
	f, id := consoleBenchFake(b)
	b.Run("first-view", func(b *testing.B) {
		for b.Loop() {
			firstView(b, f, id)
		}
	})
	for _, c := range []struct{ name, path string }{
		{"overview", "overview"},
		{"messages", "messages?queue=jobs"},
		{"message", "message?queue=jobs&id=" + id},
		{"messages-deep", "messages?queue=jobs&after=99000"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				get(b, f, c.path)
			}
		})
	}
}
