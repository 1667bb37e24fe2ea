package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBoto3SNS drives the server's SNS with boto3 through testdata/boto3_sns_flow.py.
func TestBoto3SNS(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not installed")
	}
	if err := exec.Command(python, "-c", "import boto3").Run(); err != nil {
		t.Skip("boto3 is not installed (pip install boto3)")
	}
	s := start(t, "-clock", "virtual")
	cmd := exec.Command(python, filepath.Join("testdata", "boto3_sns_flow.py"), s.endpoint)
	cmd.Env = awsEnv(t)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Equal(t, "ok\n", string(out))
}

// TestAWSCLISNS drives the server's SNS with the AWS CLI: a topic fanning out to a queue.
func TestAWSCLISNS(t *testing.T) {
	t.Parallel()
	awsPath, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("the AWS CLI (aws) is not installed")
	}
	s := start(t, "-clock", "virtual")
	env := awsEnv(t)
	run := func(args ...string) (map[string]any, string, error) {
		t.Helper()
		cmd := exec.Command(awsPath, append(args[:1:1], append([]string{"--endpoint-url", s.endpoint, "--region", "us-east-1", "--output", "json"}, args[1:]...)...)...)
		cmd.Env = env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		out := map[string]any{}
		if err == nil && stdout.Len() > 0 {
			require.NoError(t, json.Unmarshal(stdout.Bytes(), &out), stdout.String())
		}
		return out, stderr.String(), err
	}
	ok := func(args ...string) map[string]any {
		t.Helper()
		out, stderr, err := run(args...)
		require.NoError(t, err, "aws %v: %s", args, stderr)
		return out
	}
	topic := ok("sns", "create-topic", "--name", "cli-topic")["TopicArn"].(string)
	assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:cli-topic", topic)
	queueArn := "arn:aws:sqs:us-east-1:123456789012:cli-q"
	policy := `{"Statement":[{"Effect":"Allow","Principal":{"Service":"sns.amazonaws.com"},"Action":"sqs:SendMessage","Resource":"` + queueArn + `"}]}`
	attrs, _ := json.Marshal(map[string]string{"Policy": policy})
	url := ok("sqs", "create-queue", "--queue-name", "cli-q", "--attributes", string(attrs))["QueueUrl"].(string)
	ok("sns", "subscribe", "--topic-arn", topic, "--protocol", "sqs", "--notification-endpoint", queueArn)
	published := ok("sns", "publish", "--topic-arn", topic, "--message", "from the CLI", "--subject", "hi")
	got := ok("sqs", "receive-message", "--queue-url", url)["Messages"].([]any)[0].(map[string]any)
	var env2 map[string]string
	require.NoError(t, json.Unmarshal([]byte(got["Body"].(string)), &env2))
	assert.Equal(t, "from the CLI", env2["Message"])
	assert.Equal(t, "hi", env2["Subject"])
	assert.Equal(t, published["MessageId"], env2["MessageId"])
	_, stderr, err := run("sns", "get-topic-attributes", "--topic-arn", "arn:aws:sns:us-east-1:123456789012:nope")
	require.Error(t, err)
	assert.Contains(t, stderr, "An error occurred (NotFound) when calling the GetTopicAttributes operation: Topic does not exist")
}

