package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpointWriter is run's stdout in tests: it hands over the endpoint the server announces.
type endpointWriter struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	endpoint chan string
	sent     bool
}

var servingLine = regexp.MustCompile(`serving SQS at (\S+) `)

func (w *endpointWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := servingLine.FindSubmatch(w.buf.Bytes()); m != nil && !w.sent {
		w.sent = true
		w.endpoint <- string(m[1])
	}
	return len(p), nil
}

func (w *endpointWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// server is a running sqsfake command.
type testServer struct {
	endpoint string
	stop     func() error // shuts the server down and returns run's error
	stdout   *endpointWriter
}

// start runs the command with args on a free loopback port.
func start(t *testing.T, args ...string) *testServer {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := &endpointWriter{endpoint: make(chan string, 1)}
	var stderr bytes.Buffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), out, &stderr) }()
	s := &testServer{stdout: out}
	select {
	case s.endpoint = <-out.endpoint:
	case err := <-done:
		cancel()
		t.Fatalf("the server did not start: %v\n%s", err, stderr.String())
	}
	var once sync.Once
	var runErr error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			runErr = <-done
		})
		return runErr
	}
	t.Cleanup(func() { s.stop() })
	return s
}

func (s *testServer) client() *sqs.Client {
	return sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String(s.endpoint),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
	})
}

// control calls a control endpoint and decodes its JSON answer.
func (s *testServer) control(t *testing.T, method, path string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, s.endpoint+"/_sqsfake/"+path, nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var body map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	return resp.StatusCode, body
}

func TestFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{nil, ""},
		{[]string{"-clock", "virtual", "-queues", " a, b.fifo ,,", "-region", "eu-west-1", "-account", "000000000000"}, ""},
		{[]string{"-clock", "sundial"}, "-clock"},
		{[]string{"-account", "12"}, "-account"},
		{[]string{"-region", "us-gov-west-1"}, ""},
		{[]string{"-region", "eusc-de-east-1"}, ""},
		{[]string{"-region", "x y"}, "-region"},
		{[]string{"-region", "US-EAST-1"}, "-region"},
		{[]string{"-endpoint", "http://sqs.test:9324"}, ""},
		{[]string{"-endpoint", "https://sqs.test/"}, ""},
		{[]string{"-endpoint", "https://sqs.test/prefix"}, "-endpoint"},
		{[]string{"-endpoint", "sqs.test:9324"}, "-endpoint"},
		{[]string{"-endpoint", "ftp://sqs.test"}, "-endpoint"},
		{[]string{"-endpoint", "http://"}, "-endpoint"},
		{[]string{"-addr", "0.0.0.0:9324"}, "not a loopback address"},
		{[]string{"-addr", "192.0.2.1:9324"}, "-allow-remote"},
		{[]string{"-addr", "[::1]:9324"}, ""},
		{[]string{"-addr", "localhost:9324"}, ""},
		{[]string{"-addr", "0.0.0.0:9324", "-allow-remote"}, ""},
		{[]string{"-addr", "nonsense"}, "-addr"},
		{[]string{"extra"}, "unexpected arguments"},
		{[]string{"-nope"}, "flag provided but not defined"},
	} {
		cfg, err := parseFlags(tc.args, io.Discard)
		if tc.err == "" {
			assert.NoError(t, err, tc.args)
		} else {
			assert.ErrorContains(t, err, tc.err, tc.args)
		}
		if len(tc.args) > 3 && tc.args[3] == " a, b.fifo ,," {
			assert.Equal(t, []string{"a", "b.fifo"}, cfg.queues)
		}
	}
	cfg, err := parseFlags(nil, io.Discard)
	require.NoError(t, err)
	assert.Equal(t, config{addr: "127.0.0.1:9324", region: "us-east-1", account: "123456789012", clock: "real"}, cfg)
}

