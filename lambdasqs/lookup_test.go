package lambdasqs_test

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// TestEveryLookupReportsWhatDoesNotExist pins issue 32's rule for lambdasqs: a queue or a
// message that does not exist is reported as sqsfake's inspections report a queue — with the
// sentinel and what there is — never as an empty result or a passing assertion.
func TestEveryLookupReportsWhatDoesNotExist(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	url := queue(t, f, "jobs", nil)

	_, err := lambdasqs.New(f, "jobz", ok, lambdasqs.Config{})
	require.Error(t, err)
	assert.ErrorIs(t, err, sqsfake.ErrNoQueue, "Lambda's error wraps the queue fake's")
	var le *lambdasqs.Error
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "InvalidParameterValueException", le.ErrorCode())
	assert.Equal(t, "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. SQS Error Message: The specified queue does not exist.",
		le.ErrorMessage(), "Lambda's message, as Lambda words it")
	assert.Equal(t, "InvalidParameterValueException: Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. "+
		"SQS Error Message: The specified queue does not exist. (sqsfake: queue jobz does not exist; the fake has jobs)", err.Error())

	invoked, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("a")})
	require.NoError(t, err)
	trig, err := lambdasqs.New(f, "jobs", func(context.Context, events.SQSEvent) error { return nil }, lambdasqs.Config{})
	require.NoError(t, err)
	require.NoError(t, trig.Poll(ctx))
	waiting, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("b")})
	require.NoError(t, err)

	for _, tc := range []struct {
		name  string
		id    string
		times int
		fail  string // the failure's first line; "" when it passes
	}{
		{"invoked once", *invoked.MessageId, 1, ""},
		{"sent, not invoked yet", *waiting.MessageId, 0, ""},
		{"a MessageId the fake never stored, want 0", "nope", 0,
			"lambdasqs: message nope was in 0 invocations, want 0, but the fake never stored a message with that MessageId; the trigger's invocations held " + *invoked.MessageId},
		{"a MessageId the fake never stored, want 1", "nope", 1,
			"lambdasqs: message nope was in 0 invocations, want 1, but the fake never stored a message with that MessageId; the trigger's invocations held " + *invoked.MessageId},
		{"invoked once, want 2", *invoked.MessageId, 2, "lambdasqs: message " + *invoked.MessageId + " was in 1 invocations, want 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			passed := trig.AssertInvoked(r, tc.id, tc.times)
			if tc.fail == "" {
				assert.True(t, passed)
				assert.Empty(t, r.msgs)
				return
			}
			assert.False(t, passed)
			require.Len(t, r.msgs, 1)
			first, _, _ := strings.Cut(r.msgs[0], "\n")
			assert.Equal(t, tc.fail, first)
		})
	}
}