// TestControlTopicsShowsTopicsSubscriptionsAndPublications reads GET /_sqsfake/topics.
func TestControlTopicsShowsTopicsSubscriptionsAndPublications(t *testing.T) {
	t.Parallel()
	s := start(t, "-clock", "virtual")
	post := func(form string) {
		req, _ := http.NewRequest(http.MethodPost, s.endpoint+"/", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, form)
	}
	post("Action=CreateTopic&Version=2010-03-31&Name=t")
	post("Action=Subscribe&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Protocol=sqs&Endpoint=arn%3Aaws%3Asqs%3Aus-east-1%3A123456789012%3Aq")
	post("Action=Publish&Version=2010-03-31&TopicArn=arn%3Aaws%3Asns%3Aus-east-1%3A123456789012%3At&Message=hi")
	code, answer := s.control(t, http.MethodGet, "topics")
	require.Equal(t, http.StatusOK, code)
	raw, err := json.Marshal(answer)
	require.NoError(t, err)
	body := string(raw)
	var state struct {
		Topics []struct {
			Arn           string
			Subscriptions []struct{ Endpoint string }
		}
		Published []struct {
			Message    string
			Deliveries []struct {
				Outcome string
				Reason  string
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(body), &state), body)
	require.Len(t, state.Topics, 1)
	assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:t", state.Topics[0].Arn)
	assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:q", state.Topics[0].Subscriptions[0].Endpoint)
	require.Len(t, state.Published, 1)
	assert.Equal(t, "hi", state.Published[0].Message)
	assert.Equal(t, "lost", state.Published[0].Deliveries[0].Outcome)
	code, full := s.control(t, http.MethodGet, "state")
	require.Equal(t, http.StatusOK, code)
	topics, _ := full["topics"].([]any)
	require.Len(t, topics, 1, "GET /_sqsfake/state shows the topics too")
	assert.Equal(t, "arn:aws:sns:us-east-1:123456789012:t", topics[0].(map[string]any)["Arn"])
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.", state.Published[0].Deliveries[0].Reason)
}

// TestJSSDK drives the server with the AWS SDK for JavaScript v3 (@aws-sdk/client-sqs and
// @aws-sdk/client-sns at the versions testdata/jssdk/package-lock.json pins) through
// testdata/jssdk/flow.mjs: SQS alone, SNS fanning out to raw and enveloped queues with filter
// policies, the envelope's signature against the served certificate, a FIFO topic feeding a
// FIFO queue, errors as the SDK surfaces them, and signed mode. `npm ci` in that directory
// installs the SDK (.ci/run does).
func TestJSSDK(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := filepath.Join("testdata", "jssdk")
	for _, pkg := range []string{"client-sqs", "client-sns"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@aws-sdk", pkg, "package.json")); err != nil {
			t.Skipf("@aws-sdk/%s is not installed (cd %s && npm ci)", pkg, dir)
		}
	}
	file := filepath.Join(t.TempDir(), "credentials.json")
	require.NoError(t, os.WriteFile(file, []byte(`[{"accessKeyId": "AKIAJSSDK", "secretAccessKey": "js-secret", "principalArn": "arn:aws:iam::123456789012:user/js"}]`), 0o600))
	s := start(t, "-clock", "virtual")
	signed := start(t, "-clock", "virtual", "-credentials", file)
	cmd := exec.Command(node, "flow.mjs", s.endpoint, signed.endpoint)
	cmd.Dir = dir
	cmd.Env = awsEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // the SDK warns there about Node versions it will drop
	out, err := cmd.Output()
	require.NoError(t, err, "%s%s", out, stderr.String())
	assert.Equal(t, "ok\n", string(out), stderr.String())
}

// snsForm posts an SNS query request and returns its body, failing t on a status other than
// 200.
func snsForm(t *testing.T, endpoint string, params ...string) string {
	t.Helper()
	form := url.Values{"Version": {"2010-03-31"}}
	for i := 0; i+1 < len(params); i += 2 {
		form.Set(params[i], params[i+1])
	}
	resp, err := http.PostForm(endpoint+"/", form)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	return string(body)
}

// TestRequestLogSaysWhenAQueuePolicyLosesADelivery is issue 32's trap 1: a publish into a
// queue whose Policy does not admit the topic succeeds and the queue stays empty; the -v log
// says which delivery was lost and why, without reading /_sqsfake/topics.
func TestRequestLogSaysWhenAQueuePolicyLosesADelivery(t *testing.T) {
	lines := make(lineWriter, 100)
	ctx, cancel := context.WithCancel(context.Background())
	out := &endpointWriter{endpoint: make(chan string, 1)}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-v", "-clock", "virtual", "-queues", "orders"}, out, lines)
	}()
	endpoint := <-out.endpoint
	defer func() {
		cancel()
		go func() {
			for range lines { // drain while the server stops
			}
		}()
		require.NoError(t, <-done)
	}()

	snsForm(t, endpoint, "Action", "CreateTopic", "Name", "t")
	awaitLine(t, lines, `Action="CreateTopic" → 200`)
	topic := "arn:aws:sns:us-east-1:123456789012:t"
	snsForm(t, endpoint, "Action", "Subscribe", "TopicArn", topic, "Protocol", "sqs", "Endpoint", "arn:aws:sqs:us-east-1:123456789012:orders")
	awaitLine(t, lines, `Action="Subscribe" → 200`)
	body := snsForm(t, endpoint, "Action", "Publish", "TopicArn", topic, "Message", "hi")
	id := regexp.MustCompile(`<MessageId>([^<]+)</MessageId>`).FindStringSubmatch(body)
	require.NotNil(t, id, body)
	awaitLine(t, lines, `Action="Publish" → 200`)
	line := awaitLine(t, lines, "SNS message")
	assert.Equal(t, "  SNS message "+id[1]+" of "+topic+" → arn:aws:sqs:us-east-1:123456789012:orders: lost, "+
		`"AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:orders because no resource-based policy allows the sqs:sendmessage action"`+
		" — the queue's Policy must allow sns.amazonaws.com sqs:SendMessage with aws:SourceArn "+topic+
		` (snsfake.SubscribeQueue writes it; docs/wire.md, "SNS into a queue", for the CLI and boto3)`+"\n",
		strings.SplitN(line, " ", 4)[3])
}