func TestServerAnswersSQSAndHandsOutItsOwnURLs(t *testing.T) {
	s := start(t, "-queues", "jobs,orders.fifo")
	ctx := context.Background()
	c := s.client()
	list, err := c.ListQueues(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{s.endpoint + "/123456789012/jobs", s.endpoint + "/123456789012/orders.fifo"}, list.QueueUrls)
	attrs, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(list.QueueUrls[1]), AttributeNames: []types.QueueAttributeName{"FifoQueue"}})
	require.NoError(t, err)
	assert.Equal(t, "true", attrs.Attributes["FifoQueue"])

	// An SDK that posts to the queue URL reaches the server too.
	req, err := http.NewRequest(http.MethodPost, list.QueueUrls[0], strings.NewReader(`{"QueueUrl":"`+list.QueueUrls[0]+`","MessageBody":"hi"}`))
	require.NoError(t, err)
	req.Header.Set("X-Amz-Target", "AmazonSQS.SendMessage")
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.NotEmpty(t, resp.Header.Get("Date"), "a real Date from net/http, not the virtual clock")
}

func TestControlEndpoints(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "jobs")
	ctx := context.Background()
	c := s.client()

	code, body := s.control(t, http.MethodGet, "health")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body["status"])

	url := s.endpoint + "/123456789012/jobs"
	_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
	require.NoError(t, err)
	_, err = c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)

	code, body = s.control(t, http.MethodGet, "state")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "2025-01-01T00:00:00Z", body["now"])
	assert.Equal(t, "virtual", body["clock"])
	queues := body["queues"].([]any)
	require.Len(t, queues, 1)
	jobs := queues[0].(map[string]any)
	assert.Equal(t, "jobs", jobs["name"])
	assert.Equal(t, url, jobs["url"])
	assert.Equal(t, "1", jobs["attributes"].(map[string]any)["ApproximateNumberOfMessagesNotVisible"])
	msgs := jobs["messages"].([]any)
	require.Len(t, msgs, 1, "the snapshot lists the queue's messages")
	msg := msgs[0].(map[string]any)
	assert.Equal(t, "a", msg["body"])
	assert.Equal(t, "in flight", msg["state"])
	assert.Equal(t, float64(1), msg["receiveCount"])
	assert.Equal(t, "2025-01-01T00:00:30Z", msg["visibleAt"])
	assert.Equal(t, float64(1), jobs["stats"].(map[string]any)["numberOfMessagesSent"])

	code, body = s.control(t, http.MethodPost, "advance?d=30s")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "2025-01-01T00:00:30Z", body["now"])
	_, body = s.control(t, http.MethodGet, "state")
	assert.Equal(t, "1", body["queues"].([]any)[0].(map[string]any)["attributes"].(map[string]any)["ApproximateNumberOfMessages"],
		"the visibility timeout lapsed on the virtual clock")

	// A long poll parks until something ends it: here, deleting its queue.
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("parked")})
	require.NoError(t, err)
	parked := s.endpoint + "/123456789012/parked"
	done := make(chan *sqs.ReceiveMessageOutput, 1)
	go func() {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(parked), WaitTimeSeconds: 20})
		assert.NoError(t, err)
		done <- out
	}()
	code, _ = s.control(t, http.MethodGet, "pollers?n=1&timeout=10s")
	require.Equal(t, http.StatusOK, code)
	_, err = c.DeleteQueue(ctx, &sqs.DeleteQueueInput{QueueUrl: aws.String(parked)})
	require.NoError(t, err)
	out := <-done
	assert.Empty(t, out.Messages, "deleting the queue ends its polls")

	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other")})
	require.NoError(t, err)
	other := s.endpoint + "/123456789012/other"
	// A long poll parks until the clock passes its wait time.
	go func() {
		out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(other), WaitTimeSeconds: 20})
		assert.NoError(t, err)
		done <- out
	}()
	code, body = s.control(t, http.MethodGet, "pollers?n=1&timeout=10s")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, 1.0, body["pollers"])
	s.control(t, http.MethodPost, "advance?d=20s")
	assert.Empty(t, (<-done).Messages)
	code, body = s.control(t, http.MethodGet, "pollers?n=1&timeout=1ms")
	assert.Equal(t, http.StatusRequestTimeout, code)
	assert.Equal(t, 0.0, body["pollers"])

	// Reset: back to the start-up queues, on a fresh clock.
	code, body = s.control(t, http.MethodPost, "reset")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "2025-01-01T00:00:00Z", body["now"])
	list, err := c.ListQueues(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{url}, list.QueueUrls)
	_, err = c.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other")})
	require.NoError(t, err, "no name cooldown survives a reset")

	for _, bad := range []struct {
		method, path string
		code         int
	}{
		{http.MethodGet, "advance?d=1s", http.StatusMethodNotAllowed},
		{http.MethodPost, "advance?d=soon", http.StatusBadRequest},
		{http.MethodPost, "advance?d=-1s", http.StatusBadRequest},
		{http.MethodPost, "advance?d=2100000h", http.StatusBadRequest}, // past 2262, the end of the clock
		{http.MethodPost, "state", http.StatusMethodNotAllowed},
		{http.MethodGet, "reset", http.StatusMethodNotAllowed},
		{http.MethodGet, "pollers?n=x", http.StatusBadRequest},
		{http.MethodGet, "nothing", http.StatusNotFound},
	} {
		code, body := s.control(t, bad.method, bad.path)
		assert.Equal(t, bad.code, code, bad.path)
		assert.NotEmpty(t, body["error"], bad.path)
	}
}

