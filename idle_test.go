package sqsfake

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The recipe: count the call, start it on a goroutine, WaitForCalls, move the clock. It
// works whether the poll parks or returns at once — where WaitForPollers would hang.
func TestWaitForCallsReturnsWhetherThePollParksOrReturnsAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		queued  bool
		wantEnd time.Duration
		wantN   int
	}{
		{"a message is there: the poll returns at once", true, 0, 1},
		{"the queue is empty: the poll parks until its wait ends", false, 20 * time.Second, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New()
			q := mustCreateQueue(t, f, "jobs", nil)
			if tc.queued {
				send(t, f, q, "a")
			}
			next := f.CallCount() + 1
			var out *sqs.ReceiveMessageOutput
			done := make(chan struct{})
			go func() {
				defer close(done)
				var err error
				out, err = f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
				assert.NoError(t, err)
			}()
			require.NoError(t, f.WaitForCalls(context.Background(), next))
			f.Advance(20 * time.Second)
			<-done
			assert.Len(t, out.Messages, tc.wantN)
			poll := f.Calls(CallFilter{Operation: "ReceiveMessage"})[0]
			assert.Equal(t, clockAt(tc.wantEnd), poll.End)
			assert.Equal(t, !tc.queued, poll.Waited)
		})
	}
}

func TestWaitIdleReturnsAtOnceWhenNoCallRuns(t *testing.T) {
	f := New()
	require.NoError(t, f.WaitIdle(context.Background()))
	mustCreateQueue(t, f, "jobs", nil)
	require.NoError(t, f.WaitIdle(context.Background()))
	require.NoError(t, f.WaitForCalls(context.Background(), 1))
	require.NoError(t, f.WaitForCalls(context.Background(), 0))
}

// A call that is inside the fake and neither returned nor waiting on the clock keeps
// WaitIdle waiting; here it is held in a Fault's Match.
func TestWaitIdleWaitsForARunningCall(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	entered, release := make(chan struct{}), make(chan struct{})
	f.InjectFault(Fault{Operation: "SendMessage", Match: func(any) bool {
		close(entered)
		<-release
		return false
	}})
	done := make(chan struct{})
	go func() { defer close(done); send(t, f, q, "a") }()
	<-entered

	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.WaitIdle(ended)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "sqsfake: WaitIdle: 1 call still running: context canceled; the latest calls:\n"+
		"  #1 2025-01-01T00:00:00Z CreateQueue jobs → ok\n"+
		"  #2 2025-01-01T00:00:00Z SendMessage jobs: body \"a\" (1 byte) → still running", err.Error())

	waited := make(chan error)
	go func() { waited <- f.WaitIdle(context.Background()) }()
	close(release)
	require.NoError(t, <-waited)
	<-done
}

// A response an injected Latency holds back waits on the clock: the call is idle.
func TestWaitForCallsCountsResponsesHeldByLatencyAsIdle(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	f.InjectFault(Fault{Operation: "SendMessage", Latency: time.Second})
	next := f.CallCount() + 1
	done := make(chan struct{})
	go func() { defer close(done); send(t, f, q, "a") }()
	require.NoError(t, f.WaitForCalls(context.Background(), next))
	assert.Equal(t, 1, f.Pollers())
	f.Advance(time.Second)
	<-done
	require.NoError(t, f.WaitIdle(context.Background()))
}

// When the calls awaited never come, WaitForCalls ends with its context and says what the
// fake had.
func TestWaitForCallsSaysHowManyCallsBeganWhenItsContextEnds(t *testing.T) {
	f := New()
	mustCreateQueue(t, f, "jobs", nil)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	err := f.WaitForCalls(ended, f.CallCount()+2)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, "sqsfake: WaitForCalls: 1 of the 3 calls awaited has begun: context canceled; the latest calls:\n"+
		"  #1 2025-01-01T00:00:00Z CreateQueue jobs → ok", err.Error())
}

// Many goroutines call at once; once WaitForCalls has seen them all, every call has returned.
func TestWaitForCallsSeesEveryCallOfManyGoroutines(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	const workers, each = 8, 25
	want := f.CallCount() + workers*each
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for range each {
				f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x")})
			}
		})
	}
	require.NoError(t, f.WaitForCalls(context.Background(), want))
	assert.Equal(t, want, f.CallCount())
	for _, c := range f.Calls() {
		assert.False(t, c.End.IsZero(), "call #%d has returned", c.Seq)
	}
	wg.Wait()
}
