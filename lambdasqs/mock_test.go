package lambdasqs_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
	"github.com/sqsfake/sqsfake/lambdasqs"
)

// guard bounds, in real time, how long a test waits for something that must happen without
// any call into the fake; it is a bound against a hang, not a timing assertion.
const guard = 10 * time.Second

// mockMoves are the ways a test moves a benbjohnson mock the fake was given, by two minutes.
var mockMoves = []struct {
	name string
	move func(f *sqsfake.Fake)
}{
	{"Add of two minutes", func(f *sqsfake.Fake) { mockOf(f).Add(2 * time.Minute) }},
	{"120 Add of one second", func(f *sqsfake.Fake) {
		for range 120 {
			mockOf(f).Add(time.Second)
		}
	}},
	{"Set to two minutes on", func(f *sqsfake.Fake) { mockOf(f).Set(sqsfake.DefaultStart.Add(2 * time.Minute)) }},
}

// seen is what a handler saw of one invocation: the fake's time and its batch.
type seen struct {
	at  time.Time
	ids []string
}

// TestAMocksOwnMoveInvokesWhatWasSentAtTheMovesStart pins must-haves 1 and 2 on a
// benbjohnson mock moved with its own Add or Set: messages sent before the move are invoked
// at the instant they were sent (the move's start), in one batch, without any Poll — also
// when the test looks only at what the handler hands it on a channel, with no call into the
// fake — and the handler reads that instant from the fake's time.
func TestAMocksOwnMoveInvokesWhatWasSentAtTheMovesStart(t *testing.T) {
	for _, m := range mockMoves {
		for _, through := range []string{"a channel", "Invocations"} {
			t.Run(m.name+", observed through "+through, func(t *testing.T) {
				ctx := context.Background()
				f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
				url := queue(t, f, "q", nil)
				var sent []string
				for range 3 {
					out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
					require.NoError(t, err)
					sent = append(sent, *out.MessageId)
				}
				handed := make(chan seen, 10)
				trig, err := lambdasqs.New(f, "q", func(ctx context.Context, ev events.SQSEvent) error {
					s := seen{at: f.Now()}
					for _, r := range ev.Records {
						s.ids = append(s.ids, r.MessageId)
					}
					handed <- s
					return nil
				}, lambdasqs.Config{BatchSize: 10})
				require.NoError(t, err)

				m.move(f)
				if through == "a channel" {
					select {
					case s := <-handed:
						assert.Equal(t, seen{at: sqsfake.DefaultStart, ids: sent}, s)
					case <-time.After(guard):
						t.Fatal("the mock's move did not invoke the handler")
					}
				}
				invs := trig.Invocations()
				require.Len(t, invs, 1)
				assert.Equal(t, lambdasqs.Invocation{
					RequestID: invs[0].RequestID, At: sqsfake.DefaultStart, Ended: sqsfake.DefaultStart,
					MessageIDs: sent, Outcome: lambdasqs.Success, Deleted: sent,
				}, invs[0])
				require.NoError(t, trig.Err())
				info, err := f.Queue("q")
				require.NoError(t, err)
				assert.Empty(t, info.Messages)
				assert.Equal(t, sqsfake.DefaultStart.Add(2*time.Minute), f.Now())
			})
		}
	}
}

// TestAMocksOwnMoveRedeliversAtTheVisibilityTimeout: a batch that fails at the move's start
// comes back at its visibility timeout inside the move, and a message sent after the move
// is invoked at the move's end, where the send happened.
func TestAMocksOwnMoveRedeliversAtTheVisibilityTimeout(t *testing.T) {
	for _, m := range mockMoves {
		t.Run(m.name, func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
			url := queue(t, f, "q", map[string]string{"VisibilityTimeout": "30"})
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m0")})
			require.NoError(t, err)
			failed := false
			trig, err := lambdasqs.New(f, "q", func(context.Context, events.SQSEvent) error {
				if !failed {
					failed = true
					return errors.New("first delivery fails")
				}
				return nil
			}, lambdasqs.Config{})
			require.NoError(t, err)
			m.move(f)
			_, err = f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m1")})
			require.NoError(t, err)
			mockOf(f).Add(time.Second)
			require.NoError(t, trig.Err())
			assert.Equal(t, []step{
				{0, 0, lambdasqs.FunctionError},
				{30 * time.Second, 30 * time.Second, lambdasqs.Success},
				{2 * time.Minute, 2 * time.Minute, lambdasqs.Success},
			}, timeline(trig))
		})
	}
}

