package sqsfake_test

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/sqsfake/sqsfake"
)

// A fair queue under a flood: tenant A sends 300 messages at once, tenant B one a second,
// and a consumer takes ten a second, working a second on each. Once A's processing time is
// most of the queue's, receives serve B first, so B's messages never wait more than a
// second while A's backlog drains behind them. NoisyPeriods says when A was held back. Once
// A has drained, B is all the queue's processing and counts as noisy by the same rule, which
// changes nothing while no other tenant waits.
func ExampleFake_NoisyPeriods() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	send := func(tenant, body string) {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body), MessageGroupId: aws.String(tenant)})
	}
	for i := range 300 {
		send("A", fmt.Sprint("A-", i))
	}
	sentB := map[string]time.Time{}
	var worstB time.Duration
	var working []*string
	for sec := range 60 {
		b := fmt.Sprint("B-", sec)
		send("B", b)
		sentB[b] = f.Now()
		for _, h := range working { // a second's work done
			f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: h})
		}
		working = working[:0]
		out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		for _, m := range out.Messages {
			if at, ok := sentB[*m.Body]; ok {
				worstB = max(worstB, f.Now().Sub(at))
			}
			working = append(working, m.ReceiptHandle)
		}
		f.Advance(time.Second)
	}
	periods, _ := f.NoisyPeriods("orders")
	for _, p := range periods {
		to := "now"
		if !p.To.IsZero() {
			to = p.To.Format("15:04:05")
		}
		fmt.Printf("%s noisy from %s to %s (%s)\n", p.GroupID, p.From.Format("15:04:05"), to, p.Reason)
	}
	fmt.Println("B waited at most", worstB)
	// Output:
	// A noisy from 00:00:01 to 00:00:34 (processing time share)
	// B noisy from 00:00:34 to now (processing time share)
	// B waited at most 1s
}
