package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// chaosRun runs a consumer over 200 messages on a fake with the given options and returns
// the transcript of everything it received.
func chaosRun(t *testing.T, opts ...Option) string {
	t.Helper()
	ctx := context.Background()
	f := New(opts...)
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	for i := range 200 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint("job-", i))})
		require.NoError(t, err)
	}
	var b strings.Builder
	for round := 0; ; round++ {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 7,
			MessageSystemAttributeNames: []types.MessageSystemAttributeName{types.MessageSystemAttributeNameApproximateReceiveCount}})
		require.NoError(t, err)
		if len(out.Messages) == 0 {
			break
		}
		for _, m := range out.Messages {
			fmt.Fprintf(&b, "%d %s %s %s %s\n", round, *m.MessageId, *m.Body, m.Attributes["ApproximateReceiveCount"], *m.ReceiptHandle)
			if round%3 == 0 {
				_, err := f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: m.ReceiptHandle})
				require.NoError(t, err)
			}
		}
		f.Advance(time.Second)
	}
	return b.String()
}

func TestChaosWithTheSameSeedGivesTheSameRun(t *testing.T) {
	chaos := Chaos{Seed: 42, DuplicateRate: 0.1, ReorderRate: 0.3, RedeliverRate: 0.05}
	first := chaosRun(t, WithChaos(chaos))
	assert.Equal(t, first, chaosRun(t, WithChaos(chaos)), "byte-identical")
	chaos.Seed = 43
	assert.NotEqual(t, first, chaosRun(t, WithChaos(chaos)), "another seed, another run")
	assert.NotEqual(t, first, chaosRun(t), "chaos changes the run")
}

func TestChaosWithZeroRatesChangesNothing(t *testing.T) {
	assert.Equal(t, chaosRun(t), chaosRun(t, WithChaos(Chaos{Seed: 1})))
}

// With DuplicateRate p, each delivery leaves the message visible with probability p, so a
// fraction p of all deliveries are extra deliveries of a message already delivered.
func TestChaosDuplicatesAtTheConfiguredRate(t *testing.T) {
	for _, rate := range []float64{0.05, 0.2, 0.5} {
		t.Run(fmt.Sprint(rate), func(t *testing.T) {
			e := newErgo(t, WithChaos(Chaos{Seed: 9, DuplicateRate: rate}))
			url := e.queue("jobs", map[string]string{"VisibilityTimeout": "3600"})
			const n = 5000
			for i := range n {
				e.send(url, fmt.Sprint(i))
			}
			deliveries := map[string]int{}
			total := 0
			for {
				msgs := e.receive(url, 10, 0)
				if len(msgs) == 0 {
					break
				}
				for _, m := range msgs {
					deliveries[*m.MessageId]++
					total++
				}
			}
			require.Len(t, deliveries, n, "every message is delivered")
			extra := float64(total-n) / float64(total)
			assert.InDelta(t, rate, extra, 0.02, "extra deliveries %d of %d", total-n, total)
			AssertInFlightCount(t, e.f, "jobs", n)
		})
	}
}

// A duplicate delivery leaves a copy of the message visible: a later receive returns it
// again, with a new receipt handle and a higher receive count, whether the first receiver
// still holds it or has deleted it — the delete misses the copy too. Once a receive has taken
// the copy, a delete with either handle deletes the message (standard queue).
func TestChaosDuplicateDeliveryLeavesACopyADeleteMisses(t *testing.T) {
	for _, deleteFirst := range []bool{false, true} {
		t.Run(fmt.Sprint("deleted before the copy is received: ", deleteFirst), func(t *testing.T) {
			e := newErgo(t, WithChaos(Chaos{Seed: 1}))
			e.f.dist.replaying([]distKey{{class: distDuplicate, a: 1, b: 1}}) // m-1's first delivery only
			url := e.queue("jobs", nil)
			id := e.send(url, "a")
			first := e.receiveOne(url, 0)
			AssertNotInFlight(t, e.f, "jobs", id, "chaos left a copy visible")
			if deleteFirst {
				e.delete(url, *first.ReceiptHandle) // succeeds, and misses the copy
				assert.True(t, e.f.Timeline(id).Has(EventDeleteMissed))
			}
			second := e.receiveOne(url, 0)
			assert.Equal(t, id, *second.MessageId)
			assert.NotEqual(t, *first.ReceiptHandle, *second.ReceiptHandle)
			AssertReceiveCount(t, e.f, "jobs", id, 2)
			e.delete(url, *first.ReceiptHandle)
			AssertDeleted(t, e.f, id)
		})
	}
}

