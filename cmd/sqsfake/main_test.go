package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	stdlog "log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"

	"github.com/sqsfake/sqsfake/internal/memtest"
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
	req.Header.Set("X-Sqsfake-Control", "1")
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
		{[]string{"-endpoint", "https://sqs.test/prefix"}, ""}, // a proxy may serve it under a path
		{[]string{"-endpoint", "sqs.test:9324"}, "-endpoint"},
		{[]string{"-endpoint", "ftp://sqs.test"}, "-endpoint"},
		{[]string{"-endpoint", "http://"}, "-endpoint"},
		{[]string{"-addr", "0.0.0.0:9324"}, "not a loopback address"},
		{[]string{"-addr", "192.0.2.1:9324"}, "-allow-remote"},
		{[]string{"-addr", "[::1]:9324"}, ""},
		{[]string{"-addr", "localhost:9324"}, ""},
		{[]string{"-addr", "0.0.0.0:9324", "-allow-remote"}, ""},
		{[]string{"-addr", "nonsense"}, "-addr"},
		{[]string{"-purge-cooldown", "0"}, ""},
		{[]string{"-purge-cooldown", "2m"}, ""},
		{[]string{"-purge-cooldown", "soon"}, "-purge-cooldown"},
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
	assert.Equal(t, config{addr: "127.0.0.1:9324", region: "us-east-1", account: "123456789012", clock: "real", purgeCooldown: 60 * time.Second}, cfg)
}

// The flags that set the fake's options are checked by the options themselves
// (sqsfake.CheckOptions), and their errors name the flag.
func TestFlagErrorsNameTheFlagAndWhatItsOptionAllows(t *testing.T) {
	for _, tc := range []struct {
		args []string
		err  string
	}{
		{[]string{"-region", "x y"}, `-region "x y": want a region such as us-east-1: lower-case words and a number, joined by hyphens`},
		{[]string{"-account", "12"}, `-account "12": want 12 digits, such as 123456789012`},
		{[]string{"-endpoint", "sqs.test:9324"}, `-endpoint "sqs.test:9324": want an http or https URL with a host and no user, query or fragment, such as http://127.0.0.1:9324`},
		{[]string{"-purge-cooldown", "-1s"}, `-purge-cooldown -1s: want 0 (no cooldown) or 1ms or more, such as 60s; SQS's is 60s`},
		{[]string{"-endpoint", "http://sqs.test/?x=1"}, `-endpoint "http://sqs.test/?x=1": want an http or https URL with a host and no user, query or fragment, such as http://127.0.0.1:9324`},
	} {
		_, err := parseFlags(tc.args, io.Discard)
		assert.EqualError(t, err, tc.err, tc.args)
		var stderr bytes.Buffer
		assert.EqualError(t, run(context.Background(), tc.args, io.Discard, &stderr), tc.err, "run reports it without panicking")
	}
	dup := filepath.Join(t.TempDir(), "creds.json")
	require.NoError(t, os.WriteFile(dup, []byte(`[{"accessKeyId":"AKIA1","secretAccessKey":"a"},{"accessKeyId":"AKIA1","secretAccessKey":"b"}]`), 0o600))
	_, err := parseFlags([]string{"-credentials", dup}, io.Discard)
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "-credentials "), "the flag is named: %v", err)
	_, err = newServer(config{region: "x", account: "123456789012", clock: "virtual"})
	assert.EqualError(t, err, `-region "x": want a region such as us-east-1: lower-case words and a number, joined by hyphens`,
		"a server built from an unchecked config reports the error too")
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

func TestPurgeCooldownFlag(t *testing.T) {
	ctx := context.Background()
	purge := func(s *testServer) error {
		_, err := s.client().PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(s.endpoint + "/123456789012/jobs")})
		return err
	}
	inProgress := func(t *testing.T, err error, every string) {
		t.Helper()
		var pe *types.PurgeQueueInProgress
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "AWS.SimpleQueueService.PurgeQueueInProgress", pe.ErrorCode())
		assert.Equal(t, "Only one PurgeQueue operation on jobs is allowed every "+every+".", pe.ErrorMessage())
	}

	t.Run("default 60s, as SQS", func(t *testing.T) {
		s := start(t, "-clock", "virtual", "-queues", "jobs")
		require.NoError(t, purge(s))
		s.control(t, http.MethodPost, "advance?d=59s")
		inProgress(t, purge(s), "60 seconds")
		s.control(t, http.MethodPost, "advance?d=1s")
		require.NoError(t, purge(s))
	})
	t.Run("0 switches it off", func(t *testing.T) {
		s := start(t, "-clock", "virtual", "-queues", "jobs", "-purge-cooldown", "0")
		for range 3 {
			require.NoError(t, purge(s))
		}
	})
	t.Run("10s", func(t *testing.T) {
		s := start(t, "-clock", "virtual", "-queues", "jobs", "-purge-cooldown", "10s")
		require.NoError(t, purge(s))
		inProgress(t, purge(s), "10 seconds")
		s.control(t, http.MethodPost, "advance?d=9s")
		inProgress(t, purge(s), "10 seconds")
		s.control(t, http.MethodPost, "advance?d=1s")
		require.NoError(t, purge(s))
		// A reset keeps the flag.
		code, _ := s.control(t, http.MethodPost, "reset")
		require.Equal(t, http.StatusOK, code)
		require.NoError(t, purge(s))
		inProgress(t, purge(s), "10 seconds")
	})
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
	var got *sqs.ReceiveMessageOutput
	go func() {
		out, err := c.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: aws.String("q"), WaitTimeSeconds: 20})
		got = out
		done <- err
	}()
	code, _ := s.control(t, http.MethodGet, "pollers?n=1")
	require.Equal(t, http.StatusOK, code)
	require.NoError(t, s.stop())
	err := <-done
	require.NoError(t, err, "a long poll open at shutdown ends as a wait with nothing to deliver")
	assert.Empty(t, got.Messages)
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
	assert.Contains(t, stderr.String(), `POST "AmazonSQS.ListQueues" → 200`)
}

