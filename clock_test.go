package sqsfake

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/benbjohnson/clock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The clocks the package documents satisfy Clock as they are.
var (
	_ Clock = (*clock.Mock)(nil)
	_ Clock = clock.New()
	_ Clock = RealClock{}
	_ Clock = ClockFuncs{}
	_ Clock = (*VirtualClock)(nil)
)

// A benbjohnson mock passed with WithClock keeps working, with its own cost.
func TestWithClockKeepsABenbjohnsonMock(t *testing.T) {
	m := NewMockClock()
	f := New(WithClock(m))
	assert.Same(t, m, f.Clock())
	q := mustCreateQueue(t, f, "q", nil)
	ch := startPoll(t, context.Background(), f, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	f.Advance(20 * time.Second)
	r := <-ch
	require.NoError(t, r.err)
	assert.Empty(t, r.out.Messages)
	assert.Equal(t, DefaultStart.Add(20*time.Second), m.Now())
}

func TestNewStartsOnAVirtualClockAtDefaultStart(t *testing.T) {
	f := New()
	assert.Equal(t, DefaultStart, f.Now())
	_, ok := f.Clock().(*VirtualClock)
	assert.True(t, ok)
	f.Advance(90 * time.Second)
	assert.Equal(t, DefaultStart.Add(90*time.Second), f.Now())
}

// manualClock is a home-grown clock adapted with ClockFuncs.
type manualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []manualTimer
}

type manualTimer struct {
	at      time.Time
	f       func()
	stopped *bool
}

func (c *manualClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *manualClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	stopped := new(bool)
	c.timers = append(c.timers, manualTimer{c.now.Add(d), f, stopped})
	return func() bool { c.mu.Lock(); defer c.mu.Unlock(); was := !*stopped; *stopped = true; return was }
}

func (c *manualClock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	var due []func()
	kept := c.timers[:0]
	for _, tm := range c.timers {
		if !*tm.stopped && !tm.at.After(c.now) {
			*tm.stopped = true
			due = append(due, tm.f)
		} else if !*tm.stopped {
			kept = append(kept, tm)
		}
	}
	c.timers = kept
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

func TestClockFuncsAdaptsAnyClockWithATimer(t *testing.T) {
	mc := &manualClock{now: time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC)}
	f := New(WithClock(ClockFuncs{NowFunc: mc.Now, AfterFuncFunc: mc.AfterFunc, AddFunc: mc.Add}))
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("q")})
	require.NoError(t, err)
	done := make(chan *sqs.ReceiveMessageOutput)
	go func() {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 10})
		assert.NoError(t, err)
		done <- out
	}()
	require.NoError(t, f.WaitForPollers(ctx, 1))
	f.Advance(10 * time.Second)
	out := <-done
	assert.Empty(t, out.Messages)
	assert.Equal(t, time.Date(2024, 6, 1, 0, 0, 10, 0, time.UTC), f.Now())
}

func TestRealClockReadsTheWallClock(t *testing.T) {
	before := time.Now()
	now := RealClock{}.Now()
	assert.False(t, now.Before(before))
	ctx, cancel := RealClock{}.WithDeadline(context.Background(), now.Add(-time.Second))
	defer cancel()
	<-ctx.Done()
}