// The idle endpoint lets a test move the clock after a poll it started, whether the poll
// parked or returned at once: read the count of calls, start the poll, wait for one more.
func TestIdleEndpointWaitsForAPollThatParksOrReturns(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "q")
	c := s.client()
	ctx := context.Background()
	calls := func() int {
		code, body := s.control(t, http.MethodGet, "idle")
		require.Equal(t, http.StatusOK, code)
		return int(body["calls"].(float64))
	}
	require.Equal(t, 1, calls(), "the start-up queue's CreateQueue")
	poll := func() chan *sqs.ReceiveMessageOutput {
		done := make(chan *sqs.ReceiveMessageOutput, 1)
		go func() {
			out, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("q"), WaitTimeSeconds: 20})
			assert.NoError(t, err)
			done <- out
		}()
		return done
	}

	// The queue is empty: the poll parks, and the clock ends it.
	next := calls() + 1
	done := poll()
	code, body := s.control(t, http.MethodGet, fmt.Sprintf("idle?calls=%d&timeout=10s", next))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"calls": float64(next), "pollers": 1.0}, body)
	s.control(t, http.MethodPost, "advance?d=20s")
	assert.Empty(t, (<-done).Messages)

	// A message is there: the poll returns at once, and the wait does not hang.
	_, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String("q"), MessageBody: aws.String("hi")})
	require.NoError(t, err)
	next = calls() + 1
	done = poll()
	code, body = s.control(t, http.MethodGet, fmt.Sprintf("idle?calls=%d", next))
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, map[string]any{"calls": float64(next), "pollers": 0.0}, body)
	assert.Len(t, (<-done).Messages, 1)

	// Calls that never come: the wait ends with its timeout, and says what the fake had.
	code, body = s.control(t, http.MethodGet, fmt.Sprintf("idle?calls=%d&timeout=1ms", next+5))
	assert.Equal(t, http.StatusRequestTimeout, code)
	assert.Equal(t, float64(next), body["calls"])
	assert.Contains(t, body["error"], fmt.Sprintf("WaitForCalls: %d of the %d calls awaited have begun", next, next+5))

	for _, bad := range []string{"idle?calls=x", "idle?calls=-1", "idle?timeout=soon"} {
		code, body := s.control(t, http.MethodGet, bad)
		assert.Equal(t, http.StatusBadRequest, code, bad)
		assert.NotEmpty(t, body["error"], bad)
	}
}

func TestAdvanceNeedsTheVirtualClock(t *testing.T) {
	s := start(t)
	code, body := s.control(t, http.MethodPost, "advance?d=1s")
	assert.Equal(t, http.StatusConflict, code)
	assert.Contains(t, body["error"], "-clock virtual")
}