// TestRequestLogQuotesUntrustedStrings sends paths and targets that would forge log lines
// if written as they are: each request still logs one line, with the strings quoted.
func TestRequestLogQuotesUntrustedStrings(t *testing.T) {
	s := newTestServer(t)
	var log bytes.Buffer
	s.logger = stdlog.New(&log, "", 0)
	serve(s, http.MethodGet, "/123456789012/q%0A127.0.0.1:1%20POST%20AmazonSQS.DeleteQueue%20%E2%86%92%20200", "127.0.0.1")
	serve(s, http.MethodPost, "List\x1b[2JQueues\u2028", "127.0.0.1")
	serve(s, http.MethodGet, "/_sqsfake/%0D%0Anothing", "127.0.0.1")
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	require.Len(t, lines, 3, log.String())
	assert.Contains(t, lines[0], `GET "/123456789012/q\n127.0.0.1:1 POST AmazonSQS.DeleteQueue → 200" → 404`) // a query request without Action on a queue URL
	assert.Contains(t, lines[1], `POST "AmazonSQS.List\x1b[2JQueues\u2028" → 400`)
	assert.Contains(t, lines[2], `GET "/_sqsfake/\r\nnothing" → 403`)
}

// TestRequestLogNamesTheQueryAction pins that a query request's line names its Action, from
// the query string of a GET or the form body of a POST, quoted as every client string is.
func TestRequestLogNamesTheQueryAction(t *testing.T) {
	s := newTestServer(t, "-queues", "jobs")
	var log bytes.Buffer
	s.logger = stdlog.New(&log, "", 0)
	serve(s, http.MethodGet, "/123456789012/jobs?Action=GetQueueAttributes&AttributeName.1=All", "127.0.0.1")
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("Action=SendMessage%0A127.0.0.1:1&QueueUrl=jobs"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Host = "127.0.0.1"
	s.ServeHTTP(httptest.NewRecorder(), r)
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader("Action=ListQueues"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Host = "127.0.0.1"
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	require.Len(t, lines, 3, log.String())
	assert.Contains(t, lines[0], `GET "/123456789012/jobs" Action="GetQueueAttributes" → 200`)
	assert.Contains(t, lines[1], `POST "/" Action="SendMessage\n127.0.0.1:1" → 400`)
	assert.Contains(t, lines[2], `POST "/" Action="ListQueues" → 200`)
	assert.Empty(t, w.Header().Values("X-Sqsfake-Action"), "nothing of the log reaches the client")
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

// TestServerResetReplaysIDsAndMakesEarlierHandlesStale checks that a reset server replays
// deterministically — the same calls give the same message ids as at start, and the same
// receipt handles as another server after as many resets — while a receipt handle issued
// before a reset is refused afterwards instead of naming the message that took its place.
func TestServerResetReplaysIDsAndMakesEarlierHandlesStale(t *testing.T) {
	ctx := context.Background()
	run := func() [][2]string {
		s := start(t, "-clock", "virtual", "-queues", "q")
		c := s.client()
		flow := func() [2]string {
			sent, err := c.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String("q"), MessageBody: aws.String("x")})
			require.NoError(t, err)
			got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("q")})
			require.NoError(t, err)
			require.Len(t, got.Messages, 1)
			return [2]string{*sent.MessageId, *got.Messages[0].ReceiptHandle}
		}
		steps := [][2]string{flow()}
		for range 2 {
			code, _ := s.control(t, http.MethodPost, "reset")
			require.Equal(t, http.StatusOK, code)
			steps = append(steps, flow())
		}
		for _, earlier := range steps[:2] {
			_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("q"), ReceiptHandle: aws.String(earlier[1])})
			var invalid *types.ReceiptHandleIsInvalid
			require.ErrorAs(t, err, &invalid)
			assert.Equal(t, `The input receipt handle "`+earlier[1]+`" is not a valid receipt handle.`, invalid.ErrorMessage())
		}
		counts, err := c.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String("q"),
			AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessagesNotVisible"}})
		require.NoError(t, err)
		assert.Equal(t, "1", counts.Attributes["ApproximateNumberOfMessagesNotVisible"], "the current message is still in flight")
		return steps
	}
	first := run()
	for i, step := range first {
		assert.Equal(t, first[0][0], step[0], "reset %d: the message id of a fresh server", i)
		for _, earlier := range first[:i] {
			assert.NotEqual(t, earlier[1], step[1], "reset %d: a receipt handle issued before", i)
		}
	}
	assert.Equal(t, first, run(), "another server, the same calls and resets")
}

