package sqsfake

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// Benchmarks for the bars the core issue sets, tightened by issue 24 (the cost of a call with
// every feature on: accounts, the access check, the call record, epoch receipt handles and
// timelines):
//   - a send+receive+delete cycle ≤ 2 µs and ≤ 15 allocations; issue 24: ≤ 1.5 µs and ≤ 8
//     allocations on a quiet machine, or ≤ 0.6× the figure before issue 24 in the same run;
//   - receive+delete with 1,000,000 queued within 2× of the same with 1,000 queued; issue
//     24: within 1.5×;
//   - an Advance that expires 100,000 in-flight messages ≤ 1 µs per message beyond the clock;
//   - ≤ 300 bytes per queued 100-byte message beyond the body; issue 24: ≤ 200 bytes;
//   - a SendMessage through Handler in the query protocol ≤ 1.5× the same in awsJson1_0;
//     issue 24: awsJson1_0 ≤ 0.7× the figure before issue 24 in the same run.
//
// The machine these run on is shared and noisy: compare builds by interleaved runs of their
// test binaries (go test -c), -test.cpu 1, several counts each, and take medians.
// Run: go test -run '^$' -bench . -benchmem

var body100 = strings.Repeat("x", 100)

func benchQueue(b testing.TB, f *Fake, attrs map[string]string) *string {
	b.Helper()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("bench"), Attributes: attrs})
	if err != nil {
		b.Fatal(err)
	}
	return out.QueueUrl
}

// BenchmarkSendReceiveDeleteCycle measures a send, a receive and a delete of a 100-byte
// message through the fake's methods, every feature on. Bar (issue 24): ≤ 1.5 µs and ≤ 8
// allocations on a quiet machine, or ≤ 0.6× the figure before issue 24 in the same run.
// Measured (2 cores, -cpu 1, 1,000,000 iterations, 5 interleaved rounds, medians): 1.49 µs
// and 4 allocations, against 2.61 µs and 10 before issue 24 (0.57×).
func BenchmarkSendReceiveDeleteCycle(b *testing.B) { benchCycle(b, New()) }

// BenchmarkSendReceiveDeleteCycleBoundedHistory is BenchmarkSendReceiveDeleteCycle on a fake
// whose event log is bounded (WithHistoryLimit(0)), so that it reuses its memory: the
// difference is what keeping every event costs, most of it in the fresh memory the growing
// log, and the garbage collector's heap goal that grows with it, take from the system.
func BenchmarkSendReceiveDeleteCycleBoundedHistory(b *testing.B) {
	benchCycle(b, New(WithHistoryLimit(0)))
}

func benchCycle(b *testing.B, f *Fake) {
	ctx := context.Background()
	q := benchQueue(b, f, nil)
	send := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body100)}
	recv := &sqs.ReceiveMessageInput{QueueUrl: q}
	del := &sqs.DeleteMessageInput{QueueUrl: q}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.SendMessage(ctx, send); err != nil {
			b.Fatal(err)
		}
		out, err := f.ReceiveMessage(ctx, recv)
		if err != nil || len(out.Messages) != 1 {
			b.Fatal(err, out)
		}
		del.ReceiptHandle = out.Messages[0].ReceiptHandle
		if _, err := f.DeleteMessage(ctx, del); err != nil {
			b.Fatal(err)
		}
	}
}

