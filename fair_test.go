package sqsfake

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fairFixture is a standard queue with a long visibility timeout, so that what is received
// stays in flight until the test says otherwise.
type fairFixture struct {
	t   *testing.T
	f   *Fake
	url *string
}

func newFairFixture(t *testing.T) *fairFixture {
	f := New()
	return &fairFixture{t: t, f: f, url: mustCreateQueue(t, f, "fair", map[string]string{"VisibilityTimeout": "43200"})}
}

// send sends n messages of tenant group ("" for none), with bodies group-1, group-2, …
// numbered from first.
func (fx *fairFixture) send(group string, first, n int) {
	fx.t.Helper()
	for i := range n {
		in := &sqs.SendMessageInput{QueueUrl: fx.url, MessageBody: aws.String(fmt.Sprintf("%s-%d", group, first+i))}
		if group != "" {
			in.MessageGroupId = aws.String(group)
		}
		_, err := fx.f.SendMessage(context.Background(), in)
		require.NoError(fx.t, err)
	}
}

// receive receives n messages, ten at a time, and returns their bodies and handles.
func (fx *fairFixture) receive(n int) (bodies, handles []string) {
	fx.t.Helper()
	for n > 0 {
		out, err := fx.f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: fx.url, MaxNumberOfMessages: int32(min(n, 10))})
		require.NoError(fx.t, err)
		require.NotEmpty(fx.t, out.Messages, "nothing left to receive")
		for _, m := range out.Messages {
			bodies = append(bodies, *m.Body)
			handles = append(handles, *m.ReceiptHandle)
		}
		n -= len(out.Messages)
	}
	return bodies, handles
}

func (fx *fairFixture) delete(handle string) {
	fx.t.Helper()
	_, err := fx.f.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: fx.url, ReceiptHandle: aws.String(handle)})
	require.NoError(fx.t, err)
}

// fillInFlight puts mine of tenant A's messages and others of other tenants (one each) in
// flight.
func (fx *fairFixture) fillInFlight(mine, others int) {
	fx.t.Helper()
	fx.send("A", 1, mine)
	for i := range others {
		fx.send(fmt.Sprintf("o%03d", i), 1, 1)
	}
	fx.receive(mine + others)
}

func TestFairQueueConcurrencyShareThreshold(t *testing.T) {
	tests := []struct {
		name             string
		mine, totalFlown int
		noisy            bool
	}{
		{"29 in flight is never noisy, even alone", 29, 29, false},
		{"30 in flight, all of the queue's", 30, 30, true},
		{"30 of 300 in flight is 10 %, not over it", 30, 300, false},
		{"30 of 297 in flight is 10.1 %", 30, 297, true},
		{"40 of 300 in flight", 40, 300, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFairFixture(t)
			fx.fillInFlight(tt.mine, tt.totalFlown-tt.mine)
			fx.send("A", 1000, 1) // A's backlog, sent before B's message
			fx.send("B", 1, 1)
			got, _ := fx.receive(1)
			want := "A-1000"
			if tt.noisy {
				want = "B-1"
			}
			assert.Equal(t, []string{want}, got)
			tenants, err := fx.f.Tenants("fair")
			require.NoError(t, err)
			a := tenants[0]
			assert.Equal(t, "A", a.GroupID)
			assert.Equal(t, tt.noisy, a.Noisy)
		})
	}
}

func TestFairQueueProcessingTimeShareThreshold(t *testing.T) {
	tests := []struct {
		name        string
		mine, other time.Duration
		noisy       bool
	}{
		{"10 % of the processing time is not over it", 1 * time.Second, 9 * time.Second, false},
		{"10.1 %", 101 * time.Millisecond, 899 * time.Millisecond, true},
		{"half", 5 * time.Second, 5 * time.Second, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFairFixture(t)
			fx.send("A", 1, 1)
			fx.send("O", 1, 1) // O's share is high too, but it has no backlog left
			_, handles := fx.receive(2)
			fx.f.Advance(tt.mine)
			fx.delete(handles[0])
			fx.f.Advance(tt.other - tt.mine)
			fx.delete(handles[1])
			fx.send("A", 2, 1)
			fx.send("B", 1, 1)
			got, _ := fx.receive(1)
			want := "A-2"
			if tt.noisy {
				want = "B-1"
			}
			assert.Equal(t, []string{want}, got)
		})
	}
}