// TestServerAnswersADeclaredHugeBodyWith413AtOnce sends the headers of a request that
// declares a gigabyte and a few bytes of it: the answer comes without waiting for the rest
// (the read deadline only keeps a broken server from hanging the test).
func TestServerAnswersADeclaredHugeBodyWith413AtOnce(t *testing.T) {
	s := start(t)
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.endpoint, "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\n"+
		"X-Amz-Target: AmazonSQS.SendMessage\r\nContent-Length: %d\r\n\r\n{\"QueueUrl\":\"q\",", strings.TrimPrefix(s.endpoint, "http://"), 1<<30)
	require.NoError(t, err)
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no answer before the body was sent")
	defer resp.Body.Close()
	assert.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	assert.True(t, resp.Close, "the server closes the connection it did not read to the end")
}

// newTestServer builds the command's handler as run does, without a listener.
func newTestServer(t *testing.T, args ...string) *server {
	t.Helper()
	cfg, err := parseFlags(args, io.Discard)
	require.NoError(t, err)
	if cfg.endpoint == "" {
		cfg.endpoint = "http://" + cfg.addr
	}
	s, err := newServer(cfg)
	require.NoError(t, err)
	return s
}

// serve answers one request built from method, target (a path, or an SQS operation) and
// header pairs, whose Host is host.
func serve(s *server, method, target, host string, header ...string) *httptest.ResponseRecorder {
	var r *http.Request
	if strings.HasPrefix(target, "/") {
		r = httptest.NewRequest(method, target, nil)
	} else {
		r = httptest.NewRequest(method, "/", strings.NewReader("{}"))
		r.Header.Set("Content-Type", "application/x-amz-json-1.0")
		r.Header.Set("X-Amz-Target", "AmazonSQS."+target)
	}
	r.Host = host
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

func TestServerServesOnlyRequestsForItsOwnHost(t *testing.T) {
	s := newTestServer(t, "-endpoint", "http://SQS.test:9324")
	remote := newTestServer(t, "-addr", "0.0.0.0:9324", "-allow-remote")
	for _, tc := range []struct {
		host   string
		s      *server
		served bool
	}{
		{"127.0.0.1:9324", s, true},
		{"127.0.0.1", s, true},
		{"127.9.8.7:80", s, true},
		{"localhost:9324", s, true},
		{"LocalHost", s, true},
		{"localhost.:9324", s, true},
		{"[::1]:9324", s, true},
		{"[::1]", s, true},
		{"sqs.test:9324", s, true},      // the host of -endpoint, in any case
		{"sqs.TEST:443", s, true},       // and on any port: a proxy may change it
		{"evil.example:9324", s, false}, // DNS rebinding: a page's own name, resolved to 127.0.0.1
		{"localhost.evil.example", s, false},
		{"127.0.0.1.nip.io:9324", s, false},
		{"192.0.2.1:9324", s, false},
		{"[::]:9324", s, false},
		{"0.0.0.0:9324", s, false},
		{"", s, false},
		{"evil.example:9324", remote, true}, // -allow-remote serves any host
		{"192.0.2.1:9324", remote, true},
	} {
		for _, target := range []string{"ListQueues", "/_sqsfake/health"} {
			w := serve(tc.s, http.MethodPost, target, tc.host)
			if target == "/_sqsfake/health" {
				w = serve(tc.s, http.MethodGet, target, tc.host)
			}
			if tc.served {
				assert.Equal(t, http.StatusOK, w.Code, "%s %s: %s", tc.host, target, w.Body)
				continue
			}
			assert.Equal(t, http.StatusForbidden, w.Code, "%s %s", tc.host, target)
			msg := "Host " + strconv.Quote(tc.host) + " is not this server's: it serves loopback names and addresses (localhost, 127.0.0.1, [::1]) and the host of -endpoint (sqs.test); pass -endpoint with the name clients use, or -allow-remote"
			want := map[string]any{"error": msg}
			if target == "ListQueues" {
				// SQS clients get the error in SQS's shape, as AWS's AccessDenied.
				assert.Equal(t, "AccessDenied;Sender", w.Header().Get("X-Amzn-Query-Error"))
				want = map[string]any{"__type": "com.amazon.coral.service#AccessDeniedException", "message": msg}
			}
			var got map[string]any
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &got))
			assert.Equal(t, want, got, tc.host)
		}
	}
}

