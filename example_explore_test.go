package sqsfake_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
)

// Explore's examples: an order service — a producer that publishes 20 orders, a worker that
// charges each — with seven bugs that an ideal SQS never shows and real SQS does, each beside
// the correct code. TestExploreFindsEachBug runs them.

// orderQueue is the part of the SQS API the order service uses; *sqs.Client satisfies it,
// and so does *sqsfake.Fake.
type orderQueue interface {
	SendMessageBatch(context.Context, *sqs.SendMessageBatchInput, ...func(*sqs.Options)) (*sqs.SendMessageBatchOutput, error)
	ReceiveMessage(context.Context, *sqs.ReceiveMessageInput, ...func(*sqs.Options)) (*sqs.ReceiveMessageOutput, error)
	DeleteMessage(context.Context, *sqs.DeleteMessageInput, ...func(*sqs.Options)) (*sqs.DeleteMessageOutput, error)
	DeleteMessageBatch(context.Context, *sqs.DeleteMessageBatchInput, ...func(*sqs.Options)) (*sqs.DeleteMessageBatchOutput, error)
}

// bug is one of the seven mistakes the order service can be built with; noBug builds it right.
type bug int

const (
	noBug                      bug = iota
	chargesPerDelivery             // charges every delivery, not every order
	stopsAtFirstEmptyShortPoll     // drains with short polls and stops at the first empty one
	trustsQueueOrder               // keeps the last order it saw as the newest
	rerunsJobWhenDeleteFails       // runs the job again when a delete's answer is lost
	ignoresDeleteBatchFailed       // deletes in batches and ignores DeleteMessageBatch's Failed
	ignoresSendBatchFailed         // the producer ignores SendMessageBatch's Failed
	retriesThrottlingAtOnce        // retries a failed call at once, three times, then gives up
)

var bugNames = map[bug]string{
	noBug: "correct", chargesPerDelivery: "charges per delivery", stopsAtFirstEmptyShortPoll: "stops at the first empty short poll",
	trustsQueueOrder: "trusts standard-queue order", rerunsJobWhenDeleteFails: "re-runs a job when a delete's answer is lost",
	ignoresDeleteBatchFailed: "ignores DeleteMessageBatch's Failed", ignoresSendBatchFailed: "producer ignores SendMessageBatch's Failed",
	retriesThrottlingAtOnce: "retries throttling at once",
}

// orderService publishes and consumes orders. sleep waits on its clock: in production
// time.Sleep, in a test the fake's VirtualClock's Sleep.
type orderService struct {
	q     orderQueue
	url   string
	sleep func(time.Duration)
	bug   bug
	// batchDeletes makes it delete each receive's messages with one DeleteMessageBatch.
	batchDeletes bool

	charged  map[string]int // what the payment provider saw
	newest   int            // the highest order number charged so far
	received []string       // the MessageIds it received
}

// publish sends the orders in batches of 10, retrying what fails.
func (s *orderService) publish(ctx context.Context, orders []string) error {
	for start := 0; start < len(orders); start += 10 {
		pending := map[string]string{} // entry Id → order
		for i, o := range orders[start:min(start+10, len(orders))] {
			pending[strconv.Itoa(i)] = o
		}
		for attempt := 0; len(pending) > 0; attempt++ {
			var entries []types.SendMessageBatchRequestEntry
			for id, o := range pending {
				entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(o)})
			}
			out, err := s.q.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: &s.url, Entries: sortEntries(entries)})
			if err != nil {
				if !s.backOff(attempt) {
					return err
				}
				continue // a lost answer makes a duplicate here: the consumer copes
			}
			for _, ok := range out.Successful {
				delete(pending, *ok.Id)
			}
			if s.bug == ignoresSendBatchFailed {
				break // BUG: the entries in out.Failed are never sent
			}
			if len(pending) > 0 && !s.backOff(attempt) {
				return fmt.Errorf("%d orders not sent", len(pending))
			}
		}
	}
	return nil
}

