package sqsfake

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/require"
)

// The engine settles lazily: queue state, redrives and move tasks are worked out from the
// clock's time whenever a call looks. Whatever the clock's steps, the results must be the
// same. These tests run random scripts twice — moving the clock in one jump, and in
// quarter-second steps with a look at every queue after each — and require identical
// transcripts.

// steppingClock is a clock without timers: moving it is free, so the quarter-second run
// stays fast, and a long poll on it ends only when Advance serves it — nothing depends on
// goroutine scheduling.
type steppingClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *steppingClock) WithDeadline(parent context.Context, _ time.Time) (context.Context, context.CancelFunc) {
	return context.WithCancel(parent)
}

func (c *steppingClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// scriptQueue is a queue of a random script, with the receipt handles it was given.
type scriptQueue struct {
	name    string
	url     *string
	fifo    bool
	handles []string
}

// runScript runs the random script of seed for steps steps and returns its transcript:
// every call's result, then every queue's messages and every DLQ's move tasks. With
// stepped, each clock move is made in quarter-second steps.
func runScript(t *testing.T, seed uint64, steps int, stepped, withTasks, withPolls bool) string {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 7))
	f := New(WithClock(&steppingClock{now: DefaultStart}))
	var log strings.Builder
	create := func(name string, attrs map[string]string) *scriptQueue {
		return &scriptQueue{name: name, url: mustCreateQueue(t, f, name, attrs), fifo: strings.HasSuffix(name, ".fifo")}
	}
	redrive := func(dlq string, n int) string {
		return fmt.Sprintf(`{"deadLetterTargetArn":"%s%s","maxReceiveCount":%d}`, testArnPrefix, dlq, n)
	}
	// a → b → c, a redrive chain; f1.fifo → f2.fifo.
	c := create("c", map[string]string{"MessageRetentionPeriod": "120", "VisibilityTimeout": "3"})
	b := create("b", map[string]string{"RedrivePolicy": redrive("c", 2), "VisibilityTimeout": "2", "MessageRetentionPeriod": "300"})
	a := create("a", map[string]string{"RedrivePolicy": redrive("b", 2), "VisibilityTimeout": "2", "DelaySeconds": "1"})
	f2 := create("f2.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "2", "MessageRetentionPeriod": "90"})
	f1 := create("f1.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "3", "RedrivePolicy": redrive("f2.fifo", 2)})
	queues := []*scriptQueue{a, b, c, f1, f2}
	dlqs := []string{"b", "c", "f2.fifo"}
	render := func(q *scriptQueue, out *sqs.ReceiveMessageOutput, err error) string {
		if err != nil {
			return faultCode(err)
		}
		var got []string
		for _, m := range out.Messages {
			got = append(got, *m.Body+"/"+m.Attributes["ApproximateReceiveCount"]+"/"+m.Attributes["SentTimestamp"]+"/"+m.Attributes["ApproximateFirstReceiveTimestamp"])
			q.handles = append(q.handles, *m.ReceiptHandle)
		}
		return fmt.Sprint(got)
	}
	receive := func(q *scriptQueue, in *sqs.ReceiveMessageInput) string {
		out, err := f.ReceiveMessage(ctx, in)
		return render(q, out, err)
	}
	// At most one long poll waits at a time, in its own goroutine; its answer is written down
	// after the step that ends it. On this clock it ends only when a call or Advance serves it.
	type answer struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	var pollQ *scriptQueue
	var pollCh chan answer
	collect := func() {
		if pollCh == nil || f.Pollers() > 0 {
			return
		}
		r := <-pollCh
		fmt.Fprintf(&log, "long poll %s -> %s\n", pollQ.name, render(pollQ, r.out, r.err))
		pollCh = nil
	}
	sent := 0
	for range steps {
		q := queues[rng.IntN(len(queues))]
		switch op := rng.IntN(17); {
		case op < 3:
			sent++
			in := &sqs.SendMessageInput{QueueUrl: q.url, MessageBody: aws.String(fmt.Sprint("m", sent))}
			if q.fifo {
				in.MessageGroupId = aws.String(fmt.Sprint("g", rng.IntN(3)))
			}
			_, err := f.SendMessage(ctx, in)
			fmt.Fprintf(&log, "send %s %s\n", q.name, faultCode(err))
		case op < 6:
			fmt.Fprintf(&log, "receive %s %s\n", q.name, receive(q, &sqs.ReceiveMessageInput{QueueUrl: q.url, MaxNumberOfMessages: int32(1 + rng.IntN(4)),
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SentTimestamp"}}))
		case op == 6 && len(q.handles) > 0:
			h := q.handles[rng.IntN(len(q.handles))]
			_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.url, ReceiptHandle: &h})
			fmt.Fprintf(&log, "delete %s %s\n", q.name, faultCode(err))
		case op == 7 && len(q.handles) > 0:
			h := q.handles[rng.IntN(len(q.handles))]
			_, err := f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.url, ReceiptHandle: &h, VisibilityTimeout: int32(rng.IntN(5))})
			fmt.Fprintf(&log, "visibility %s %s\n", q.name, faultCode(err))
		case op < 10:
			d := time.Duration(rng.IntN(8000)) * time.Millisecond
			if stepped {
				for ; d > 0; d -= 250 * time.Millisecond {
					f.Advance(min(d, 250*time.Millisecond))
					f.Queues()
				}
			} else {
				f.Advance(d)
			}
			log.WriteString("advance\n")
		case op == 10 && withTasks:
			src := dlqs[rng.IntN(len(dlqs))]
			in := &sqs.StartMessageMoveTaskInput{SourceArn: aws.String(testArnPrefix + src), MaxNumberOfMessagesPerSecond: aws.Int32(int32(1 + rng.IntN(3)))}
			if src == "c" && rng.IntN(2) == 0 {
				in.DestinationArn = aws.String(testArnPrefix + "a")
			}
			_, err := f.StartMessageMoveTask(ctx, in)
			fmt.Fprintf(&log, "start task %s %s\n", src, faultCode(err))
		case op == 11:
			_, err := f.PurgeQueue(ctx, &sqs.PurgeQueueInput{QueueUrl: q.url})
			fmt.Fprintf(&log, "purge %s %s\n", q.name, faultCode(err))
		case op == 12:
			attrs := map[string]string{}
			switch rng.IntN(3) {
			case 0:
				attrs["DelaySeconds"] = fmt.Sprint(rng.IntN(4))
			case 1:
				attrs["MessageRetentionPeriod"] = fmt.Sprint(60 + rng.IntN(120))
			default:
				attrs["VisibilityTimeout"] = fmt.Sprint(1 + rng.IntN(4))
			}
			_, err := f.SetQueueAttributes(ctx, &sqs.SetQueueAttributesInput{QueueUrl: q.url, Attributes: attrs})
			fmt.Fprintf(&log, "set %s %v %s\n", q.name, attrs, faultCode(err))
		case op == 13 && q.fifo:
			attempt := fmt.Sprint("attempt-", rng.IntN(3))
			fmt.Fprintf(&log, "receive attempt %s %s\n", q.name, receive(q, &sqs.ReceiveMessageInput{QueueUrl: q.url, MaxNumberOfMessages: 3,
				ReceiveRequestAttemptId: &attempt, MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SentTimestamp"}}))
		case op == 14 && withTasks:
			src := dlqs[rng.IntN(len(dlqs))]
			out, err := f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(testArnPrefix + src)})
			if err == nil && len(out.Results) > 0 && out.Results[0].TaskHandle != nil {
				_, err := f.CancelMessageMoveTask(ctx, &sqs.CancelMessageMoveTaskInput{TaskHandle: out.Results[0].TaskHandle})
				fmt.Fprintf(&log, "cancel task %s %s\n", src, faultCode(err))
			}
		case op == 15:
			for _, q := range queues {
				out, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q.url, AttributeNames: []types.QueueAttributeName{"All"}})
				require.NoError(t, err)
				fmt.Fprintf(&log, "counts %s %s/%s/%s\n", q.name, out.Attributes["ApproximateNumberOfMessages"],
					out.Attributes["ApproximateNumberOfMessagesNotVisible"], out.Attributes["ApproximateNumberOfMessagesDelayed"])
			}
		case op == 16 && withPolls && pollCh == nil:
			pollQ, pollCh = q, make(chan answer, 1)
			in := &sqs.ReceiveMessageInput{QueueUrl: q.url, MaxNumberOfMessages: int32(1 + rng.IntN(3)), WaitTimeSeconds: int32(1 + rng.IntN(20)),
				MessageSystemAttributeNames: []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SentTimestamp", "ApproximateFirstReceiveTimestamp"}}
			ch := pollCh
			next := f.CallCount() + 1
			go func() {
				out, err := f.ReceiveMessage(ctx, in)
				ch <- answer{out, err}
			}()
			require.NoError(t, f.WaitForCalls(ctx, next)) // it parks, or answers at once
			if f.Pollers() == 0 {
				r := <-ch
				fmt.Fprintf(&log, "long poll %s at once -> %s\n", q.name, render(q, r.out, r.err))
				pollCh = nil
			}
		}
		collect()
	}
	if pollCh != nil {
		f.Advance(20 * time.Second) // its wait ends
		collect()
	}
	for _, q := range queues {
		info, _ := f.Queue(q.name)
		fmt.Fprintf(&log, "queue %s %d/%d/%d\n", q.name, info.Visible, info.InFlight, info.Delayed)
		for _, m := range info.Messages {
			fmt.Fprintf(&log, "  %s %s receives=%d sent=%s visible at=%s\n", m.Body, m.State, m.ReceiveCount,
				m.SentAt.Format(time.RFC3339Nano), m.VisibleAt.Format(time.RFC3339Nano))
		}
	}
	for _, src := range dlqs {
		out, err := f.ListMessageMoveTasks(ctx, &sqs.ListMessageMoveTasksInput{SourceArn: aws.String(testArnPrefix + src), MaxResults: aws.Int32(10)})
		require.NoError(t, err)
		for _, task := range out.Results {
			fmt.Fprintf(&log, "task %s %s moved=%d to move=%d %s\n", src, *task.Status, task.ApproximateNumberOfMessagesMoved,
				aws.ToInt64(task.ApproximateNumberOfMessagesToMove), aws.ToString(task.FailureReason))
		}
	}
	return log.String()
}

func TestRandomScriptsGiveTheSameResultsForOneClockMoveAsForSmallSteps(t *testing.T) {
	for _, set := range []struct{ tasks, polls bool }{{false, false}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("move tasks %v, long polls %v", set.tasks, set.polls), func(t *testing.T) {
			for seed := range uint64(120) {
				jump, steps := runScript(t, seed, 150, false, set.tasks, set.polls), runScript(t, seed, 150, true, set.tasks, set.polls)
				if jump == steps {
					continue
				}
				j, s := strings.Split(jump, "\n"), strings.Split(steps, "\n")
				for i := range min(len(j), len(s)) {
					if j[i] != s[i] {
						t.Fatalf("seed %d, line %d:\n one jump:    %s\n small steps: %s\nbefore it:\n%s", seed, i, j[i], s[i], strings.Join(j[max(0, i-8):i], "\n"))
					}
				}
				t.Fatalf("seed %d: transcripts of different lengths", seed)
			}
		})
	}
}
