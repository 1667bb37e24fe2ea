package snsfake_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/snsfake"
)

func TestTopicPageListsWhatAListShowsInARNOrder(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	for _, name := range []string{"b", "c", "a"} {
		_, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String(name)})
		require.NoError(t, err)
	}
	_, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	_, err = s.SubscribeQueue(ctx, "b", "q", map[string]string{"RawMessageDelivery": "true", "FilterPolicy": `{"k":["v"]}`})
	require.NoError(t, err)
	for range 2 {
		_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:b"), Message: aws.String("m")})
		require.NoError(t, err)
	}
	arn := func(name string) string { return "arn:aws:sns:us-east-1:123456789012:" + name }
	sub := publication(t, s, published(t, s, arn("b"))[0].MessageID).Deliveries[0].SubscriptionArn

	for _, tc := range []struct {
		name         string
		after, limit int
		want         snsfake.TopicPage
	}{
		{"the first page", 0, 2, snsfake.TopicPage{Total: 3, Next: 2, Topics: []snsfake.TopicSummary{
			{Arn: arn("a"), Name: "a", AccountID: "123456789012", Region: "us-east-1"},
			{Arn: arn("b"), Name: "b", AccountID: "123456789012", Region: "us-east-1", SubscriptionCount: 1, Published: 2,
				Subscriptions: []snsfake.SubscriptionSummary{{Arn: sub, Protocol: "sqs", Endpoint: "arn:aws:sqs:us-east-1:123456789012:q", Raw: true, FilterPolicy: `{"k":["v"]}`}}},
		}}},
		{"the last page", 2, 2, snsfake.TopicPage{Total: 3, Topics: []snsfake.TopicSummary{{Arn: arn("c"), Name: "c", AccountID: "123456789012", Region: "us-east-1"}}}},
		{"past the end", 5, 2, snsfake.TopicPage{Total: 3, Topics: []snsfake.TopicSummary{}}},
		{"no limit", 0, 0, snsfake.TopicPage{Total: 3, Topics: []snsfake.TopicSummary{}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, s.TopicPage(tc.after, tc.limit))
		})
	}

	// A topic made or deleted changes the order at once.
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: aws.String(arn("a"))})
	require.NoError(t, err)
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("aa")})
	require.NoError(t, err)
	var names []string
	for _, tp := range s.TopicPage(0, 10).Topics {
		names = append(names, tp.Name)
	}
	assert.Equal(t, []string{"aa", "b", "c"}, names)
}

func TestPublicationPageIsNewestFirstWithItsTopic(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New()
	s := snsfake.New(f)
	tp, err := s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("t")})
	require.NoError(t, err)
	_, err = s.CreateTopic(ctx, &sns.CreateTopicInput{Name: aws.String("other")})
	require.NoError(t, err)
	var ids []string
	for i := range 5 {
		out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: tp.TopicArn, Message: aws.String("m" + strconv.Itoa(i))})
		require.NoError(t, err)
		ids = append(ids, *out.MessageId)
		_, err = s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String("arn:aws:sns:us-east-1:123456789012:other"), Message: aws.String("x")})
		require.NoError(t, err)
	}
	idsOf := func(p snsfake.PublicationPage) []string {
		var out []string
		for _, pub := range p.Publications {
			out = append(out, pub.MessageID)
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		after, limit int
		want         []string
		next         int
	}{
		{"the newest two", 0, 2, []string{ids[4], ids[3]}, 2},
		{"the next two", 2, 2, []string{ids[2], ids[1]}, 4},
		{"the oldest", 4, 2, []string{ids[0]}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			page, err := s.PublicationPage(*tp.TopicArn, tc.after, tc.limit)
			require.NoError(t, err)
			assert.Equal(t, tc.want, idsOf(page))
			assert.Equal(t, 5, page.Total)
			assert.Equal(t, tc.next, page.Next)
			require.NotNil(t, page.Topic)
			assert.Equal(t, 5, page.Topic.Published)
		})
	}

	_, err = s.PublicationPage("nope", 0, 2)
	assert.ErrorIs(t, err, snsfake.ErrNoTopic)
	_, err = s.DeleteTopic(ctx, &sns.DeleteTopicInput{TopicArn: tp.TopicArn})
	require.NoError(t, err)
	page, err := s.PublicationPage(*tp.TopicArn, 0, 10)
	require.NoError(t, err, "a deleted topic's publications stay in the record")
	assert.Nil(t, page.Topic)
	assert.Len(t, page.Publications, 5)
}
