package sqsfake

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake/internal/memtest"
)

// ergo is a fake with one-line helpers for the tests of the test-facing surface
// (inspection, timelines, assertions, faults, chaos).
type ergo struct {
	t   *testing.T
	f   *Fake
	ctx context.Context
}

func newErgo(t *testing.T, opts ...Option) *ergo {
	return &ergo{t: t, f: New(opts...), ctx: context.Background()}
}

// clockAt is DefaultStart plus d: the fake's clock after d.
func clockAt(d time.Duration) time.Time { return DefaultStart.Add(d) }

func (e *ergo) queue(name string, attrs map[string]string) string {
	e.t.Helper()
	out, err := e.f.CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String(name), Attributes: attrs})
	require.NoError(e.t, err)
	return *out.QueueUrl
}

// dlqPair creates name and name-dlq, name sending to name-dlq after maxReceiveCount receives.
func (e *ergo) dlqPair(name string, maxReceiveCount int) (src, dlq string) {
	e.t.Helper()
	dlq = e.queue(name+"-dlq", nil)
	src = e.queue(name, map[string]string{"RedrivePolicy": fmt.Sprintf(
		`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:%s-dlq","maxReceiveCount":"%d"}`, name, maxReceiveCount)})
	return src, dlq
}

func (e *ergo) send(url, body string) string {
	e.t.Helper()
	out, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
	require.NoError(e.t, err)
	return *out.MessageId
}

func (e *ergo) sendInput(in *sqs.SendMessageInput) *sqs.SendMessageOutput {
	e.t.Helper()
	out, err := e.f.SendMessage(e.ctx, in)
	require.NoError(e.t, err)
	return out
}

// receive receives up to max messages with visibility timeout vt (0: the queue's).
func (e *ergo) receive(url string, max, vt int32) []types.Message {
	e.t.Helper()
	out, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), MaxNumberOfMessages: max, VisibilityTimeout: vt})
	require.NoError(e.t, err)
	return out.Messages
}

// receiveOne receives exactly one message.
func (e *ergo) receiveOne(url string, vt int32) types.Message {
	e.t.Helper()
	msgs := e.receive(url, 1, vt)
	require.Len(e.t, msgs, 1)
	return msgs[0]
}

func (e *ergo) delete(url, handle string) {
	e.t.Helper()
	_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(handle)})
	require.NoError(e.t, err)
}

func (e *ergo) changeVisibility(url, handle string, vt int32) {
	e.t.Helper()
	_, err := e.f.ChangeMessageVisibility(e.ctx, &sqs.ChangeMessageVisibilityInput{
		QueueUrl: aws.String(url), ReceiptHandle: aws.String(handle), VisibilityTimeout: vt})
	require.NoError(e.t, err)
}

func (e *ergo) message(queue, id string) MessageInfo {
	e.t.Helper()
	m, err := e.f.Message(queue, id)
	require.NoError(e.t, err, "queue %s holds message %s", queue, id)
	return m
}

func TestMessageSnapshotFollowsTheMessageThroughItsStates(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", map[string]string{"VisibilityTimeout": "30"})
	id := *e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("resize"), DelaySeconds: 5,
		MessageAttributes: map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}},
	}).MessageId

	attrs := map[string]types.MessageAttributeValue{"k": {DataType: aws.String("String"), StringValue: aws.String("v")}}
	assert.Equal(t, MessageInfo{MessageID: id, Body: "resize", Attributes: attrs, State: StateDelayed,
		VisibleAt: clockAt(5 * time.Second), SentAt: clockAt(0)}, e.message("jobs", id), "delayed")

	e.f.Advance(5 * time.Second)
	assert.Equal(t, MessageInfo{MessageID: id, Body: "resize", Attributes: attrs, State: StateVisible, SentAt: clockAt(0)},
		e.message("jobs", id), "visible once the delay ends")

	e.f.Advance(2 * time.Second)
	first := e.receiveOne(url, 0)
	assert.Equal(t, MessageInfo{MessageID: id, Body: "resize", Attributes: attrs, State: StateInFlight, ReceiveCount: 1,
		ReceiptHandle: *first.ReceiptHandle, VisibleAt: clockAt(37 * time.Second), SentAt: clockAt(0), FirstReceivedAt: clockAt(7 * time.Second)},
		e.message("jobs", id), "in flight after a receive")

	e.f.Advance(30 * time.Second)
	second := e.receiveOne(url, 10)
	assert.Equal(t, MessageInfo{MessageID: id, Body: "resize", Attributes: attrs, State: StateInFlight, ReceiveCount: 2,
		ReceiptHandle: *second.ReceiptHandle, VisibleAt: clockAt(47 * time.Second), SentAt: clockAt(0), FirstReceivedAt: clockAt(7 * time.Second)},
		e.message("jobs", id), "received again: the latest handle, the first receive kept")

	e.changeVisibility(url, *second.ReceiptHandle, 0)
	got := e.message("jobs", id)
	assert.Equal(t, StateVisible, got.State)
	assert.True(t, got.VisibleAt.IsZero(), "a visible message has no VisibleAt")
	assert.Equal(t, *second.ReceiptHandle, got.ReceiptHandle, "the handle of the latest receive stays")
}