func TestControlEndpointsRefuseCrossSiteRequests(t *testing.T) {
	const host = "127.0.0.1:9324"
	ctl := []string{"X-Sqsfake-Control", "1"}
	for _, tc := range []struct {
		name           string
		method, target string
		header         []string
		code           int
		err            string // in the answer's error
	}{
		{"a control request with the header", http.MethodPost, "/_sqsfake/reset", ctl, http.StatusOK, ""},
		{"a form post from another site: no header", http.MethodPost, "/_sqsfake/reset",
			[]string{"Content-Type", "text/plain", "Origin", "http://evil.example"}, http.StatusForbidden, "cross-site"},
		{"no header", http.MethodPost, "/_sqsfake/reset", nil, http.StatusForbidden, "X-Sqsfake-Control: 1"},
		{"no header on state", http.MethodGet, "/_sqsfake/state", nil, http.StatusForbidden, "X-Sqsfake-Control: 1"},
		{"no header on pollers", http.MethodGet, "/_sqsfake/pollers", nil, http.StatusForbidden, "X-Sqsfake-Control: 1"},
		{"no header on advance", http.MethodPost, "/_sqsfake/advance?d=1s", nil, http.StatusForbidden, "X-Sqsfake-Control: 1"},
		{"no header on an unknown endpoint", http.MethodGet, "/_sqsfake/nothing", nil, http.StatusForbidden, "X-Sqsfake-Control: 1"},
		{"health needs no header", http.MethodGet, "/_sqsfake/health", nil, http.StatusOK, ""},
		{"a foreign origin", http.MethodPost, "/_sqsfake/reset", append([]string{"Origin", "http://evil.example"}, ctl...), http.StatusForbidden, "cross-site"},
		{"another port of the same host", http.MethodPost, "/_sqsfake/reset", append([]string{"Origin", "http://127.0.0.1:3000"}, ctl...), http.StatusForbidden, "cross-site"},
		{"an opaque origin", http.MethodPost, "/_sqsfake/reset", append([]string{"Origin", "null"}, ctl...), http.StatusForbidden, "cross-site"},
		{"the server's own origin", http.MethodPost, "/_sqsfake/reset", append([]string{"Origin", "http://127.0.0.1:9324"}, ctl...), http.StatusOK, ""},
		{"a foreign origin on health", http.MethodGet, "/_sqsfake/health", []string{"Origin", "http://evil.example"}, http.StatusForbidden, "cross-site"},
		{"Sec-Fetch-Site cross-site", http.MethodPost, "/_sqsfake/reset", append([]string{"Sec-Fetch-Site", "cross-site"}, ctl...), http.StatusForbidden, "cross-site"},
		{"Sec-Fetch-Site same-site", http.MethodPost, "/_sqsfake/reset", append([]string{"Sec-Fetch-Site", "same-site"}, ctl...), http.StatusForbidden, "cross-site"},
		{"Sec-Fetch-Site cross-site on health", http.MethodGet, "/_sqsfake/health", []string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden, "cross-site"},
		{"Sec-Fetch-Site same-origin", http.MethodPost, "/_sqsfake/reset", append([]string{"Sec-Fetch-Site", "same-origin"}, ctl...), http.StatusOK, ""},
		{"Sec-Fetch-Site none: typed by the user", http.MethodGet, "/_sqsfake/state", append([]string{"Sec-Fetch-Site", "none"}, ctl...), http.StatusOK, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, "-clock", "virtual", "-queues", "jobs")
			f := s.cur.Load().fake
			w := serve(s, tc.method, tc.target, host, tc.header...)
			assert.Equal(t, tc.code, w.Code, w.Body.String())
			assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
			var body map[string]any
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
			if tc.err != "" {
				assert.Contains(t, body["error"], tc.err)
				assert.Same(t, f, s.cur.Load().fake, "a refused reset resets nothing")
			}
		})
	}
}