// consume charges each order once, until it has charged want orders or the queue has been
// empty for a minute.
func (s *orderService) consume(ctx context.Context, want int) error {
	wait := int32(20) // long polls
	if s.bug == stopsAtFirstEmptyShortPoll {
		wait = 0
	}
	for idle := 0; len(s.charged) < want && idle < 3; {
		var out *sqs.ReceiveMessageOutput
		err := s.retry(func() (err error) {
			out, err = s.q.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: &s.url, MaxNumberOfMessages: 10, WaitTimeSeconds: wait})
			return err
		})
		if err != nil {
			return err
		}
		if len(out.Messages) == 0 {
			if s.bug == stopsAtFirstEmptyShortPoll {
				return nil // BUG: a short poll asks only some servers; empty does not mean drained
			}
			idle++
			continue
		}
		idle = 0
		var done []types.Message
		for _, m := range out.Messages {
			s.received = append(s.received, *m.MessageId)
			order := *m.Body
			if s.charged[order] == 0 || s.bug == chargesPerDelivery { // BUG with chargesPerDelivery: a duplicate is charged again
				s.charge(order)
			}
			if s.batchDeletes {
				done = append(done, m)
				continue
			}
			if err := s.deleteOne(ctx, m); err != nil {
				return err
			}
		}
		if err := s.deleteBatch(ctx, done); err != nil {
			return err
		}
	}
	return nil
}

func (s *orderService) charge(order string) {
	s.charged[order]++
	n, _ := strconv.Atoi(strings.TrimPrefix(order, "order-"))
	if s.bug == trustsQueueOrder {
		s.newest = n // BUG: standard queues deliver in roughly, not exactly, the order sent
	} else {
		s.newest = max(s.newest, n)
	}
}

// deleteOne deletes a message, retrying the delete — never the job — when it fails.
func (s *orderService) deleteOne(ctx context.Context, m types.Message) error {
	for attempt := 0; ; attempt++ {
		_, err := s.q.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: &s.url, ReceiptHandle: m.ReceiptHandle})
		if err == nil {
			return nil
		}
		if s.bug == rerunsJobWhenDeleteFails {
			s.charge(*m.Body) // BUG: the delete failed, so "the job failed": run it again
		}
		if !s.backOff(attempt) {
			return err
		}
	}
}

// deleteBatch deletes msgs with DeleteMessageBatch, retrying the entries that fail.
func (s *orderService) deleteBatch(ctx context.Context, msgs []types.Message) error {
	for attempt := 0; len(msgs) > 0; attempt++ {
		var entries []types.DeleteMessageBatchRequestEntry
		for i, m := range msgs {
			entries = append(entries, types.DeleteMessageBatchRequestEntry{Id: aws.String(strconv.Itoa(i)), ReceiptHandle: m.ReceiptHandle})
		}
		out, err := s.q.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &s.url, Entries: entries})
		if err != nil {
			if !s.backOff(attempt) {
				return err
			}
			continue
		}
		if s.bug == ignoresDeleteBatchFailed {
			return nil // BUG: the call succeeded, but the entries in out.Failed are not deleted
		}
		var again []types.Message
		for _, f := range out.Failed {
			i, _ := strconv.Atoi(*f.Id)
			again = append(again, msgs[i])
		}
		msgs = again
		if len(msgs) > 0 && !s.backOff(attempt) {
			return fmt.Errorf("%d messages not deleted", len(msgs))
		}
	}
	return nil
}

// retry calls call until it succeeds, backing off between tries.
func (s *orderService) retry(call func() error) error {
	for attempt := 0; ; attempt++ {
		err := call()
		if err == nil || !s.backOff(attempt) {
			return err
		}
	}
}

// backOff waits before the next attempt of a call that failed: 100 ms, doubling up to 10 s,
// for ten attempts. It reports false when the caller should give up.
func (s *orderService) backOff(attempt int) bool {
	if s.bug == retriesThrottlingAtOnce {
		return attempt < 2 // BUG: three tries at once; SQS throttles for a while, not a call
	}
	if attempt >= 10 {
		return false
	}
	s.sleep(min(100*time.Millisecond<<attempt, 10*time.Second))
	return true
}

// sortEntries orders entries by Id, so that a batch does not depend on map order.
func sortEntries(entries []types.SendMessageBatchRequestEntry) []types.SendMessageBatchRequestEntry {
	for i := 1; i < len(entries); i++ {
		for j := i; j > 0 && *entries[j].Id < *entries[j-1].Id; j-- {
			entries[j], entries[j-1] = entries[j-1], entries[j]
		}
	}
	return entries
}