func TestChaosReordersDeliveries(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 3, ReorderRate: 0.5}))
	url := e.queue("jobs", nil)
	var sent []string
	for i := range 100 {
		sent = append(sent, e.send(url, fmt.Sprint(i)))
	}
	var got []string
	for {
		msgs := e.receive(url, 1, 0)
		if len(msgs) == 0 {
			break
		}
		got = append(got, *msgs[0].MessageId)
	}
	assert.ElementsMatch(t, sent, got, "each message exactly once")
	assert.NotEqual(t, sent, got, "not in send order")
	position := map[string]int{}
	for i, id := range sent {
		position[id] = i
	}
	late := 0
	for i := 1; i < len(got); i++ {
		if position[got[i]] < position[got[i-1]] {
			late++
		}
	}
	assert.Greater(t, late, 10, "many deliveries come before an older message")
}

// FIFO queues keep their order and exactly-once delivery whatever the chaos settings.
func TestChaosNeverTouchesFIFOQueues(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 5, DuplicateRate: 1, ReorderRate: 1, RedeliverRate: 1}))
	url := e.queue("orders.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	var sent []string
	for i := range 50 {
		out := e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprint(i)), MessageGroupId: aws.String("g")})
		sent = append(sent, *out.MessageId)
	}
	var got []string
	for {
		msgs := e.receive(url, 10, 0)
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			got = append(got, *m.MessageId)
			e.delete(url, *m.ReceiptHandle)
		}
	}
	assert.Equal(t, sent, got)
}

// With RedeliverRate, a successful delete can leave the message behind: the caller sees
// success, and the message comes back when its visibility timeout ends, as SQS's rare
// redelivery of a deleted message does. The timeline says what happened.
func TestChaosRedeliversADeletedMessage(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, RedeliverRate: 1}))
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "30"})
	id := e.send(url, "charge card 42")
	first := e.receiveOne(url, 0)
	e.delete(url, *first.ReceiptHandle) // succeeds
	AssertInFlight(t, e.f, "jobs", id, "a copy survived the delete")
	e.f.Advance(30 * time.Second)
	second := e.receiveOne(url, 0)
	assert.Equal(t, id, *second.MessageId)
	AssertReceiveCount(t, e.f, "jobs", id, 2)
	assert.True(t, e.f.Timeline(id).Has(EventDeleteMissed))
	assert.Contains(t, e.f.Timeline(id).String(), "delete missed (chaos) in jobs")
	q, _ := e.f.Queue("jobs")
	assert.Equal(t, int64(1), q.Stats.NumberOfMessagesDeleted, "the delete succeeded")
}

// At a rate below 1, some deletes miss and an idempotent consumer sees those messages again.
func TestChaosRedeliversAtTheConfiguredRate(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 9, RedeliverRate: 0.2}))
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "10"})
	for i := range 200 {
		e.send(url, fmt.Sprint(i))
	}
	deliveries := 0
	for range 20 {
		for {
			msgs := e.receive(url, 10, 0)
			if len(msgs) == 0 {
				break
			}
			for _, m := range msgs {
				deliveries++
				e.delete(url, *m.ReceiptHandle)
			}
		}
		e.f.Advance(10 * time.Second)
	}
	AssertQueueEmpty(t, e.f, "jobs")
	assert.InDelta(t, 250, deliveries, 25, "200 messages, each delete missing one time in five")
}

// A short poll asks a sample of SQS's servers: with ShortPollRate 1 every short poll that
// could return messages returns fewer, or none, and a consumer that keeps polling still gets
// them all. A long poll asks every server and is never sampled.
func TestChaosShortPollReturnsFewerOrNone(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 4, ShortPollRate: 1}))
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "3600"})
	for i := range 30 {
		e.send(url, fmt.Sprint(i))
	}
	received, empty, fewer, polls := 0, 0, 0, 0
	for received < 30 && polls < 1000 {
		polls++
		msgs := e.receive(url, 10, 0)
		could := min(10, 30-received)
		c := e.f.Calls(CallFilter{Operation: "ReceiveMessage"})[polls-1]
		// A sample as large as what is there changes nothing, and is not chaos.
		assert.Equal(t, len(msgs) < could, c.Chaos, "poll %d returned %d of %d", polls, len(msgs), could)
		switch {
		case len(msgs) == 0:
			empty++
		case len(msgs) < could:
			fewer++
		}
		received += len(msgs)
	}
	assert.Equal(t, 30, received, "repeated short polls get every message")
	assert.Greater(t, empty, 0, "some polls returned nothing while messages were visible")
	assert.Greater(t, fewer, 0, "some polls returned fewer than they could")
	assert.Contains(t, e.f.Calls(CallFilter{Operation: "ReceiveMessage"})[0].String(), "[chaos]")

	for i := range 5 {
		e.send(url, fmt.Sprint("more ", i))
	}
	long, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: 10, WaitTimeSeconds: 1})
	require.NoError(t, err)
	assert.Len(t, long.Messages, 5, "a long poll is never sampled")
}