// TestSQSRequestsFromAnotherSiteAreRefused pins that a web page cannot drive the queues
// either: a query-protocol GET (an <img src>) or form post is a simple request that a browser
// sends to any site without asking, so the server refuses every request whose Origin or
// Sec-Fetch-Site shows another site, as it refuses such control requests. SDKs, the CLI and
// curl send neither header.
func TestSQSRequestsFromAnotherSiteAreRefused(t *testing.T) {
	const host = "127.0.0.1:9324"
	for _, tc := range []struct {
		name, method, target string
		header               []string
		code                 int
	}{
		{"a query GET from an image on another site", http.MethodGet, "/?Action=CreateQueue&QueueName=pwned&Version=2012-11-05",
			[]string{"Sec-Fetch-Site", "cross-site"}, http.StatusForbidden},
		{"a query GET with a foreign Origin", http.MethodGet, "/?Action=CreateQueue&QueueName=pwned",
			[]string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"a form post from another site", http.MethodPost, "/?Action=CreateQueue&QueueName=pwned",
			[]string{"Origin", "null", "Content-Type", "application/x-www-form-urlencoded"}, http.StatusForbidden},
		{"a JSON request with a foreign Origin", http.MethodPost, "CreateQueue",
			[]string{"Origin", "http://evil.example"}, http.StatusForbidden},
		{"a query GET typed by the user", http.MethodGet, "/?Action=CreateQueue&QueueName=pwned",
			[]string{"Sec-Fetch-Site", "none"}, http.StatusOK},
		{"a query GET from curl", http.MethodGet, "/?Action=CreateQueue&QueueName=pwned", nil, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestServer(t, "-clock", "virtual")
			w := serve(s, tc.method, tc.target, host, tc.header...)
			assert.Equal(t, tc.code, w.Code, w.Body.String())
			_, lookupErr := s.cur.Load().fake.Queue("pwned")
			if tc.code == http.StatusForbidden {
				assert.Contains(t, w.Body.String(), "cross-site")
				assert.Equal(t, "AccessDenied;Sender", w.Header().Get("X-Amzn-Query-Error"))
				assert.ErrorIs(t, lookupErr, sqsfake.ErrNoQueue, "a refused request changes nothing")
			}
		})
	}
}

// TestSDKSeesARefusedHostAsAccessDenied reaches the server under a name it does not serve,
// as a page would after DNS rebinding: the SDK reports AWS's AccessDenied with the reason.
func TestSDKSeesARefusedHostAsAccessDenied(t *testing.T) {
	s := start(t)
	addr := strings.TrimPrefix(s.endpoint, "http://")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	dialer := &net.Dialer{}
	c := sqs.New(sqs.Options{
		Region:           "us-east-1",
		BaseEndpoint:     aws.String("http://rebound.example:" + port),
		Credentials:      aws.AnonymousCredentials{},
		RetryMaxAttempts: 1,
		HTTPClient: &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dialer.DialContext(ctx, network, addr) // whatever the name, the server's loopback address
		}}},
	})
	_, err = c.ListQueues(context.Background(), nil)
	var ae smithy.APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "AccessDenied", ae.ErrorCode())
	assert.Contains(t, ae.ErrorMessage(), `Host "rebound.example:`+port+`" is not this server's`)
	var re *awshttp.ResponseError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, http.StatusForbidden, re.HTTPStatusCode())
}

func TestWildcardAddressWarnsAndListsTheAddressesItServes(t *testing.T) {
	ips := []net.IP{net.ParseIP("192.168.1.20"), net.ParseIP("::1"), net.ParseIP("fe80::1"), net.ParseIP("127.0.0.1"),
		net.ParseIP("2001:db8::5"), net.ParseIP("10.0.0.5")}
	for _, tc := range []struct {
		given         string
		addr          *net.TCPAddr
		endpointGiven bool
		want          string
	}{
		{"0.0.0.0:9324", &net.TCPAddr{IP: net.IPv4zero, Port: 9324}, false, `sqsfake: warning: -addr 0.0.0.0:9324 with -allow-remote serves every network interface of this machine, and without -credentials neither its queues nor its control endpoints need a credential: anyone who can reach it can read and change its queues
sqsfake: listening on 0.0.0.0:9324: http://127.0.0.1:9324, http://10.0.0.5:9324, http://192.168.1.20:9324
sqsfake: queue URLs name http://localhost:9324; for clients on other machines, pass -endpoint with a name they reach this machine by
`},
		{":0", &net.TCPAddr{IP: net.IPv6unspecified, Port: 80}, true, `sqsfake: warning: -addr :0 with -allow-remote serves every network interface of this machine, and without -credentials neither its queues nor its control endpoints need a credential: anyone who can reach it can read and change its queues
sqsfake: listening on [::]:80: http://127.0.0.1:80, http://[::1]:80, http://10.0.0.5:80, http://192.168.1.20:80, http://[2001:db8::5]:80
`},
	} {
		var out bytes.Buffer
		warnWildcard(&out, tc.given, tc.addr, ips, "http://localhost:"+strconv.Itoa(tc.addr.Port), tc.endpointGiven)
		assert.Equal(t, tc.want, out.String())
	}
}

