package sqsfake_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
)

// A slow handler is raced by a second delivery: its message's visibility timeout runs out
// while it works, so another consumer receives the same message. On a standard queue the
// slow handler's delete still succeeds with its old receipt handle — the work was done twice.
func Example_slowHandlerRacedBySecondDelivery() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"),
		Attributes: map[string]string{"VisibilityTimeout": "30"}})
	sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("render video 7")})

	slow, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	f.Advance(45 * time.Second) // the slow handler works for 45 s
	fast, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	fmt.Println("second delivery of the same message:", *fast.Messages[0].MessageId == *sent.MessageId)

	_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: slow.Messages[0].ReceiptHandle})
	fmt.Println("the slow handler's delete succeeds:", err == nil)
	for _, e := range f.Timeline(*sent.MessageId).Events {
		if e.Kind == sqsfake.EventReceived {
			fmt.Println(e.At.Format(time.TimeOnly), "received, receive count", e.ReceiveCount, "until", e.VisibleAt.Format(time.TimeOnly))
			continue
		}
		fmt.Println(e.At.Format(time.TimeOnly), e.Kind)
	}
	// Output:
	// second delivery of the same message: true
	// the slow handler's delete succeeds: true
	// 00:00:00 sent
	// 00:00:00 received, receive count 1 until 00:00:30
	// 00:00:30 visible again
	// 00:00:45 received, receive count 2 until 00:01:15
	// 00:00:45 deleted
}

// An idempotent consumer under duplicate delivery: WithChaos makes the standard queue
// deliver some messages twice, as SQS may — a second receive returns a message the first
// receiver has not deleted yet. Two workers poll the same queue; they remember the
// MessageIds they have processed and perform each side effect once.
func ExampleWithChaos() {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithChaos(sqsfake.Chaos{Seed: 1, DuplicateRate: 0.3}))
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("payments")})
	for i := range 20 {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("charge ", i))})
	}

	processed := map[string]bool{} // in production: a table keyed by MessageId
	charges, duplicates := 0, 0
	handle := func(m types.Message) {
		if processed[*m.MessageId] {
			duplicates++
		} else {
			processed[*m.MessageId] = true
			charges++
		}
		f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
	}
	for {
		first, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 5})
		second, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 5})
		if len(first.Messages)+len(second.Messages) == 0 {
			break
		}
		for _, m := range append(first.Messages, second.Messages...) {
			handle(m)
		}
	}
	fmt.Println("charges:", charges, "duplicates ignored:", duplicates)
	// Output:
	// charges: 20 duplicates ignored: 11
}

// Inspection: snapshots of queues and messages, and a message's timeline as text.
func ExampleFake_Timeline() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("resize photo 42")})
	f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, VisibilityTimeout: 10})
	f.Advance(12 * time.Second)
	again, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})

	info, _ := f.Queue("jobs")
	fmt.Printf("jobs: %d visible, %d in flight, %d received\n", info.Visible, info.InFlight, info.Stats.NumberOfMessagesReceived)
	m, _ := f.Message("jobs", *sent.MessageId)
	fmt.Println(m.State, "until", m.VisibleAt.Format(time.TimeOnly), "receive count", m.ReceiveCount,
		"latest handle:", m.ReceiptHandle == *again.Messages[0].ReceiptHandle)

	f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: again.Messages[0].ReceiptHandle})
	fmt.Println(f.Timeline(*sent.MessageId))
	// Output:
	// jobs: 0 visible, 1 in flight, 2 received
	// in flight until 00:00:42 receive count 2 latest handle: true
	// timeline of message e971d095-7520-4d94-b0f9-05ed8b12ebc5:
	//   2025-01-01T00:00:00Z  sent to jobs
	//   2025-01-01T00:00:00Z  received from jobs (receive 1, handle AQEBBfsBolUQA+EGmJLo4l0b4MySk0OjgYZr, visible again at 2025-01-01T00:00:10Z)
	//   2025-01-01T00:00:10Z  visible again in jobs
	//   2025-01-01T00:00:12Z  received from jobs (receive 2, handle AQEBeD9zKv0PsBdSxeFNVofCWVcUbKg83zHB, visible again at 2025-01-01T00:00:42Z)
	//   2025-01-01T00:00:12Z  deleted in jobs
}

// printT is a TestingT that prints failures, to show what an assertion reports.
type printT struct{}