// TestAHandlerThatCallsTheFakeWithoutItsContextDuringAMocksMoveActsInTheStep pins a handler
// that calls the fake with a context that is not its own (context.Background()) while the
// fake catches up with a benbjohnson mock's own move: the trigger runs handlers on
// goroutines it marks as the step's (companion.JoinStep), so the call neither waits for the
// catch-up nor starts one — it acts at the invocation's instant, and nothing is reported.
func TestAHandlerThatCallsTheFakeWithoutItsContextDuringAMocksMoveActsInTheStep(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
	a := queue(t, f, "a", map[string]string{"VisibilityTimeout": "900"})
	b := queue(t, f, "b", nil)
	for range 2 {
		_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &a, MessageBody: aws.String("m")})
		require.NoError(t, err)
	}
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &a, MessageBody: aws.String("later"), DelaySeconds: 30})
	require.NoError(t, err)
	trig, err := lambdasqs.New(f, "a", func(_ context.Context, ev events.SQSEvent) error {
		// Not the handler's ctx: a call the fake cannot tell by its context.
		_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: &b, MessageBody: aws.String(ev.Records[0].Body)})
		return err
	}, lambdasqs.Config{BatchSize: 1, HandlerWait: time.Minute, FunctionTimeout: 5 * time.Minute})
	require.NoError(t, err)
	mockOf(f).Add(time.Minute)
	require.NoError(t, trig.Err())
	assert.Equal(t, []step{
		{0, 0, lambdasqs.Success},
		{0, 0, lambdasqs.Success},
		{30 * time.Second, 30 * time.Second, lambdasqs.Success},
	}, timeline(trig))
	info, err := f.Queue("b")
	require.NoError(t, err)
	var sent []time.Duration
	for _, m := range info.Messages {
		sent = append(sent, m.SentAt.Sub(sqsfake.DefaultStart))
	}
	assert.Equal(t, []time.Duration{0, 0, 30 * time.Second}, sent, "each sent at its invocation's instant")
}

// TestAMockMovedOnOneGoroutineWhileAnotherPollsNeverDeadlocks: a test that moves the mock on
// one goroutine while another polls and reads the record gets an order that depends on
// scheduling, but no deadlock: every message is handled once.
func TestAMockMovedOnOneGoroutineWhileAnotherPollsNeverDeadlocks(t *testing.T) {
	for _, fifo := range []bool{false, true} {
		// On a FIFO queue every receive is sized from the fake's inspection of the queue,
		// which carries no context: Poll's own goroutine makes it.
		t.Run(fmt.Sprint("fifo ", fifo), func(t *testing.T) {
			ctx := context.Background()
			f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
			name, attrs := "q", map[string]string(nil)
			if fifo {
				name, attrs = "q.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true"}
			}
			url := queue(t, f, name, attrs)
			trig, err := lambdasqs.New(f, name, ok, lambdasqs.Config{BatchSize: 1})
			require.NoError(t, err)
			var wg sync.WaitGroup
			wg.Go(func() {
				for i := range 40 {
					if i%4 == 0 {
						in := &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String(fmt.Sprint("m", i))}
						if fifo {
							in.MessageGroupId = aws.String(fmt.Sprint("g", i))
						}
						_, err := f.SendMessage(ctx, in)
						assert.NoError(t, err)
					}
					mockOf(f).Add(time.Second)
				}
			})
			for range 40 {
				assert.NoError(t, trig.Poll(ctx))
				trig.Invocations()
			}
			wg.Wait()
			require.NoError(t, trig.Poll(ctx))
			assert.Len(t, trig.Invocations(), 10)
		})
	}
}

// TestASendBetweenTwoMovesOfAMockIsInvokedByTheSecond: a message sent after the fake has
// caught up with one move of a benbjohnson mock is invoked by the mock's next move, at the
// instant it was sent, with no call into the fake after the move.
func TestASendBetweenTwoMovesOfAMockIsInvokedByTheSecond(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
	url := queue(t, f, "q", nil)
	handed := make(chan seen, 10)
	_, err := lambdasqs.New(f, "q", func(ctx context.Context, ev events.SQSEvent) error {
		handed <- seen{at: f.Now(), ids: []string{ev.Records[0].MessageId}}
		return nil
	}, lambdasqs.Config{})
	require.NoError(t, err)
	mockOf(f).Add(time.Minute)
	companion.CatchUp(f)
	out, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	require.NoError(t, err)
	mockOf(f).Add(time.Minute)
	select {
	case s := <-handed:
		assert.Equal(t, seen{at: sqsfake.DefaultStart.Add(time.Minute), ids: []string{*out.MessageId}}, s)
	case <-time.After(guard):
		t.Fatal("the mock's second move did not invoke the handler")
	}
}

// TestAdvanceOnAMockArmsNoTimerPerStep: f.Advance on a benbjohnson mock steps every instant
// itself and arms the fake's own mock timer once, as it ends — not at each step, where every
// timer would cost the mock's Add a millisecond and leave a goroutine blocked until Advance
// returns. The handler, which fails every time (a redelivery every 30 s), counts the
// goroutines at each of its 121 invocations.
func TestAdvanceOnAMockArmsNoTimerPerStep(t *testing.T) {
	ctx := context.Background()
	f := sqsfake.New(sqsfake.WithClock(sqsfake.NewMockClock()))
	url := queue(t, f, "q", map[string]string{"VisibilityTimeout": "30"})
	_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: aws.String("m")})
	require.NoError(t, err)
	first, most := 0, 0
	trig, err := lambdasqs.New(f, "q", func(context.Context, events.SQSEvent) error {
		n := runtime.NumGoroutine()
		if first == 0 {
			first = n
		}
		most = max(most, n)
		return errors.New("fails")
	}, lambdasqs.Config{})
	require.NoError(t, err)
	f.Advance(time.Hour)
	require.Len(t, trig.Invocations(), 121)
	assert.Less(t, most-first, 10, "goroutines gained over the move")
}
