package lambdasqs_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// scene is a fake with three triggers: one on a queue of the fake's own account whose
// handler fails each message once (redelivered after its 30 s visibility timeout, and one
// message delayed 45 s arrives mid-move), one with a batching window whose handler Sleeps,
// and one on a queue of another account and region whose handler waits on its context
// until its timeout.
type scene struct {
	f     *sqsfake.Fake
	trigs []*lambdasqs.Trigger
}

func newScene(t testing.TB) *scene {
	t.Helper()
	ctx := context.Background()
	f := sqsfake.New()
	other := sqsfake.ActAs(sqsfake.Identity{AccountID: "222222222222", Region: "eu-west-1"})
	a := queue(t, f, "a", map[string]string{"VisibilityTimeout": "30"})
	b := queue(t, f, "b", map[string]string{"VisibilityTimeout": "60"})
	out, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("c"), Attributes: map[string]string{"VisibilityTimeout": "30"}}, other)
	require.NoError(t, err)
	c := *out.QueueUrl
	send := func(url string, n int, delay int32, opts ...func(*sqs.Options)) {
		for i := range n {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(fmt.Sprint("m", i)), DelaySeconds: delay}, opts...)
			require.NoError(t, err)
		}
	}
	send(a, 3, 0)
	send(a, 1, 45)
	send(b, 2, 0)
	send(c, 1, 0, other)
	seen := map[string]bool{} // the first handler's own state: one invocation at a time
	failOnce := func(_ context.Context, ev events.SQSEvent) error {
		for _, r := range ev.Records {
			if !seen[r.MessageId] {
				seen[r.MessageId] = true
				return errors.New("first delivery fails")
			}
		}
		return nil
	}
	ta, err := lambdasqs.New(f, "a", failOnce, lambdasqs.Config{BatchSize: 2})
	require.NoError(t, err)
	tb, err := lambdasqs.New(f, "b", slow(5*time.Second, nil), lambdasqs.Config{BatchSize: 20, MaximumBatchingWindowInSeconds: 3, FunctionTimeout: 10 * time.Second})
	require.NoError(t, err)
	cinfo, _ := f.Queue(c)
	tc, err := lambdasqs.New(f, cinfo.Arn, func(ctx context.Context, _ events.SQSEvent) error {
		<-ctx.Done()
		return ctx.Err()
	}, lambdasqs.Config{FunctionTimeout: 10 * time.Second})
	require.NoError(t, err)
	return &scene{f: f, trigs: []*lambdasqs.Trigger{ta, tb, tc}}
}

// record renders every trigger's invocations, ids and times included.
func (s *scene) record() string {
	var b strings.Builder
	for i, trig := range s.trigs {
		fmt.Fprintf(&b, "trigger %d (%s):\n", i, trig.UUID())
		for _, inv := range trig.Invocations() {
			fmt.Fprintf(&b, "  %s %v-%v %v %v deleted %v kept %v err %v\n", inv.RequestID, inv.At.Sub(sqsfake.DefaultStart), inv.Ended.Sub(sqsfake.DefaultStart), inv.Outcome, inv.MessageIDs, inv.Deleted, inv.Kept, inv.Err)
		}
	}
	return b.String()
}

// TestEveryClockMoveDrivesEveryTrigger pins must-have 1 of issue 19: however the fake's
// clock is moved — one move or many small ones, the fake's Advance, the VirtualClock's Add or
// a trigger's Advance — every trigger on the fake, on a queue of its own account or of
// another, invokes at the same instants with the same outcome.
func TestEveryClockMoveDrivesEveryTrigger(t *testing.T) {
	moves := []struct {
		name string
		move func(s *scene)
	}{
		{"one two-minute Fake.Advance", func(s *scene) { s.f.Advance(2 * time.Minute) }},
		{"120 one-second Fake.Advance", func(s *scene) {
			for range 120 {
				s.f.Advance(time.Second)
			}
		}},
		{"VirtualClock.Add of two minutes", func(s *scene) { s.f.Clock().(*sqsfake.VirtualClock).Add(2 * time.Minute) }},
		{"eight VirtualClock.Add of 15 s", func(s *scene) {
			for range 8 {
				s.f.Clock().(*sqsfake.VirtualClock).Add(15 * time.Second)
			}
		}},
		{"a trigger's Advance", func(s *scene) { require.NoError(t, s.trigs[1].Advance(context.Background(), 2*time.Minute)) }},
		{"Poll between uneven moves", func(s *scene) {
			for _, d := range []time.Duration{7 * time.Second, 0, 29 * time.Second, 1500 * time.Millisecond, 82*time.Second + 500*time.Millisecond} {
				require.NoError(t, s.trigs[0].Poll(context.Background()))
				s.f.Advance(d)
			}
		}},
	}
	var want string
	for i, m := range moves {
		t.Run(m.name, func(t *testing.T) {
			s := newScene(t)
			m.move(s)
			for _, trig := range s.trigs {
				require.NoError(t, trig.Err())
			}
			got := s.record()
			if i == 0 {
				want = got
				// What Lambda's continuous polling sees: the failed batch back at +30 s (not
				// at the end of the move), the delayed message at +45 s, the window at +3 s,
				// the waiting handler timing out at +10 s and again at +40 s.
				assert.Equal(t, []step{
					{0, 0, lambdasqs.FunctionError}, {0, 0, lambdasqs.FunctionError},
					{30 * time.Second, 30 * time.Second, lambdasqs.FunctionError}, {30 * time.Second, 30 * time.Second, lambdasqs.Success},
					{45 * time.Second, 45 * time.Second, lambdasqs.FunctionError},
					{60 * time.Second, 60 * time.Second, lambdasqs.Success}, {75 * time.Second, 75 * time.Second, lambdasqs.Success},
				}, timeline(s.trigs[0]), got)
				assert.Equal(t, []step{{3 * time.Second, 8 * time.Second, lambdasqs.Success}}, timeline(s.trigs[1]), got)
				assert.Equal(t, []step{{0, 10 * time.Second, lambdasqs.Timeout}, {30 * time.Second, 40 * time.Second, lambdasqs.Timeout}, {60 * time.Second, 70 * time.Second, lambdasqs.Timeout}, {90 * time.Second, 100 * time.Second, lambdasqs.Timeout}}, timeline(s.trigs[2]), got)
				return
			}
			assert.Equal(t, want, got)
		})
	}
}
