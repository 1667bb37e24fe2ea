package sqsfake_test

import (
	"context"
	"fmt"

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