// A sampled poll of a queue with nothing to take is not a disturbance: an empty queue
// answers empty anyway, and the call record does not blame chaos.
func TestChaosShortPollOfAnEmptyQueueIsNotSampled(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 4, ShortPollRate: 1}))
	url := e.queue("jobs", nil)
	assert.Empty(t, e.receive(url, 10, 0))
	assert.False(t, e.f.Calls(CallFilter{Operation: "ReceiveMessage"})[0].Chaos)
}

// Short-poll sampling also applies to FIFO queues (the ReceiveMessage reference does not
// limit it to standard queues); what a sampled poll returns keeps the group's order.
func TestChaosShortPollOfAFIFOQueueKeepsTheOrder(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 8, ShortPollRate: 0.7}))
	url := e.queue("orders.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"})
	var sent, got []string
	for i := range 40 {
		out := e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprint(i)), MessageGroupId: aws.String("g")})
		sent = append(sent, *out.MessageId)
	}
	for polls := 0; len(got) < 40 && polls < 1000; polls++ {
		for _, m := range e.receive(url, 10, 0) {
			got = append(got, *m.MessageId)
			e.delete(url, *m.ReceiptHandle)
		}
	}
	assert.Equal(t, sent, got)
	assert.Greater(t, len(e.f.Calls(CallFilter{Operation: "ReceiveMessage"})), 4, "some polls were sampled")
}

func TestChaosShortPollRateSamplesAtTheConfiguredRate(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 2, ShortPollRate: 0.25}))
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "0"})
	e.send(url, "always visible")
	empty := 0
	const polls = 4000
	for range polls {
		if len(e.receive(url, 1, 0)) == 0 {
			empty++
		}
	}
	assert.InDelta(t, 0.25, float64(empty)/polls, 0.03, "%d empty polls of %d", empty, polls)
}

// A lost response: the operation took effect, the caller got ErrLostResponse.
func TestChaosLosesResponsesAfterTheOperationTookEffect(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, LostResponseRate: 1}))
	url := e.queue("jobs", nil) // queue management is never disturbed
	_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	AssertLastError(t, e.f, ErrLostResponse)
	AssertVisibleCount(t, e.f, "jobs", 1, "the send took effect")
	_, err = e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	AssertInFlightCount(t, e.f, "jobs", 1, "the receive took effect: nobody holds the message")
	c := e.f.Calls(CallFilter{Operation: "ReceiveMessage"})[0]
	assert.True(t, c.Chaos)
	assert.False(t, c.Fault)
}

// Throttling lasts a stretch of the clock: a retry at once is throttled again, without effect;
// once the clock has moved past the stretch the call gets through.
func TestChaosThrottlesAQueueForAStretchOfTheClock(t *testing.T) {
	f := New(WithChaos(Chaos{Seed: 3, ThrottleRate: 1}))
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	other, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("other")})
	require.NoError(t, err)
	send := func(url *string) error {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String("a")})
		return err
	}
	var throttled *types.RequestThrottled
	require.ErrorAs(t, send(q.QueueUrl), &throttled)
	for range 5 {
		require.ErrorAs(t, send(q.QueueUrl), &throttled, "a retry at once is throttled again")
	}
	AssertVisibleCount(t, f, "jobs", 0, "throttled calls take no effect")
	require.ErrorAs(t, send(other.QueueUrl), &throttled, "another queue starts its own stretch")

	// The stretch lasts 100 ms to 1 s: a consumer that backs off on the clock gets through.
	chaos := New(WithChaos(Chaos{Seed: 3, ThrottleRate: 0.5}))
	q2, err := chaos.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	sent, throttledCalls := 0, 0
	for i := 0; sent < 20 && i < 10000; i++ {
		_, err := chaos.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q2.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))})
		switch {
		case err == nil:
			sent++
		case errors.As(err, &throttled):
			throttledCalls++
			chaos.Advance(100 * time.Millisecond) // back off
		default:
			t.Fatal(err)
		}
	}
	assert.Equal(t, 20, sent, "backing off gets every send through")
	assert.Greater(t, throttledCalls, 5)
	AssertVisibleCount(t, chaos, "jobs", 20)
}