func TestMessageLookupsAcceptNameURLAndARN(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	for _, ref := range []string{"jobs", url, "arn:aws:sqs:us-east-1:123456789012:jobs"} {
		m, err := e.f.Message(ref, id)
		assert.NoError(t, err, ref)
		assert.Equal(t, id, m.MessageID, ref)
		q, err := e.f.Queue(ref)
		assert.NoError(t, err, ref)
		assert.Equal(t, "jobs", q.Name, ref)
	}
	for _, tc := range []struct {
		name, ref, id string
		want          error
	}{
		{"no such queue", "missing", id, ErrNoQueue},
		{"no such message", "jobs", "00000000-0000-0000-0000-000000000000", ErrNoMessage},
		{"another account's URL", "https://sqs.us-east-1.amazonaws.com/999999999999/jobs", id, ErrNoQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.f.Message(tc.ref, tc.id)
			assert.ErrorIs(t, err, tc.want)
		})
	}
	_, err := e.f.Queue("missing")
	assert.ErrorIs(t, err, ErrNoQueue)
}

func TestFindMessageSearchesEveryQueue(t *testing.T) {
	e := newErgo(t)
	e.queue("a", nil)
	b := e.queue("b", nil)
	id := e.send(b, "x")
	m, queue, ok := e.f.FindMessage(id)
	assert.True(t, ok)
	assert.Equal(t, "b", queue)
	assert.Equal(t, "x", m.Body)

	e.delete(b, *e.receiveOne(b, 0).ReceiptHandle)
	_, _, ok = e.f.FindMessage(id)
	assert.False(t, ok, "a deleted message is nowhere")
	_, _, ok = e.f.FindMessage("not-a-message-id")
	assert.False(t, ok)
}

func TestFIFOSnapshotHasGroupDeduplicationIDAndSequenceNumber(t *testing.T) {
	e := newErgo(t)
	url := e.queue("orders.fifo", map[string]string{"FifoQueue": "true"})
	out := e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("o1"),
		MessageGroupId: aws.String("customer-7"), MessageDeduplicationId: aws.String("dedup-1")})
	m := e.message("orders.fifo", *out.MessageId)
	assert.Equal(t, "customer-7", m.GroupID)
	assert.Equal(t, "dedup-1", m.DeduplicationID)
	assert.Equal(t, *out.SequenceNumber, m.SequenceNumber)

	q, err := e.f.Queue("orders.fifo")
	require.NoError(t, err)
	assert.True(t, q.FIFO)
	assert.Equal(t, "true", q.Attributes["FifoQueue"])
}

func TestDeadLettersFromListsWhatWasMovedFromASource(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 1)
	other, _ := e.dlqPair("mail", 1)
	a, b := e.send(src, "a"), e.send(src, "b")
	e.send(other, "c")
	for range 2 {
		e.receive(src, 10, 0)
		e.receive(other, 10, 0)
		e.f.Advance(30 * time.Second)
	}
	got, err := e.f.DeadLettersFrom("jobs")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []string{a, b}, []string{got[0].MessageID, got[1].MessageID})
	for _, m := range got {
		assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:jobs", m.DeadLetterSourceArn)
		assert.Equal(t, 1, m.ReceiveCount, "the receive count travels with the message")
	}
	mail, err := e.f.DeadLettersFrom("mail")
	require.NoError(t, err)
	assert.Len(t, mail, 1)
	fromDLQ, err := e.f.DeadLettersFrom("jobs-dlq")
	require.NoError(t, err)
	assert.Empty(t, fromDLQ, "the DLQ itself dead-lettered nothing")
}

