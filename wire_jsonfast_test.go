package sqsfake

import (
	"encoding/json"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
)

// decodePlainSendMessage takes only bodies encoding/json reads the same, and reads them to
// the same input.
func TestPlainSendMessageReadsWhatEncodingJSONReads(t *testing.T) {
	taken := []string{
		`{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/q","MessageBody":"hello"}`,
		`{"MessageBody":"hello","QueueUrl":"q"}`,
		` { "QueueUrl" : "q" ,` + "\n\t" + `"MessageBody" : "a b ~ {}[]:," } ` + "\r\n",
		`{"QueueUrl":"q"}`,
		`{"MessageBody":""}`,
	}
	refused := []string{
		``, ` `, `{}`, `[]`, `null`, `{"QueueUrl":"q",}`, `{"QueueUrl":"q"`, `{"QueueUrl":"q"}x`,
		`{"QueueUrl":"q"}{}`, `{"queueurl":"q"}`, `{"QueueUrl":"q","QueueUrl":"r"}`,
		`{"MessageBody":"a","MessageBody":"b"}`, `{"QueueUrl":"q","DelaySeconds":0}`,
		`{"QueueUrl":null}`, `{"QueueUrl":1}`, `{"QueueUrl":"q\"x"}`, `{"QueueUrl":"q\\u0041"}`,
		`{"MessageBody":"é"}`, "{\"MessageBody\":\"a\x01\"}", "{\"MessageBody\":\"a\x7f\"}",
		`{"MessageBody":"a\nb"}`, `{"QueueUrl":"q" "MessageBody":"a"}`, `{"QueueUrl":"q",,"MessageBody":"a"}`,
		`{"QueueUrl"}`, `{"QueueUrl":}`, `{"QueueUrl":"q"`, `{"QueueUrl":"q`, `{"QueueUrl`, `{`,
		`{"MessageAttributes":{},"QueueUrl":"q"}`,
	}
	for _, body := range taken {
		var fast sqs.SendMessageInput
		if !assert.True(t, decodePlainSendMessage([]byte(body), &fast), "refused %q", body) {
			continue
		}
		var w struct {
			*sqs.SendMessageInput
			DelaySeconds *int32
		}
		w.SendMessageInput = new(sqs.SendMessageInput)
		if assert.NoError(t, json.Unmarshal([]byte(body), &w), body) {
			assert.Equal(t, *w.SendMessageInput, fast, body)
			assert.Nil(t, w.DelaySeconds, body)
		}
	}
	for _, body := range refused {
		var fast sqs.SendMessageInput
		assert.False(t, decodePlainSendMessage([]byte(body), &fast), "took %q", body)
		assert.Equal(t, sqs.SendMessageInput{}, fast, "changed the input on %q", body)
	}
}