// fill sends n messages of 100 bytes.
func fill(b *testing.B, f *Fake, q *string, n int) {
	b.Helper()
	entries := make([]types.SendMessageBatchRequestEntry, 10)
	for i := range entries {
		entries[i] = types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), MessageBody: aws.String(body100)}
	}
	for sent := 0; sent < n; sent += 10 {
		if _, err := f.SendMessageBatch(context.Background(), &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReceiveDelete measures one receive+delete with many messages queued. Each
// iteration also sends one message, so the queue stays at its size (stopping the timer
// around the send would cost more than what is measured). Compare queued=1000 with
// queued=1000000: the cost must stay within 2× (issue 24: within 1.5×).
func BenchmarkReceiveDelete(b *testing.B) {
	for _, n := range []int{1000, 1000000} {
		b.Run(fmt.Sprint("queued=", n), func(b *testing.B) {
			ctx := context.Background()
			f := New()
			q := benchQueue(b, f, nil)
			fill(b, f, q, n)
			recv := &sqs.ReceiveMessageInput{QueueUrl: q}
			del := &sqs.DeleteMessageInput{QueueUrl: q}
			send := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body100)}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f.SendMessage(ctx, send); err != nil {
					b.Fatal(err)
				}
				out, err := f.ReceiveMessage(ctx, recv)
				if err != nil || len(out.Messages) != 1 {
					b.Fatal(err, out)
				}
				del.ReceiptHandle = out.Messages[0].ReceiptHandle
				if _, err := f.DeleteMessage(ctx, del); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// clockOverhead measures what an Advance by d plus the call that settles it costs on a
// fake with nothing to do: the clock's own cost, which benchmarks of the work an Advance
// brings about subtract.
func clockOverhead(b *testing.B, d time.Duration, rounds int) time.Duration {
	b.Helper()
	ctx := context.Background()
	empty := New()
	attrs := &sqs.GetQueueAttributesInput{QueueUrl: benchQueue(b, empty, nil),
		AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages"}}
	start := time.Now()
	for range rounds {
		empty.Advance(d)
		if _, err := empty.GetQueueAttributes(ctx, attrs); err != nil {
			b.Fatal(err)
		}
	}
	return time.Since(start) / time.Duration(rounds)
}

// BenchmarkAdvanceExpiring100kInFlight measures an Advance past the visibility timeout of
// 100,000 in-flight messages, plus the call that settles them, minus the same Advance on an
// empty fake (whatever the clock itself costs; a benbjohnson mock would sleep 1 ms per Add). It
// reports ns per expired message.
func BenchmarkAdvanceExpiring100kInFlight(b *testing.B) {
	const n = 100000
	ctx := context.Background()
	attrs := &sqs.GetQueueAttributesInput{AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages"}}

	overhead := clockOverhead(b, 31*time.Second, 20)

	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		f := New()
		q := benchQueue(b, f, nil)
		fill(b, f, q, n)
		for received := 0; received < n; {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
			if err != nil {
				b.Fatal(err)
			}
			received += len(out.Messages)
		}
		attrs.QueueUrl = q
		runtime.GC()
		b.StartTimer()
		t0 := time.Now()
		f.Advance(31 * time.Second)
		out, err := f.GetQueueAttributes(ctx, attrs)
		total += time.Since(t0)
		if err != nil || out.Attributes["ApproximateNumberOfMessages"] != fmt.Sprint(n) {
			b.Fatal(err, out)
		}
	}
	perMsg := float64(total/time.Duration(b.N)-overhead) / n
	b.ReportMetric(perMsg, "ns/expired-msg")
	b.ReportMetric(float64(overhead.Microseconds()), "µs-clock-overhead")
}

// BenchmarkMemoryPerQueuedMessage reports the heap bytes each queued 100-byte message costs
// beyond its body. Bar: ≤ 300 bytes; issue 24: ≤ 200 bytes. Measured: 180.2 bytes (239.2
// before issue 24).
func BenchmarkMemoryPerQueuedMessage(b *testing.B) {
	const n = 200000
	ctx := context.Background()
	var perMsg float64
	for b.Loop() {
		f := New()
		q := benchQueue(b, f, nil)
		bodies := make([]string, n)
		for i := range bodies {
			bodies[i] = strings.Repeat("y", 90) + fmt.Sprintf("%010d", i)
		}
		in := &sqs.SendMessageInput{QueueUrl: q}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range bodies {
			in.MessageBody = &bodies[i]
			if _, err := f.SendMessage(ctx, in); err != nil {
				b.Fatal(err)
			}
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		perMsg = float64(after.HeapAlloc-before.HeapAlloc) / n
		runtime.KeepAlive(bodies)
		runtime.KeepAlive(f)
	}
	b.ReportMetric(perMsg, "bytes/msg")
}

// fifoBenchQueue creates a FIFO queue with content-based deduplication and sends one
// message to each of groups groups.
func fifoBenchQueue(b *testing.B, f *Fake, groups int) *string {
	b.Helper()
	out, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("bench.fifo"),
		Attributes: map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}})
	if err != nil {
		b.Fatal(err)
	}
	for g := range groups {
		if _, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: out.QueueUrl,
			MessageBody: aws.String(fmt.Sprint("seed-", g)), MessageGroupId: aws.String(fmt.Sprint("g", g))}); err != nil {
			b.Fatal(err)
		}
	}
	return out.QueueUrl
}

// BenchmarkFifoSendReceiveDeleteCycle measures a FIFO send+receive+delete cycle with 1,000
// active groups, each holding a message. Bar: ≤ 3 µs.
func BenchmarkFifoSendReceiveDeleteCycle(b *testing.B) {
	const groups = 1000
	ctx := context.Background()
	f := New()
	q := fifoBenchQueue(b, f, groups)
	groupIDs := make([]*string, groups)
	for i := range groupIDs {
		groupIDs[i] = aws.String(fmt.Sprint("g", i))
	}
	send := &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body100)}
	recv := &sqs.ReceiveMessageInput{QueueUrl: q}
	del := &sqs.DeleteMessageInput{QueueUrl: q}
	dedup := make([]byte, 0, 24)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		send.MessageGroupId = groupIDs[i%groups]
		dedup = strconv.AppendInt(dedup[:0], int64(i), 10)
		send.MessageDeduplicationId = aws.String(string(dedup))
		i++
		if _, err := f.SendMessage(ctx, send); err != nil {
			b.Fatal(err)
		}
		out, err := f.ReceiveMessage(ctx, recv)
		if err != nil || len(out.Messages) != 1 {
			b.Fatal(err, out)
		}
		del.ReceiptHandle = out.Messages[0].ReceiptHandle
		if _, err := f.DeleteMessage(ctx, del); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFifoReceive measures a FIFO receive+delete (and a send that keeps every group
// non-empty) against the number of groups: the cost must stay within 2× from 10 to 100,000.
func BenchmarkFifoReceive(b *testing.B) {
	for _, groups := range []int{10, 1000, 100000} {
		b.Run(fmt.Sprint("groups=", groups), func(b *testing.B) {
			ctx := context.Background()
			f := New()
			q := fifoBenchQueue(b, f, groups)
			recv := &sqs.ReceiveMessageInput{QueueUrl: q, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"MessageGroupId"}}
			del := &sqs.DeleteMessageInput{QueueUrl: q}
			send := &sqs.SendMessageInput{QueueUrl: q}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				out, err := f.ReceiveMessage(ctx, recv)
				if err != nil || len(out.Messages) != 1 {
					b.Fatal(err, out)
				}
				m := out.Messages[0]
				del.ReceiptHandle = m.ReceiptHandle
				if _, err := f.DeleteMessage(ctx, del); err != nil {
					b.Fatal(err)
				}
				group := m.Attributes["MessageGroupId"]
				send.MessageGroupId = &group
				send.MessageBody = aws.String(strconv.Itoa(i))
				if _, err := f.SendMessage(ctx, send); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// cycleCost measures, once per run, what one send+receive+delete cycle costs, so that
// benchmarks of whole scenarios can report their cost in cycles of the same run.
var cycleCost = sync.OnceValue(func() float64 {
	ctx := context.Background()
	f := New()
	out, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("cycles")})
	if err != nil {
		panic(err)
	}
	send := &sqs.SendMessageInput{QueueUrl: out.QueueUrl, MessageBody: aws.String(body100)}
	recv := &sqs.ReceiveMessageInput{QueueUrl: out.QueueUrl}
	del := &sqs.DeleteMessageInput{QueueUrl: out.QueueUrl}
	const n = 200000
	start := time.Now()
	for range n {
		f.SendMessage(ctx, send)
		got, _ := f.ReceiveMessage(ctx, recv)
		del.ReceiptHandle = got.Messages[0].ReceiptHandle
		f.DeleteMessage(ctx, del)
	}
	return float64(time.Since(start).Nanoseconds()) / n
})

// BenchmarkRedeliveryScenario measures the scenario of a table-driven redelivery test: a new
// fake, a queue with a DLQ, one message, and four rounds of a receive and Advance(30s), after
// which the message is in the DLQ. The bar: at most 100 send+receive+delete cycles, reported
// as cycles/op.
func BenchmarkRedeliveryScenario(b *testing.B) {
	ctx := context.Background()
	recv := &sqs.ReceiveMessageInput{}
	for b.Loop() {
		f := New()
		if _, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")}); err != nil {
			b.Fatal(err)
		}
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
			"VisibilityTimeout": "30",
			"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"3"}`,
		}})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job")}); err != nil {
			b.Fatal(err)
		}
		recv.QueueUrl = q.QueueUrl
		got := 0
		for range 4 {
			out, err := f.ReceiveMessage(ctx, recv)
			if err != nil {
				b.Fatal(err)
			}
			got += len(out.Messages)
			f.Advance(30 * time.Second)
		}
		if got != 3 {
			b.Fatalf("%d receives got the message, want 3", got)
		}
	}
	b.StopTimer()
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(perOp/cycleCost(), "cycles/op")
}

