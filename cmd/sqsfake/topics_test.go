package main

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheConsolesSNSEndpointsPageAndHoldWhatTheyShow is issue 29's console item and issue 32's
// publication view: the console read every topic with all its attributes, unpaged, every 3 s;
// now it reads a page of topics as a list shows them, and a topic's publications page by page
// with what became of each delivery — a loss to a queue's policy said in SQS's words.
func TestTheConsolesSNSEndpointsPageAndHoldWhatTheyShow(t *testing.T) {
	s := start(t, "-clock", "virtual", "-queues", "billing,audit")
	for i := range 250 {
		snsForm(t, s.endpoint, "Action", "CreateTopic", "Name", "t"+strconv.Itoa(1000+i))
	}
	topic := "arn:aws:sns:us-east-1:123456789012:t1000"
	billing := "arn:aws:sqs:us-east-1:123456789012:billing"
	policy := `{"Statement":[{"Effect":"Allow","Principal":{"AWS":"*"},"Action":"SQS:SendMessage","Resource":"` + billing +
		`","Condition":{"ArnLike":{"aws:SourceArn":"` + topic + `"}}}]}`
	_, err := s.client().SetQueueAttributes(t.Context(), setPolicyInput(s.endpoint+"/123456789012/billing", policy))
	require.NoError(t, err)
	snsForm(t, s.endpoint, "Action", "Subscribe", "TopicArn", topic, "Protocol", "sqs", "Endpoint", billing,
		"Attributes.entry.1.key", "RawMessageDelivery", "Attributes.entry.1.value", "true")
	snsForm(t, s.endpoint, "Action", "Subscribe", "TopicArn", topic, "Protocol", "sqs", "Endpoint", "arn:aws:sqs:us-east-1:123456789012:audit")
	for i := range 3 {
		snsForm(t, s.endpoint, "Action", "Publish", "TopicArn", topic, "Message", strings.Repeat("é", 150)+strconv.Itoa(i))
	}

	get := func(path string) (int, map[string]any, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, s.endpoint+"/_sqsfake/"+path, nil)
		require.NoError(t, err)
		req.Header.Set("X-Sqsfake-Control", "1")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		var raw json.RawMessage
		require.NoError(t, json.NewDecoder(resp.Body).Decode(&raw))
		var body map[string]any
		require.NoError(t, json.Unmarshal(raw, &body))
		return resp.StatusCode, body, string(raw)
	}

	code, page, raw := get("topics?limit=200")
	require.Equal(t, 200, code, raw)
	assert.Len(t, page["topics"], 200)
	assert.Equal(t, float64(250), page["total"])
	assert.Equal(t, true, page["truncated"])
	assert.Equal(t, float64(200), page["next"])
	assert.NotContains(t, raw, "Attributes", "a page holds what the list shows, not every attribute")
	first := page["topics"].([]any)[0].(map[string]any)
	assert.Equal(t, topic, first["arn"])
	assert.Equal(t, float64(3), first["published"])
	assert.Equal(t, float64(2), first["subscriptionCount"])
	assert.Equal(t, true, first["subscriptions"].([]any)[0].(map[string]any)["raw"])
	_, page, _ = get("topics?after=200&limit=200")
	assert.Len(t, page["topics"], 50)
	assert.Equal(t, false, page["truncated"])

	code, pubs, raw := get("publications?topic=" + topic + "&limit=2")
	require.Equal(t, 200, code, raw)
	assert.Equal(t, float64(3), pubs["total"])
	require.Len(t, pubs["publications"], 2)
	newest := pubs["publications"].([]any)[0].(map[string]any)
	assert.Equal(t, strings.Repeat("é", 100), newest["message"], "cut at 200 bytes, on a character boundary")
	assert.Equal(t, float64(301), newest["messageBytes"])
	assert.Equal(t, true, newest["messageTruncated"])
	ds := newest["deliveries"].([]any)
	require.Len(t, ds, 2)
	delivered, lost := ds[0].(map[string]any), ds[1].(map[string]any)
	assert.Equal(t, "delivered", delivered["outcome"])
	assert.Equal(t, billing, delivered["endpoint"])
	assert.NotEmpty(t, delivered["sqsMessageId"])
	assert.Equal(t, "lost", lost["outcome"])
	assert.Equal(t, "AccessDenied: User: sns.amazonaws.com is not authorized to perform: sqs:sendmessage on resource: arn:aws:sqs:us-east-1:123456789012:audit because no resource-based policy allows the sqs:sendmessage action",
		lost["reason"])
	assert.Len(t, pubs["subscriptions"], 2)
	assert.Equal(t, false, pubs["fifo"])
	_, pubs, _ = get("publications?topic=" + topic + "&after=2&limit=2")
	assert.Len(t, pubs["publications"], 1)
	assert.Equal(t, strings.Repeat("é", 100), pubs["publications"].([]any)[0].(map[string]any)["message"])

	for _, tc := range []struct {
		path string
		code int
		err  string
	}{
		{"publications?topic=arn:aws:sns:us-east-1:123456789012:nope", 404, "snsfake: topic arn:aws:sns:us-east-1:123456789012:nope does not exist; the fake has t1000, t1001, "},
		{"publications", 400, "want ?topic=<a topic's ARN>"},
		{"publications?topic=" + topic + "&limit=101", 400, "want ?limit=<an integer from 0 to 100>"},
		{"topics?limit=1001", 400, "want ?limit=<an integer from 0 to 1000>"},
		{"topics?after=-1", 400, "want ?after=<an integer from 0 to 2147483648>"},
	} {
		code, body, _ := get(tc.path)
		assert.Equal(t, tc.code, code, tc.path)
		assert.True(t, strings.HasPrefix(body["error"].(string), tc.err), "%s: %s", tc.path, body["error"])
	}

	// Scripts' whole answer stays as it was.
	_, whole, _ := get("topics?published=false")
	assert.Len(t, whole["topics"], 250)
	assert.NotContains(t, whole, "published")
}

func setPolicyInput(url, policy string) *sqs.SetQueueAttributesInput {
	return &sqs.SetQueueAttributesInput{QueueUrl: aws.String(url), Attributes: map[string]string{"Policy": policy}}
}
