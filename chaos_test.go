package sqsfake

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
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

// A duplicate delivery is a second receive of a message another consumer still holds: it has
// a new receipt handle and a higher receive count, and either handle deletes it (standard
// queue).
func TestChaosDuplicateDeliveryLooksLikeARedelivery(t *testing.T) {
	e := newErgo(t, WithChaos(Chaos{Seed: 1, DuplicateRate: 1}))
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	first := e.receiveOne(url, 0)
	AssertNotInFlight(t, e.f, "jobs", id, "chaos left it visible")
	second := e.receiveOne(url, 0)
	assert.Equal(t, id, *second.MessageId)
	assert.NotEqual(t, *first.ReceiptHandle, *second.ReceiptHandle)
	AssertReceiveCount(t, e.f, "jobs", id, 2)
	e.delete(url, *first.ReceiptHandle)
	AssertDeleted(t, e.f, id)
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