// discardWriter is an http.ResponseWriter that keeps only the status, so that a benchmark of
// Handler measures the handler.
type discardWriter struct {
	header http.Header
	status int
}

func (w *discardWriter) Header() http.Header         { return w.header }
func (w *discardWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *discardWriter) WriteHeader(status int)      { w.status = status }

// BenchmarkHandlerSendMessage measures one SendMessage of a 100-byte body through Handler in
// memory, in each protocol. The bars: the query protocol costs at most 1.5× awsJson1_0;
// awsJson1_0 costs at most 0.7× its figure before issue 24 in the same run.
func BenchmarkHandlerSendMessage(b *testing.B) {
	for _, tc := range []struct {
		name, contentType, target, body string
	}{
		{"awsJson1_0", "application/x-amz-json-1.0", "AmazonSQS.SendMessage",
			`{"QueueUrl":"https://sqs.us-east-1.amazonaws.com/123456789012/bench","MessageBody":"` + body100 + `"}`},
		{"query", "application/x-www-form-urlencoded; charset=utf-8", "",
			"Action=SendMessage&Version=2012-11-05&QueueUrl=https%3A%2F%2Fsqs.us-east-1.amazonaws.com%2F123456789012%2Fbench&MessageBody=" + body100},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := New()
			benchQueue(b, f, nil)
			h := f.Handler()
			body := strings.NewReader(tc.body)
			r := httptest.NewRequest(http.MethodPost, "/", io.NopCloser(body))
			r.Header.Set("Content-Type", tc.contentType)
			if tc.target != "" {
				r.Header.Set("X-Amz-Target", tc.target)
			}
			w := &discardWriter{header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				body.Reset(tc.body)
				w.status = 0
				h.ServeHTTP(w, r)
				if w.status != http.StatusOK {
					b.Fatal(w.status)
				}
			}
		})
	}
}

