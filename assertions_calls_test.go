package sqsfake

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callScene is a fake whose record holds, at 0 s: #1 CreateQueue jobs, #2 SendMessage,
// #3 ReceiveMessage, #4 DeleteMessage throttled by a fault; at 10 s: #5 GetQueueUrl of a
// missing queue.
func callScene(t *testing.T) *Fake {
	e := newErgo(t)
	q := e.queue("jobs", nil)
	e.send(q, "a")
	m := e.receiveOne(q, 0)
	e.f.InjectFault(Fault{Operation: "DeleteMessage", Times: 1, Err: ErrThrottled})
	_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q), ReceiptHandle: m.ReceiptHandle})
	require.Error(t, err)
	e.f.Advance(10 * time.Second)
	_, err = e.f.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err)
	return e.f
}

const (
	sceneSend   = `  #2 2025-01-01T00:00:00Z SendMessage jobs: body "a" (1 byte) → message e971d095-7520-4d94-b0f9-05ed8b12ebc5`
	sceneDelete = `  #4 2025-01-01T00:00:00Z DeleteMessage jobs: handle AQEBBfsBolUQ… (message e971d095-7520-4d94-b0f9-05ed8b12ebc5, receive 1) → error RequestThrottled: Rate exceeded [fault]`
	sceneGetURL = `  #5 2025-01-01T00:00:10Z GetQueueUrl missing → error AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.`
)

func TestCallAssertionsPassAndFail(t *testing.T) {
	sends := CallFilter{Operation: "SendMessage"}
	deletes := CallFilter{Operation: "DeleteMessage", Queue: "jobs"}
	cases := []struct {
		name   string
		assert func(t TestingT, f *Fake) bool
		want   string // "": passes
	}{
		{"count", func(t TestingT, f *Fake) bool { return AssertCallCount(t, f, sends, 1) }, ""},
		{"count of every call", func(t TestingT, f *Fake) bool { return AssertCallCount(t, f, CallFilter{}, 5) }, ""},
		{"count of none", func(t TestingT, f *Fake) bool { return AssertCallCount(t, f, CallFilter{Operation: "PurgeQueue"}, 0) }, ""},
		{"count fails", func(t TestingT, f *Fake) bool { return AssertCallCount(t, f, sends, 2, "after %d sends", 2) },
			"sqsfake: expected 2 SendMessage calls, but there is 1\nSendMessage calls:\n" + sceneSend + "\nMessages: after 2 sends"},
		{"count fails with none", func(t TestingT, f *Fake) bool {
			return AssertCallCount(t, f, CallFilter{Operation: "PurgeQueue", Queue: "jobs"}, 1)
		},
			"sqsfake: expected 1 PurgeQueue call on queue jobs, but there are 0"},
		{"count with a misspelt operation", func(t TestingT, f *Fake) bool { return AssertCallCount(t, f, CallFilter{Operation: "SendMessages"}, 0) },
			`sqsfake: AssertCallCount: CallFilter.Operation "SendMessages" is not an SQS operation; name one as the SDK does, e.g. "DeleteMessage"`},

		{"no call after the last", func(t TestingT, f *Fake) bool { return AssertNoCallAfter(t, f, CallFilter{}, clockAt(10*time.Second)) }, ""},
		{"a call at the instant is not after it", func(t TestingT, f *Fake) bool { return AssertNoCallAfter(t, f, deletes, DefaultStart) }, ""},
		{"no call after fails", func(t TestingT, f *Fake) bool { return AssertNoCallAfter(t, f, CallFilter{}, clockAt(time.Second)) },
			"sqsfake: expected no calls after 2025-01-01T00:00:01Z, but 1 call began later\ncalls:\n" + sceneGetURL},

		{"last error by code", func(t TestingT, f *Fake) bool { return AssertLastCallError(t, f, deletes, "RequestThrottled") }, ""},
		{"last error by ServiceError", func(t TestingT, f *Fake) bool { return AssertLastCallError(t, f, deletes, ErrThrottled) }, ""},
		{"last error by type", func(t TestingT, f *Fake) bool {
			return AssertLastCallError(t, f, CallFilter{}, new(*types.QueueDoesNotExist))
		}, ""},
		{"last error with another code", func(t TestingT, f *Fake) bool { return AssertLastCallError(t, f, deletes, "ReceiptHandleIsInvalid") },
			"sqsfake: expected the last of the DeleteMessage calls on queue jobs to fail with ErrorCode ReceiptHandleIsInvalid, but #4 failed with ErrorCode RequestThrottled\nDeleteMessage calls on queue jobs:\n" + sceneDelete},
		{"last call succeeded", func(t TestingT, f *Fake) bool { return AssertLastCallError(t, f, sends, ErrThrottled) },
			"sqsfake: expected the last of the SendMessage calls to fail with an SQS error with ErrorCode RequestThrottled, but #2 succeeded\nSendMessage calls:\n" + sceneSend},
		{"no such call", func(t TestingT, f *Fake) bool {
			return AssertLastCallError(t, f, CallFilter{Queue: "mail"}, "RequestThrottled")
		},
			"sqsfake: expected the last of the calls on queue mail to fail with ErrorCode RequestThrottled, but there is none\ncalls:\n" +
				"  #1 2025-01-01T00:00:00Z CreateQueue jobs → ok\n" + sceneSend + "\n" +
				"  #3 2025-01-01T00:00:00Z ReceiveMessage jobs: max 1 → 1 message: e971d095-7520-4d94-b0f9-05ed8b12ebc5\n" + sceneDelete + "\n" + sceneGetURL},
		{"last error with a bad target", func(t TestingT, f *Fake) bool { return AssertLastCallError(t, f, deletes, 42) },
			"sqsfake: AssertLastCallError: target must be a non-nil pointer to an error type or an interface, an error, or an error code; got int"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := callScene(t)
			rec := &recordingT{}
			ok := c.assert(rec, f)
			assert.Positive(t, rec.helpers)
			if c.want == "" {
				assert.True(t, ok)
				assert.Empty(t, rec.errors)
				return
			}
			assert.False(t, ok)
			assert.Equal(t, c.want, rec.text())
		})
	}
}