func TestFairQueueProcessingTimeCountsOnlyWithinTheWindow(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after time.Duration
		noisy bool
	}{
		{"just inside the window", FairProcessingWindow - time.Nanosecond, true},
		{"a window after it ended", FairProcessingWindow, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFairFixture(t)
			fx.send("A", 1, 1)
			_, handles := fx.receive(1)
			fx.f.Advance(time.Second)
			fx.delete(handles[0]) // A: all of the processing time
			fx.f.Advance(tt.after)
			fx.send("A", 2, 1)
			fx.send("B", 1, 1)
			got, _ := fx.receive(1)
			want := map[bool]string{true: "B-1", false: "A-2"}[tt.noisy]
			assert.Equal(t, []string{want}, got)
		})
	}
}

func TestFairQueueVisibilityLapseEndsProcessing(t *testing.T) {
	f := New()
	url := mustCreateQueue(t, f, "fair", map[string]string{"VisibilityTimeout": "10"})
	fx := &fairFixture{t: t, f: f, url: url}
	fx.send("A", 1, 1)
	fx.receive(1)
	f.Advance(10 * time.Second) // A-1 is visible again: 10 s of processing, all A's
	fx.send("B", 1, 1)
	got, _ := fx.receive(2)
	assert.Equal(t, []string{"B-1", "A-1"}, got, "A's returned message is its backlog; B goes first")
}

func TestFairQueueTenantTurnsQuietAfterFiveMinutesWithoutASend(t *testing.T) {
	for _, tt := range []struct {
		name  string
		after time.Duration
		noisy bool
	}{
		{"a nanosecond short of five minutes", FairQuietAfter - time.Nanosecond, true},
		{"five minutes after its last send", FairQuietAfter, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFairFixture(t)
			fx.fillInFlight(30, 0)
			fx.send("A", 1000, 1)
			fx.f.Advance(tt.after)
			fx.send("B", 1, 1)
			got, _ := fx.receive(1)
			want := map[bool]string{true: "B-1", false: "A-1000"}[tt.noisy]
			assert.Equal(t, []string{want}, got)
		})
	}
}

func TestFairQueueNoisyTenantIsServedWhenNoQuietMessageWaits(t *testing.T) {
	fx := newFairFixture(t)
	fx.fillInFlight(30, 0)
	fx.send("A", 1000, 2)
	fx.send("B", 1, 1)
	got, _ := fx.receive(3)
	assert.Equal(t, []string{"B-1", "A-1000", "A-1001"}, got, "one receive: quiet first, then the noisy backlog")

	periods, err := fx.f.NoisyPeriods("fair")
	require.NoError(t, err)
	assert.Equal(t, []NoisyPeriod{{GroupID: "A", From: DefaultStart, Reason: NoisyByConcurrency}}, periods)

	fx.f.Advance(time.Second)
	fx.send("C", 1, 1)
	fx.receive(1) // A's backlog is drained: this receive finds it quiet
	periods, _ = fx.f.NoisyPeriods("fair")
	assert.Equal(t, []NoisyPeriod{{GroupID: "A", From: DefaultStart, To: DefaultStart.Add(time.Second), Reason: NoisyByConcurrency}}, periods)
}