// TestPortZeroPicksAFreePortAndTheBannerSaysWhich starts two servers on -addr 127.0.0.1:0:
// each gets a port of its own, which the banner names, in the queue URLs' endpoint or, when
// -endpoint names another, on a line of its own.
func TestPortZeroPicksAFreePortAndTheBannerSaysWhich(t *testing.T) {
	a, b := start(t), start(t, "-endpoint", "http://sqs.test:1234")
	assert.Regexp(t, `^http://127\.0\.0\.1:[1-9][0-9]*$`, a.endpoint)
	assert.Equal(t, "http://sqs.test:1234", b.endpoint)
	m := regexp.MustCompile(`(?m)^sqsfake: listening on (127\.0\.0\.1:[1-9][0-9]*)$`).FindStringSubmatch(b.stdout.String())
	require.NotNil(t, m, b.stdout.String())
	assert.NotEqual(t, strings.TrimPrefix(a.endpoint, "http://"), m[1])
	for _, addr := range []string{strings.TrimPrefix(a.endpoint, "http://"), m[1]} {
		resp, err := http.Get("http://" + addr + "/_sqsfake/health")
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, addr)
	}
	assert.NotContains(t, a.stdout.String(), "listening on", "the endpoint already names the address")
}

// fill sends n messages "0", "1", … to the queue named name of s's fake.
func fill(t *testing.T, s *server, name string, n int) {
	t.Helper()
	f := s.cur.Load().fake
	for i := 0; i < n; i += 10 {
		var entries []types.SendMessageBatchRequestEntry
		for j := i; j < min(i+10, n); j++ {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint(j)), MessageBody: aws.String(fmt.Sprint(j))})
		}
		out, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: aws.String(name), Entries: entries})
		require.NoError(t, err)
		require.Empty(t, out.Failed)
	}
}

// stateAnswer is the answer of GET /_sqsfake/state, as a client decodes it.
type stateAnswer struct {
	Now      string `json:"now"`
	Clock    string `json:"clock"`
	Region   string `json:"region"`
	Account  string `json:"account"`
	Endpoint string `json:"endpoint"`
	Pollers  *int   `json:"pollers"`
	Queues   []struct {
		Name       string            `json:"name"`
		URL        string            `json:"url"`
		AccountID  string            `json:"accountId"`
		Region     string            `json:"region"`
		Attributes map[string]string `json:"attributes"`
		Visible    int               `json:"visible"`
		Messages   []struct {
			Body string `json:"body"`
		} `json:"messages"`
		Stats     map[string]any `json:"stats"`
		Truncated *bool          `json:"truncated"`
		Next      uint64         `json:"next"`
	} `json:"queues"`
	Error string `json:"error"`
}

func getState(t *testing.T, s *server, query string) (int, stateAnswer) {
	t.Helper()
	w := serve(s, http.MethodGet, "/_sqsfake/state"+query, "127.0.0.1", "X-Sqsfake-Control", "1")
	var st stateAnswer
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &st), w.Body.String())
	return w.Code, st
}

func bodies(msgs []struct {
	Body string `json:"body"`
}) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = m.Body
	}
	return out
}

func numbers(from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprint(i))
	}
	return out
}

func TestStateIsCappedPerQueueFilteredAndPaged(t *testing.T) {
	s := newTestServer(t, "-clock", "virtual", "-queues", "a,jobs")
	fill(t, s, "a", 1)
	fill(t, s, "jobs", 2500)

	code, st := getState(t, s, "")
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "2025-01-01T00:00:00Z", st.Now)
	assert.Equal(t, []any{"virtual", "us-east-1", "123456789012", "http://127.0.0.1:9324", 0},
		[]any{st.Clock, st.Region, st.Account, st.Endpoint, *st.Pollers})
	require.Len(t, st.Queues, 2)
	a, jobs := st.Queues[0], st.Queues[1]
	assert.Equal(t, "a", a.Name)
	assert.Equal(t, []string{"0"}, bodies(a.Messages))
	assert.False(t, *a.Truncated)
	assert.Zero(t, a.Next)
	assert.Equal(t, "jobs", jobs.Name)
	assert.Equal(t, "http://127.0.0.1:9324/123456789012/jobs", jobs.URL)
	assert.Equal(t, 2500, jobs.Visible, "the counts are the whole queue's")
	assert.Equal(t, "2500", jobs.Attributes["ApproximateNumberOfMessages"])
	assert.Equal(t, 2500.0, jobs.Stats["numberOfMessagesSent"])
	assert.Equal(t, numbers(0, 1000), bodies(jobs.Messages), "1000 messages a queue by default")
	assert.True(t, *jobs.Truncated)
	assert.Equal(t, uint64(1000), jobs.Next)

	// Page on with ?queue= and ?after=, in pages of ?limit=.
	var got []string
	var after uint64
	for page := 0; ; page++ {
		code, st := getState(t, s, fmt.Sprintf("?queue=jobs&limit=700&after=%d", after))
		require.Equal(t, http.StatusOK, code)
		require.Len(t, st.Queues, 1)
		got = append(got, bodies(st.Queues[0].Messages)...)
		if !*st.Queues[0].Truncated {
			break
		}
		after = st.Queues[0].Next
	}
	assert.Equal(t, numbers(0, 2500), got)

	code, st = getState(t, s, "?queue=http://127.0.0.1:9324/123456789012/a&limit=0")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, st.Queues, 1)
	assert.Equal(t, "a", st.Queues[0].Name, "a queue URL names the queue too")
	assert.Empty(t, st.Queues[0].Messages, "limit 0: no messages")
	assert.True(t, *st.Queues[0].Truncated)

	code, st = getState(t, s, "?limit=10000")
	require.Equal(t, http.StatusOK, code)
	assert.Len(t, st.Queues[1].Messages, 2500)
	assert.False(t, *st.Queues[1].Truncated)

	for query, want := range map[string]int{
		"?queue=missing":              http.StatusNotFound,
		"?queue=":                     http.StatusNotFound,
		"?limit=x":                    http.StatusBadRequest,
		"?limit=-1":                   http.StatusBadRequest,
		"?limit=10001":                http.StatusBadRequest,
		"?after=5":                    http.StatusBadRequest, // a cursor is a queue's
		"?queue=jobs&after=x":         http.StatusBadRequest,
		"?queue=jobs&after=-1":        http.StatusBadRequest,
		"?queue=jobs&queue=a":         http.StatusBadRequest,
		"?queue=jobs&limit=1&limit=2": http.StatusBadRequest,
	} {
		code, st := getState(t, s, query)
		assert.Equal(t, want, code, query)
		assert.NotEmpty(t, st.Error, query)
	}
}

