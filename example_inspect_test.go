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

// A long queue read a page at a time: each page holds the queue's snapshot and up to limit
// messages in arrival order, and its Next cursor starts the next page.
func ExampleFake_QueuePage() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	for i := range 5 {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("job-", i))})
	}
	fmt.Println(f.QueueNames())

	var after uint64
	for {
		page, _ := f.QueuePage("jobs", after, 2)
		var bodies []string
		for _, m := range page.Messages {
			bodies = append(bodies, m.Body)
		}
		fmt.Println(page.Visible, "visible; page:", bodies, "truncated:", page.Truncated)
		if !page.Truncated {
			break
		}
		after = page.Next
	}
	// Output:
	// [jobs]
	// 5 visible; page: [job-0 job-1] truncated: true
	// 5 visible; page: [job-2 job-3] truncated: true
	// 5 visible; page: [job-4] truncated: false
}

// A poller that runs beside the fake — a Lambda trigger, a test's own driver — asks what is
// due next without rendering the queue's messages: NextVisible tells how many are visible now
// and when the next one may become available.
func ExampleFake_NextVisible() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("now")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("later"), DelaySeconds: 10})

	at, visible, _ := f.NextVisible("jobs")
	fmt.Println(visible, at.Sub(f.Now()))
	f.Advance(at.Sub(f.Now()))
	_, visible, _ = f.NextVisible("jobs")
	fmt.Println(visible, f.Epoch())
	// Output:
	// 1 10s
	// 2 0
}

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
