package sqsfake_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
)

// A table-driven redelivery test. Each row is a script of receives, clock moves, visibility
// changes and deletes. It runs against a queue "jobs" with a 30-second visibility timeout,
// whose RedrivePolicy sends a message to "jobs-dlq" after the row's maxReceiveCount receives.
// The row also holds what it expects: the receive count each receive returned the message with
// (0 for a receive that returned nothing) and where the message ends. Every row runs on a
// fresh fake. The example prints what happened and adds a "want" line when a row's
// expectation does not hold; in a test, report that with t.Errorf instead.
func Example_redeliveryTable() {
	type step struct {
		op string        // "receive", "advance", "changeVisibility" or "delete"
		d  time.Duration // advance: how far; changeVisibility: the new timeout
	}
	receive := step{op: "receive"}
	deleteIt := step{op: "delete"}
	advance := func(d time.Duration) step { return step{"advance", d} }
	changeVisibility := func(d time.Duration) step { return step{"changeVisibility", d} }

	rows := []struct {
		name            string
		maxReceiveCount int
		script          []step
		wantCounts      []int  // per receive: the message's receive count, 0 if none came
		wantEnd         string // "deleted", or the message's state and queue
	}{
		{"handled at once", 3,
			[]step{receive, deleteIt},
			[]int{1}, "deleted"},
		{"crash, then success", 3,
			[]step{receive, advance(30 * time.Second), receive, deleteIt},
			[]int{1, 2}, "deleted"},
		{"crash, too early to see it again", 3,
			[]step{receive, advance(29 * time.Second), receive},
			[]int{1, 0}, "in flight in jobs"},
		{"extension prevents redelivery", 3,
			[]step{receive, advance(20 * time.Second), changeVisibility(30 * time.Second), advance(20 * time.Second), receive, deleteIt},
			[]int{1, 0}, "deleted"},
		{"released for another consumer", 3,
			[]step{receive, changeVisibility(0), receive},
			[]int{1, 2}, "in flight in jobs"},
		{"poison message", 3,
			[]step{receive, advance(30 * time.Second), receive, advance(30 * time.Second), receive, advance(30 * time.Second), receive},
			[]int{1, 2, 3, 0}, "visible in jobs-dlq"},
		{"deleted on the last chance", 3,
			[]step{receive, advance(30 * time.Second), receive, advance(30 * time.Second), receive, deleteIt, advance(30 * time.Second), receive},
			[]int{1, 2, 3, 0}, "deleted"},
		{"no second chance", 1,
			[]step{receive, advance(30 * time.Second), receive},
			[]int{1, 0}, "visible in jobs-dlq"},
	}

	ctx := context.Background()
	for _, r := range rows {
		f := sqsfake.New()
		f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
		dlq, _ := f.Queue("jobs-dlq")
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
			"VisibilityTimeout": "30",
			"RedrivePolicy":     fmt.Sprintf(`{"deadLetterTargetArn":%q,"maxReceiveCount":"%d"}`, dlq.Arn, r.maxReceiveCount),
		}})
		sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job")})

		var handle *string // the receipt handle of the latest receive
		var counts []int
		for _, s := range r.script {
			var err error
			switch s.op {
			case "receive":
				var out *sqs.ReceiveMessageOutput
				out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl,
					MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
				if err == nil && len(out.Messages) == 0 {
					counts = append(counts, 0)
				} else if err == nil {
					n, _ := strconv.Atoi(out.Messages[0].Attributes["ApproximateReceiveCount"])
					counts = append(counts, n)
					handle = out.Messages[0].ReceiptHandle
				}
			case "advance":
				f.Advance(s.d)
			case "changeVisibility":
				_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl,
					ReceiptHandle: handle, VisibilityTimeout: int32(s.d / time.Second)})
			case "delete":
				_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle})
			}
			if err != nil {
				fmt.Printf("%s: %s: %v\n", r.name, s.op, err)
			}
		}

		end := "deleted"
		if m, queue, ok := f.FindMessage(*sent.MessageId); ok {
			end = fmt.Sprintf("%s in %s", m.State, queue)
		}
		fmt.Printf("%s: receive counts %v, %s\n", r.name, counts, end)
		if !slices.Equal(counts, r.wantCounts) || end != r.wantEnd {
			fmt.Printf("  want receive counts %v, %s\n%s\n", r.wantCounts, r.wantEnd, f.Timeline(*sent.MessageId))
		}
	}
	// Output:
	// handled at once: receive counts [1], deleted
	// crash, then success: receive counts [1 2], deleted
	// crash, too early to see it again: receive counts [1 0], in flight in jobs
	// extension prevents redelivery: receive counts [1 0], deleted
	// released for another consumer: receive counts [1 2], in flight in jobs
	// poison message: receive counts [1 2 3 0], visible in jobs-dlq
	// deleted on the last chance: receive counts [1 2 3 0], deleted
	// no second chance: receive counts [1 0], visible in jobs-dlq
}
