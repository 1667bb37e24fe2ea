package heartbeat_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// TestAKeeperOnAMockMovedWithItsOwnAddKeepsItsMessageBesideATrigger: on a fake given a
// benbjohnson mock, which the fake follows when the mock is moved with its own Add (a
// lambdasqs trigger on another queue runs at each instant of the move), a heartbeat on the
// mock still extends its message at each half of the timeout: no other consumer gets it, and
// the trigger's message is invoked at the move's start.
func TestAKeeperOnAMockMovedWithItsOwnAddKeepsItsMessageBesideATrigger(t *testing.T) {
	noLeaks(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	jobs, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	evs, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("events")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: jobs.QueueUrl, MessageBody: aws.String("render video 7")})
	require.NoError(t, err)
	_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: evs.QueueUrl, MessageBody: aws.String("e")})
	require.NoError(t, err)
	trig, err := lambdasqs.New(f, "events", func(context.Context, events.SQSEvent) error { return nil }, lambdasqs.Config{})
	require.NoError(t, err)
	defer trig.Close()

	out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: jobs.QueueUrl, VisibilityTimeout: 30})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	k := heartbeat.New(f, *jobs.QueueUrl, heartbeat.WithClock(f.Clock()))
	d := k.Hold(ctx, out.Messages[0], f.Now(), 30*time.Second)
	defer d.Stop()
	redelivered := 0
	for range 8 { // two minutes in steps of 15 s, half the timeout
		require.NoError(t, k.WaitArmed(ctx, 1))
		mock.Add(15 * time.Second)
		require.NoError(t, k.WaitArmed(ctx, 1)) // the extension due now has been made
		other, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: jobs.QueueUrl})
		require.NoError(t, err)
		redelivered += len(other.Messages)
	}
	assert.Zero(t, redelivered)
	assert.Equal(t, 8, d.Extensions())
	require.NoError(t, trig.Err())
	invs := trig.Invocations()
	require.Len(t, invs, 1)
	assert.Equal(t, sqsfake.DefaultStart, invs[0].At)
	assert.Equal(t, lambdasqs.Success, invs[0].Outcome)
}
