package sqsfake_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sqsfake/sqsfake"
)

// The call record lists every call with its time on the fake's clock, a summary of its input
// and its outcome. A consumer's delete was throttled: the record shows it, and so does the
// message's timeline.
func ExampleFake_Calls() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("resize photo 7")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
	f.InjectFault(sqsfake.Fault{Operation: "DeleteMessage", Times: 1, Err: sqsfake.ErrThrottled})
	f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle})

	for _, c := range f.Calls() {
		fmt.Println(c)
	}
	deletes := f.Calls(sqsfake.CallFilter{Operation: "DeleteMessage", Queue: "jobs"})
	fmt.Println(len(deletes), "delete, failed with", deletes[0].ErrorCode)
	last, _ := f.Timeline(*sent.MessageId).Last()
	fmt.Println(last)
	// Output:
	// #1 2025-01-01T00:00:00Z CreateQueue jobs → ok
	// #2 2025-01-01T00:00:00Z SendMessage jobs: body "resize photo 7" (14 bytes) → message e971d095-7520-4d94-b0f9-05ed8b12ebc5
	// #3 2025-01-01T00:00:00Z ReceiveMessage jobs: max 10 → 1 message: e971d095-7520-4d94-b0f9-05ed8b12ebc5
	// #4 2025-01-01T00:00:00Z DeleteMessage jobs: handle AQEBBfsBolUQ… (message e971d095-7520-4d94-b0f9-05ed8b12ebc5, receive 1) → error RequestThrottled: Rate exceeded [fault]
	// 1 delete, failed with RequestThrottled
	// 2025-01-01T00:00:00Z  DeleteMessage with the handle of receive 1 in jobs failed: RequestThrottled (injected fault)
}

// A consumer polls on its own goroutine. WaitForCalls, given the number its call will have,
// returns once the poll has parked — or returned, had a message been there — so the clock
// moves only after the poll has read its start time. Count before the goroutine starts: a
// goroutine that has not reached the fake yet is waited for because its call is counted.
func ExampleFake_WaitForCalls() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})

	next := f.CallCount() + 1
	done := make(chan *sqs.ReceiveMessageOutput)
	go func() {
		out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		done <- out
	}()
	if err := f.WaitForCalls(ctx, next); err != nil {
		panic(err)
	}
	f.Advance(20 * time.Second)
	fmt.Println(len((<-done).Messages), "messages")
	fmt.Println(f.Calls()[1])
	// Output:
	// 0 messages
	// #2 2025-01-01T00:00:00Z ReceiveMessage jobs: wait 20s → no messages at 2025-01-01T00:00:20Z
}

// WaitIdle waits for the calls already inside the fake. Here a send hands its message to a
// parked poll; once WaitIdle returns, the poll has returned too, and the record shows it.
func ExampleFake_WaitIdle() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})

	next := f.CallCount() + 1
	go f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
	if err := f.WaitForCalls(ctx, next); err != nil { // the poll has parked
		panic(err)
	}
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hi")})
	if err := f.WaitIdle(ctx); err != nil { // the poll it answered has returned
		panic(err)
	}
	for _, c := range f.Calls() {
		fmt.Println(c)
	}
	// Output:
	// #1 2025-01-01T00:00:00Z CreateQueue jobs → ok
	// #2 2025-01-01T00:00:00Z ReceiveMessage jobs: wait 20s → 1 message: e971d095-7520-4d94-b0f9-05ed8b12ebc5
	// #3 2025-01-01T00:00:00Z SendMessage jobs: body "hi" (2 bytes) → message e971d095-7520-4d94-b0f9-05ed8b12ebc5
}
