package heartbeat_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/heartbeat"
)

// A handler that works for two minutes on a message received with a 30-second visibility
// timeout keeps it hidden with Run. Another consumer polling meanwhile gets nothing. On the
// fake's virtual clock the test moves time, and WaitArmed tells it the heartbeat is ready.
func Example() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("render video 7")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 30})
	msg, receivedAt := out.Messages[0], f.Now()

	k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock())) // in production: heartbeat.New(client, queueURL)
	workDone := make(chan struct{})
	result := make(chan error)
	go func() {
		result <- k.Run(ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error {
			select {
			case <-workDone: // two minutes of work
				return nil
			case <-ctx.Done(): // the message could not be kept hidden
				return context.Cause(ctx)
			}
		})
	}()

	redelivered := 0
	for range 8 { // two minutes in steps of 15 s, half the timeout
		k.WaitArmed(ctx, 1)
		f.Advance(15 * time.Second)
		k.WaitArmed(ctx, 1) // the extension due now has been made
		other, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		redelivered += len(other.Messages)
	}
	close(workDone)
	fmt.Println("handler:", <-result)
	fmt.Println("delivered to another consumer meanwhile:", redelivered)

	_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: msg.ReceiptHandle})
	fmt.Println("deleted:", err == nil)
	// Output:
	// handler: <nil>
	// delivered to another consumer meanwhile: 0
	// deleted: true
}

// Hold gives the caller the delivery. Delete and Release stop the heartbeat before they
// settle the message, so no extension can race them.
func ExampleKeeper_Hold() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("send invoice 12")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	msg, receivedAt := out.Messages[0], f.Now()

	k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock()))
	d := k.Hold(ctx, msg, receivedAt, 30*time.Second) // the queue's default timeout
	defer d.Stop()

	k.WaitArmed(ctx, 1)
	f.Advance(15 * time.Second)
	k.WaitArmed(ctx, 1)
	fmt.Println("extensions:", d.Extensions(), "visible again at:", d.VisibleAt().Sub(receivedAt))

	err := d.Delete(ctx, f) // the work succeeded
	fmt.Println("deleted:", err == nil, "context:", context.Cause(d.Context()))
	// Output:
	// extensions: 1 visible again at: 45s
	// deleted: true context: heartbeat: delivery settled
}
