package main

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The console's browser tests drive the page in a headless Chromium against a running
// server. They run when SQSFAKE_BROWSER names the browser (a path, or 1 for chromium on
// PATH):
//
//	SQSFAKE_BROWSER=1 go test -run Browser ./cmd/sqsfake
//
// and write their screenshots to $SQSFAKE_BROWSER_OUT (browser-out/ by default, not
// committed).

// browserOut is the directory of the screenshots.
func browserOut(t *testing.T) string {
	dir := os.Getenv("SQSFAKE_BROWSER_OUT")
	if dir == "" {
		dir = "browser-out"
	}
	require.NoError(t, os.MkdirAll(dir, 0o755))
	return dir
}

func TestBrowserConsoleShowsRedeliveryAndDLQMoveAndActs(t *testing.T) {
	chromium, err := chromiumPath()
	if errors.Is(err, errNoBrowser) {
		t.Skip("set SQSFAKE_BROWSER=1 (or a path to chromium) to run the browser tests")
	}
	require.NoError(t, err)
	out := browserOut(t)

	s := start(t, "-clock", "virtual", "-seed", "7")
	ctx := context.Background()
	c := s.client()
	advance := func(d string) {
		status, body := s.control(t, "POST", "advance?d="+d)
		require.Equal(t, 200, status, "%v", body)
	}

	// A queue whose message was received twice and then dead-lettered, a message still
	// waiting in it, and a queue of another account and region.
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	require.NoError(t, err)
	jobs, err := c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"2"}`,
	}})
	require.NoError(t, err)
	sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: jobs.QueueUrl, MessageBody: aws.String(`{"order":1042,"note":"<script>alert(1)</script>"}`),
		MessageAttributes: map[string]types.MessageAttributeValue{"tenant": {DataType: aws.String("String"), StringValue: aws.String("acme")}}})
	require.NoError(t, err)
	receive := func() int {
		got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: jobs.QueueUrl})
		require.NoError(t, err)
		return len(got.Messages)
	}
	require.Equal(t, 1, receive())
	advance("10s")
	_, err = c.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: jobs.QueueUrl, ReceiptHandle: aws.String(lastHandle(t, s, "jobs")), VisibilityTimeout: 20})
	require.NoError(t, err)
	advance("20s")
	require.Equal(t, 1, receive()) // the redelivery
	advance("30s")
	require.Equal(t, 0, receive()) // its third receive moves it to the DLQ
	for i := range 3 {
		_, err = c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: jobs.QueueUrl, MessageBody: aws.String("job " + strconv.Itoa(i))})
		require.NoError(t, err)
	}
	other := sqs.New(sqs.Options{Region: "eu-west-1", BaseEndpoint: aws.String(s.endpoint), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "210987654321", SecretAccessKey: "secret"}, nil
		})})
	_, err = other.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("reports")})
	require.NoError(t, err)
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders.fifo"), Attributes: map[string]string{"FifoQueue": "true"}})
	require.NoError(t, err)
	// An SNS topic fanning out into jobs, raw and filtered.
	topics := sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.endpoint), RetryMaxAttempts: 1,
		Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
			return aws.Credentials{AccessKeyID: "AKIDEXAMPLE", SecretAccessKey: "secret"}, nil
		})})
	topic, err := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	require.NoError(t, err)
	_, err = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: topic.TopicArn, Protocol: aws.String("sqs"),
		Endpoint:   aws.String("arn:aws:sqs:us-east-1:123456789012:jobs"),
		Attributes: map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"kind":["big"]}`}})
	require.NoError(t, err)

	b := startBrowser(t, chromium, 1360, 900)
	b.navigate(t, s.endpoint+"/_sqsfake/console/")
	b.waitFor(t, `document.body.dataset.loaded >= 1`)

	// The queues, their counts and their redrive wiring; the accounts and regions.
	queues := b.text(t, "#queues tbody")
	assert.Contains(t, queues, "jobs-dlq")
	assert.Contains(t, queues, "→ DLQ jobs-dlq after 2")
	assert.Contains(t, queues, "← DLQ of jobs")
	assert.Contains(t, queues, "reports")
	shown := b.text(t, "#topics")
	assert.Contains(t, shown, "orders")
	assert.Contains(t, shown, "→ sqs jobs (raw)")
	assert.Contains(t, shown, `filter {"kind":["big"]}`)
	spaces := b.text(t, "#spaces")
	assert.Contains(t, spaces, "123456789012 us-east-1 (own)")
	assert.Contains(t, spaces, "210987654321 eu-west-1")
	assert.Equal(t, "2025-01-01 00:01:00.000Z", b.text(t, "#clock"))

	// The dead-lettered message: its timeline shows two receives, the second a redelivery,
	// the visibility change, and the move to the DLQ.
	b.eval(t, `document.querySelector('#queues tr[data-arn$=":jobs-dlq"]').click()`)
	b.waitFor(t, `document.querySelector('#messages tr[data-id]')`)
	assert.Equal(t, "1", b.text(t, "#count-visible"))
	row := b.text(t, "#messages tbody tr[data-id]")
	assert.Contains(t, row, *sent.MessageId)
	assert.Contains(t, row, `<script>alert(1)</script>`, "the body is shown as text")
	assert.Contains(t, row, "tenant=acme")
	b.eval(t, `document.querySelector('#messages tr[data-id]').click()`)
	b.waitFor(t, `document.querySelector('#timeline svg')`)
	assert.Equal(t, float64(2), b.eval(t, `document.querySelectorAll('#timeline rect.span-receive').length`))
	assert.Equal(t, float64(1), b.eval(t, `document.querySelectorAll('#timeline .ev-movedToDLQ').length`))
	assert.Equal(t, float64(1), b.eval(t, `document.querySelectorAll('#timeline .ev-visibilityChanged').length`))
	assert.Contains(t, b.text(t, "#timeline svg"), "#2 redelivery")
	events := b.text(t, "#events")
	assert.Contains(t, events, "moved from jobs to jobs-dlq")
	assert.Contains(t, events, "received from jobs (receive 2")
	assert.Equal(t, float64(0), b.eval(t, `document.querySelectorAll('#msg-body *, #messages td.body *:not(.more)').length`), "no markup from a body")
	assert.Contains(t, b.text(t, "#msg-where"), "dead-lettered from jobs")
	b.screenshot(t, filepath.Join(out, "1-dlq-timeline.png"), 1)

	// Advance the clock from the page: the clock shows the new time.
	loaded := b.eval(t, `Number(document.body.dataset.loaded)`).(float64)
	b.eval(t, `document.querySelector('#advance-by').value = '90s'; document.querySelector('#advance').click()`)
	b.waitFor(t, fmt.Sprintf(`Number(document.body.dataset.loaded) > %v && document.querySelector('#clock').textContent === '2025-01-01 00:02:30.000Z'`, loaded))
	assert.Contains(t, b.text(t, "#notice"), "clock advanced by 90s")

	// Start a move task out of the DLQ; once the clock moves, the timeline shows the redrive.
	b.eval(t, `document.querySelector('#move').click()`)
	b.waitFor(t, `document.querySelector('#notice') && document.querySelector('#notice').textContent.startsWith('started move task')`)
	advance("1s")
	b.eval(t, `document.querySelector('#refresh').click()`)
	b.waitFor(t, `document.querySelector('#timeline .ev-redriven') && document.querySelector('#clock').textContent === '2025-01-01 00:02:31.000Z' &&
		document.querySelector('#count-visible').textContent === '0'`)
	assert.Contains(t, b.text(t, "#events"), "redriven from jobs-dlq to jobs")
	assert.Contains(t, b.text(t, "#msg-where"), "no longer in a queue")
	b.screenshot(t, filepath.Join(out, "2-redriven.png"), 1)
	b.screenshot(t, filepath.Join(out, "2-redriven-small.png"), 0.6) // the size of docs/console.png

	// Send a message from the page to jobs: it is listed, its body as text.
	require.Equal(t, 1, receive()) // job 0, in flight
	b.eval(t, `document.querySelector('#queues tr[data-arn$=":jobs"]').click()`)
	b.waitFor(t, `document.querySelector('#q-name').textContent === 'jobs'`)
	b.eval(t, `document.querySelector('#send-body').value = '<b>hello</b> from the page';
		document.querySelector('#send-attrs').value = 'source=browser';
		document.querySelector('#send').click()`)
	b.waitFor(t, `document.querySelector('#notice') && document.querySelector('#notice').textContent.startsWith('sent message')`)
	b.waitFor(t, `[...document.querySelectorAll('#messages td.body')].some(td => td.textContent === '<b>hello</b> from the page')`)
	assert.Contains(t, b.text(t, "#messages tbody"), "source=browser")
	assert.Equal(t, "4", b.text(t, "#count-visible"), "two jobs, the redriven message and the one sent")
	assert.Equal(t, "1", b.text(t, "#count-inflight"))
	assert.Equal(t, "in flight", b.text(t, "#messages tr[data-id] .state"), "job 0")
	st, state := getStateOf(t, s, "jobs")
	require.Equal(t, 200, st)
	assert.Contains(t, state, "<b>hello</b> from the page", "the server holds what the page sent")
	b.screenshot(t, filepath.Join(out, "3-sent.png"), 1)

	// A FIFO queue takes a group and a deduplication id; a queue of another account and
	// region is addressed as that account and region.
	b.eval(t, `document.querySelector('#queues tr[data-arn$=":orders.fifo"]').click()`)
	b.waitFor(t, `document.querySelector('#q-name').textContent === 'orders.fifo' && !document.querySelector('#send-group').closest('label').hidden`)
	b.eval(t, `document.querySelector('#send-body').value = 'order 7'; document.querySelector('#send-attrs').value = '';
		document.querySelector('#send-group').value = 'customer-1'; document.querySelector('#send-dedup').value = 'o7';
		document.querySelector('#send').click()`)
	b.waitFor(t, `[...document.querySelectorAll('#messages td.body')].some(td => td.textContent === 'order 7')`)
	b.eval(t, `document.querySelector('#queues tr[data-arn="arn:aws:sqs:eu-west-1:210987654321:reports"]').click()`)
	b.waitFor(t, `document.querySelector('#q-name').textContent === 'reports' && document.querySelector('#send-group').closest('label').hidden`)
	b.eval(t, `document.querySelector('#send-body').value = 'monthly'; document.querySelector('#send').click()`)
	b.waitFor(t, `[...document.querySelectorAll('#messages td.body')].some(td => td.textContent === 'monthly')`)
	got, err := other.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(s.endpoint + "/210987654321/reports")})
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	assert.Equal(t, "monthly", *got.Messages[0].Body)
	b.eval(t, `document.querySelector('#queues tr[data-arn$=":jobs"]').click()`)
	b.waitFor(t, `document.querySelector('#q-name').textContent === 'jobs'`)

	// The API's errors are shown as the API gives them.
	b.eval(t, `document.querySelector('#send-body').value = ''; document.querySelector('#send-attrs').value = ''; document.querySelector('#send').click()`)
	assert.Contains(t, b.waitFor(t, `document.querySelector('#error') && document.querySelector('#error').textContent`), "SendMessage failed: ")
	b.eval(t, `document.querySelector('#advance-by').value = 'soon'; document.querySelector('#advance').click()`)
	assert.Contains(t, b.waitFor(t, `document.querySelector('#error') && document.querySelector('#error').textContent.includes('advance') && document.querySelector('#error').textContent`),
		"want a duration with its unit")

	// Purge the queue, then reset the server: each action refreshes what the page shows.
	b.eval(t, `window.confirm = () => true; document.querySelector('#purge').click()`)
	b.waitFor(t, `document.querySelector('#notice') && document.querySelector('#notice').textContent === 'purged jobs'`)
	b.waitFor(t, `document.querySelector('#count-visible').textContent === '0' && document.querySelector('#count-inflight').textContent === '0'`)
	b.eval(t, `document.querySelector('#purge').click()`)
	assert.Contains(t, b.waitFor(t, `document.querySelector('#error') && document.querySelector('#error').textContent`),
		"PurgeQueue failed: AWS.SimpleQueueService.PurgeQueueInProgress: ", "a second purge within 60 s fails as on SQS")
	b.eval(t, `document.querySelector('#reset').click()`)
	b.waitFor(t, `document.querySelector('#notice') && document.querySelector('#notice').textContent === 'reset'`)
	b.waitFor(t, `document.querySelector('#clock').textContent === '2025-01-01 00:00:00.000Z' && document.querySelector('#queue-view').hidden`)
	assert.Equal(t, "no queues", b.text(t, "#queues-range"))
	assert.Empty(t, b.pageErrors(t), "no script error, nothing the page's policy refused")
}