// DeadLettersIn takes the dead-letter queue, the natural guess: what sits in it, and where
// each came from. A message sent to it directly is no dead letter.
func TestDeadLettersInListsWhatSitsInADeadLetterQueueAndWhereFrom(t *testing.T) {
	e := newErgo(t)
	jobs, dlq := e.dlqPair("jobs", 1)
	mail := e.queue("mail", map[string]string{"RedrivePolicy": `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":"1"}`})
	a := e.send(jobs, "a")
	e.send(dlq, "sent to the DLQ directly")
	c := e.send(mail, "c")
	for range 2 {
		e.receive(jobs, 10, 0)
		e.receive(mail, 10, 0)
		e.f.Advance(30 * time.Second)
	}
	got, err := e.f.DeadLettersIn("jobs-dlq")
	require.NoError(t, err)
	type came struct{ id, from string }
	var gotCame []came
	for _, m := range got {
		gotCame = append(gotCame, came{m.MessageID, m.DeadLetterSourceArn})
	}
	assert.Equal(t, []came{{a, "arn:aws:sqs:us-east-1:123456789012:jobs"}, {c, "arn:aws:sqs:us-east-1:123456789012:mail"}}, gotCame)
	none, err := e.f.DeadLettersIn("jobs")
	require.NoError(t, err)
	assert.Empty(t, none, "a source queue holds no dead letters")
}

// Every inspection method that takes a queue follows one rule: a queue that does not exist
// is an error wrapping ErrNoQueue that names the queue and the queues there are, never an
// empty result.
func TestInspectionOfAQueueThatDoesNotExistIsAnErrorNamingTheQueues(t *testing.T) {
	e := newErgo(t)
	e.queue("orders", nil)
	e.queue("orders-dlq", nil)
	const want = "sqsfake: queue orderz does not exist; the fake has orders, orders-dlq"
	errOf := map[string]func() error{
		"Queue":           func() error { _, err := e.f.Queue("orderz"); return err },
		"QueuePage":       func() error { _, err := e.f.pageOf("orderz", 0, 10); return err },
		"Message":         func() error { _, err := e.f.Message("orderz", "id"); return err },
		"InFlight":        func() error { _, err := e.f.InFlight("orderz"); return err },
		"DeadLettersFrom": func() error { _, err := e.f.DeadLettersFrom("orderz"); return err },
		"DeadLettersIn":   func() error { _, err := e.f.DeadLettersIn("orderz"); return err },
		"NextVisible":     func() error { _, _, err := e.f.nextVisible("orderz"); return err },
	}
	for name, call := range errOf {
		t.Run(name, func(t *testing.T) {
			err := call()
			require.ErrorIs(t, err, ErrNoQueue)
			assert.EqualError(t, err, want)
		})
	}
	_, err := New().InFlight("jobs")
	assert.EqualError(t, err, "sqsfake: queue jobs does not exist; the fake has no queues")
}

// A bare name names a queue of the fake's own account and region; the error of a name that
// exists only in another says so, with the ARN that names it.
func TestNoQueueErrorPointsAtAQueueOfThatNameElsewhere(t *testing.T) {
	f := New()
	away := f.Client(ActAs(Identity{AccountID: "222222222222", Region: "eu-west-1"}))
	_, err := away.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("orders")})
	require.NoError(t, err)
	_, err = f.Queue("orders")
	assert.EqualError(t, err, "sqsfake: queue orders does not exist; the fake has orders "+
		"(orders of another account or region: name it by its ARN, arn:aws:sqs:eu-west-1:222222222222:orders)")
	info, err := f.Queue("arn:aws:sqs:eu-west-1:222222222222:orders")
	require.NoError(t, err)
	assert.Equal(t, "222222222222", info.AccountID)
}

