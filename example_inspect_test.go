package sqsfake_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sqsfake/sqsfake"
)

// A poison message in the dead-letter queue: DeadLettersIn takes the DLQ and says where each
// message came from; DeadLettersFrom takes the source and finds what it dead-lettered.
func ExampleFake_DeadLettersIn() {
	ctx := context.Background()
	f := sqsfake.New()
	f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
		"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"1"}`,
	}})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("poison")})
	for range 2 { // received once, never deleted; the second receive moves it
		f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		f.Advance(30 * time.Second)
	}

	in, _ := f.DeadLettersIn("jobs-dlq")
	for _, m := range in {
		fmt.Println(m.Body, "from", m.DeadLetterSourceArn, "received", m.ReceiveCount)
	}
	from, _ := f.DeadLettersFrom("jobs")
	fmt.Println(len(from), "dead-lettered from jobs")
	// Output:
	// poison from arn:aws:sqs:us-east-1:123456789012:jobs received 1
	// 1 dead-lettered from jobs
}

// A typo in a queue's name is an error that lists the queues there are, never an empty
// result; errors.Is tells it by ErrNoQueue.
func ExampleErrNoQueue() {
	ctx := context.Background()
	f := sqsfake.New()
	f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders-dlq")})

	_, err := f.InFlight("orderz")
	fmt.Println(err)
	fmt.Println(errors.Is(err, sqsfake.ErrNoQueue))
	// Output:
	// sqsfake: queue orderz does not exist; the fake has orders, orders-dlq
	// true
}
