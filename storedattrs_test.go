package sqsfake

import (
	"cmp"
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A service principal fanning one message out shares one stored copy of its identical
// attributes between the messages; what each message answers stays its own.
func TestAServicePrincipalsIdenticalAttributesShareOneStoredCopy(t *testing.T) {
	f := New()
	open := `{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":"*","Action":"sqs:SendMessage","Resource":"*"}]}`
	q1 := mustCreateQueue(t, f, "q1", map[string]string{"Policy": open})
	q2 := mustCreateQueue(t, f, "q2", map[string]string{"Policy": open})
	q3 := mustCreateQueue(t, f, "q3", map[string]string{"Policy": open})
	ctx := withService(context.Background(), servicePrincipal{Service: "sns.amazonaws.com", SourceArn: "arn:aws:sns:us-east-1:123456789012:t"})
	attrs := map[string]types.MessageAttributeValue{
		"kind": {DataType: aws.String("String"), StringValue: aws.String("order")},
		"raw":  {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2}},
	}
	send := func(q *string) *sqs.SendMessageOutput {
		out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("m"), MessageAttributes: attrs})
		require.NoError(t, err)
		return out
	}
	o1, o2 := send(q1), send(q2)
	assert.Equal(t, *o1.MD5OfMessageAttributes, *o2.MD5OfMessageAttributes)
	m1, m2 := storedMessages(t, f, "q1"), storedMessages(t, f, "q2")
	require.Len(t, m1, 1)
	require.Len(t, m2, 1)
	assert.Equal(t, mapIdentity(m1[0].ext.attrs), mapIdentity(m2[0].ext.attrs), "one stored copy")

	// The caller changes its map: the next send stores the new attributes.
	attrs["kind"] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("refund")}
	o3 := send(q3)
	assert.NotEqual(t, *o1.MD5OfMessageAttributes, *o3.MD5OfMessageAttributes)
	m3 := storedMessages(t, f, "q3")
	assert.Equal(t, "refund", *m3[0].ext.attrs["kind"].StringValue)
	assert.Equal(t, "order", *m1[0].ext.attrs["kind"].StringValue, "the earlier messages keep theirs")

	// What a receive hands out is a copy: changing it changes no stored message.
	r1, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q1, MessageAttributeNames: []string{"All"}})
	require.NoError(t, err)
	*r1.Messages[0].MessageAttributes["kind"].StringValue = "scribbled"
	r1.Messages[0].MessageAttributes["raw"].BinaryValue[0] = 9
	r2, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q2, MessageAttributeNames: []string{"All"}})
	require.NoError(t, err)
	assert.Equal(t, "order", *r2.Messages[0].MessageAttributes["kind"].StringValue)
	assert.Equal(t, []byte{1, 2}, r2.Messages[0].MessageAttributes["raw"].BinaryValue)

	// The fake's own sends keep a copy each, as before.
	attrs["kind"] = types.MessageAttributeValue{DataType: aws.String("String"), StringValue: aws.String("order")}
	for _, q := range []*string{q1, q2} {
		_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("own"), MessageAttributes: attrs})
		require.NoError(t, err)
	}
	own1, own2 := storedMessages(t, f, "q1"), storedMessages(t, f, "q2")
	assert.NotEqual(t, mapIdentity(own1[len(own1)-1].ext.attrs), mapIdentity(own2[len(own2)-1].ext.attrs))
}

// storedMessages returns the stored messages of the queue named name, by send order.
func storedMessages(t *testing.T, f *Fake, name string) []*message {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	q := f.lookupQueue(name)
	require.NotNil(t, q)
	out := make([]*message, 0, len(q.msgs))
	for _, m := range q.msgs {
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b *message) int { return cmp.Compare(a.idNum, b.idNum) })
	return out
}

// mapIdentity is the address of a map's storage.
func mapIdentity(m map[string]types.MessageAttributeValue) uintptr {
	return reflect.ValueOf(m).Pointer()
}
