package snsfake_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

func TestSubscribeInTheSameAccountIsConfirmedAtOnce(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	out, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	assert.Regexp(t, `^arn:aws:sns:us-east-1:123456789012:t:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, *out.SubscriptionArn)
	attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: out.SubscriptionArn})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{
		"SubscriptionArn": *out.SubscriptionArn, "TopicArn": topic, "Endpoint": queue, "Protocol": "sqs", "Owner": account,
		"PendingConfirmation": "false", "ConfirmationWasAuthenticated": "true", "RawMessageDelivery": "false",
		"SubscriptionPrincipal": "arn:aws:iam::123456789012:root",
	}, attrs.Attributes)
	// Again with the defaults or the same values: the same subscription.
	for _, a := range []map[string]string{nil, {"RawMessageDelivery": "false"}, {"FilterPolicyScope": "MessageAttributes"}} {
		again, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue), Attributes: a})
		require.NoError(t, err)
		assert.Equal(t, *out.SubscriptionArn, *again.SubscriptionArn)
	}
	_, err = s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue),
		Attributes: map[string]string{"RawMessageDelivery": "TrUe"}})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Attributes Reason: Subscription already exists with different attributes")
	topicAttrs, _ := s.GetTopicAttributes(ctx, &sns.GetTopicAttributesInput{TopicArn: aws.String(topic)})
	assert.Equal(t, "1", topicAttrs.Attributes["SubscriptionsConfirmed"])
}

func TestSubscribingAnotherAccountsQueueWaitsForItsConfirmation(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	queue := "arn:aws:sqs:us-east-1:222222222222:theirs"
	b := sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"})
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("theirs"),
		Attributes: map[string]string{"Policy": snsfake.QueuePolicy(queue, *tp.TopicArn)}}, b)
	require.NoError(t, err)

	sub, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	require.NoError(t, err)
	assert.Equal(t, "pending confirmation", *sub.SubscriptionArn)
	list, err := s.ListSubscriptionsByTopic(ctx, &sns.ListSubscriptionsByTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	require.Len(t, list.Subscriptions, 1)
	assert.Equal(t, "PendingConfirmation", *list.Subscriptions[0].SubscriptionArn)

	// A publish meanwhile reaches no one.
	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("early")})
	require.NoError(t, err)

	got, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10}, b)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	var conf map[string]string
	require.NoError(t, json.Unmarshal([]byte(*got.Messages[0].Body), &conf))
	assert.Equal(t, "SubscriptionConfirmation", conf["Type"])
	assert.Equal(t, "You have chosen to subscribe to the topic "+*tp.TopicArn+".\nTo confirm the subscription, visit the SubscribeURL included in this message.", conf["Message"])
	assert.Equal(t, "https://sns.us-east-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn="+*tp.TopicArn+"&Token="+conf["Token"], conf["SubscribeURL"])
	var order []string
	dec := json.NewDecoder(stringsReader(*got.Messages[0].Body))
	_, _ = dec.Token()
	for dec.More() {
		k, _ := dec.Token()
		order = append(order, k.(string))
		var skip json.RawMessage
		_ = dec.Decode(&skip)
	}
	assert.Equal(t, []string{"Type", "MessageId", "Token", "TopicArn", "Message", "SubscribeURL", "Timestamp", "SignatureVersion", "Signature", "SigningCertURL"}, order)

	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String("not-hex!")})
	requireSNSError(t, err, "InvalidParameter", "Invalid token")
	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String("abcdef")})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
	confirmed, err := s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(conf["Token"])}, snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	require.NoError(t, err)
	assert.Regexp(t, `^arn:aws:sns:us-east-1:123456789012:t:`, *confirmed.SubscriptionArn)
	again, err := s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(conf["Token"])})
	require.NoError(t, err)
	assert.Equal(t, *confirmed.SubscriptionArn, *again.SubscriptionArn)

	attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: confirmed.SubscriptionArn})
	require.NoError(t, err)
	assert.Equal(t, "false", attrs.Attributes["PendingConfirmation"])
	assert.Equal(t, "true", attrs.Attributes["ConfirmationWasAuthenticated"])

	_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("late")})
	require.NoError(t, err)
	got, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10, VisibilityTimeout: 0}, b)
	require.NoError(t, err)
	require.Len(t, got.Messages, 1)
	var env map[string]string
	require.NoError(t, json.Unmarshal([]byte(*got.Messages[0].Body), &env))
	assert.Equal(t, "late", env["Message"])
}

func TestSubscribeRefusesAsSNSDoes(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	std, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	fifo, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t.fifo"), Attributes: map[string]string{"FifoTopic": "true"}})
	tests := []struct {
		topic              *string
		protocol, endpoint string
		attrs              map[string]string
		message            string
	}{
		{std.TopicArn, "sqs", "https://sqs.us-east-1.amazonaws.com/123456789012/q", nil, "Invalid parameter: SQS endpoint ARN"},
		{std.TopicArn, "sqs", "arn:aws:sqs:us-east-1:123456789012:q.fifo", nil, "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"},
		{fifo.TopicArn, "lambda", "arn:aws:lambda:us-east-1:123456789012:function:f", nil, "Invalid parameter: Invalid protocol type: lambda"},
		{std.TopicArn, "smoke", "x", nil, "Invalid parameter: Amazon SNS does not support this protocol string: smoke"},
		{std.TopicArn, "sms", "not-a-number", nil, "Invalid SMS endpoint: not-a-number"},
		{std.TopicArn, "http", "https://example.com", nil, "Invalid parameter: Endpoint must match the specified protocol"},
		{std.TopicArn, "lambda", "arn:aws:lambda:us-east-1:123456789012:function:f", map[string]string{"RawMessageDelivery": "true"}, "Invalid parameter: Delivery protocol [lambda] does not support raw message delivery."},
		{std.TopicArn, "sqs", "arn:aws:sqs:us-east-1:123456789012:q", map[string]string{"FilterPolicyScope": "Body"}, "Invalid parameter: Attributes Reason: FilterPolicyScope: Invalid value [Body]. Please use either MessageBody or MessageAttributes"},
		{std.TopicArn, "sqs", "arn:aws:sqs:us-east-1:123456789012:q", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"nope"}`}, "Invalid parameter: Attributes Reason: RedrivePolicy: deadLetterTargetArn is an invalid arn"},
		{fifo.TopicArn, "sqs", "arn:aws:sqs:us-east-1:123456789012:q.fifo", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq"}`}, "Invalid parameter: Attributes Reason: RedrivePolicy: must use a FIFO queue as DLQ for a FIFO Subscription to a FIFO Topic."},
		{std.TopicArn, "sqs", "arn:aws:sqs:us-east-1:123456789012:q", map[string]string{"Nope": "1"}, "Invalid parameter: Attributes Reason: AttributeName"},
		{aws.String("arn:aws:sns:us-east-1:123456789012:nope"), "sqs", "arn:aws:sqs:us-east-1:123456789012:q", nil, "Topic does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.message, func(t *testing.T) {
			_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tt.topic, Protocol: aws.String(tt.protocol), Endpoint: aws.String(tt.endpoint), Attributes: tt.attrs})
			code := "InvalidParameter"
			if tt.message == "Topic does not exist" {
				code = "NotFound"
			}
			requireSNSError(t, err, code, tt.message)
		})
	}
	// Accepted: a FIFO topic takes a standard queue (since 2023) and a queue that does not exist.
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: fifo.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:123456789012:std")})
	assert.NoError(t, err)
	// Other protocols: email waits for a confirmation the fake never sends; sms and lambda are confirmed.
	email, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: std.TopicArn, Protocol: aws.String("email"), Endpoint: aws.String("a@example.com")})
	require.NoError(t, err)
	assert.Equal(t, "pending confirmation", *email.SubscriptionArn)
	emailArn, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: std.TopicArn, Protocol: aws.String("email"), Endpoint: aws.String("a@example.com"), ReturnSubscriptionArn: true})
	require.NoError(t, err)
	assert.Regexp(t, `^arn:aws:sns:`, *emailArn.SubscriptionArn)
	lambda, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: std.TopicArn, Protocol: aws.String("lambda"), Endpoint: aws.String("arn:aws:lambda:us-east-1:123456789012:function:f")})
	require.NoError(t, err)
	assert.Regexp(t, `^arn:aws:sns:`, *lambda.SubscriptionArn)
}

