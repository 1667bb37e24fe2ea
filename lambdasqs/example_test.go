package lambdasqs_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// setup makes a queue "jobs" with a 30-second visibility timeout whose dead-letter queue
// "jobs-dlq" takes messages after 3 receives, and sends n messages "m0".."m<n-1>".
func setup(ctx context.Context, n int) *sqsfake.Fake {
	f := sqsfake.New()
	dlq, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	info, _ := f.Queue(*dlq.QueueUrl)
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
		"VisibilityTimeout": "30",
		"RedrivePolicy":     `{"deadLetterTargetArn":"` + info.Arn + `","maxReceiveCount":"3"}`,
	}})
	for i := range n {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m" + strconv.Itoa(i))})
	}
	return f
}

// The fake's own Advance drives the trigger: the mapping polls at every instant of the move
// where it has something to do, as Lambda's continuous polling does, so no Poll is needed,
// and one two-minute move gives the same invocations as 120 one-second moves. Here the
// handler fails a message the first time it sees it: the message is invoked again when its
// visibility timeout ends, at +30 s, not at the end of the move.
func Example_advance() {
	ctx := context.Background()
	for _, moves := range []int{1, 120} {
		f := setup(ctx, 1)
		seen := map[string]bool{}
		handler := func(ctx context.Context, ev events.SQSEvent) error {
			id := ev.Records[0].MessageId
			if !seen[id] {
				seen[id] = true
				return errors.New("first delivery fails")
			}
			return nil
		}
		trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{})
		if err != nil {
			panic(err)
		}
		for range moves {
			f.Advance(2 * time.Minute / time.Duration(moves))
		}
		fmt.Printf("%d move(s):", moves)
		for _, inv := range trig.Invocations() {
			fmt.Printf(" +%v %v;", inv.At.Sub(sqsfake.DefaultStart), inv.Outcome)
		}
		fmt.Println()
	}
	// Output:
	// 1 move(s): +0s FunctionError; +30s Success;
	// 120 move(s): +0s FunctionError; +30s Success;
}

// A benbjohnson *clock.Mock given with sqsfake.WithClock drives triggers when it is moved
// with its own Add or Set, as the fake's Advance does: the fake follows the mock's move and
// runs every trigger at each instant the move passed through — the message sent before the
// move at the move's start, its redelivery at the visibility timeout — whatever the
// goroutines' scheduling. No Poll is needed; the record is complete once it is read.
func Example_benbjohnsonMock() {
	ctx := context.Background()
	mock := sqsfake.NewMockClock()
	f := sqsfake.New(sqsfake.WithClock(mock))
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "30"}})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m0")})
	failed := false
	trig, _ := lambdasqs.New(f, "jobs", func(context.Context, events.SQSEvent) error {
		if !failed {
			failed = true
			return errors.New("first delivery fails")
		}
		return nil
	}, lambdasqs.Config{})
	mock.Add(2 * time.Minute) // or f.Advance(2 * time.Minute): the same invocations
	for _, inv := range trig.Invocations() {
		fmt.Printf("+%v %v\n", inv.At.Sub(sqsfake.DefaultStart), inv.Outcome)
	}
	fmt.Println("err:", trig.Err())
	// Output:
	// +0s FunctionError
	// +30s Success
	// err: <nil>
}

// A batch of 10 where the handler fails on one message and returns an error: Lambda deletes
// nothing, so all ten come back after the visibility timeout, again and again, and after
// maxReceiveCount (3) receives all ten end in the dead-letter queue.
func Example_batchErrorWithoutReportBatchItemFailures() {
	ctx := context.Background()
	f := setup(ctx, 10)
	handler := func(ctx context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			if r.Body == "m3" {
				return errors.New("cannot process m3")
			}
		}
		return nil
	}
	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{})
	if err != nil {
		panic(err)
	}
	if err := trig.Advance(ctx, 2*time.Minute); err != nil {
		panic(err)
	}
	for _, inv := range trig.Invocations() {
		fmt.Printf("+%v: %d messages, %v, deleted %d\n", inv.At.Sub(sqsfake.DefaultStart), len(inv.MessageIDs), inv.Outcome, len(inv.Deleted))
	}
	dead, _ := f.DeadLettersFrom("jobs")
	fmt.Println("in the DLQ:", len(dead))
	// Output:
	// +0s: 10 messages, FunctionError, deleted 0
	// +30s: 10 messages, FunctionError, deleted 0
	// +1m0s: 10 messages, FunctionError, deleted 0
	// in the DLQ: 10
}