// A long poll still parked is the last call, not yet failed.
func TestAssertLastCallErrorOnACallStillWaiting(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	ctx, cancel := context.WithCancel(context.Background())
	next := f.CallCount() + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	}()
	require.NoError(t, f.WaitForCalls(context.Background(), next))
	rec := &recordingT{}
	assert.False(t, AssertLastCallError(rec, f, CallFilter{Operation: "ReceiveMessage"}, "OverLimit"))
	assert.Contains(t, rec.text(), "but #2 has not returned")
	cancel()
	<-done
	// Its caller ended it: the record has the cancellation, LastError does not.
	assert.True(t, AssertLastCallError(t, f, CallFilter{Operation: "ReceiveMessage"}, context.Canceled))
	assert.Nil(t, f.LastError())
}

func TestRequireCallTwinsStopTheTestOnFailure(t *testing.T) {
	f := callScene(t)
	for name, require := range map[string]func(RequireT){
		"RequireCallCount":     func(t RequireT) { RequireCallCount(t, f, CallFilter{}, 1) },
		"RequireNoCallAfter":   func(t RequireT) { RequireNoCallAfter(t, f, CallFilter{}, DefaultStart) },
		"RequireLastCallError": func(t RequireT) { RequireLastCallError(t, f, CallFilter{}, "OverLimit") },
	} {
		rec := &recordingT{}
		require(rec)
		assert.True(t, rec.failedNow, name)
		assert.Len(t, rec.errors, 1, name)
	}
	rec := &recordingT{}
	RequireCallCount(rec, f, CallFilter{}, 5)
	RequireNoCallAfter(rec, f, CallFilter{}, clockAt(time.Minute))
	RequireLastCallError(rec, f, CallFilter{}, "AWS.SimpleQueueService.NonExistentQueue")
	assert.False(t, rec.failedNow)
	assert.Empty(t, rec.errors)
}
