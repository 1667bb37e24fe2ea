package snsfake_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sns"
	"github.com/aws/aws-sdk-go-v2/service/sns/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake/snsfake"
)

type recorder struct{ failures []string }

func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func TestAssertionsSayWhereAMessageWentAndWhy(t *testing.T) {
	ctx := context.Background()
	s, topic, queue := setup(t, "t", nil, "q")
	sub := subscribe(t, s, topic, queue, map[string]string{"FilterPolicy": `{"kind":["order"]}`})
	out, err := s.Publish(ctx, &sns.PublishInput{TopicArn: aws.String(topic), Message: aws.String("refund 12"),
		MessageAttributes: map[string]types.MessageAttributeValue{"kind": {DataType: aws.String("String"), StringValue: aws.String("refund")}}})
	require.NoError(t, err)

	var r recorder
	assert.True(t, snsfake.AssertPublished(&r, s, "t", 1))
	assert.True(t, snsfake.AssertNotDelivered(&r, s, *out.MessageId, "q"))
	assert.Empty(t, r.failures)

	assert.False(t, snsfake.AssertDelivered(&r, s, *out.MessageId, "q", "refunds go to %s", "q"))
	require.Len(t, r.failures, 1)
	assert.Equal(t, "snsfake: expected message "+*out.MessageId+" to be delivered into q, but it was not:\n"+
		"  message "+*out.MessageId+" at 2025-01-01T00:00:00.000Z \"refund 12\"\n"+
		"    "+sub+" → "+queue+": filtered (the message does not match the subscription's filter policy); filter {\"kind\":[\"order\"]} on MessageAttributes\n"+
		"Messages: refunds go to q", r.failures[0])

	assert.False(t, snsfake.AssertPublished(&r, s, topic, 2))
	assert.Equal(t, "snsfake: expected 2 publication(s) to topic "+topic+", got 1\n  message "+*out.MessageId+" at 2025-01-01T00:00:00.000Z \"refund 12\"", r.failures[1])
	assert.False(t, snsfake.AssertPublished(&r, s, "nope", 0))
	assert.False(t, snsfake.AssertDelivered(&r, s, "no-such-id", "q"))
	assert.Len(t, r.failures, 4)
}