// The same batch with ReportBatchItemFailures: the handler names the one message it could not
// process, Lambda deletes the other nine, and only the failed one returns — three times, then
// to the dead-letter queue.
func Example_batchItemFailures() {
	ctx := context.Background()
	f := setup(ctx, 10)
	handler := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		for _, r := range ev.Records {
			if r.Body == "m3" {
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		return resp, nil
	}
	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures}})
	if err != nil {
		panic(err)
	}
	if err := trig.Advance(ctx, 2*time.Minute); err != nil {
		panic(err)
	}
	for _, inv := range trig.Invocations() {
		fmt.Printf("+%v: %d messages, %v, deleted %d\n", inv.At.Sub(sqsfake.DefaultStart), len(inv.MessageIDs), inv.Outcome, len(inv.Deleted))
	}
	dl, _ := f.DeadLettersFrom("jobs")
	fmt.Println("in the DLQ:", len(dl), dl[0].Body)
	// Output:
	// +0s: 10 messages, PartialFailure, deleted 9
	// +30s: 1 messages, PartialFailure, deleted 0
	// +1m0s: 1 messages, PartialFailure, deleted 0
	// in the DLQ: 1 m3
}

// A function slower than its timeout: a handler that waits on its context for a downstream
// that never answers. The waiting call (Poll) returns while it waits; the fake's clock, moved
// by anything, ends its context at the function's timeout with context.DeadlineExceeded, and
// Lambda counts a timeout, deletes nothing, and the message returns after its visibility
// timeout.
func Example_timeout() {
	ctx := context.Background()
	f := setup(ctx, 1)
	never := make(chan string) // a downstream that never answers
	handler := func(ctx context.Context, ev events.SQSEvent) error {
		select {
		case <-ctx.Done():
			fmt.Println("context:", ctx.Err(), "at +"+f.Now().Sub(sqsfake.DefaultStart).String())
			return ctx.Err()
		case r := <-never:
			fmt.Println(r)
			return nil
		}
	}
	trig, _ := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{FunctionTimeout: 3 * time.Second})
	if err := trig.Poll(ctx); err != nil { // invokes now; the handler waits on the clock
		panic(err)
	}
	fmt.Println("recorded after Poll:", len(trig.Invocations()))
	f.Advance(time.Minute)
	for _, inv := range trig.Invocations() {
		fmt.Println("+"+inv.At.Sub(sqsfake.DefaultStart).String(), inv.Outcome, inv.Err, "kept:", len(inv.Kept))
	}
	// Output:
	// recorded after Poll: 0
	// context: context deadline exceeded at +3s
	// context: context deadline exceeded at +33s
	// +0s Timeout Task timed out after 3.00 seconds kept: 1
	// +30s Timeout Task timed out after 3.00 seconds kept: 1
}

// On a FIFO queue, a failed message holds back the rest of its group: the later messages of
// group A are not deleted even though the handler did not list them, while group B goes on.
func Example_fifoGroupHeldBack() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders.fifo"), Attributes: map[string]string{
		"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "30",
	}})
	var entries []types.SendMessageBatchRequestEntry
	for i, g := range []string{"A", "B", "A", "B", "A"} {
		entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), MessageBody: aws.String(g + strconv.Itoa(i)), MessageGroupId: aws.String(g)})
	}
	f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries})
	failed := false
	handler := func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
		var resp events.SQSEventResponse
		var bodies []string
		for _, r := range ev.Records {
			bodies = append(bodies, r.Body)
			if r.Body == "A2" && !failed {
				failed = true
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
			}
		}
		fmt.Println(strings.Join(bodies, " "))
		return resp, nil
	}
	trig, _ := lambdasqs.New(f, "orders.fifo", handler, lambdasqs.Config{FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures}})
	if err := trig.Advance(ctx, time.Minute); err != nil {
		panic(err)
	}
	for _, inv := range trig.Invocations() {
		fmt.Printf("+%v: %v, %d deleted, %d kept\n", inv.At.Sub(sqsfake.DefaultStart), inv.Outcome, len(inv.Deleted), len(inv.Kept))
	}
	// Output:
	// A0 A2 A4 B1 B3
	// A2 A4
	// +0s: PartialFailure, 3 deleted, 2 kept
	// +30s: Success, 2 deleted, 0 kept
}