// Message tells a queue that does not exist from a queue that does not hold the message,
// and says where the message is instead.
func TestMessageNotInTheQueueSaysWhereItIs(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 1)
	moved := e.send(src, "poison")
	deleted := e.send(src, "done")
	e.receive(src, 10, 0)
	e.delete(src, e.message("jobs", deleted).ReceiptHandle)
	e.f.Advance(30 * time.Second)
	e.receive(src, 10, 0) // moves the poison message to jobs-dlq

	for _, tc := range []struct{ name, id, want string }{
		{"in another queue", moved, "sqsfake: queue jobs does not hold message " + moved + ": it is in queue jobs-dlq, visible, received 1 time"},
		{"deleted", deleted, "sqsfake: queue jobs does not hold message " + deleted + ": no queue holds it (deleted at 2025-01-01T00:00:00Z)"},
		{"never sent", "00000000-0000-0000-0000-000000000000", "sqsfake: queue jobs does not hold message 00000000-0000-0000-0000-000000000000: this fake never stored a message with that MessageId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.f.Message("jobs", tc.id)
			require.ErrorIs(t, err, ErrNoMessage)
			assert.EqualError(t, err, tc.want)
		})
	}
}

// A message moved to a DLQ keeps its receive count; until it is received from the DLQ, the
// handle of its latest receive is the one its source queue gave out.
func TestDeadLetteredSnapshotKeepsTheLastHandleGivenOut(t *testing.T) {
	e := newErgo(t)
	src, dlq := e.dlqPair("jobs", 2)
	id := e.send(src, "poison")
	e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	last := e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	assert.Empty(t, e.receive(src, 1, 0), "the third receive moves it")

	m := e.message("jobs-dlq", id)
	assert.Equal(t, 2, m.ReceiveCount)
	assert.Equal(t, *last.ReceiptHandle, m.ReceiptHandle)

	again := e.receiveOne(dlq, 0)
	m = e.message("jobs-dlq", id)
	assert.Equal(t, 3, m.ReceiveCount)
	assert.Equal(t, *again.ReceiptHandle, m.ReceiptHandle)
}

func TestInFlightListsReceivedMessagesInArrivalOrder(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	ids := []string{e.send(url, "a"), e.send(url, "b"), e.send(url, "c")}
	e.receive(url, 2, 0)
	got, err := e.f.InFlight("jobs")
	require.NoError(t, err)
	require.Len(t, got, 2)
	assert.Equal(t, []string{ids[0], ids[1]}, []string{got[0].MessageID, got[1].MessageID})
}

func TestQueueSnapshotCountsAndMessages(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.send(url, "a")
	e.send(url, "b")
	e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("later"), DelaySeconds: 60})
	e.receiveOne(url, 0)

	q, err := e.f.Queue(url)
	require.NoError(t, err)
	assert.Equal(t, [3]int{1, 1, 1}, [3]int{q.Visible, q.InFlight, q.Delayed})
	var states []string
	for _, m := range q.Messages {
		states = append(states, m.Body+" "+m.State.String())
	}
	assert.Equal(t, []string{"a in flight", "b visible", "later delayed"}, states)
	assert.Equal(t, "arn:aws:sqs:us-east-1:123456789012:jobs", q.Arn)
	assert.Equal(t, url, q.URL)
	assert.Equal(t, "1", q.Attributes["ApproximateNumberOfMessages"])

	all := e.f.Queues()
	require.Len(t, all, 1)
	assert.Equal(t, q, all[0])
}

func TestQueuesAreInNameOrder(t *testing.T) {
	e := newErgo(t)
	for _, n := range []string{"c", "a", "b"} {
		e.queue(n, nil)
	}
	var names []string
	for _, q := range e.f.Queues() {
		names = append(names, q.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
}

func TestSnapshotsAreCopies(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := *e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a"),
		MessageAttributes: map[string]types.MessageAttributeValue{"bin": {DataType: aws.String("Binary"), BinaryValue: []byte{1, 2, 3}}},
	}).MessageId
	before, _ := e.f.Queue("jobs")

	q, _ := e.f.Queue("jobs")
	q.Attributes["VisibilityTimeout"] = "1"
	q.Messages[0].Body = "changed"
	q.Messages[0].State = StateInFlight
	q.Messages[0].Attributes["bin"].BinaryValue[0] = 9
	q.Messages[0].Attributes["new"] = types.MessageAttributeValue{}
	m, _ := e.f.Message("jobs", id)
	m.Attributes["bin"].BinaryValue[1] = 9

	after, _ := e.f.Queue("jobs")
	assert.Equal(t, before, after, "mutating snapshots changes nothing")
	got := e.receiveOne(url, 0)
	assert.Equal(t, "a", *got.Body)
}