func TestFairQueueAmongNoisyTenantsTheFewestInFlightGoesFirst(t *testing.T) {
	fx := newFairFixture(t)
	fx.send("A", 1, 40)
	fx.send("C", 1, 30)
	fx.receive(70) // A: 40 of 70 in flight, C: 30 of 70; both noisy
	fx.send("A", 1000, 1)
	fx.send("C", 1000, 1)
	got, _ := fx.receive(2)
	assert.Equal(t, []string{"C-1000", "A-1000"}, got)
}

func TestFairQueueMessagesWithoutAGroupIDAreQuietTenants(t *testing.T) {
	fx := newFairFixture(t)
	fx.fillInFlight(30, 0)
	fx.send("A", 1000, 1)
	fx.send("", 1, 2)
	got, _ := fx.receive(3)
	assert.Equal(t, []string{"-1", "-2", "A-1000"}, got)
}

func TestFairQueueWithoutNoisyTenantsDeliversFirstSentFirst(t *testing.T) {
	fx := newFairFixture(t)
	fx.send("", 1, 1)
	fx.send("A", 1, 2)
	fx.send("B", 1, 1)
	fx.send("", 2, 1)
	got, _ := fx.receive(5)
	assert.Equal(t, []string{"-1", "A-1", "A-2", "B-1", "-2"}, got)
}

func TestQueueWithoutGroupIDsKeepsNoTenants(t *testing.T) {
	fx := newFairFixture(t)
	fx.send("", 1, 3)
	fx.receive(2)
	tenants, err := fx.f.Tenants("fair")
	assert.NoError(t, err)
	assert.Nil(t, tenants)
	assert.Nil(t, fx.f.lookupQueue("fair").fair, "no bookkeeping on a queue that never saw a group id")
	_, err = fx.f.Tenants("nope")
	assert.ErrorIs(t, err, ErrNoQueue)
	_, err = fx.f.NoisyPeriods("nope")
	assert.ErrorIs(t, err, ErrNoQueue)
}

func TestFairQueueTenantsSnapshot(t *testing.T) {
	fx := newFairFixture(t)
	fx.fillInFlight(30, 0)
	fx.send("A", 1000, 2)
	_, err := fx.f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: fx.url, MessageBody: aws.String("late"), MessageGroupId: aws.String("B"), DelaySeconds: 60})
	require.NoError(t, err)
	fx.f.Advance(time.Second)
	fx.receive(1)
	tenants, err := fx.f.Tenants("fair")
	require.NoError(t, err)
	assert.Equal(t, []TenantInfo{
		{GroupID: "A", Visible: 1, InFlight: 31, LastSent: DefaultStart, Noisy: true, NoisySince: DefaultStart.Add(time.Second), NoisyReason: NoisyByConcurrency},
		{GroupID: "B", Delayed: 1, LastSent: DefaultStart},
	}, tenants)
}

func TestFairQueuePurgeEndsNoisyPeriodsAndForgetsTenants(t *testing.T) {
	fx := newFairFixture(t)
	fx.fillInFlight(30, 0)
	fx.send("A", 1000, 1)
	fx.send("B", 1, 1)
	fx.receive(1)
	fx.f.Advance(time.Second)
	_, err := fx.f.PurgeQueue(context.Background(), &sqs.PurgeQueueInput{QueueUrl: fx.url})
	require.NoError(t, err)
	tenants, _ := fx.f.Tenants("fair")
	assert.Empty(t, tenants)
	periods, _ := fx.f.NoisyPeriods("fair")
	assert.Equal(t, []NoisyPeriod{{GroupID: "A", From: DefaultStart, To: DefaultStart.Add(time.Second), Reason: NoisyByConcurrency}}, periods)
	fx.send("A", 2000, 1)
	fx.send("B", 2, 1)
	got, _ := fx.receive(2)
	assert.Equal(t, []string{"A-2000", "B-2"}, got)
}