// FilterCriteria: Lambda deletes the messages no filter matches without invoking the function,
// so the handler only sees the orders.
func Example_filterCriteria() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("events")})
	for _, b := range []string{`{"type":"order","total":12}`, `{"type":"refund","total":5}`, "ping", `{"type":"order","total":0}`} {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(b)})
	}
	trig, err := lambdasqs.New(f, "events", func(_ context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			fmt.Println("handled", r.Body)
		}
		return nil
	}, lambdasqs.Config{FilterCriteria: lambdasqs.FilterCriteria{Filters: []lambdasqs.Filter{
		{Pattern: `{"body":{"type":["order"],"total":[{"numeric":[">",0]}]}}`},
	}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := trig.Poll(ctx); err != nil {
		panic(err)
	}
	info, _ := f.Queue("events")
	fmt.Println("filtered out:", len(trig.Filtered()), "left in the queue:", info.Visible+info.InFlight)
	// Output:
	// handled {"type":"order","total":12}
	// filtered out: 3 left in the queue: 0
}

// A function with a reserved concurrency of 1 whose work takes 10 s (lambdasqs.Sleep, on the
// fake's clock): the mapping starts two batches at once, the second is throttled, and the
// poller retries it 1, 2, 4 and 8 s later, when the first invocation has ended. (A retry is
// made only while the invocation could still end, at the function's 15 s timeout, within
// the batch's 30 s visibility timeout.)
func Example_throttling() {
	ctx := context.Background()
	f := setup(ctx, 2)
	handler := func(ctx context.Context, ev events.SQSEvent) error {
		return lambdasqs.Sleep(ctx, 10*time.Second)
	}
	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{
		BatchSize: 1, FunctionTimeout: 15 * time.Second, ReservedConcurrency: aws.Int32(1),
	})
	if err != nil {
		panic(err)
	}
	if err := trig.Advance(ctx, time.Minute); err != nil {
		panic(err)
	}
	for _, inv := range trig.Invocations() {
		fmt.Printf("+%v–%v: %v\n", inv.At.Sub(sqsfake.DefaultStart), inv.Ended.Sub(sqsfake.DefaultStart), inv.Outcome)
	}
	// Output:
	// +0s–0s: Throttled
	// +1s–1s: Throttled
	// +3s–3s: Throttled
	// +7s–7s: Throttled
	// +0s–10s: Success
	// +15s–25s: Success
}

// Provisioned mode: two pollers are ready from the start, so twenty of sixty slow messages
// run at once, where the default mode starts with five; at one minute the pollers have
// scaled and the rest run together.
func Example_provisionedMode() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "120"}})
	for i := range 60 {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("m" + strconv.Itoa(i))})
	}
	handler := func(ctx context.Context, ev events.SQSEvent) error {
		return lambdasqs.Sleep(ctx, 40*time.Second)
	}
	trig, err := lambdasqs.New(f, "jobs", handler, lambdasqs.Config{
		BatchSize: 1, FunctionTimeout: 60 * time.Second,
		ProvisionedPollerConfig: &lambdasqs.ProvisionedPollerConfig{MinimumPollers: 2, MaximumPollers: 10},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("ready:", trig.Concurrency())
	f.Advance(2 * time.Minute)
	starts := map[time.Duration]int{}
	for _, inv := range trig.Invocations() {
		starts[inv.At.Sub(sqsfake.DefaultStart)]++
	}
	fmt.Println("started:", starts)
	// Output:
	// ready: 20
	// started: map[0s:20 40s:20 1m0s:20]
}