// discardWriter is a ResponseWriter that counts the bytes of the answer and keeps none.
type discardWriter struct {
	header http.Header
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) WriteHeader(int)             {}
func (w *discardWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

// TestStateMemoryIsBoundedByThePage pins that answering GET /_sqsfake/state allocates as
// much for a queue of 20,000 messages as for one of 2,000: the answer is streamed, a page at
// a time, and never built whole.
func TestStateMemoryIsBoundedByThePage(t *testing.T) {
	measure := func(n int) (allocated uint64, size int) {
		s := newTestServer(t, "-clock", "virtual", "-queues", "jobs")
		fill(t, s, "jobs", n)
		r := httptest.NewRequest(http.MethodGet, "/_sqsfake/state", nil)
		r.Host = "127.0.0.1:9324"
		r.Header.Set("X-Sqsfake-Control", "1")
		allocated = memtest.BytesPerRun(3, func() {
			w := &discardWriter{header: http.Header{}}
			s.ServeHTTP(w, r)
			size = w.n
		})
		return allocated, size
	}
	shortAlloc, shortSize := measure(2000)
	longAlloc, longSize := measure(20000)
	assert.Greater(t, shortSize, 1000*200, "a page of 1000 messages")
	assert.InDelta(t, shortSize, longSize, 100, "the same page of 1000 messages")
	assert.Less(t, longAlloc, shortAlloc+shortAlloc/4, "state allocates %d bytes for 2,000 messages, %d for 20,000", shortAlloc, longAlloc)
}

// TestCredentialsFlagVerifiesSignaturesAndNamesCallers runs the server in signed mode: a
// key of the file acts as its account and principal in the region it signs for; a wrong
// secret or an unknown key is refused, by the Go SDK's signature and by botocore's (the AWS
// CLI).
func TestCredentialsFlagVerifiesSignaturesAndNamesCallers(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(file, []byte(`[
  {"accessKeyId": "AKIAALICE", "secretAccessKey": "alice-secret", "principalArn": "arn:aws:iam::111122223333:user/alice"},
  {"accessKeyId": "444455556666", "secretAccessKey": "bob-secret"}
]`), 0o600))
	s := start(t, "-clock", "virtual", "-credentials", file)
	ctx := context.Background()
	as := func(key, secret, region string) *sqs.Client {
		return sqs.New(sqs.Options{
			Region:       region,
			BaseEndpoint: aws.String(s.endpoint),
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: key, SecretAccessKey: secret}, nil
			}),
			RetryMaxAttempts: 1,
		})
	}
	alice, err := as("AKIAALICE", "alice-secret", "us-east-1").CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Equal(t, s.endpoint+"/111122223333/jobs", *alice.QueueUrl)
	bob, err := as("444455556666", "bob-secret", "eu-west-1").CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	assert.Equal(t, s.endpoint+"/queue/eu-west-1/444455556666/jobs", *bob.QueueUrl)

	for _, tc := range []struct{ name, key, secret, code string }{
		{"wrong secret", "AKIAALICE", "guess", "SignatureDoesNotMatch"},
		{"unknown key", "AKIAMALLORY", "x", "InvalidClientTokenId"},
		{"another account's key without a policy", "444455556666", "bob-secret", "AccessDenied"},
	} {
		_, err := as(tc.key, tc.secret, "us-east-1").SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: alice.QueueUrl, MessageBody: aws.String("x")})
		var api smithy.APIError
		require.ErrorAs(t, err, &api, tc.name)
		assert.Equal(t, tc.code, api.ErrorCode(), tc.name)
	}

	awsPath, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not installed")
	}
	cli := func(secret string) (string, error) {
		cmd := exec.Command(awsPath, "sqs", "--endpoint-url", s.endpoint, "--region", "us-east-1", "--output", "text",
			"get-queue-url", "--queue-name", "jobs")
		cmd.Env = append(awsEnv(t), "AWS_ACCESS_KEY_ID=AKIAALICE", "AWS_SECRET_ACCESS_KEY="+secret)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := cli("alice-secret")
	require.NoError(t, err, out)
	assert.Equal(t, *alice.QueueUrl+"\n", out)
	out, err = cli("guess")
	require.Error(t, err)
	assert.Contains(t, out, "SignatureDoesNotMatch")
}