func TestSetSubscriptionAttributesAppliesOrRefusesWhole(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	sub, _ := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	set := func(name, value string) error {
		_, err := s.SetSubscriptionAttributes(ctx, &sns.SetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn, AttributeName: aws.String(name), AttributeValue: aws.String(value)})
		return err
	}
	require.NoError(t, set("RawMessageDelivery", "true"))
	requireSNSError(t, set("RawMessageDelivery", ""), "InvalidParameter", "Invalid parameter: RawMessageDelivery: Invalid value []. Must be true or false.")
	requireSNSError(t, set("FilterPolicy", `{"k":"v"}`), "InvalidParameter", `Invalid parameter: FilterPolicy: "k" must be an object or an array`+
		"\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 7]")
	require.NoError(t, set("FilterPolicyScope", "MessageBody"))
	require.NoError(t, set("FilterPolicy", `{"a":{"b":["c"]}}`))
	requireSNSError(t, set("FilterPolicyScope", "MessageAttributes"), "InvalidParameter", "Invalid parameter: Filter policy scope MessageAttributes does not support nested filter policy")
	requireSNSError(t, set("Endpoint", "x"), "InvalidParameter", "Invalid parameter: AttributeName")
	require.NoError(t, set("RedrivePolicy", `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq"}`))
	attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
	require.NoError(t, err)
	assert.Equal(t, "true", attrs.Attributes["RawMessageDelivery"])
	assert.Equal(t, `{"a":{"b":["c"]}}`, attrs.Attributes["FilterPolicy"])
	assert.Equal(t, "MessageBody", attrs.Attributes["FilterPolicyScope"])
	assert.Equal(t, `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq"}`, attrs.Attributes["RedrivePolicy"])
	// FilterPolicyScope is reported only while a FilterPolicy is set.
	require.NoError(t, set("FilterPolicy", ""))
	attrs, _ = s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn})
	assert.NotContains(t, attrs.Attributes, "FilterPolicyScope")

	unknown := *sub.SubscriptionArn + "x"
	_, err = s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: aws.String(unknown[:len(unknown)-2] + "0")})
	requireSNSError(t, err, "NotFound", "Subscription does not exist")
	_, err = s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: sub.SubscriptionArn}, snsfake.ActAs(sqsfake.Identity{AccountID: "333333333333"}))
	requireSNSError(t, err, "AuthorizationError", "Not authorized to access this subscription")
}