func TestResetEndsTheLongPollsOfTheOldState(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "q")
	c := s.client()
	done := make(chan error, 1)
	go func() {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("q"), WaitTimeSeconds: 20})
		if err == nil && len(out.Messages) != 0 {
			err = fmt.Errorf("unexpected messages %v", out.Messages)
		}
		done <- err
	}()
	code, _ := s.control(t, http.MethodGet, "pollers?n=1")
	require.Equal(t, http.StatusOK, code)
	s.control(t, http.MethodPost, "reset")
	require.NoError(t, <-done)
}

func TestGracefulShutdownEndsLongPolls(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "q")
	c := s.client()
	done := make(chan error, 1)
	go func() {
		_, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("q"), WaitTimeSeconds: 20})
		done <- err
	}()
	code, _ := s.control(t, http.MethodGet, "pollers?n=1")
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, s.stop())
	err := <-done
	require.Error(t, err)
	assert.Contains(t, err.Error(), "StatusCode: 503")
	assert.Contains(t, s.stdout.String(), "sqsfake: stopped")
	_, err = c.ListQueues(context.Background(), nil)
	assert.Error(t, err, "the server is gone")
}

func TestRequestLog(t *testing.T) {
	var stderr syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	out := &endpointWriter{endpoint: make(chan string, 1)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-v"}, out, &stderr) }()
	endpoint := <-out.endpoint
	c := (&testServer{endpoint: endpoint}).client()
	_, err := c.ListQueues(context.Background(), nil)
	require.NoError(t, err)
	cancel()
	require.NoError(t, <-done)
	assert.Contains(t, stderr.String(), "POST AmazonSQS.ListQueues → 200")
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestBoto3 drives the server with boto3 through testdata/boto3_flow.py.
func TestBoto3(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	if err := exec.Command(python, "-c", "import boto3").Run(); err != nil {
		t.Skip("boto3 is not installed (pip install boto3)")
	}
	s := start(t, "-clock", "virtual")
	cmd := exec.Command(python, filepath.Join("testdata", "boto3_flow.py"), s.endpoint)
	cmd.Env = awsEnv(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}

// awsEnv is the environment of the AWS CLI and boto3 in tests: dummy credentials and no
// configuration or metadata lookups of the machine's own.
func awsEnv(t *testing.T) []string {
	dir := t.TempDir()
	env := []string{
		"AWS_ACCESS_KEY_ID=test",
		"AWS_SECRET_ACCESS_KEY=test",
		"AWS_DEFAULT_REGION=us-east-1",
		"AWS_CONFIG_FILE=" + filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_PAGER=",
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	return env
}

// TestAWSCLI drives the server with the AWS CLI through a representative flow.
func TestAWSCLI(t *testing.T) {
	t.Parallel()
	awsPath, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not installed")
	}
	s := start(t, "-clock", "virtual")
	env := awsEnv(t)
	// aws runs one CLI command and decodes its JSON output; it returns the exit code and
	// stderr for failures.
	aws := func(args ...string) (map[string]any, int, string) {
		t.Helper()
		cmd := exec.Command(awsPath, append([]string{"sqs", "--endpoint-url", s.endpoint, "--region", "us-east-1", "--output", "json"}, args...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, exit.ExitCode(), stderr.String()
		}
		require.NoError(t, err)
		out := map[string]any{}
		if stdout.Len() > 0 {
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
		}
		return out, 0, stderr.String()
	}
	ok := func(args ...string) map[string]any {
		t.Helper()
		out, code, stderr := aws(args...)
		require.Zero(t, code, "aws sqs %v: %s", args, stderr)
		return out
	}

	dlq := ok("create-queue", "--queue-name", "cli-dlq")["QueueUrl"].(string)
	assert.Equal(t, s.endpoint+"/123456789012/cli-dlq", dlq)
	url := ok("create-queue", "--queue-name", "cli",
		"--attributes", `{"VisibilityTimeout":"30","RedrivePolicy":"{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:123456789012:cli-dlq\",\"maxReceiveCount\":\"1\"}"}`)["QueueUrl"].(string)

	sent := ok("send-message", "--queue-url", url, "--message-body", "from the CLI",
		"--message-attributes", `{"k":{"DataType":"String","StringValue":"x"}}`)
	assert.Equal(t, "a45daa70926828a2f0a1db3418e6feb4", sent["MD5OfMessageAttributes"], "SQS's digest of {k: String x}")

	got := ok("receive-message", "--queue-url", url, "--attribute-names", "All", "--message-attribute-names", "All")["Messages"].([]any)[0].(map[string]any)
	assert.Equal(t, "from the CLI", got["Body"])
	assert.Equal(t, sent["MessageId"], got["MessageId"])
	assert.Equal(t, "x", got["MessageAttributes"].(map[string]any)["k"].(map[string]any)["StringValue"])
	ok("change-message-visibility", "--queue-url", url, "--receipt-handle", got["ReceiptHandle"].(string), "--visibility-timeout", "5")
	assert.NotContains(t, ok("receive-message", "--queue-url", url), "Messages")

	code, _ := s.control(t, http.MethodPost, "advance?d=5s")
	require.Equal(t, http.StatusOK, code)
	// The message's one receive is spent: this receive moves it to the dead-letter queue.
	assert.NotContains(t, ok("receive-message", "--queue-url", url), "Messages")
	dead := ok("receive-message", "--queue-url", dlq, "--attribute-names", "All")["Messages"].([]any)[0].(map[string]any)
	assert.Equal(t, sent["MessageId"], dead["MessageId"])
	ok("delete-message", "--queue-url", dlq, "--receipt-handle", dead["ReceiptHandle"].(string))
	assert.Equal(t, []any{url}, ok("list-dead-letter-source-queues", "--queue-url", dlq)["queueUrls"])

	batch := ok("send-message-batch", "--queue-url", url, "--entries",
		`[{"Id":"a","MessageBody":"one"},{"Id":"b","MessageBody":"two","DelaySeconds":1000}]`)
	assert.Len(t, batch["Successful"], 1)
	assert.Equal(t, "InvalidParameterValue", batch["Failed"].([]any)[0].(map[string]any)["Code"])

	_, code, stderr := aws("get-queue-url", "--queue-name", "missing")
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "(AWS.SimpleQueueService.NonExistentQueue) when calling the GetQueueUrl operation: The specified queue does not exist.")
	_, code, stderr = aws("delete-message", "--queue-url", url, "--receipt-handle", "garbage")
	assert.NotZero(t, code)
	assert.Contains(t, stderr, "(ReceiptHandleIsInvalid)")

	fifo := ok("create-queue", "--queue-name", "cli.fifo", "--attributes", `{"FifoQueue":"true","ContentBasedDeduplication":"true"}`)["QueueUrl"].(string)
	first := ok("send-message", "--queue-url", fifo, "--message-body", "one", "--message-group-id", "g")
	assert.NotEmpty(t, first["SequenceNumber"])
	ok("send-message", "--queue-url", fifo, "--message-body", "two", "--message-group-id", "g")
	msgs := ok("receive-message", "--queue-url", fifo, "--max-number-of-messages", "10", "--attribute-names", "All")["Messages"].([]any)
	require.Len(t, msgs, 2)
	assert.Equal(t, "one", msgs[0].(map[string]any)["Body"])
	assert.Equal(t, "two", msgs[1].(map[string]any)["Body"])
	assert.Equal(t, first["SequenceNumber"], msgs[0].(map[string]any)["Attributes"].(map[string]any)["SequenceNumber"])

	ok("delete-queue", "--queue-url", url)
	assert.NotContains(t, ok("list-queues")["QueueUrls"], url)
}

// TestServerWithVirtualClockGivesTheSameIDsAfterReset checks that a reset server replays
// identically: the same calls give the same message ids and receipt handles.
func TestServerWithVirtualClockGivesTheSameIDsAfterReset(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "q")
	c := s.client()
	ctx := context.Background()
	flow := func() []string {
		sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String("q"), MessageBody: aws.String("x")})
		require.NoError(t, err)
		got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("q")})
		require.NoError(t, err)
		require.Len(t, got.Messages, 1)
		return []string{*sent.MessageId, *got.Messages[0].ReceiptHandle}
	}
	first := flow()
	s.control(t, http.MethodPost, "reset")
	assert.Equal(t, first, flow())
}
