package snsfake_test

import (
	"context"
	"errors"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

// TestEveryInspectionReportsWhatDoesNotExist pins issue 32's rule for the companion: every
// snsfake inspection and assertion that names a topic, a queue or a publication reports one
// that does not exist with an error wrapping a sentinel, listing what there is and saying
// what the name is if the fake knows it otherwise — never an empty result or a pass (as
// sqsfake.ErrNoQueue does for the queue fake). Before, Deliveries(a MessageId) returned
// nothing, and AssertNotDelivered into a misspelt queue passed.
func TestEveryInspectionReportsWhatDoesNotExist(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("orders")})
	require.NoError(t, err)
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("payments")})
	require.NoError(t, err)
	_, err = f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("eu-orders")})
	require.NoError(t, err)
	_, err = s.SubscribeQueue(ctx, *tp.TopicArn, "eu-orders", nil)
	require.NoError(t, err)
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("hi")})
	require.NoError(t, err)
	pub := *out.MessageId
	sqsID := publication(t, s, pub).Deliveries[0].SQSMessageID
	queueArn := "arn:aws:sqs:us-east-1:123456789012:eu-orders"

	for _, tc := range []struct {
		name string
		call func() error
		kind error
		text string
	}{
		{"Topic, a typo", func() error { _, err := s.Topic("orderz"); return err }, snsfake.ErrNoTopic,
			"snsfake: topic orderz does not exist; the fake has orders, payments"},
		{"Topic, a queue's ARN", func() error { _, err := s.Topic(queueArn); return err }, snsfake.ErrNoTopic,
			"snsfake: topic " + queueArn + " does not exist; the fake has orders, payments; " + queueArn + " is a queue's ARN"},
		{"Topic, a subscribed queue's name", func() error { _, err := s.Topic("eu-orders"); return err }, snsfake.ErrNoTopic,
			"snsfake: topic eu-orders does not exist; the fake has orders, payments; eu-orders is a subscribed queue, " + queueArn},
		{"Published, a typo", func() error { _, err := s.Published("orderz"); return err }, snsfake.ErrNoTopic,
			"snsfake: topic orderz does not exist; the fake has orders, payments"},
		{"Publication, a typo", func() error { _, err := s.Publication("nope"); return err }, snsfake.ErrNoPublication,
			"snsfake: nothing was published with MessageId nope; the latest publications: " + pub + " (" + *tp.TopicArn + ")"},
		{"Publication, the SQS MessageId of a delivery", func() error { _, err := s.Publication(sqsID); return err }, snsfake.ErrNoPublication,
			"snsfake: nothing was published with MessageId " + sqsID + "; " + sqsID + " is the SQS MessageId of publication " + pub +
				"'s delivery into " + queueArn + " (Publication takes the MessageId Publish answered: " + pub + ")"},
		{"Deliveries, a publication's MessageId", func() error { _, err := s.Deliveries(pub); return err }, sqsfake.ErrNoQueue,
			"snsfake: queue " + pub + " does not exist; the fake has eu-orders; " + pub + " is the MessageId of a publication to " +
				*tp.TopicArn + ": Publication(" + pub + ") has its deliveries"},
		{"Deliveries, a typo", func() error { _, err := s.Deliveries("eu-orderz"); return err }, sqsfake.ErrNoQueue,
			"snsfake: queue eu-orderz does not exist; the fake has eu-orders"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.Error(t, err)
			assert.True(t, errors.Is(err, tc.kind), "wraps %v", tc.kind)
			assert.Equal(t, tc.text, err.Error())
		})
	}

	// What exists answers, by ARN or name; a deleted topic's publications stay readable.
	assert.Len(t, deliveries(t, s, "eu-orders"), 1)
	assert.Len(t, deliveries(t, s, queueArn), 1)
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	assert.Len(t, published(t, s, *tp.TopicArn), 1)
	_, err = s.Published("orders")
	assert.ErrorIs(t, err, snsfake.ErrNoTopic, "a name is looked up among the topics there are")

	for _, tc := range []struct {
		name   string
		assert func(*recordingT) bool
		text   string
	}{
		{"AssertNotDelivered, a misspelt queue", func(r *recordingT) bool { return snsfake.AssertNotDelivered(r, s, pub, "eu-orderz") },
			"snsfake: expected message " + pub + " not to be delivered into eu-orderz, but queue eu-orderz does not exist; the fake has eu-orders"},
		{"AssertDelivered, a misspelt queue", func(r *recordingT) bool { return snsfake.AssertDelivered(r, s, pub, "eu-orderz") },
			"snsfake: expected message " + pub + " to be delivered into eu-orderz, but queue eu-orderz does not exist; the fake has eu-orders"},
		{"AssertDelivered, a MessageId nothing was published with", func(r *recordingT) bool { return snsfake.AssertDelivered(r, s, "nope", "eu-orders") },
			"snsfake: expected message nope to be delivered into eu-orders, but nothing was published with MessageId nope; the latest publications: " +
				pub + " (" + *tp.TopicArn + ")"},
		{"AssertPublished, a misspelt topic", func(r *recordingT) bool { return snsfake.AssertPublished(r, s, "paymentz", 0) },
			"snsfake: expected 0 publication(s) to topic paymentz, but topic paymentz does not exist; the fake has payments"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &recordingT{}
			assert.False(t, tc.assert(r))
			assert.Equal(t, tc.text, firstLine(r.msg))
		})
	}
}

func firstLine(s string) string {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
