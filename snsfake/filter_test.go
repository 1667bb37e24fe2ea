package snsfake_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake/snsfake"
)

func TestFilterPoliciesChooseTheSubscriptionsAMessageReaches(t *testing.T) {
	ctx := context.Background()
	s, topic, orders := setup(t, "t", nil, "orders")
	f := s.SQS()
	bodyArn := "arn:aws:sqs:us-east-1:123456789012:big"
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("big"), Attributes: map[string]string{"Policy": snsfake.QueuePolicy(bodyArn, topic)}})
	require.NoError(t, err)
	subscribe(t, s, topic, orders, map[string]string{"FilterPolicy": `{"kind":["order"]}`})
	subscribe(t, s, topic, bodyArn, map[string]string{"FilterPolicyScope": "MessageBody", "FilterPolicy": `{"order":{"amount":[{"numeric":[">=",100]}]}}`})
	publish := func(kind, body string) {
		_, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String(body),
			MessageAttributes: map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String(kind)}}})
		require.NoError(t, err)
	}
	publish("order", `{"order":{"amount":5}}`)
	publish("refund", `{"order":{"amount":500}}`)
	publish("order", `{"order":{"amount":100}}`)
	assert.Len(t, receiveAll(t, f, "orders"), 2)
	assert.Len(t, receiveAll(t, f, "big"), 2)
	var outcomes []string
	for _, d := range deliveries(t, s, "big") {
		outcomes = append(outcomes, d.Outcome.String())
	}
	assert.Equal(t, []string{"filtered", "delivered", "delivered"}, outcomes)
	d := deliveries(t, s, "orders")[1]
	assert.Equal(t, snsfake.Filtered, d.Outcome)
	assert.Equal(t, `{"kind":["order"]}`, d.FilterPolicy)
	assert.Equal(t, "MessageAttributes", d.FilterPolicyScope)

	// A policy set later applies to the next publish; removing it lets everything through.
	subs := deliveries(t, s, "orders")[0].SubscriptionArn
	_, err = s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: aws.String(subs), AttributeName: aws.String("FilterPolicy"), AttributeValue: aws.String("")})
	require.NoError(t, err)
	publish("refund", `{}`)
	assert.Len(t, receiveAll(t, f, "orders"), 1)
}
