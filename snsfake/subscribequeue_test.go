package snsfake_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// The statement the SQS console's "Subscribe to Amazon SNS topic" adds, for topic t and
// queue q of account 123456789012 in us-east-1.
const consoleStatement = `{"Sid":"topic-subscription-arn:aws:sns:us-east-1:123456789012:t","Effect":"Allow","Principal":{"AWS":"*"},` +
	`"Action":"SQS:SendMessage","Resource":"arn:aws:sqs:us-east-1:123456789012:q","Condition":{"ArnLike":{"aws:SourceArn":"arn:aws:sns:us-east-1:123456789012:t"}}}`

func TestSubscribeQueueWritesThePolicyItNeedsAndSubscribes(t *testing.T) {
	ctx := context.Background()
	other := `{"Sid":"mine","Effect":"Allow","Principal":{"AWS":"arn:aws:iam::222222222222:root"},"Action":"sqs:ReceiveMessage","Resource":"arn:aws:sqs:us-east-1:123456789012:q"}`
	for _, tc := range []struct {
		name, policy, want string
	}{
		{"no policy", "", `{"Version":"2012-10-17","Statement":[` + consoleStatement + `]}`},
		{"a policy of its own, kept", `{"Version":"2012-10-17","Statement":[` + other + `]}`,
			`{"Statement":[` + other + `,` + consoleStatement + `],"Version":"2012-10-17"}`},
		{"a single statement, not in a list", `{"Version":"2012-10-17","Statement":` + other + `}`,
			`{"Statement":[` + other + `,` + consoleStatement + `],"Version":"2012-10-17"}`},
		{"an older statement of the same Sid, replaced", `{"Version":"2012-10-17","Statement":[{"Sid":"topic-subscription-arn:aws:sns:us-east-1:123456789012:t","Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"arn:aws:sqs:us-east-1:123456789012:q"}]}`,
			`{"Statement":[` + consoleStatement + `],"Version":"2012-10-17"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := sqsfake.New()
			s := snsfake.New(f)
			_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
			require.NoError(t, err)
			in := &sqs.CreateQueueInput{QueueName: aws.String("q")}
			if tc.policy != "" {
				in.Attributes = map[string]string{"Policy": tc.policy}
			}
			_, err = f.CreateQueue(ctx, in)
			require.NoError(t, err)

			out, err := s.SubscribeQueue(ctx, "t", "q", map[string]string{"RawMessageDelivery": "true"})
			require.NoError(t, err)
			info, err := f.Queue("q")
			require.NoError(t, err)
			assert.Equal(t, tc.want, info.Attributes["Policy"])
			calls := f.Calls(sqsfake.CallFilter{Operation: "SetQueueAttributes"})
			require.Len(t, calls, 1, "it says so: the policy is written with one SetQueueAttributes in the call record")

			sub, err := s.Topic("t")
			require.NoError(t, err)
			require.Len(t, sub.Subscriptions, 1)
			assert.Equal(t, *out.SubscriptionArn, sub.Subscriptions[0].Arn)
			assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:q", sub.Subscriptions[0].Endpoint)
			assert.Equal(t, "true", sub.Subscriptions[0].Attributes["RawMessageDelivery"])

			pub, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:t"), Message: aws.String("hi")})
			require.NoError(t, err)
			snsfake.AssertDelivered(t, s, *pub.MessageId, "q")

			// Again: the statement is there, nothing is rewritten; Subscribe is idempotent.
			again, err := s.SubscribeQueue(ctx, "arn:aws:sns:us-east-1:123456789012:t", "arn:aws:sqs:us-east-1:123456789012:q", map[string]string{"RawMessageDelivery": "true"})
			require.NoError(t, err)
			assert.Equal(t, *out.SubscriptionArn, *again.SubscriptionArn)
			assert.Len(t, f.Calls(sqsfake.CallFilter{Operation: "SetQueueAttributes"}), 1)
		})
	}
}

func TestSubscribeQueueAppliesNothingWhenItFails(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)

	_, err = s.SubscribeQueue(ctx, "t", "qq", nil)
	assert.ErrorIs(t, err, sqsfake.ErrNoQueue)
	assert.EqualError(t, err, "sqsfake: queue qq does not exist; the fake has q")
	_, err = s.SubscribeQueue(ctx, "tt", "q", nil)
	assert.ErrorIs(t, err, snsfake.ErrNoTopic)
	assert.EqualError(t, err, "snsfake: topic tt does not exist; the fake has t")

	_, err = s.SubscribeQueue(ctx, "t", "q", map[string]string{"FilterPolicy": "not json"})
	require.Error(t, err, "Subscribe refuses the filter policy")
	assert.Contains(t, err.Error(), "InvalidParameter")
	info, err := f.Queue("q")
	require.NoError(t, err)
	assert.NotContains(t, info.Attributes, "Policy", "the policy written first is taken back")
	tp, err := s.Topic("t")
	require.NoError(t, err)
	assert.Empty(t, tp.Subscriptions)
}

func TestSubscribeQueueOfAnotherAccountIsPendingAsOnAWS(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("theirs")}, sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	require.NoError(t, err)
	out, err := s.SubscribeQueue(ctx, "t", "arn:aws:sqs:us-east-1:222222222222:theirs", nil)
	require.NoError(t, err)
	tp, err := s.Topic("t")
	require.NoError(t, err)
	require.Len(t, tp.Subscriptions, 1)
	assert.Equal(t, *out.SubscriptionArn, tp.Subscriptions[0].Arn)
	assert.True(t, tp.Subscriptions[0].Pending, "the topic's owner subscribed another account's queue: it must confirm")
	sqsfake.AssertVisibleCount(t, f, "arn:aws:sqs:us-east-1:222222222222:theirs", 1, "the SubscriptionConfirmation reached the queue: its policy admits the topic")
}
