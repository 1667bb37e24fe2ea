package main

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestServerServesTheConsoleBehindItsGuards(t *testing.T) {
	s := newTestServer(t, "-clock", "virtual", "-queues", "jobs", "-endpoint", "http://sqs.local:9324")
	const ctl = "X-Sqsfake-Control"
	for _, c := range []struct {
		name, method, path, host string
		header                   []string
		status                   int
		body                     string
	}{
		{"the page, typed in", "GET", "/_sqsfake/console/", "127.0.0.1:9324", []string{"Sec-Fetch-Site", "none"}, 200, "<title>sqsfake console</title>"},
		{"the page on the endpoint's host", "GET", "/_sqsfake/console/", "sqs.local:9324", nil, 200, "<title>sqsfake console</title>"},
		{"the path without its slash", "GET", "/_sqsfake/console", "127.0.0.1:9324", nil, 301, ""},
		{"the page for a host of DNS rebinding", "GET", "/_sqsfake/console/", "evil.example:9324", nil, 403, "is not this server's"},
		{"the page from a link of another site", "GET", "/_sqsfake/console/", "127.0.0.1:9324", []string{"Sec-Fetch-Site", "cross-site"}, 403, "cross-site request"},
		{"an endpoint without the control header", "GET", "/_sqsfake/console/api/overview", "127.0.0.1:9324", nil, 403, "need the header X-Sqsfake-Control"},
		{"an endpoint from another origin", "GET", "/_sqsfake/console/api/overview", "127.0.0.1:9324", []string{ctl, "1", "Origin", "http://127.0.0.1:8080"}, 403, "cross-site request"},
		{"an endpoint with the header", "GET", "/_sqsfake/console/api/overview", "localhost:9324", []string{ctl, "1"}, 200, `"advance":"/_sqsfake/advance"`},
		{"the server's clock and reset are its own", "POST", "/_sqsfake/console/api/advance?d=1s", "127.0.0.1:9324", []string{ctl, "1"}, 404, "POST /_sqsfake/advance, POST /_sqsfake/reset"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serve(s, c.method, c.path, c.host, c.header...)
			assert.Equal(t, c.status, w.Code, w.Body.String())
			text := w.Body.String()
			var answer struct{ Error string }
			if json.Unmarshal(w.Body.Bytes(), &answer) == nil && answer.Error != "" {
				text = answer.Error
			}
			assert.Contains(t, text, c.body)
		})
	}

	w := serve(s, "GET", "/_sqsfake/console/api/overview", "127.0.0.1:9324", ctl, "1")
	require.Equal(t, http.StatusOK, w.Code)
	var ov struct {
		Clock, Advance, Reset string
		Queues                []struct{ Name string }
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &ov))
	assert.Equal(t, "virtual", ov.Clock)
	assert.Equal(t, "/_sqsfake/advance", ov.Advance)
	assert.Equal(t, "/_sqsfake/reset", ov.Reset)
	require.Len(t, ov.Queues, 1)
	assert.Equal(t, "jobs", ov.Queues[0].Name)

	// On the real clock the page offers no advance.
	real := newTestServer(t, "-clock", "real")
	w = serve(real, "GET", "/_sqsfake/console/api/overview", "127.0.0.1:9324", ctl, "1")
	require.Equal(t, http.StatusOK, w.Code)
	var onReal map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &onReal))
	assert.Equal(t, "real", onReal["clock"])
	assert.NotContains(t, onReal, "advance")
}

// In signed mode the console's JSON endpoints show every account's messages and receipt
// handles, so they need the -control-token as the control endpoints do (issue 25, attack 8);
// the page itself, which holds nothing of the fake, still opens.
func TestServerConsoleInSignedModeNeedsTheControlToken(t *testing.T) {
	const ctl = "X-Sqsfake-Control"
	signed := newTestServer(t, "-clock", "virtual", "-credentials", credentialsFile(t), "-control-token", "s3cret")
	closed := newTestServer(t, "-clock", "virtual", "-credentials", credentialsFile(t))
	for _, c := range []struct {
		name   string
		s      *server
		path   string
		header []string
		status int
		body   string
	}{
		{"the page", signed, "/_sqsfake/console/", nil, 200, "<title>sqsfake console</title>"},
		{"an endpoint with the token", signed, "/_sqsfake/console/api/overview", []string{ctl, "s3cret"}, 200, `"advance":"/_sqsfake/advance"`},
		{"an endpoint with the unsigned mode's header", signed, "/_sqsfake/console/api/overview", []string{ctl, "1"}, 403, "need the header X-Sqsfake-Control: <the -control-token>"},
		{"a message with a wrong token", signed, "/_sqsfake/console/api/messages?queue=x", []string{ctl, "s3cre"}, 403, "<the -control-token>"},
		{"an endpoint of a server without a token", closed, "/_sqsfake/console/api/overview", []string{ctl, "1"}, 403, "closed: serve it from cmd/sqsfake started with -control-token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := serve(c.s, "GET", c.path, "127.0.0.1:9324", c.header...)
			assert.Equal(t, c.status, w.Code, w.Body.String())
			assert.Contains(t, w.Body.String(), c.body)
		})
	}
}

// The server tells the console where its SNS topics and publications are; the console pages
// them (TestTheConsolesSNSEndpointsPageAndHoldWhatTheyShow). Unpaged, the topics endpoint
// leaves the publications out when asked.
func TestServerConsoleFindsTheTopics(t *testing.T) {
	const ctl = "X-Sqsfake-Control"
	s := newTestServer(t, "-clock", "virtual")
	w := serve(s, "GET", "/_sqsfake/console/api/overview", "127.0.0.1:9324", ctl, "1")
	require.Equal(t, http.StatusOK, w.Code)
	var ov struct{ Topics, Publications string }
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &ov))
	assert.Equal(t, "/_sqsfake/topics", ov.Topics)
	assert.Equal(t, "/_sqsfake/publications", ov.Publications)
	for _, c := range []struct {
		path      string
		published bool
	}{{"/_sqsfake/topics", true}, {"/_sqsfake/topics?published=false", false}} {
		w := serve(s, "GET", c.path, "127.0.0.1:9324", ctl, "1")
		require.Equal(t, http.StatusOK, w.Code, c.path)
		var answer map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &answer))
		_, has := answer["published"]
		assert.Equal(t, c.published, has, c.path)
		assert.Contains(t, answer, "topics", c.path)
	}
}
