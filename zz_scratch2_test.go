package sqsfake

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

func TestZZSelfDLQ(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	arn := "arn:aws:sqs:us-east-1:123456789012:q"
	_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.QueueUrl, Attributes: map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"` + arn + `","maxReceiveCount":1}`}})
	t.Log("set", err)
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
	f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 1})
	f.Advance(time.Second)
	done := make(chan struct{})
	go func() { f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}); close(done) }()
	select {
	case <-done:
		t.Log("ok")
	case <-time.After(2 * time.Second):
		t.Log("HANG")
	}
}

func TestZZEpochZero(t *testing.T) {
	ctx := context.Background()
	f := New(WithClock(clock.NewMock()))
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 1, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"All"}})
	t.Log(out.Messages[0].Attributes)
}
