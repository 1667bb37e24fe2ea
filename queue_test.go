package sqsfake

import (
	"fmt"
	"testing"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Tests of a standard queue's message states — visibility expiry and the counts
// GetQueueAttributes reports — through the public API (fixture in messages_test.go).

func TestVisibilityExpiryRedelivers(t *testing.T) {
	for _, vt := range []int32{1, 30, 43200} {
		t.Run(fmt.Sprint(vt, "s"), func(t *testing.T) {
			fx := newMsgFixture(t)
			q := fx.queue("q", nil)
			sent := fx.send(q, "again")
			in := &sqs.ReceiveMessageInput{QueueUrl: q, VisibilityTimeout: vt,
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount"}}
			first := fx.receiveInput(in)
			require.Len(t, first, 1)
			timeout := time.Duration(vt) * time.Second

			fx.advance(timeout - time.Nanosecond)
			assert.Empty(t, fx.receive(q, 10, 0), "1 ns before the timeout it is still in flight")
			fx.requireCounts(q, 0, 1, 0)
			fx.advance(time.Nanosecond)
			fx.requireCounts(q, 1, 0, 0)

			second := fx.receiveInput(in)
			require.Len(t, second, 1)
			assert.Equal(t, types.Message{
				MessageId:     sent.MessageId,
				ReceiptHandle: second[0].ReceiptHandle,
				MD5OfBody:     sent.MD5OfMessageBody,
				Body:          aws.String("again"),
				Attributes:    map[string]string{"ApproximateReceiveCount": "2"},
			}, second[0])
			assert.NotEqual(t, *first[0].ReceiptHandle, *second[0].ReceiptHandle, "a new receipt handle")
		})
	}
}

func TestReceiveVisibilityTimeoutOverridesQueueDefaultForThatReceiveOnly(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"VisibilityTimeout": "30"})
	fx.send(q, "x")
	fx.receiveOne(q, 5)
	fx.advance(5 * time.Second)
	fx.requireCounts(q, 1, 0, 0)
	fx.receiveOne(q, 0) // the queue's 30 s again
	fx.advance(30*time.Second - time.Nanosecond)
	fx.requireCounts(q, 0, 1, 0)
	fx.advance(time.Nanosecond)
	fx.requireCounts(q, 1, 0, 0)
}

func TestChangingQueueVisibilityTimeoutDoesNotAlterMessagesInFlight(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", map[string]string{"VisibilityTimeout": "30"})
	fx.send(q, "x")
	fx.receiveOne(q, 0)
	fx.setAttrs(q, map[string]string{"VisibilityTimeout": "5"})
	fx.advance(5 * time.Second)
	fx.requireCounts(q, 0, 1, 0)
	fx.advance(25 * time.Second)
	fx.requireCounts(q, 1, 0, 0)
	fx.receiveOne(q, 0) // now the new 5 s
	fx.advance(5 * time.Second)
	fx.requireCounts(q, 1, 0, 0)
}

func TestQueueCountsVisibleNotVisibleAndDelayedExactly(t *testing.T) {
	fx := newMsgFixture(t)
	q := fx.queue("q", nil)
	fx.requireCounts(q, 0, 0, 0, "a new queue")

	for _, b := range []string{"a", "b", "c", "d"} {
		fx.send(q, b)
	}
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("later"), DelaySeconds: 10})
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("much later"), DelaySeconds: 100})
	fx.requireCounts(q, 4, 0, 2)

	got := fx.receive(q, 3, 20) // a, b, c until 20 s
	fx.requireCounts(q, 1, 3, 2)
	fx.delete(q, got[0].ReceiptHandle)
	fx.requireCounts(q, 1, 2, 2)
	require.NoError(t, fx.changeVisibility(q, got[1].ReceiptHandle, 0))
	fx.requireCounts(q, 2, 1, 2)

	fx.advance(10 * time.Second) // "later" arrives
	fx.requireCounts(q, 3, 1, 1)
	fx.advance(10 * time.Second) // c comes back
	fx.requireCounts(q, 4, 0, 1)
	fx.advance(80 * time.Second) // "much later" arrives
	fx.requireCounts(q, 5, 0, 0)

	all := fx.receive(q, 10, 0)
	// In send order, whenever each became available again: b at 0 s, c at 20 s, "later" at
	// 10 s.
	assert.Equal(t, []string{"b", "c", "d", "later", "much later"}, bodiesOf(all))
	fx.requireCounts(q, 0, 5, 0)
	for _, m := range all {
		fx.delete(q, m.ReceiptHandle)
	}
	fx.requireCounts(q, 0, 0, 0)

	fx.send(q, "x")
	fx.receiveOne(q, 0)
	fx.send(q, "y")
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("z"), DelaySeconds: 5})
	fx.requireCounts(q, 1, 1, 1)
	_, err := fx.f.PurgeQueue(fx.ctx, &sqs.PurgeQueueInput{QueueUrl: q})
	require.NoError(t, err)
	fx.requireCounts(q, 0, 0, 0, "a purge removes every state")
}

func TestQueueStateFollowsTheInjectedClockMovedDirectly(t *testing.T) {
	mock := NewMockClock()
	fx := newMsgFixture(t, WithClock(mock))
	q := fx.queue("q", map[string]string{"MessageRetentionPeriod": "120"})
	fx.send(q, "x")
	fx.sendInput(&sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("delayed"), DelaySeconds: 15})
	fx.receiveOne(q, 10)
	mock.Add(10 * time.Second) // not through the fake
	fx.requireCounts(q, 1, 0, 1)
	mock.Add(5 * time.Second)
	fx.requireCounts(q, 2, 0, 0)
	mock.Add(105 * time.Second)
	fx.requireCounts(q, 0, 0, 0)
}

// A queued message takes 112 bytes (one size class below 128): what only some messages have
// lives in messageExt.
func TestMessageTakes112Bytes(t *testing.T) {
	if got := unsafe.Sizeof(message{}); got > 112 {
		t.Errorf("a message takes %d bytes, want at most 112", got)
	}
}