func (printT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// A failed assertion says what was expected and what is there, and prints the timelines
// that explain it. In a test, pass t.
func ExampleAssertInFlightCount() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("a")})
	f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("b")})
	f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})

	ok := sqsfake.AssertInFlightCount(printT{}, f, "jobs", 2, "after the worker's first poll")
	fmt.Println(ok)
	// Output:
	// sqsfake: expected 2 messages in flight in queue jobs, but there is 1
	// queue jobs at 2025-01-01T00:00:00Z: 1 visible, 1 in flight, 0 delayed
	//   e971d095-7520-4d94-b0f9-05ed8b12ebc5  in flight until 2025-01-01T00:00:30Z, received 1 time, body "a"
	//   c2ec410a-f3d4-4548-85ab-79b8dfb8e56d  visible, received 0 times, body "b"
	// timeline of message e971d095-7520-4d94-b0f9-05ed8b12ebc5:
	//   2025-01-01T00:00:00Z  sent to jobs
	//   2025-01-01T00:00:00Z  received from jobs (receive 1, handle AQEBBfsBolUQA+EGmJLo4l0b4MySk0OjgYZr, visible again at 2025-01-01T00:00:30Z)
	// Messages: after the worker's first poll
	// false
}

// Fault injection: SQS throttles the first two sends; the producer's retry loop gets
// through on the third attempt.
func ExampleFake_InjectFault() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	f.InjectFault(sqsfake.Fault{Operation: "SendMessage", Times: 2, Err: sqsfake.ErrThrottled})

	for attempt := 1; ; attempt++ {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
		var throttled *types.RequestThrottled
		if errors.As(err, &throttled) {
			fmt.Println("attempt", attempt, "throttled:", throttled.ErrorCode())
			continue
		}
		fmt.Println("attempt", attempt, "sent:", err == nil)
		break
	}
	// Output:
	// attempt 1 throttled: RequestThrottled
	// attempt 2 throttled: RequestThrottled
	// attempt 3 sent: true
}

// A lost response: DeleteMessage succeeds on the service, but the client sees a timeout. The
// consumer retries, and the retry succeeds although the message is already gone — so the
// consumer cannot tell whether its first delete worked, and another consumer may already
// have received the message again if the delete had really failed.
func ExampleFault_loseResponse() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("ship order 9")})
	out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
	f.InjectFault(sqsfake.Fault{Operation: "DeleteMessage", Times: 1, LoseResponse: true})

	del := &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: out.Messages[0].ReceiptHandle}
	_, err := f.DeleteMessage(ctx, del)
	fmt.Println("first delete:", err)
	_, err = f.DeleteMessage(ctx, del)
	fmt.Println("retry:", err)
	// The timeline shows the delete that took effect, the answer the caller lost, and the
	// retry that found the message gone.
	for _, e := range f.Timeline(*sent.MessageId).Events[2:] {
		fmt.Println(e)
	}
	// Output:
	// first delete: operation error SQS: DeleteMessage, context deadline exceeded
	// retry: <nil>
	// 2025-01-01T00:00:00Z  deleted in jobs
	// 2025-01-01T00:00:00Z  DeleteMessage with the handle of receive 1 in jobs failed: lost response (injected fault)
	// 2025-01-01T00:00:00Z  DeleteMessage with the handle of receive 1 in jobs changed nothing (the message had already left the queue)
}

// A partial batch failure: SendMessageBatch succeeds, but one entry fails with a server
// error, as SQS may answer. The producer retries only the entries in Failed.
func ExampleFault_failEntries() {
	ctx := context.Background()
	f := sqsfake.New()
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	f.InjectFault(sqsfake.Fault{Operation: "SendMessageBatch", Times: 1,
		FailEntries: func(id string) bool { return id == "b" }})

	entries := []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("order 1")},
		{Id: aws.String("b"), MessageBody: aws.String("order 2")},
		{Id: aws.String("c"), MessageBody: aws.String("order 3")},
	}
	for attempt := 1; len(entries) > 0; attempt++ {
		out, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: entries})
		if err != nil {
			panic(err)
		}
		var retry []types.SendMessageBatchRequestEntry
		for _, failed := range out.Failed {
			fmt.Printf("attempt %d: %s failed with %s (sender's fault: %t)\n", attempt, *failed.Id, *failed.Code, failed.SenderFault)
			for _, e := range entries {
				if *e.Id == *failed.Id {
					retry = append(retry, e)
				}
			}
		}
		entries = retry
	}
	info, _ := f.Queue("orders")
	fmt.Println("messages in the queue:", len(info.Messages))
	// Output:
	// attempt 1: b failed with InternalError (sender's fault: false)
	// messages in the queue: 3
}