// BenchmarkFairQueueReceive: a receive+delete (and the send that keeps the depth) on a fair
// queue of 1,000 tenants, one of them noisy with a backlog of 5,000 sent before everyone
// else's, against the same on a standard queue of the same depth without group ids. Bar
// (issue 22): fair ≤ 2× standard; queues that never saw a group id pay nothing
// (BenchmarkSendReceiveDeleteCycle).
func BenchmarkFairQueueReceive(b *testing.B) {
	const tenants, perTenant, backlog, noisyInFlight = 1000, 5, 5000, 40
	for _, fair := range []bool{false, true} {
		b.Run(map[bool]string{false: "standard", true: "fair-1000-tenants-one-noisy"}[fair], func(b *testing.B) {
			ctx := context.Background()
			f := New()
			q := benchQueue(b, f, map[string]string{"VisibilityTimeout": "43200"})
			group := func(name string) *string {
				if fair {
					return aws.String(name)
				}
				return nil
			}
			for range backlog + noisyInFlight {
				if _, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body100), MessageGroupId: group("noisy")}); err != nil {
					b.Fatal(err)
				}
			}
			for range noisyInFlight / 10 {
				if _, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10}); err != nil {
					b.Fatal(err)
				}
			}
			sends := make([]*sqs.SendMessageInput, tenants-1)
			for i := range sends {
				sends[i] = &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String(body100), MessageGroupId: group(fmt.Sprintf("tenant-%03d", i))}
				for range perTenant {
					if _, err := f.SendMessage(ctx, sends[i]); err != nil {
						b.Fatal(err)
					}
				}
			}
			recv := &sqs.ReceiveMessageInput{QueueUrl: q}
			del := &sqs.DeleteMessageInput{QueueUrl: q}
			runtime.GC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := f.SendMessage(ctx, sends[i%len(sends)]); err != nil {
					b.Fatal(err)
				}
				out, err := f.ReceiveMessage(ctx, recv)
				if err != nil || len(out.Messages) != 1 {
					b.Fatal(err, out)
				}
				del.ReceiptHandle = out.Messages[0].ReceiptHandle
				if _, err := f.DeleteMessage(ctx, del); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkExplore200Runs measures one Explore of 200 runs of a 20-message consume-and-delete
// scenario (consumeAndDelete20: a queue, 20 sends, long-poll receives of up to 10 and a
// delete of each, retrying what fails after a pause on the clock) at the default rates, with
// a consumer that passes every run. The bar: under 0.5 s a sweep at -cpu 1.
func BenchmarkExplore200Runs(b *testing.B) {
	for b.Loop() {
		Explore(b, consumeAndDelete20, Exploration{Runs: 200})
	}
}

// BenchmarkExploreShrink measures shrinking sendAndDrain40's failing runs of 50
// disturbances and more, of which one matters, and reports the replays each took. The bar:
// under 50 replays.
func BenchmarkExploreShrink(b *testing.B) {
	e, problem := newExplorer(b, sendAndDrain40, []Exploration{{Chaos: sendAndDrainChaos}})
	if problem != "" {
		b.Fatal(problem)
	}
	var runs []*runResult
	var seeds []uint64
	for seed := uint64(0); len(runs) < 5; seed++ {
		if r := e.run(seed, nil); r.failed() && len(r.fired) >= 50 {
			runs, seeds = append(runs, r), append(seeds, seed)
		}
	}
	replays, disturbances := 0, 0
	for i := 0; b.Loop(); i++ {
		r := runs[i%len(runs)]
		e.shrink(seeds[i%len(runs)], r)
		replays += e.replays
		disturbances += len(r.fired)
	}
	b.ReportMetric(float64(replays)/float64(b.N), "replays/op")
	b.ReportMetric(float64(disturbances)/float64(b.N), "disturbances/op")
}
