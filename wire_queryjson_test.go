package sqsfake

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A query-protocol request sent with Accept: application/json is answered in JSON, as AWS
// answers it (LocalStack's AWS-validated test_get_list_queues_with_query_auth,
// test_marker_serialization_json_protocol, test_get_queue_attributes_json_format,
// test_get_list_queues_fails_json_format, test_get_without_query_json_format_returns_returns_xml).
func TestQueryWithAcceptJSONIsAnsweredInJSON(t *testing.T) {
	f := New()
	h := f.Handler()
	accept := []string{"Accept", "application/json"}
	w := queryRequest(h, http.MethodGet, "/", "Action=ListQueues&Version=2012-11-05", accept...)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	assert.Equal(t, "application/json", w.Header().Get("Content-Type"))
	var empty map[string]map[string]map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &empty), w.Body.String())
	assert.Equal(t, map[string]any{"NextExclusiveStartQueueName": nil, "NextToken": nil, "queueUrls": nil}, empty["ListQueuesResponse"]["ListQueuesResult"])
	assert.Equal(t, map[string]any{"RequestId": w.Header().Get("X-Amzn-Requestid")}, empty["ListQueuesResponse"]["ResponseMetadata"])

	w = queryRequest(h, http.MethodPost, "/", "Action=CreateQueue&Version=2012-11-05&QueueName=q", accept...)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())
	var created map[string]map[string]map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &created), w.Body.String())
	url := created["CreateQueueResponse"]["CreateQueueResult"]["QueueUrl"].(string)
	w = queryRequest(h, http.MethodPost, "/", "Action=SendMessage&Version=2012-11-05&MessageBody=%7B%22a%22%3A1%7D&QueueUrl="+url, accept...)
	require.Equal(t, http.StatusOK, w.Code, w.Body.String())

	w = queryRequest(h, http.MethodGet, "/", "Action=ListQueues&Version=2012-11-05", accept...)
	var listed map[string]map[string]map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &listed))
	assert.Equal(t, []any{url}, listed["ListQueuesResponse"]["ListQueuesResult"]["queueUrls"])

	w = queryRequest(h, http.MethodGet, "/", "Action=ReceiveMessage&Version=2012-11-05&VisibilityTimeout=0&QueueUrl="+url, accept...)
	var received struct {
		ReceiveMessageResponse struct {
			ReceiveMessageResult struct{ Messages []map[string]any }
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &received), w.Body.String())
	require.Len(t, received.ReceiveMessageResponse.ReceiveMessageResult.Messages, 1, w.Body.String())
	assert.Equal(t, `{"a":1}`, received.ReceiveMessageResponse.ReceiveMessageResult.Messages[0]["Body"])

	w = queryRequest(h, http.MethodGet, "/123456789012/q", "Action=GetQueueAttributes&AttributeName.1=All", accept...)
	var attrs struct {
		GetQueueAttributesResponse struct {
			GetQueueAttributesResult struct{ Attributes []map[string]string }
		}
	}
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &attrs), w.Body.String())
	found := false
	for _, a := range attrs.GetQueueAttributesResponse.GetQueueAttributesResult.Attributes {
		found = found || a["Name"] == "QueueArn" && a["Value"] == "arn:aws:sqs:us-east-1:123456789012:q"
	}
	assert.True(t, found, w.Body.String())

	w = queryRequest(h, http.MethodGet, "/123456789012/q", "Action=ListQueues", accept...)
	assert.Equal(t, http.StatusBadRequest, w.Code)
	var refused map[string]any
	require.NoError(t, json.Unmarshal(w.Body.Bytes(), &refused), w.Body.String())
	e, _ := refused["Error"].(map[string]any)
	assert.Equal(t, "InvalidAction", e["Code"])
	assert.Equal(t, "The action ListQueues is not valid for this endpoint.", e["Message"])

	w = queryRequest(h, http.MethodGet, "/123456789012/q", "", accept...)
	assert.Equal(t, http.StatusNotFound, w.Code)
	assert.Contains(t, w.Body.String(), "<UnknownOperationException", "a queue URL without an Action is answered in XML still")

	w = queryRequest(h, http.MethodGet, "/", "Action=ListQueues&Version=2012-11-05")
	assert.Contains(t, w.Body.String(), "<ListQueuesResponse", "XML without Accept: application/json")
}