func TestStatsCountWhatCloudWatchWouldShow(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.send(url, "a")
	e.f.Advance(10 * time.Second)
	e.send(url, "b")
	e.receive(url, 10, 0) // both
	e.receive(url, 10, 0) // empty
	e.f.Advance(5 * time.Second)

	q, _ := e.f.Queue("jobs")
	assert.Equal(t, QueueStats{NumberOfMessagesSent: 2, NumberOfMessagesReceived: 2, NumberOfEmptyReceives: 1,
		ApproximateAgeOfOldestMessage: 15 * time.Second}, q.Stats)

	inFlight, err := e.f.InFlight("jobs")
	require.NoError(t, err)
	for _, m := range inFlight {
		e.delete(url, m.ReceiptHandle)
	}
	q, _ = e.f.Queue("jobs")
	assert.Equal(t, QueueStats{NumberOfMessagesSent: 2, NumberOfMessagesReceived: 2, NumberOfMessagesDeleted: 2,
		NumberOfEmptyReceives: 1}, q.Stats, "an empty queue has no oldest message")
}

// CloudWatch counts every successful delete that uses a valid receipt handle, duplicate
// deletions included: an old handle, then the latest, then the latest again.
func TestStatsCountDuplicateDeletions(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.send(url, "a")
	old := e.receiveOne(url, 1)
	e.f.Advance(time.Second)
	latest := e.receiveOne(url, 30)
	e.delete(url, *old.ReceiptHandle) // deletes it: an older handle still works
	e.delete(url, *latest.ReceiptHandle)
	e.delete(url, *latest.ReceiptHandle)
	q, _ := e.f.Queue("jobs")
	assert.Equal(t, int64(3), q.Stats.NumberOfMessagesDeleted)
}

// A standard queue's poison pills — received three times or more, never deleted — are left
// out of ApproximateAgeOfOldestMessage; a FIFO queue keeps them, since it does not reorder.
func TestAgeOfOldestMessageLeavesOutPoisonPills(t *testing.T) {
	for _, tt := range []struct {
		name, queue string
		attrs       map[string]string
		want        time.Duration
	}{
		{"standard", "jobs", nil, 10 * time.Second},
		{"fifo", "jobs.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}, 100 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := newErgo(t)
			url := e.queue(tt.queue, tt.attrs)
			send := func(body string) {
				in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)}
				if tt.attrs != nil {
					in.MessageGroupId = aws.String(body)
				}
				e.sendInput(in)
			}
			send("poison")
			for range 3 {
				e.receiveOne(url, 5)
				e.f.Advance(30 * time.Second)
			}
			send("fresh")
			e.f.Advance(10 * time.Second)
			q, _ := e.f.Queue(tt.queue)
			assert.Equal(t, tt.want, q.Stats.ApproximateAgeOfOldestMessage)
		})
	}
}

// A message dead-lettered after three or more receives is no poison pill in its DLQ: only the
// receives there count.
func TestAgeOfOldestMessageInADLQCountsMessagesReceivedOftenAtTheirSource(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 3)
	e.send(src, "poison")
	for range 4 { // three receives, and the fourth attempt moves it
		e.receive(src, 1, 0)
		e.f.Advance(30 * time.Second)
	}
	e.f.Advance(time.Hour)
	q, _ := e.f.Queue("jobs-dlq")
	require.Len(t, q.Messages, 1)
	assert.Equal(t, time.Hour+30*time.Second, q.Stats.ApproximateAgeOfOldestMessage)
}

func TestStatsCountEmptyLongPolls(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	e.f.Advance(20 * time.Second)
	<-done
	q, _ := e.f.Queue("jobs")
	assert.Equal(t, int64(1), q.Stats.NumberOfEmptyReceives)
}