func TestStateListsTheQueuesOfEveryAccountAndRegion(t *testing.T) {
	s := newTestServer(t, "-clock", "virtual", "-queues", "jobs")
	f := s.cur.Load().fake
	eu := sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222", Region: "eu-west-1"})
	q, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs")}, eu)
	require.NoError(t, err)
	_, err = f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("eu")}, eu)
	require.NoError(t, err)
	code, st := getState(t, s, "")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, st.Queues, 2)
	var got [][4]any
	for _, q := range st.Queues {
		got = append(got, [4]any{q.Name, q.AccountID, q.Region, len(q.Messages)})
	}
	assert.Equal(t, [][4]any{{"jobs", "123456789012", "us-east-1", 0}, {"jobs", "222222222222", "eu-west-1", 1}}, got)
	code, st = getState(t, s, "?queue=arn:aws:sqs:eu-west-1:222222222222:jobs")
	require.Equal(t, http.StatusOK, code)
	require.Len(t, st.Queues, 1)
	assert.Equal(t, "http://127.0.0.1:9324/queue/eu-west-1/222222222222/jobs", st.Queues[0].URL)
}

// lineWriter hands each write (a log line: the logger writes one at a time) to a channel.
type lineWriter chan string

func (w lineWriter) Write(p []byte) (int, error) {
	w <- string(p)
	return len(p), nil
}

// awaitLine returns the first line from lines that contains want, failing t after 10 s.
func awaitLine(t *testing.T, lines <-chan string, want string) string {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case l := <-lines:
			if strings.Contains(l, want) {
				return l
			}
		case <-timeout:
			t.Fatalf("no log line with %q in 10 s", want)
		}
	}
}

// TestRequestLogTellsAClientThatWentAwayFromAServerError is issue 29's 9 (the log): a long
// poll its client cancels and a body cut by a disconnect were logged as a 503 and a
// SerializationException 400, answers no client saw.
func TestRequestLogTellsAClientThatWentAwayFromAServerError(t *testing.T) {
	lines := make(lineWriter, 100)
	ctx, cancel := context.WithCancel(context.Background())
	out := &endpointWriter{endpoint: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-v", "-clock", "virtual", "-queues", "q"}, out, lines)
	}()
	s := &testServer{endpoint: <-out.endpoint}
	defer func() {
		cancel()
		go func() {
			for range lines { // drain while the server stops
			}
		}()
		require.NoError(t, <-done)
	}()

	pollCtx, cancelPoll := context.WithCancel(context.Background())
	polled := make(chan error, 1)
	go func() {
		_, err := s.client().ReceiveMessage(pollCtx, &sqs.ReceiveMessageInput{QueueUrl: aws.String("q"), WaitTimeSeconds: 20})
		polled <- err
	}()
	code, _ := s.control(t, http.MethodGet, "pollers?n=1")
	require.Equal(t, http.StatusOK, code)
	cancelPoll()
	require.ErrorIs(t, <-polled, context.Canceled)
	line := awaitLine(t, lines, `"AmazonSQS.ReceiveMessage"`)
	assert.Contains(t, line, `→ client went away: it canceled the request while the call ran or waited (its 503 answer reached no one) in `)

	conn, err := net.Dial("tcp", strings.TrimPrefix(s.endpoint, "http://"))
	require.NoError(t, err)
	_, err = io.WriteString(conn, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-amz-json-1.0\r\n"+
		"X-Amz-Target: AmazonSQS.ListQueues\r\nContent-Length: 1000\r\n\r\n{\"QueueNamePrefix\"")
	require.NoError(t, err)
	require.NoError(t, conn.Close())
	line = awaitLine(t, lines, `"AmazonSQS.ListQueues"`)
	assert.Contains(t, line, `→ client went away: its request body was cut after 18 bytes (unexpected EOF) (its 400 answer reached no one) in `)

	// A refusal the client reads is logged with its status, as before.
	_, err = s.client().GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("nope")})
	require.Error(t, err)
	line = awaitLine(t, lines, `"AmazonSQS.GetQueueUrl"`)
	assert.Contains(t, line, `→ 400 in `)
	assert.NotContains(t, line, "went away")
}
