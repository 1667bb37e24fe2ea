package sqsfake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/benbjohnson/clock"

	"github.com/sqsfake/sqsfake"
)

// Consumer is the kind of small interface a service declares over the SQS client; both
// *sqs.Client and *sqsfake.Fake satisfy it.
type Consumer interface {
	ReceiveMessage(ctx context.Context, params *sqs.ReceiveMessageInput, optFns ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(ctx context.Context, params *sqs.DeleteMessageInput, optFns ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
}

var _ Consumer = (*sqs.Client)(nil)
var _ Consumer = (*sqsfake.Fake)(nil)

// A message that is received and not deleted comes back once its visibility timeout has
// passed on the fake's clock, with its receive count raised and a new receipt handle.
func Example() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("resize photo 42")})

	receive := &sqs.ReceiveMessageInput{
		QueueUrl:                    q.QueueUrl,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount},
	}
	first, _ := f.ReceiveMessage(ctx, receive)
	fmt.Println("received:", *first.Messages[0].Body, "count", first.Messages[0].Attributes["ApproximateReceiveCount"])

	// The worker crashed. 29 seconds later the message is still hidden...
	f.Advance(29 * time.Second)
	out, _ := f.ReceiveMessage(ctx, receive)
	fmt.Println("after 29s:", len(out.Messages), "messages")

	// ...and at 30 seconds, the queue's default visibility timeout, it is back.
	f.Advance(time.Second)
	again, _ := f.ReceiveMessage(ctx, receive)
	fmt.Println("after 30s:", *again.Messages[0].Body, "count", again.Messages[0].Attributes["ApproximateReceiveCount"])
	fmt.Println("new receipt handle:", *again.Messages[0].ReceiptHandle != *first.Messages[0].ReceiptHandle)
	// Output:
	// received: resize photo 42 count 1
	// after 29s: 0 messages
	// after 30s: resize photo 42 count 2
	// new receipt handle: true
}

// A consumer that never deletes a message sends it to the dead-letter queue: after
// maxReceiveCount receives, the next receive moves it instead of delivering it.
func ExampleFake_ReceiveMessage_deadLetterQueue() {
	ctx := context.Background()
	f := sqsfake.New()
	dlq, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"3"}`,
	}})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("poison")})

	for attempt := 1; attempt <= 4; attempt++ {
		out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		fmt.Printf("attempt %d: %d message(s)\n", attempt, len(out.Messages))
		f.Advance(30 * time.Second) // the handler fails; the message comes back
	}
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    dlq.QueueUrl,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameAll},
	})
	m := out.Messages[0]
	fmt.Println("in the DLQ:", *m.Body, "from", m.Attributes["DeadLetterQueueSourceArn"], "receive count", m.Attributes["ApproximateReceiveCount"])
	// Output:
	// attempt 1: 1 message(s)
	// attempt 2: 1 message(s)
	// attempt 3: 1 message(s)
	// attempt 4: 0 message(s)
	// in the DLQ: poison from arn:aws:sqs:us-east-1:123456789012:jobs receive count 4
}

// A slow handler extends the visibility of its message with ChangeMessageVisibility, so the
// message is not delivered a second time while it works.
func ExampleFake_ChangeMessageVisibility() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("long job")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	handle := out.Messages[0].ReceiptHandle

	for range 3 { // every 20 s, ask for 30 s more
		f.Advance(20 * time.Second)
		f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle, VisibilityTimeout: 30})
		again, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		fmt.Println("delivered again:", len(again.Messages) > 0)
	}
	_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle})
	fmt.Println("deleted:", err == nil)
	// Output:
	// delivered again: false
	// delivered again: false
	// delivered again: false
	// deleted: true
}

// A long poll waits on the fake's clock. WaitForPollers tells the test when the receive is
// parked, so moving the clock cannot race it.
func ExampleFake_WaitForPollers() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("events")})

	done := make(chan *sqs.ReceiveMessageOutput)
	go func() {
		out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		done <- out
	}()
	f.WaitForPollers(ctx, 1)
	f.Advance(20 * time.Second)
	out := <-done
	fmt.Println("messages after a 20 s wait:", len(out.Messages))
	// Output:
	// messages after a 20 s wait: 0
}

// Errors are the SDK's own types, with the codes real SQS answers with.
func ExampleFake_GetQueueUrl_errors() {
	f := sqsfake.New()
	_, err := f.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	var notFound *types.QueueDoesNotExist
	fmt.Println(errors.As(err, &notFound), notFound.ErrorCode())
	// Output:
	// true AWS.SimpleQueueService.NonExistentQueue
}

// The fake runs on a benbjohnson mock of your own too, at that mock's cost of 1 ms of real
// time per move; moving the mock directly works like Advance.
func ExampleWithClock() {
	ctx := context.Background()
	mock := clock.NewMock()
	mock.Set(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	f := sqsfake.New(sqsfake.WithClock(mock))
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("later")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi"), DelaySeconds: 60})

	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println("before the delay:", len(out.Messages))
	mock.Add(time.Minute)
	out, _ = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
		QueueUrl:                    q.QueueUrl,
		MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameSentTimestamp},
	})
	fmt.Println("after it:", *out.Messages[0].Body, "sent at", out.Messages[0].Attributes["SentTimestamp"])
	// Output:
	// before the delay: 0
	// after it: hi sent at 1893456000000
}

// Sender is code under test that sends through the SQS client and waits on a benbjohnson
// clock.Clock between attempts.
type Sender struct {
	API interface {
		SendMessage(ctx context.Context, params *sqs.SendMessageInput, optFns ...func(*sqs.Options)) (*sqs.SendMessageOutput, error)
	}
	Clock clock.Clock
}

// Send tries three times, backing off 1 s and then 2 s on the clock, and returns the number
// of attempts it made.
func (s Sender) Send(ctx context.Context, in *sqs.SendMessageInput) (int, error) {
	for attempt := 1; ; attempt++ {
		_, err := s.API.SendMessage(ctx, in)
		if err == nil || attempt == 3 {
			return attempt, err
		}
		s.Clock.Sleep(time.Duration(attempt) * time.Second)
	}
}

// Code that takes a benbjohnson clock.Clock shares the fake's clock, which is one. A test
// starts it in a goroutine, waits until its back-off is asleep on the clock, and moves the
// clock: WaitForTimers is to goroutines waiting on the clock what WaitForPollers is to long
// polls.
func ExampleFake_WaitForTimers() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.InjectFault(sqsfake.Fault{Operation: "SendMessage", Times: 2, Err: sqsfake.ErrThrottled})

	s := Sender{API: f, Clock: f.Clock()} // a clock.Clock: the fake's VirtualClock
	attempts := make(chan int)
	go func() {
		n, _ := s.Send(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
		attempts <- n
	}()
	for _, backoff := range []time.Duration{time.Second, 2 * time.Second} {
		f.WaitForTimers(ctx, 1) // the sender sleeps on the fake's clock
		f.Advance(backoff)
	}
	fmt.Println("attempts:", <-attempts, "sent after:", f.Now().Sub(sqsfake.DefaultStart))
	// Output:
	// attempts: 3 sent after: 3s
}
