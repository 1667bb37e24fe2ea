package sqsfake

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
)

func TestZZScratchAllocs(t *testing.T) {
	ctx := context.Background()
	f := New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	send := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")}
	recv := &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl}
	del := &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl}
	n := testing.AllocsPerRun(1000, func() {
		f.SendMessage(ctx, send)
		out, _ := f.ReceiveMessage(ctx, recv)
		del.ReceiptHandle = out.Messages[0].ReceiptHandle
		f.DeleteMessage(ctx, del)
	})
	t.Log("allocs", n)
}