func TestUnsubscribeIsIdempotentAndChecksTheARN(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	sub, _ := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: aws.String(topic), Protocol: aws.String("sqs"), Endpoint: aws.String(queue)})
	tests := []struct{ arn, message string }{
		{"randomstring", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"},
		{"pending confirmation", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"},
		{"arn:aws:sns:us-east-1:123456789012", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 5"},
		{topic, "Invalid parameter: SubscriptionId"},
	}
	for _, tt := range tests {
		_, err := s.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: aws.String(tt.arn)})
		requireSNSError(t, err, "InvalidParameter", tt.message)
	}
	for range 2 {
		_, err := s.Unsubscribe(ctx, &sns.UnsubscribeInput{SubscriptionArn: sub.SubscriptionArn})
		require.NoError(t, err)
	}
	list, _ := s.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{})
	assert.Equal(t, []types.Subscription{}, list.Subscriptions)
}

func TestListSubscriptionsPagesTheCallersOwn(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	for i := range 150 {
		_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String(fmt.Sprintf("arn:aws:sqs:us-east-1:123456789012:q%d", i))})
		require.NoError(t, err)
	}
	n, pages := 0, 0
	p := sns.NewListSubscriptionsPaginator(s, &sns.ListSubscriptionsInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		require.NoError(t, err)
		n += len(out.Subscriptions)
		pages++
	}
	assert.Equal(t, 150, n)
	assert.Equal(t, 2, pages)
	other, err := s.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{}, snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222"}))
	require.NoError(t, err)
	assert.Empty(t, other.Subscriptions)
	byTopic := sns.NewListSubscriptionsByTopicPaginator(s, &sns.ListSubscriptionsByTopicInput{TopicArn: tp.TopicArn})
	n = 0
	for byTopic.HasMorePages() {
		out, err := byTopic.NextPage(ctx)
		require.NoError(t, err)
		n += len(out.Subscriptions)
	}
	assert.Equal(t, 150, n)
	// DeleteTopic takes its subscriptions.
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	out, _ := s.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{})
	assert.Empty(t, out.Subscriptions)
}

