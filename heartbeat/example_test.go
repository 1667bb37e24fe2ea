package heartbeat_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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

// A test of code that calls Run reaches each delivery with WithHoldHook, and drives its
// heartbeat to the end: Delivery.WaitArmed returns ErrEnded when there is no timer left to
// wait for. Here a handler outlasts SQS's 12-hour limit, on a 2-hour visibility timeout.
func ExampleWithHoldHook() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("reindex")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 7200})
	msg, receivedAt := out.Messages[0], f.Now()

	held := make(chan *heartbeat.Delivery, 1)
	k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock()),
		heartbeat.WithLogger(slog.New(slog.DiscardHandler)), // the 12-hour warning
		heartbeat.WithHoldHook(func(d *heartbeat.Delivery) { held <- d }))
	workDone := make(chan struct{})
	result := make(chan error)
	go func() { // the code under test
		result <- k.Run(ctx, msg, receivedAt, 2*time.Hour, func(ctx context.Context) error {
			<-workDone
			return nil
		})
	}()

	d := <-held
	for d.WaitArmed(ctx) == nil {
		f.Advance(time.Hour) // the heartbeat extends every hour, half the timeout
	}
	fmt.Println("heartbeat ended after", f.Now().Sub(receivedAt), "with", d.Extensions(), "extensions")
	fmt.Println("hidden until", d.VisibleAt().Sub(receivedAt), "after the receive")
	close(workDone)
	fmt.Println("handler:", <-result)
	// Output:
	// heartbeat ended after 11h0m0s with 10 extensions
	// hidden until 12h0m0s after the receive
	// handler: <nil>
}

// A handler reaches its delivery through its context: here, to report how long the heartbeat
// kept the message hidden and whether it failed.
func ExampleFromContext() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("resize image 3")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	msg, receivedAt := out.Messages[0], f.Now()

	k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock()))
	var d *heartbeat.Delivery
	err := k.Run(ctx, msg, receivedAt, 30*time.Second, func(ctx context.Context) error {
		d = heartbeat.FromContext(ctx)
		return nil // quick work: no extension needed
	})
	fmt.Println("handler:", err)
	fmt.Println("extensions:", d.Extensions(), "failure:", d.Err(), "visible again after:", d.VisibleAt().Sub(receivedAt))
	// Output:
	// handler: <nil>
	// extensions: 0 failure: <nil> visible again after: 30s
}

// worker is production code: it receives and holds what it receives with the Keeper it is
// given, taking the receive time from the Keeper, so that it is right on the wall clock in
// production and on the fake's clock in a test.
func worker(ctx context.Context, client interface {
	heartbeat.Client
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
}, k *heartbeat.Keeper, process func(context.Context) error) error {
	queueURL := k.QueueURL()
	out, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &queueURL, VisibilityTimeout: 30})
	if err != nil {
		return err
	}
	receivedAt := k.Now() // not time.Now(): the Keeper's clock
	for _, m := range out.Messages {
		if err := k.Run(ctx, m, receivedAt, 30*time.Second, process); err != nil {
			return err
		}
	}
	return nil
}

// The receive time comes from the Keeper's clock (Keeper.Now). A receive time from another
// clock — time.Now() in a test whose Keeper runs on the fake's clock, a year behind — is
// refused with a *heartbeat.ClockError that names both clocks, instead of silently putting
// the first extension a year ahead.
func ExampleKeeper_Now() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("render video 8")})
	k := heartbeat.New(f, *q.QueueUrl, heartbeat.WithClock(f.Clock())) // production: heartbeat.New(client, queueURL)

	err := worker(ctx, f, k, func(ctx context.Context) error {
		fmt.Println("received at", heartbeat.FromContext(ctx).VisibleAt().Add(-30*time.Second).Format(time.RFC3339))
		return nil
	})
	fmt.Println("worker:", err)

	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("render video 9")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	wrong := f.Now().AddDate(1, 0, 0) // as time.Now() would be, a year ahead of the fake
	err = k.Run(ctx, out.Messages[0], wrong, 30*time.Second, func(context.Context) error { return nil })
	var ce *heartbeat.ClockError
	fmt.Println(errors.As(err, &ce), ce.Clock)
	// Output:
	// received at 2025-01-01T00:00:00Z
	// worker: <nil>
	// true a *sqsfake.VirtualClock given with WithClock
}