func TestFairQueueDeadLetterMoveKeepsTenantCountsRight(t *testing.T) {
	f := New()
	mustCreateQueue(t, f, "dlq", nil)
	url := mustCreateQueue(t, f, "src", map[string]string{
		"VisibilityTimeout": "1",
		"RedrivePolicy":     `{"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:dlq","maxReceiveCount":"1"}`,
	})
	fx := &fairFixture{t: t, f: f, url: url}
	fx.send("A", 1, 1)
	fx.receive(1)
	f.Advance(time.Second)
	out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: url})
	require.NoError(t, err)
	assert.Empty(t, out.Messages, "moved to the DLQ")
	src, _ := f.Tenants("src")
	assert.Equal(t, []TenantInfo{{
		GroupID: "A", LastSent: DefaultStart, ProcessingTime: time.Second, ProcessingShare: 1,
		// The receive saw A's returned message as its backlog, before moving it.
		Noisy: true, NoisySince: DefaultStart.Add(time.Second), NoisyReason: NoisyByProcessingTime,
	}}, src, "the tenant has no message left; its processing time stays for the window")
	f.Advance(FairProcessingWindow)
	f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: url})
	src, _ = f.Tenants("src")
	assert.Empty(t, src, "forgotten once quiet and out of the window")
	dlq, _ := f.Tenants("dlq")
	assert.Equal(t, []TenantInfo{{GroupID: "A", Visible: 1, LastSent: DefaultStart.Add(time.Second)}}, dlq)
}

// A flood from one tenant does not hold up the others: with a consumer that takes ten
// messages a second and works one second on each, tenant B's messages wait at most a
// second while A's backlog of 300 drains.
func TestFairQueueFloodKeepsQuietTenantsDwellTimeLow(t *testing.T) {
	f := New()
	url := mustCreateQueue(t, f, "fair", map[string]string{"VisibilityTimeout": "30"})
	fx := &fairFixture{t: t, f: f, url: url}
	fx.send("A", 1, 300)
	sentB := map[string]time.Time{}
	var worst time.Duration
	var held []string
	for sec := range 40 {
		b := fmt.Sprintf("B-%d", sec)
		_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: url, MessageBody: aws.String(b), MessageGroupId: aws.String("B")})
		require.NoError(t, err)
		sentB[b] = f.Now()
		for _, h := range held {
			fx.delete(h)
		}
		held = held[:0]
		out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: url, MaxNumberOfMessages: 10})
		require.NoError(t, err)
		for _, m := range out.Messages {
			if at, ok := sentB[*m.Body]; ok {
				worst = max(worst, f.Now().Sub(at))
			}
			held = append(held, *m.ReceiptHandle)
		}
		f.Advance(time.Second)
	}
	assert.LessOrEqual(t, worst, time.Second)
	periods, _ := f.NoisyPeriods("fair")
	require.NotEmpty(t, periods)
	assert.Equal(t, "A", periods[0].GroupID)
	assert.Equal(t, DefaultStart.Add(time.Second), periods[0].From, "the first receive after A's first processing ended")
	assert.Equal(t, NoisyByProcessingTime, periods[0].Reason)
}

func TestFairQueueSameScriptSameResult(t *testing.T) {
	run := func() ([]NoisyPeriod, []string) {
		f := New()
		url := mustCreateQueue(t, f, "fair", map[string]string{"VisibilityTimeout": "5"})
		fx := &fairFixture{t: t, f: f, url: url}
		var order []string
		for i := range 50 {
			fx.send(fmt.Sprintf("t%d", i%7), i, 1+i%5)
			got, handles := fx.receive(min(3, f.lookupQueue("fair").visLen()))
			order = append(order, got...)
			if i%2 == 0 && len(handles) > 0 {
				fx.delete(handles[0])
			}
			f.Advance(time.Duration(i%4) * time.Second)
		}
		p, _ := f.NoisyPeriods("fair")
		return p, order
	}
	p1, o1 := run()
	p2, o2 := run()
	assert.Equal(t, p1, p2)
	assert.Equal(t, o1, o2)
}
