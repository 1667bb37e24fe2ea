package lambdasqs_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

func sendBatch(b *testing.B, f *sqsfake.Fake, url string, n int) {
	entries := make([]types.SendMessageBatchRequestEntry, 0, 10)
	ids := []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}
	for i := 0; i < n; i += 10 {
		entries = entries[:0]
		for j := range min(10, n-i) {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: &ids[j], MessageBody: aws.String("payload")})
		}
		if _, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: &url, Entries: entries}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInvokeBatchOf10 receives a batch of 10, invokes a handler and deletes the batch;
// an op is one batch. The bar: at most 20 µs an op. Sending the messages is outside the timer:
// they are sent 1,000 batches at a time, so that pausing the timer (which reads the runtime's
// memory statistics, tens of µs) does not weigh on every op; the one empty receive that tells
// Poll the queue is drained is paid once per 1,000 batches. Each 1,000 batches run on a new
// fake, as a test's would: one fake driven through hundreds of thousands of batches keeps
// every message's history (WithHistoryLimit bounds it), and the benchmark would measure the
// memory that history takes from the system rather than a batch.
func BenchmarkInvokeBatchOf10(b *testing.B) {
	ctx := context.Background()
	n := 0
	handler := func(_ context.Context, ev events.SQSEvent) error {
		n += len(ev.Records)
		return nil
	}
	b.ResetTimer()
	for done := 0; done < b.N; {
		k := min(chunk, b.N-done)
		b.StopTimer()
		f := sqsfake.New()
		url := queue(b, f, "q", nil)
		trig, err := lambdasqs.New(f, "q", handler, lambdasqs.Config{})
		if err != nil {
			b.Fatal(err)
		}
		sendBatch(b, f, url, 10*k)
		b.StartTimer()
		if err := trig.Poll(ctx); err != nil {
			b.Fatal(err)
		}
		done += k
	}
	b.StopTimer()
	if n != 10*b.N {
		b.Fatalf("%d messages handled, want %d", n, 10*b.N)
	}
}

// BenchmarkDrain1000With1PercentFailures drains 1,000 messages of which 1 % fail once, with
// ReportBatchItemFailures: 100 batches, then the 10 failures again after the visibility timeout.
// The bar: under 50 ms an op.
func BenchmarkDrain1000With1PercentFailures(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		f := sqsfake.New()
		url := queue(b, f, "q", nil)
		sendBatch(b, f, url, 1000)
		seen := map[string]bool{}
		n := 0
		trig, err := lambdasqs.New(f, "q", func(_ context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			var resp events.SQSEventResponse
			for _, r := range ev.Records {
				n++
				if n%100 == 0 && !seen[r.MessageId] {
					seen[r.MessageId] = true
					resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: r.MessageId})
				}
			}
			return resp, nil
		}, lambdasqs.Config{FunctionResponseTypes: []string{lambdasqs.ReportBatchItemFailures}})
		if err != nil {
			b.Fatal(err)
		}
		if err := trig.Advance(ctx, time.Minute); err != nil {
			b.Fatal(err)
		}
		if info, _ := f.Queue("q"); info.Visible+info.InFlight != 0 {
			b.Fatalf("%d messages left", info.Visible+info.InFlight)
		}
	}
}

var chunk = 1000

// everyMinute arms, on the fake's VirtualClock, a sender that sends one message to the queue
// every minute, inside the moves of the clock.
func everyMinute(b *testing.B, f *sqsfake.Fake, url string) {
	clk := f.Clock().(*sqsfake.VirtualClock)
	body := aws.String("tick")
	var arm func()
	arm = func() {
		timed, _ := clk.WithDeadline(context.Background(), clk.Now().Add(time.Minute))
		context.AfterFunc(timed, func() {}) // keeps the standard library's watcher out of the way
		timed.(interface{ AfterFunc(func()) func() bool }).AfterFunc(func() {
			if _, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: &url, MessageBody: body}); err != nil {
				b.Error(err)
			}
			arm()
		})
	}
	arm()
}

// BenchmarkTwelveHourAdvance: one 12-hour move of the fake's clock over a trigger whose queue
// receives a message every minute: 720 invocations, each at the minute its message arrives.
// Bar: 50 ms.
func BenchmarkTwelveHourAdvance(b *testing.B) { benchmarkTwelveHours(b, 1, 12*time.Hour) }

// BenchmarkTwelveHourAdvanceByMinutes: the same, in 720 one-minute moves. Bar: within 2× of
// BenchmarkTwelveHourAdvance.
func BenchmarkTwelveHourAdvanceByMinutes(b *testing.B) { benchmarkTwelveHours(b, 720, time.Minute) }

func benchmarkTwelveHours(b *testing.B, moves int, d time.Duration) {
	for b.Loop() {
		b.StopTimer()
		f := sqsfake.New()
		url := queue(b, f, "q", nil)
		n := 0
		trig, err := lambdasqs.New(f, "q", func(_ context.Context, ev events.SQSEvent) error {
			n += len(ev.Records)
			return nil
		}, lambdasqs.Config{})
		if err != nil {
			b.Fatal(err)
		}
		everyMinute(b, f, url)
		b.StartTimer()
		for range moves {
			f.Advance(d)
		}
		b.StopTimer()
		if got := len(trig.Invocations()); got != 720 || n != 720 {
			b.Fatalf("%d invocations of %d messages, want 720", got, n)
		}
		b.StartTimer()
	}
}