// TestRedeliveryTable is the table-driven redelivery test the package's examples point to:
// each row is a script of receives, clock moves and deletes against a queue whose
// RedrivePolicy sends a message to its DLQ after 3 receives, with the number of messages each
// receive returns, the message's final receive count, and where it ends.
func TestRedeliveryTable(t *testing.T) {
	// Steps: "receive" (visibility timeout 30 s), "wait <duration>", "delete" (with the
	// latest handle), "extend <seconds>" (ChangeMessageVisibility), "release" (visibility 0).
	type row struct {
		name     string
		script   []string
		received []int // messages returned by each receive
		count    int   // the message's receive count at the end
		ends     string
	}
	rows := []row{
		{"handled at once", []string{"receive", "delete"}, []int{1}, 1, "deleted"},
		{"crash, then success", []string{"receive", "wait 30s", "receive", "delete"}, []int{1, 1}, 2, "deleted"},
		{"crash, too early to see it again", []string{"receive", "wait 29s", "receive"}, []int{1, 0}, 1, "in flight"},
		{"extension prevents redelivery", []string{"receive", "wait 20s", "extend 30", "wait 20s", "receive", "delete"}, []int{1, 0}, 1, "deleted"},
		{"released for another consumer", []string{"receive", "release", "receive"}, []int{1, 1}, 2, "in flight"},
		{"poison message", []string{"receive", "wait 30s", "receive", "wait 30s", "receive", "wait 30s", "receive"}, []int{1, 1, 1, 0}, 3, "dlq"},
		{"deleted on the last chance", []string{"receive", "wait 30s", "receive", "wait 30s", "receive", "delete", "wait 30s", "receive"}, []int{1, 1, 1, 0}, 3, "deleted"},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.NewForTest(t)
			f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
			q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
				"VisibilityTimeout": "30",
				"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"3"}`,
			}})
			sent, _ := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job")})
			id := *sent.MessageId

			var handle *string
			var received []int
			for _, step := range r.script {
				verb, arg, _ := strings.Cut(step, " ")
				var err error
				switch verb {
				case "receive":
					var out *sqs.ReceiveMessageOutput
					out, err = f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
					if err == nil {
						received = append(received, len(out.Messages))
						if len(out.Messages) > 0 {
							handle = out.Messages[0].ReceiptHandle
						}
					}
				case "wait":
					d, perr := time.ParseDuration(arg)
					if perr != nil {
						t.Fatal(perr)
					}
					f.Advance(d)
				case "delete":
					_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle})
				case "extend", "release":
					var seconds int32
					if verb == "extend" {
						fmt.Sscan(arg, &seconds)
					}
					_, err = f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{
						QueueUrl: q.QueueUrl, ReceiptHandle: handle, VisibilityTimeout: seconds})
				default:
					t.Fatalf("unknown step %q", step)
				}
				if err != nil {
					t.Fatalf("%s: %v", step, err)
				}
			}

			if fmt.Sprint(received) != fmt.Sprint(r.received) {
				t.Errorf("receives returned %v messages, want %v\n%s", received, r.received, f.Timeline(id))
			}
			switch r.ends {
			case "deleted":
				sqsfake.AssertDeleted(t, f, id)
				sqsfake.AssertReceiveCount(t, f, "jobs", id, r.count)
			case "dlq":
				sqsfake.AssertMovedToDLQ(t, f, "jobs", id)
				sqsfake.AssertReceiveCount(t, f, "jobs-dlq", id, r.count)
				sqsfake.AssertQueueEmpty(t, f, "jobs")
			case "in flight":
				sqsfake.AssertInFlight(t, f, "jobs", id)
				sqsfake.AssertReceiveCount(t, f, "jobs", id, r.count)
			}
		})
	}
}

// Subtests that share a fake reset it between them. What follows a Reset gets the MessageIds
// of a new fake, but never a receipt handle issued before: a handle a leaked goroutine kept
// from the last subtest is refused, instead of deleting the message that took its place.
func ExampleFake_Reset() {
	ctx := context.Background()
	f := sqsfake.New()
	subtest := func() (messageID string, handle *string) {
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello")})
		got, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
		return *got.Messages[0].MessageId, got.Messages[0].ReceiptHandle
	}
	firstID, stale := subtest()
	f.Reset()
	secondID, current := subtest()
	fmt.Println("same MessageId:", firstID == secondID)

	_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("jobs"), ReceiptHandle: stale})
	var invalid *types.ReceiptHandleIsInvalid
	fmt.Println("handle from before the reset refused:", errors.As(err, &invalid))
	_, err = f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("jobs"), ReceiptHandle: current})
	fmt.Println("current handle deletes:", err == nil)
	// Output:
	// same MessageId: true
	// handle from before the reset refused: true
	// current handle deletes: true
}