// orderScenario is Explore's body for the order service built with b, deleting with
// DeleteMessageBatch when batches is set: it publishes 20 orders, consumes them, and checks
// the service's invariants — each order charged once, the newest order the last one, every
// message it received deleted.
func orderScenario(b bug, batches bool) func(t testing.TB, f *sqsfake.Fake) {
	return func(t testing.TB, f *sqsfake.Fake) {
		ctx := t.Context()
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("orders"),
			Attributes: map[string]string{"VisibilityTimeout": "30"}})
		if err != nil {
			t.Fatal(err)
		}
		s := &orderService{q: f, url: *q.QueueUrl, sleep: f.Clock().Sleep, bug: b, batchDeletes: batches,
			charged: map[string]int{}}
		var orders []string
		for i := 1; i <= 20; i++ {
			orders = append(orders, fmt.Sprint("order-", i))
		}
		if err := s.publish(ctx, orders); err != nil {
			t.Fatalf("publish: %v", err)
		}
		if err := s.consume(ctx, len(orders)); err != nil {
			t.Fatalf("consume: %v", err)
		}

		for _, o := range orders {
			if n := s.charged[o]; n != 1 {
				t.Errorf("%s charged %d times, want once", o, n)
			}
		}
		if s.newest != len(orders) {
			t.Errorf("the newest order is order-%d, want order-%d", s.newest, len(orders))
		}
		for _, id := range s.received {
			if tl := f.Timeline(id); !tl.Has(sqsfake.EventDeleted) && !tl.Has(sqsfake.EventDeleteMissed) {
				t.Errorf("message %s was received and never deleted", id)
				break
			}
		}
	}
}

// reportT stands in for the *testing.T of a test in this example: it prints what Explore
// reports. In a test, pass t.
type reportT struct {
	testing.TB
	name string
}

func (reportT) Helper()                           {}
func (r reportT) Name() string                    { return r.name }
func (reportT) Error(args ...any)                 { fmt.Println(args...) }
func (reportT) Errorf(format string, args ...any) { fmt.Printf(format+"\n", args...) }

// Explore runs the order service's scenario under 100 seeds of the disturbances SQS permits.
// The service charges every delivery, not every order: on the fourth seed a message comes
// twice, and Explore reports the one disturbance that matters, the failure, and a line that
// replays exactly that run.
func ExampleExplore() {
	var t testing.TB = reportT{name: "TestOrders"} // in a test: the test's t

	sqsfake.Explore(t, orderScenario(chargesPerDelivery, false))
	// Output:
	// sqsfake.Explore: seed 0 failed (run 1 of 100); its 11 disturbances shrink to 1 (6 replays):
	//   - duplicate delivery of m-8 "order-8" by ReceiveMessage #1: a copy stayed visible, for a later receive
	// The body failed:
	//     example_explore_test.go:264: order-8 charged 2 times, want once
	// Replay it: go test -run '^TestOrders$' -sqsfake.replay='0:dup.8.1'
}

// keptT is the test Explore reports to in TestExploreFindsEachBug: it keeps the report.
type keptT struct {
	testing.TB
	reports []string
}

func (k *keptT) Helper()           {}
func (k *keptT) Error(args ...any) { k.reports = append(k.reports, fmt.Sprint(args...)) }
func (k *keptT) Errorf(format string, args ...any) {
	k.reports = append(k.reports, fmt.Sprintf(format, args...))
}

var replayClasses = regexp.MustCompile(`-sqsfake\.replay='\d+:([^']*)'`)