// lastHandle is the latest receipt handle of the first message of a queue, read from the
// state endpoint.
func lastHandle(t *testing.T, s *testServer, queue string) string {
	t.Helper()
	status, body := s.control(t, "GET", "state?queue="+queue)
	require.Equal(t, 200, status)
	q := body["queues"].([]any)[0].(map[string]any)
	return q["messages"].([]any)[0].(map[string]any)["receiptHandle"].(string)
}

// getStateOf returns the status and the raw answer of the state endpoint for one queue.
func getStateOf(t *testing.T, s *testServer, queue string) (int, string) {
	t.Helper()
	status, body := s.control(t, "GET", "state?queue="+queue)
	return status, fmt.Sprint(body)
}

// The console over a queue of 100,000 messages: the first view pages them, and opening a
// message reads one timeline. The test logs how long the page took (no bar here: timing
// assertions do not belong in tests; BenchmarkConsoleFirstView holds the bar).
func TestBrowserConsolePagesAQueueOf100000Messages(t *testing.T) {
	chromium, err := chromiumPath()
	if errors.Is(err, errNoBrowser) {
		t.Skip("set SQSFAKE_BROWSER=1 (or a path to chromium) to run the browser tests")
	}
	require.NoError(t, err)
	s := newTestServer(t, "-clock", "virtual", "-queues", "big")
	fill(t, s, "big", 100_000)
	srv := httptest.NewServer(s)
	defer srv.Close()

	b := startBrowser(t, chromium, 1360, 900)
	b.navigate(t, srv.URL+"/_sqsfake/console/#queue=arn:aws:sqs:us-east-1:123456789012:big")
	b.waitFor(t, `document.body.dataset.loaded >= 1 && document.querySelectorAll('#messages tr[data-id]').length === 50`)
	t.Logf("first view of 100,000 messages shown %.0f ms after navigation began", b.eval(t, `performance.now()`))
	assert.Equal(t, "(1–50 of 100,000)", b.text(t, "#m-range"))
	assert.Equal(t, "100,000", b.text(t, "#count-visible"))

	b.eval(t, `window.t0 = performance.now(); document.querySelector('#messages-next').click()`)
	b.waitFor(t, `document.querySelector('#m-range').textContent === '(51–100 of 100,000)'`)
	b.eval(t, `window.t0 = performance.now(); document.querySelector('#messages tr[data-id]').click()`)
	b.waitFor(t, `document.querySelector('#timeline svg')`)
	t.Logf("a message's timeline shown %.0f ms after the click", b.eval(t, `performance.now() - window.t0`))
	t.Logf("the page's requests: %s", b.eval(t, `performance.getEntriesByType('resource').filter(e => e.name.includes('/api/'))
		.map(e => e.name.split('/api/')[1].split('?')[0] + ' ' + Math.round(e.duration) + ' ms').join(', ')`))
	assert.Equal(t, "50", b.text(t, "#msg-body"))
	b.screenshot(t, filepath.Join(browserOut(t), "4-100000-messages.png"), 1)
	assert.Empty(t, b.pageErrors(t))
}