// AWS: on a standard DLQ the enqueue time is unchanged for retention, but
// ApproximateAgeOfOldestMessage counts from when the message was moved in; on a FIFO DLQ both
// restart at the move (SQS developer guide, "Setting-up dead-letter queue retention").
func TestAgeOfOldestMessageInADLQCountsFromTheMove(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		t.Run(fmt.Sprintf("fifo=%v", fifo), func(t *testing.T) {
			e := newErgo(t)
			name, suffix, attrs := "jobs", "", map[string]string{}
			if fifo {
				suffix, attrs = ".fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
			}
			e.queue(name+"-dlq"+suffix, attrs)
			src := e.queue(name+suffix, ergoMerge(attrs, map[string]string{"RedrivePolicy": fmt.Sprintf(
				`{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq%s","maxReceiveCount":"1"}`, suffix)}))
			in := &sqs.SendMessageInput{QueueUrl: aws.String(src), MessageBody: aws.String("poison")}
			if fifo {
				in.MessageGroupId = aws.String("g")
			}
			e.sendInput(in)
			e.f.Advance(time.Hour)
			e.receiveOne(src, 0)
			e.f.Advance(30 * time.Second)
			assert.Empty(t, e.receive(src, 1, 0), "moved to the DLQ")
			e.f.Advance(time.Minute)

			q, _ := e.f.Queue("jobs-dlq" + suffix)
			assert.Equal(t, time.Minute, q.Stats.ApproximateAgeOfOldestMessage)
			assert.Equal(t, int64(0), q.Stats.NumberOfMessagesSent, "a move to a DLQ is not a send")
		})
	}
}

func ergoMerge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

func TestMessageStateString(t *testing.T) {
	for s, want := range map[MessageState]string{StateDelayed: "delayed", StateVisible: "visible", StateInFlight: "in flight", 0: "unknown"} {
		assert.Equal(t, want, s.String())
	}
}

func TestResetEmptiesTheFake(t *testing.T) {
	e := newErgo(t)
	src, _ := e.dlqPair("jobs", 1)
	id := e.send(src, "a")
	e.receiveOne(src, 0)
	e.f.InjectFault(Fault{Operation: "SendMessage", Err: ErrThrottled})
	_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(src), MessageBody: aws.String("b")})
	require.Error(t, err)
	now := e.f.Now()

	e.f.Reset()
	assert.Empty(t, e.f.Queues())
	assert.Empty(t, e.f.Timeline(id).Events)
	assert.NoError(t, e.f.LastError())
	assert.Equal(t, now, e.f.Now(), "the clock stays where it is")
	e.queue("jobs", nil)
	_, err = e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String("jobs"), MessageBody: aws.String("b")})
	assert.NoError(t, err, "faults are gone")
	_, err = e.f.CreateQueue(e.ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs-dlq")})
	assert.NoError(t, err, "no deletion cooldown survives a reset")
}

// After Reset the same calls give the same MessageIds and request ids as on a new fake, so
// subtests that share a fake see what they would see alone. Receipt handles are those of the
// fake's next epoch: never one issued before the reset, and the same on every run.
func TestResetGivesTheIdentifiersOfANewFakeAndHandlesOfTheNextEpoch(t *testing.T) {
	type ids struct{ messageIDs, handles []string }
	script := func(f *Fake) ids {
		ctx := context.Background()
		q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
		require.NoError(t, err)
		var out ids
		for i := range 10 {
			s, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(fmt.Sprint(i))})
			require.NoError(t, err)
			out.messageIDs = append(out.messageIDs, *s.MessageId)
		}
		for range 5 {
			r, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 3})
			require.NoError(t, err)
			for _, m := range r.Messages {
				out.messageIDs = append(out.messageIDs, *m.MessageId)
				out.handles = append(out.handles, *m.ReceiptHandle)
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"default", nil},
		{"with chaos", []Option{WithChaos(Chaos{Seed: 7, DuplicateRate: 0.5, ReorderRate: 0.5})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := script(New(tc.opts...))
			f := New(tc.opts...)
			first := script(f)
			f.Reset()
			afterReset := script(f)
			assert.Equal(t, want, first)
			assert.Equal(t, want.messageIDs, afterReset.messageIDs)
			assert.Empty(t, shared(first.handles, afterReset.handles), "handles of the first epoch again")

			again := New(tc.opts...)
			script(again)
			again.Reset()
			assert.Equal(t, afterReset, script(again), "the same on every run")
			assert.Equal(t, afterReset, script(New(append(tc.opts, withEpoch(1))...)), "withEpoch(1): as after one Reset")
			f.Reset()
			second := script(f)
			assert.Equal(t, want.messageIDs, second.messageIDs)
			assert.Empty(t, shared(append(first.handles, afterReset.handles...), second.handles), "handles of an earlier epoch again")
		})
	}
}