// Explore catches each of the seven bugs within 200 runs, with a disturbance of the class
// that breaks it in the shrunk list, and the correct service passes every run. (A bug may
// be caught by more than one class: a consumer that charges per delivery is broken by a
// duplicate, by a deleted message that comes back, and by the copy a producer sends again
// after losing SendMessageBatch's answer.)
func TestExploreFindsEachBug(t *testing.T) {
	for _, c := range []struct {
		bug     bug
		batches bool
		classes []string // the classes one of which the shrunk list must hold
	}{
		{chargesPerDelivery, false, []string{"dup", "redeliver", "lost"}},
		{stopsAtFirstEmptyShortPoll, false, []string{"sample", "lost"}},
		{trustsQueueOrder, false, []string{"reorder", "lost", "entry"}},
		{rerunsJobWhenDeleteFails, false, []string{"lost", "5xx", "throttle"}},
		{ignoresDeleteBatchFailed, true, []string{"entry"}},
		{ignoresSendBatchFailed, false, []string{"entry"}},
		{retriesThrottlingAtOnce, false, []string{"throttle"}},
	} {
		t.Run(bugNames[c.bug], func(t *testing.T) {
			k := &keptT{TB: t}
			sqsfake.Explore(k, orderScenario(c.bug, c.batches), sqsfake.Exploration{Runs: 200})
			if len(k.reports) != 1 {
				t.Fatalf("want one report, got %d", len(k.reports))
			}
			t.Log(k.reports[0])
			m := replayClasses.FindStringSubmatch(k.reports[0])
			if m == nil {
				t.Fatal("no replay line")
			}
			found := false
			for _, d := range strings.Split(m[1], ",") {
				class, _, _ := strings.Cut(d, ".")
				found = found || slices.Contains(c.classes, class)
			}
			if !found {
				t.Errorf("the shrunk list %s holds none of %v", m[1], c.classes)
			}

			correct := &keptT{TB: t}
			sqsfake.Explore(correct, orderScenario(noBug, c.batches), sqsfake.Exploration{Runs: 200})
			if len(correct.reports) > 0 {
				t.Errorf("the correct service failed:\n%s", correct.reports[0])
			}
		})
	}
}

// The table-driven redelivery story's Explore twin. The table scripts one row for each way
// the job's message comes back — a crash, a visibility change, a poison message; here the
// worker of the table's "crash, then success" row is written once, and Explore brings the
// message back every way SQS permits. The worker that does the job on every delivery does
// it twice on the first seed; the one that remembers what it did passes every run.
func Example_redeliveryExplore() {
	var t testing.TB = reportT{name: "TestWorker"} // in a test: the test's t
	worker := func(remembers bool) func(t testing.TB, f *sqsfake.Fake) {
		return func(t testing.TB, f *sqsfake.Fake) {
			ctx := t.Context()
			clk := f.Clock()
			f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
			q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{
				"VisibilityTimeout": "30",
				"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"5"}`,
			}})
			send := &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("job-1")}
			for _, err := f.SendMessage(ctx, send); err != nil; _, err = f.SendMessage(ctx, send) {
				clk.Sleep(time.Second) // throttled, or failed: send again
			}

			done, crashed := map[string]int{}, false
			for idle := 0; idle < 3; { // until the queue has been quiet for a minute
				out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
				if err != nil {
					clk.Sleep(time.Second)
					continue
				}
				if idle++; len(out.Messages) == 0 {
					continue
				}
				idle = 0
				m := out.Messages[0]
				if !crashed {
					crashed = true // the table's row: the first attempt crashes before it deletes
					continue
				}
				if !remembers || done[*m.Body] == 0 {
					done[*m.Body]++ // the job
				}
				del := &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle}
				for _, err := f.DeleteMessage(ctx, del); err != nil; _, err = f.DeleteMessage(ctx, del) {
					clk.Sleep(time.Second)
				}
			}
			if done["job-1"] != 1 {
				t.Errorf("job-1 done %d times, want once", done["job-1"])
			}
		}
	}
	sqsfake.Explore(t, worker(false))
	sqsfake.Explore(t, worker(true)) // silent
	// Output:
	// sqsfake.Explore: seed 15 failed (run 16 of 100); its 3 disturbances shrink to 1 (5 replays):
	//   - deleted m-1 "job-1" comes back: DeleteMessage #1 succeeded, but a copy stayed, visible again when its visibility timeout ends
	// The body failed:
	//     example_explore_test.go:415: job-1 done 2 times, want once
	// Replay it: go test -run '^TestWorker$' -sqsfake.replay='15:redeliver.1.2'
}

// Short-poll sampling as a Chaos setting: a short poll that could return messages returns
// fewer, or none, as SQS's sample of its servers may. A consumer that polls again gets them
// all; one that took the first empty answer for an empty queue would stop early.
func ExampleChaos_shortPollSampling() {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithChaos(sqsfake.Chaos{Seed: 22, ShortPollRate: 0.5}))
	q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "300"}})
	for i := range 10 {
		f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("job-", i))})
	}
	var got []int
	received := 0
	for received < 10 {
		out, _ := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
		got = append(got, len(out.Messages))
		received += len(out.Messages)
	}
	fmt.Println("messages per short poll:", got)
	// Output:
	// messages per short poll: [0 0 9 1]
}