func TestAConfirmationTokenExpiresAfterTwoDays(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	_, err := s.Subscribe(ctx, &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:222222222222:q")})
	require.NoError(t, err)
	token := s.Topics()[0].Subscriptions[0].Token
	s.SQS().Advance(48 * time.Hour)
	_, err = s.ConfirmSubscription(ctx, &sns.ConfirmSubscriptionInput{TopicArn: tp.TopicArn, Token: aws.String(token)})
	requireSNSError(t, err, "InvalidParameter", "Invalid parameter: Token")
	assert.True(t, s.Topics()[0].Subscriptions[0].Pending)
}

func TestAnotherAccountSubscribesWhereTheTopicPolicyAllows(t *testing.T) {
	ctx := context.Background()
	s := newSNS()
	tp, _ := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	bob := snsfake.ActAs(sqsfake.Identity{AccountID: "222222222222", PrincipalARN: "arn:aws:iam::222222222222:user/bob"})
	in := &sns.SubscribeInput{TopicArn: tp.TopicArn, Protocol: aws.String("sqs"), Endpoint: aws.String("arn:aws:sqs:us-east-1:222222222222:bobs")}
	_, err := s.Subscribe(ctx, in, bob)
	requireSNSError(t, err, "AuthorizationError", "User: arn:aws:iam::222222222222:user/bob is not authorized to perform: SNS:Subscribe on resource: "+*tp.TopicArn+
		" because no resource-based policy allows the SNS:Subscribe action")
	_, err = s.AddPermission(ctx, &sns.AddPermissionInput{TopicArn: tp.TopicArn, Label: aws.String("bob"), AWSAccountId: []string{"222222222222"}, ActionName: []string{"Subscribe"}})
	require.NoError(t, err)
	out, err := s.Subscribe(ctx, in, bob)
	require.NoError(t, err)
	assert.Regexp(t, `^arn:aws:sns:us-east-1:123456789012:t:`, *out.SubscriptionArn, "bob owns the queue: confirmed at once")
	attrs, err := s.GetSubscriptionAttributes(ctx, &sns.GetSubscriptionAttributesInput{SubscriptionArn: out.SubscriptionArn}, bob)
	require.NoError(t, err)
	assert.Equal(t, "222222222222", attrs.Attributes["Owner"])
	assert.Equal(t, "arn:aws:iam::222222222222:user/bob", attrs.Attributes["SubscriptionPrincipal"])
	mine, _ := s.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{}, bob)
	assert.Len(t, mine.Subscriptions, 1)
	owners, _ := s.ListSubscriptions(ctx, &sns.ListSubscriptionsInput{})
	assert.Empty(t, owners.Subscriptions, "ListSubscriptions shows the caller's own")
}