// shared returns the strings of b that a holds too.
func shared(a, b []string) []string {
	var out []string
	for _, s := range b {
		if slices.Contains(a, s) {
			out = append(out, s)
		}
	}
	return out
}

// TestResetMakesEarlierReceiptHandlesStale: a handle issued before Reset names nothing
// afterwards, although the message that now has the same queue, number and receive would
// have got the same handle before; every operation that takes a handle refuses it as one the
// fake never issued (SPEC.md §5.11–§5.14), through every door.
func TestResetMakesEarlierReceiptHandlesStale(t *testing.T) {
	ctx := context.Background()
	for _, d := range doors(t) {
		t.Run(d.name, func(t *testing.T) {
			sendAndReceive := func(body string) (url, handle *string) {
				q, err := d.api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
				require.NoError(t, err)
				_, err = d.api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(body)})
				require.NoError(t, err)
				got, err := d.api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl})
				require.NoError(t, err)
				require.Len(t, got.Messages, 1)
				return q.QueueUrl, got.Messages[0].ReceiptHandle
			}
			oldURL, old := sendAndReceive("before")
			// The fake reads the handle just before the Reset: what it remembers of the last
			// handle it read must not outlive the epoch.
			_, err := d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: oldURL, ReceiptHandle: old, VisibilityTimeout: 30})
			require.NoError(t, err)
			d.f.Reset()
			url, current := sendAndReceive("after")
			assert.NotEqual(t, *old, *current)

			want := `The input receipt handle "` + *old + `" is not a valid receipt handle.`
			requireInvalid := func(err error) {
				t.Helper()
				var invalid *types.ReceiptHandleIsInvalid
				require.ErrorAs(t, err, &invalid)
				assert.Equal(t, "ReceiptHandleIsInvalid", invalid.ErrorCode())
				assert.Equal(t, want, invalid.ErrorMessage())
			}
			_, err = d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: old})
			requireInvalid(err)
			_, err = d.api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: url, ReceiptHandle: old, VisibilityTimeout: 0})
			requireInvalid(err)
			entryFailed := []types.BatchResultErrorEntry{{Id: aws.String("old"), Code: aws.String("ReceiptHandleIsInvalid"), Message: aws.String(want), SenderFault: true}}
			deleted, err := d.api.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: url,
				Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("old"), ReceiptHandle: old}}})
			require.NoError(t, err)
			assert.Equal(t, entryFailed, deleted.Failed)
			assert.Empty(t, deleted.Successful)
			changed, err := d.api.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: url,
				Entries: []types.ChangeMessageVisibilityBatchRequestEntry{{Id: aws.String("old"), ReceiptHandle: old}}})
			require.NoError(t, err)
			assert.Equal(t, entryFailed, changed.Failed)

			counts, err := d.api.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: url,
				AttributeNames: []types.QueueAttributeName{"ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"}})
			require.NoError(t, err)
			assert.Equal(t, map[string]string{"ApproximateNumberOfMessages": "0", "ApproximateNumberOfMessagesNotVisible": "1"},
				counts.Attributes, "'after' is still in flight")
			_, err = d.api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: url, ReceiptHandle: current})
			assert.NoError(t, err, "the current handle works")
		})
	}
}

func TestResetEndsParkedLongPolls(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	type result struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	done := make(chan result, 2)
	for range 2 {
		go func() {
			out, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
			done <- result{out, err}
		}()
	}
	require.NoError(t, e.f.WaitForPollers(e.ctx, 2))
	e.f.Reset()
	for range 2 {
		r := <-done
		require.NoError(t, r.err)
		assert.Empty(t, r.out.Messages)
	}
	assert.Equal(t, 0, e.f.Pollers())
}