// A server error fails the call without effect, with InternalError (500) or
// ServiceUnavailable (503), which the SDK would retry.
func TestChaosServerErrorsFailWithoutEffect(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, ServerErrorRate: 1}))
	url := e.queue("jobs", nil)
	codes := map[string]int{}
	for i := range 40 {
		_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(fmt.Sprint(i))})
		var apiErr smithy.APIError
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, smithy.FaultServer, apiErr.ErrorFault())
		codes[apiErr.ErrorCode()]++
	}
	AssertVisibleCount(t, e.f, "jobs", 0)
	assert.Equal(t, []string{"InternalError", "ServiceUnavailable"}, slices.Sorted(maps.Keys(codes)))
}

// Failed batch entries fail without effect while the call and the other entries succeed.
func TestChaosFailsBatchEntries(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 6, FailedEntryRate: 0.5}))
	url := e.queue("jobs", nil)
	var entries []types.SendMessageBatchRequestEntry
	for i := range 10 {
		entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(fmt.Sprint("e", i)), MessageBody: aws.String(fmt.Sprint(i))})
	}
	out, err := e.f.SendMessageBatch(e.ctx, &sqs.SendMessageBatchInput{QueueUrl: aws.String(url), Entries: entries})
	require.NoError(t, err)
	require.NotEmpty(t, out.Failed)
	require.NotEmpty(t, out.Successful)
	assert.Len(t, out.Successful, 10-len(out.Failed))
	for _, fe := range out.Failed {
		assert.Equal(t, "InternalError", *fe.Code)
		assert.False(t, fe.SenderFault)
	}
	AssertVisibleCount(t, e.f, "jobs", len(out.Successful))
	assert.True(t, e.f.Calls(CallFilter{Operation: "SendMessageBatch"})[0].Chaos)
}

// A late answer: the operation takes effect at once, its answer waits on the clock.
func TestChaosAnswersLate(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, LateAnswerRate: 1}))
	url := e.queue("jobs", nil)
	next := e.f.CallCount() + 1
	done := make(chan error, 1)
	go func() {
		_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
		done <- err
	}()
	require.NoError(t, e.f.WaitForCalls(e.ctx, next))
	AssertVisibleCount(t, e.f, "jobs", 1, "it took effect at once")
	assert.Equal(t, 1, e.f.Pollers(), "its answer waits on the clock")
	e.f.Advance(5 * time.Second) // late answers come 0.5 s to 5 s late
	require.NoError(t, <-done)
}

// Only the message calls are disturbed: a scenario's set-up is left alone.
func TestChaosLeavesQueueManagementAlone(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, LostResponseRate: 1, ThrottleRate: 1, ServerErrorRate: 1, LateAnswerRate: 1}))
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "5"})
	_, err := e.f.GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url), AttributeNames: []types.QueueAttributeName{"All"}})
	require.NoError(t, err)
	_, err = e.f.PurgeQueue(e.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(url)})
	require.NoError(t, err)
	_, err = e.f.ListQueues(e.ctx, nil)
	require.NoError(t, err)
}

func TestWithChaosRefusesRatesOutsideZeroToOne(t *testing.T) {
	err := CheckOptions(WithChaos(Chaos{ShortPollRate: 1.5, LateAnswerRate: -0.1}))
	var oe *OptionError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "sqsfake: WithChaos(Chaos{ShortPollRate: 1.5, LateAnswerRate: -0.1}): want rates between 0 and 1", err.Error())
}

// Reset starts chaos again: what follows is disturbed as in a new fake.
func TestChaosAfterResetIsAsInANewFake(t *testing.T) {
	c := Chaos{Seed: 11, DuplicateRate: 0.2, ShortPollRate: 0.3, LostResponseRate: 0.1, ThrottleRate: 0.1}
	run := func(f *Fake) string {
		ctx := context.Background()
		q, _ := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		var b strings.Builder
		for i := range 30 {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))})
			fmt.Fprintln(&b, err)
		}
		for range 30 {
			out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 3})
			fmt.Fprintln(&b, err)
			if out != nil {
				for _, m := range out.Messages {
					fmt.Fprintln(&b, *m.MessageId)
				}
			}
			f.Advance(time.Second)
		}
		return b.String()
	}
	f := New(WithChaos(c))
	first := run(f)
	f.Reset()
	assert.Equal(t, run(New(WithChaos(c))), first)
	assert.Equal(t, first, run(f))
}
