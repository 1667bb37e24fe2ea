package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBrowserConsoleDrawsHTTPAttempts: a topic's view draws each HTTP/S delivery's POSTs on the
// clock — failed, delivered, and the next one while SNS is retrying — with each attempt listed.
func TestBrowserConsoleDrawsHTTPAttempts(t *testing.T) {
	chromium, err := chromiumPath()
	if errors.Is(err, errNoBrowser) {
		t.Skip("set SQSFAKE_BROWSER=1 (or a path to chromium) to run the browser tests")
	}
	require.NoError(t, err)
	ctx := context.Background()
	s := start(t, "-clock", "virtual")
	var mu sync.Mutex
	fails := 2
	listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var env map[string]string
		_ = json.NewDecoder(r.Body).Decode(&env)
		if env["Type"] == "SubscriptionConfirmation" {
			if resp, err := http.Get(env["SubscribeURL"]); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if fails > 0 {
			fails--
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer listener.Close()
	topics := sns.New(sns.Options{Region: "us-east-1", BaseEndpoint: aws.String(s.endpoint), RetryMaxAttempts: 1, Credentials: aws.AnonymousCredentials{}})
	tp, err := topics.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("hooks")})
	require.NoError(t, err)
	_, err = topics.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("http"), Endpoint: aws.String(listener.URL + "/hook")})
	require.NoError(t, err)
	out, err := topics.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("order 1")})
	require.NoError(t, err)
	code, _ := s.control(t, http.MethodPost, "advance?d=25s")
	require.Equal(t, http.StatusOK, code)

	b := startBrowser(t, chromium, 1360, 900)
	b.navigate(t, s.endpoint+"/_sqsfake/console/#topic="+*tp.TopicArn)
	pub := `#publications li.pub[data-id="` + *out.MessageId + `"]`
	b.waitFor(t, `document.querySelectorAll('`+pub+` .attempt-strip circle.attempt').length === 3`)
	assert.Equal(t, []any{"failed", "failed", "next"}, b.eval(t, `[...document.querySelectorAll('`+pub+` .attempt-strip circle.attempt')].map(c => c.getAttribute('class').replace('attempt attempt-', ''))`))
	assert.Contains(t, b.text(t, pub+` li[data-outcome="retrying"]`), "#2 00:00:20.000Z backoff: 503 failed")
	b.screenshot(t, filepath.Join(browserOut(t), "6-http-attempts.png"), 1)

	// The clock moves on: the third attempt delivers, and the view shows it at its next refresh.
	code, _ = s.control(t, http.MethodPost, "advance?d=30s")
	require.Equal(t, http.StatusOK, code)
	b.waitFor(t, `document.querySelector('`+pub+` li[data-outcome="delivered"] .attempt-strip circle.attempt-delivered') !== null`)
	assert.Contains(t, b.text(t, pub+` li[data-outcome="delivered"] .attempt-list`), "#3 00:00:40.000Z backoff: 200 delivered")
	assert.Empty(t, b.pageErrors(t), "no script error, nothing the page's policy refused")
}
