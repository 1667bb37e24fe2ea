package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSNSPOSTsToALoopbackListenerOnTheServersClock drives an http subscription from outside
// the process, as a test in another language would: a listener of its own on 127.0.0.1 that
// confirms by GETting the SubscribeURL and fails twice before it takes the notification,
// the clock moved with /_sqsfake/advance, every attempt read from /_sqsfake/topics.
func TestSNSPOSTsToALoopbackListenerOnTheServersClock(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := start(t, "-clock", "virtual")
	var mu sync.Mutex
	var types []string
	failures := 2
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env map[string]string
		_ = json.NewDecoder(r.Body).Decode(&env)
		mu.Lock()
		types = append(types, r.Header.Get("X-Amz-Sns-Message-Type"))
		fail := env["Type"] == "Notification" && failures > 0
		if fail {
			failures--
		}
		mu.Unlock()
		if env["Type"] == "SubscriptionConfirmation" {
			resp, err := http.Get(env["SubscribeURL"]) // the URL names this server
			if assert.NoError(t, err) {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				assert.Equal(t, http.StatusOK, resp.StatusCode)
			}
		}
		if fail {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer listener.Close()

	c := sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.endpoint), Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	tp, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("hooks")})
	require.NoError(t, err)
	sub, err := c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String(listener.URL + "/hook"),
		ReturnSubscriptionArn: true})
	require.NoError(t, err)
	attrs, err := c.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
	require.NoError(t, err)
	assert.Equal(t, "false", attrs.Attributes["PendingConfirmation"], "the listener confirmed by the SubscribeURL")

	_, err = c.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hi")})
	require.NoError(t, err)
	advance := func(d string) {
		code, _ := s.control(t, http.MethodPost, "advance?d="+d)
		require.Equal(t, http.StatusOK, code)
	}
	advance("19s")
	mu.Lock()
	assert.Equal(t, []string{"SubscriptionConfirmation", "Notification"}, types, "nothing before the retry is due")
	mu.Unlock()
	advance("1s")
	advance("20s")
	advance("1h")
	mu.Lock()
	assert.Equal(t, []string{"SubscriptionConfirmation", "Notification", "Notification", "Notification"}, types)
	mu.Unlock()

	code, body := s.control(t, http.MethodGet, "topics")
	require.Equal(t, http.StatusOK, code)
	pubs := body["published"].([]any)
	require.Len(t, pubs, 2)
	d := pubs[1].(map[string]any)["Deliveries"].([]any)[0].(map[string]any)
	assert.Equal(t, "delivered", d["Outcome"])
	var got []string
	for _, a := range d["Attempts"].([]any) {
		a := a.(map[string]any)
		got = append(got, a["Time"].(string)+" "+a["Phase"].(string)+" "+a["Result"].(string))
	}
	assert.Equal(t, []string{
		"2025-01-01T00:00:00Z initial failed",
		"2025-01-01T00:00:20Z backoff failed",
		"2025-01-01T00:00:40Z backoff delivered",
	}, got)

	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://hooks.example.com/x")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "InvalidParameter: Invalid parameter: Unreachable Endpoint", "another host, without -sns-http-hosts")
}

func TestSNSHTTPHostsFlagAllowsOtherHosts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// 0.0.0.0 is no loopback address, but a connection to it stays on this machine: the
	// confirmation's POST is refused there, and no packet leaves (no network in tests).
	s := start(t, "-clock", "virtual", "-sns-http-hosts", "hooks.example.com,0.0.0.0")
	c := sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.endpoint), Credentials: aws.AnonymousCredentials{}, RetryMaxAttempts: 1})
	tp, err := c.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("hooks")})
	require.NoError(t, err)
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String("http://0.0.0.0:9/x")})
	require.NoError(t, err, "accepted: the server may POST there")
	code, body := s.control(t, http.MethodGet, "topics")
	require.Equal(t, http.StatusOK, code)
	d := body["published"].([]any)[0].(map[string]any)["Deliveries"].([]any)[0].(map[string]any)
	assert.Equal(t, "retrying", d["Outcome"], "the confirmation's POST was made, and refused")
	_, err = c.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("https"), Endpoint: aws.String("https://other.example.com/x")})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Unreachable Endpoint")
}