func TestMessageSnapshotShowsTheTraceHeader(t *testing.T) {
	f := New()
	ctx := context.Background()
	q := mustCreateQueue(t, f, "traced", nil)
	out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x"),
		MessageSystemAttributes: map[string]types.MessageSystemAttributeValue{
			"AWSTraceHeader": {DataType: aws.String("String"), StringValue: aws.String("Root=1-5759e988-bd862e3fe1be46a994272793")}}})
	require.NoError(t, err)
	info, err := f.Message("traced", *out.MessageId)
	require.NoError(t, err)
	assert.Equal(t, "Root=1-5759e988-bd862e3fe1be46a994272793", info.TraceHeader)
}

func TestQueuePagePagesThroughMessagesInArrivalOrder(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	var ids []string
	for i := range 7 {
		ids = append(ids, e.send(url, fmt.Sprint(i)))
	}
	whole, _ := e.f.Queue("jobs")

	// Pages of 3: every message once, in arrival order, each page with the queue's snapshot.
	var got []string
	var after uint64
	for {
		page, err := e.f.pageOf("jobs", after, 3)
		require.NoError(t, err)
		head := page.QueueInfo
		head.Messages = whole.Messages
		assert.Equal(t, whole, head, "each page has the queue's attributes, counts and stats")
		for _, m := range page.Messages {
			got = append(got, m.MessageID)
		}
		assert.LessOrEqual(t, len(page.Messages), 3)
		if !page.Truncated {
			assert.Zero(t, page.Next)
			break
		}
		require.Len(t, page.Messages, 3, "a truncated page is full")
		after = page.Next
	}
	assert.Equal(t, ids, got)

	// A page's cursor still holds when the message it ends with is deleted.
	first, _ := e.f.pageOf(url, 0, 2)
	assert.Equal(t, []string{"0", "1"}, []string{first.Messages[0].Body, first.Messages[1].Body})
	m := e.receive(url, 2, 0)
	e.delete(url, *m[1].ReceiptHandle) // "1", the page's last message
	next, _ := e.f.pageOf(url, first.Next, 2)
	assert.Equal(t, []string{"2", "3"}, []string{next.Messages[0].Body, next.Messages[1].Body})
	assert.True(t, next.Truncated)

	all, _ := e.f.pageOf("jobs", 0, 100)
	assert.False(t, all.Truncated)
	assert.Len(t, all.Messages, 6)
	none, _ := e.f.pageOf("jobs", 0, 0)
	assert.Empty(t, none.Messages, "limit 0: the queue without its messages")
	assert.True(t, none.Truncated)
	assert.Zero(t, none.Next, "the next page starts where this one did")
	end, _ := e.f.pageOf("jobs", 1<<40, 3)
	assert.Empty(t, end.Messages, "a cursor past the last message")
	assert.False(t, end.Truncated)

	_, lookupErr := e.f.pageOf("missing", 0, 3)
	assert.ErrorIs(t, lookupErr, ErrNoQueue)
	assert.PanicsWithValue(t, "sqsfake: QueuePage with a negative limit", func() { e.f.pageOf("jobs", 0, -1) })
}

func TestQueueNamesAreInNameOrder(t *testing.T) {
	e := newErgo(t)
	assert.Empty(t, e.f.allQueueNames())
	for _, n := range []string{"c", "a", "b.fifo"} {
		attrs := map[string]string(nil)
		if n == "b.fifo" {
			attrs = map[string]string{"FifoQueue": "true"}
		}
		e.queue(n, attrs)
	}
	assert.Equal(t, []string{"a", "b.fifo", "c"}, e.f.allQueueNames())
}

// TestQueuePageCostsThePageNotTheQueue pins that a page of a long queue allocates as much
// memory as a page of a short one: the messages it leaves out are neither copied nor sorted.
func TestQueuePageCostsThePageNotTheQueue(t *testing.T) {
	allocated := func(n int) uint64 {
		e := newErgo(t)
		url := e.queue("jobs", nil)
		for i := range n {
			e.send(url, fmt.Sprint(i))
		}
		return memtest.BytesPerRun(5, func() {
			page, _ := e.f.pageOf("jobs", 0, 100)
			if len(page.Messages) != 100 {
				t.Fatalf("a page of %d messages", len(page.Messages))
			}
		})
	}
	short, long := allocated(200), allocated(20000)
	assert.LessOrEqual(t, long, short+1024, "a page of 100 allocates %d bytes from 200 messages, %d from 20,000", short, long)
}
