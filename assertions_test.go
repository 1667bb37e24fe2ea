package sqsfake

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The assertion interfaces interchange with testify's, and the usual test types fit them.
var (
	_ assert.TestingT  = TestingT(nil)
	_ TestingT         = assert.TestingT(nil)
	_ require.TestingT = RequireT(nil)
	_ RequireT         = require.TestingT(nil)
	_ RequireT         = (*testing.T)(nil)
	_ RequireT         = (*testing.B)(nil)
	_ RequireT         = (*assert.CollectT)(nil)
	_ CleanupT         = (*testing.T)(nil)
	_ CleanupT         = (*testing.B)(nil)
)

// recordingT records what an assertion does to its test.
type recordingT struct {
	errors    []string
	helpers   int
	failedNow bool
	cleanups  []func()
}

func (r *recordingT) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recordingT) Helper()           { r.helpers++ }
func (r *recordingT) FailNow()          { r.failedNow = true }
func (r *recordingT) Cleanup(fn func()) { r.cleanups = append(r.cleanups, fn) }
func (r *recordingT) text() string      { return strings.Join(r.errors, "\n") }
func (r *recordingT) runCleanups() {
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
}

// assertScene is a fake in a known state at 30 s on its clock:
//
//	jobs (RedrivePolicy to jobs-dlq after 2): A in flight until 60 s, B visible, C delayed
//	until 90 s, D received and deleted;
//	mail (RedrivePolicy to mail-dlq after 1): E received once at 0 s, moved to mail-dlq at 30 s;
//	tmp: P purged at 30 s.
type assertScene struct {
	*ergo
	a, b, c, d, e, p string
	handleA          string
	jobs             string // jobs's URL
}

func newAssertScene(t *testing.T) *assertScene {
	s := &assertScene{ergo: newErgo(t)}
	mail, _ := s.dlqPair("mail", 1)
	s.jobs, _ = s.dlqPair("jobs", 2)
	tmp := s.queue("tmp", nil)
	s.e = s.send(mail, "email")
	s.receiveOne(mail, 0)
	s.p = s.send(tmp, "temporary")
	s.f.Advance(30 * time.Second)
	require.Empty(t, s.receive(mail, 1, 0), "E moves to mail-dlq")
	_, err := s.f.PurgeQueue(s.ctx, &sqs.PurgeQueueInput{QueueUrl: aws.String(tmp)})
	require.NoError(t, err)

	s.d = s.send(s.jobs, "done")
	s.delete(s.jobs, *s.receiveOne(s.jobs, 0).ReceiptHandle)
	s.a = s.send(s.jobs, "working")
	s.b = s.send(s.jobs, "waiting")
	s.c = *s.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(s.jobs), MessageBody: aws.String("later"), DelaySeconds: 60}).MessageId
	s.handleA = *s.receiveOne(s.jobs, 0).ReceiptHandle
	return s
}

// receivedLineA is how a timeline prints A's first receive, at 30 s, in flight until 60 s.
func (s *assertScene) receivedLineA() string {
	return "  2025-01-01T00:00:30Z  received from jobs (receive 1, handle " + s.handleA + ", visible again at 2025-01-01T00:01:00Z)"
}

func TestAssertionsPassAndFail(t *testing.T) {
	const jobsArn = "arn:aws:sqs:us-east-1:123456789012:jobs"
	type tc struct {
		name string
		run  func(t TestingT, s *assertScene) bool
		// want lists what the failure must say; nil means the assertion passes.
		want func(s *assertScene) []string
	}
	cases := []tc{
		{"in-flight count holds", func(t TestingT, s *assertScene) bool { return AssertInFlightCount(t, s.f, "jobs", 1) }, nil},
		{"in-flight count by URL and ARN", func(t TestingT, s *assertScene) bool {
			return AssertInFlightCount(t, s.f, s.jobs, 1) && AssertInFlightCount(t, s.f, jobsArn, 1)
		}, nil},
		{"in-flight count differs", func(t TestingT, s *assertScene) bool { return AssertInFlightCount(t, s.f, "jobs", 2) },
			func(s *assertScene) []string {
				return []string{
					"sqsfake: expected 2 messages in flight in queue jobs, but there is 1",
					"queue jobs at 2025-01-01T00:00:30Z: 1 visible, 1 in flight, 1 delayed",
					"  " + s.a + `  in flight until 2025-01-01T00:01:00Z, received 1 time, body "working"`,
					"  " + s.b + `  visible, received 0 times, body "waiting"`,
					"  " + s.c + `  delayed until 2025-01-01T00:01:30Z, received 0 times, body "later"`,
					"timeline of message " + s.a + ":\n  2025-01-01T00:00:30Z  sent to jobs\n" + s.receivedLineA(),
				}
			}},
		{"visible count holds", func(t TestingT, s *assertScene) bool { return AssertVisibleCount(t, s.f, "jobs", 1) }, nil},
		{"visible count differs", func(t TestingT, s *assertScene) bool { return AssertVisibleCount(t, s.f, "jobs", 0) },
			func(s *assertScene) []string {
				return []string{"expected 0 messages visible in queue jobs, but there is 1", "1 visible, 1 in flight, 1 delayed"}
			}},
		{"delayed count holds", func(t TestingT, s *assertScene) bool { return AssertDelayedCount(t, s.f, "jobs", 1) }, nil},
		{"delayed count differs", func(t TestingT, s *assertScene) bool { return AssertDelayedCount(t, s.f, "jobs", 2) },
			func(s *assertScene) []string {
				return []string{"expected 2 messages delayed in queue jobs, but there is 1"}
			}},
		{"count of a missing queue", func(t TestingT, s *assertScene) bool { return AssertInFlightCount(t, s.f, "missing", 0) },
			func(s *assertScene) []string {
				return []string{"sqsfake: queue missing does not exist; the fake has jobs, jobs-dlq, mail, mail-dlq, tmp"}
			}},
		{"queue empty after a purge", func(t TestingT, s *assertScene) bool { return AssertQueueEmpty(t, s.f, "tmp") }, nil},
		{"queue not empty", func(t TestingT, s *assertScene) bool { return AssertQueueEmpty(t, s.f, "jobs") },
			func(s *assertScene) []string {
				return []string{"expected queue jobs to be empty, but it holds 3 messages", "timeline of message " + s.a}
			}},

		{"receive count of a message in flight", func(t TestingT, s *assertScene) bool { return AssertReceiveCount(t, s.f, "jobs", s.a, 1) }, nil},
		{"receive count of a deleted message", func(t TestingT, s *assertScene) bool { return AssertReceiveCount(t, s.f, "jobs", s.d, 1) }, nil},
		{"receive count of a dead-lettered message in its source", func(t TestingT, s *assertScene) bool {
			return AssertReceiveCount(t, s.f, "mail", s.e, 1) && AssertReceiveCount(t, s.f, "mail-dlq", s.e, 1)
		}, nil},
		{"receive count differs", func(t TestingT, s *assertScene) bool { return AssertReceiveCount(t, s.f, "jobs", s.a, 2) },
			func(s *assertScene) []string {
				return []string{
					"sqsfake: expected message " + s.a + " to have been received 2 times, but it has been received 1 time",
					"it is in queue jobs, in flight until 2025-01-01T00:01:00Z, received 1 time",
					s.receivedLineA(),
				}
			}},
		{"receive count in a queue the message never was in", func(t TestingT, s *assertScene) bool { return AssertReceiveCount(t, s.f, "jobs", s.e, 1) },
			func(s *assertScene) []string {
				return []string{
					"expected message " + s.e + " to have been received 1 time from queue jobs, but it was never in that queue",
					"it is in queue mail-dlq, visible, received 1 time",
					"  2025-01-01T00:00:30Z  moved from mail to mail-dlq",
				}
			}},
		{"receive count in a missing queue", func(t TestingT, s *assertScene) bool { return AssertReceiveCount(t, s.f, "missing", s.a, 1) },
			func(s *assertScene) []string { return []string{"queue missing does not exist"} }},

		{"in flight holds", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "jobs", s.a) }, nil},
		{"in flight, but visible", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "jobs", s.b) },
			func(s *assertScene) []string {
				return []string{
					"expected message " + s.b + " to be in flight in queue jobs, but it is visible, received 0 times (now 2025-01-01T00:00:30Z)",
					"timeline of message " + s.b + ":\n  2025-01-01T00:00:30Z  sent to jobs",
				}
			}},
		{"in flight, but deleted", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "jobs", s.d) },
			func(s *assertScene) []string {
				return []string{"but no queue holds it (deleted at 2025-01-01T00:00:30Z)", "  2025-01-01T00:00:30Z  deleted in jobs"}
			}},
		{"in flight, but in another queue", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "mail", s.e) },
			func(s *assertScene) []string {
				return []string{"but it is not in that queue: it is in queue mail-dlq, visible, received 1 time"}
			}},
		{"in flight, in a missing queue", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "missing", s.a) },
			func(s *assertScene) []string {
				return []string{"sqsfake: queue missing does not exist; message " + s.a + " is in queue jobs, in flight until 2025-01-01T00:01:00Z"}
			}},
		{"in flight, unknown message", func(t TestingT, s *assertScene) bool { return AssertInFlight(t, s.f, "jobs", "nope") },
			func(s *assertScene) []string {
				return []string{"but this fake never stored a message with that MessageId", "timeline of message nope: no events"}
			}},
		{"not in flight holds for visible and delayed", func(t TestingT, s *assertScene) bool {
			return AssertNotInFlight(t, s.f, "jobs", s.b) && AssertNotInFlight(t, s.f, "jobs", s.c)
		}, nil},
		{"not in flight, but in flight", func(t TestingT, s *assertScene) bool { return AssertNotInFlight(t, s.f, "jobs", s.a) },
			func(s *assertScene) []string {
				return []string{
					"expected message " + s.a + " not to be in flight in queue jobs, but it is in flight until 2025-01-01T00:01:00Z, received 1 time",
					s.receivedLineA(),
				}
			}},
		{"not in flight, but gone", func(t TestingT, s *assertScene) bool { return AssertNotInFlight(t, s.f, "jobs", s.d) },
			func(s *assertScene) []string { return []string{"no queue holds it (deleted at"} }},

		{"visible at the end of a visibility timeout", func(t TestingT, s *assertScene) bool {
			return AssertVisibleAt(t, s.f, "jobs", s.a, clockAt(time.Minute))
		}, nil},
		{"visible at the end of a delay", func(t TestingT, s *assertScene) bool {
			return AssertVisibleAt(t, s.f, "jobs", s.c, clockAt(90*time.Second))
		}, nil},
		{"visible at another time", func(t TestingT, s *assertScene) bool {
			return AssertVisibleAt(t, s.f, "jobs", s.a, clockAt(45*time.Second))
		},
			func(s *assertScene) []string {
				return []string{
					"expected message " + s.a + " in queue jobs to become visible at 2025-01-01T00:00:45Z, but it is in flight until 2025-01-01T00:01:00Z",
					s.receivedLineA(),
				}
			}},
		{"visible at, but already visible", func(t TestingT, s *assertScene) bool {
			return AssertVisibleAt(t, s.f, "jobs", s.b, clockAt(30*time.Second))
		},
			func(s *assertScene) []string {
				return []string{"but it is visible, received 0 times (now 2025-01-01T00:00:30Z)"}
			}},

		{"moved to DLQ, by name, URL and ARN", func(t TestingT, s *assertScene) bool {
			return AssertMovedToDLQ(t, s.f, "mail", s.e) &&
				AssertMovedToDLQ(t, s.f, "https://sqs.us-east-1.amazonaws.com/123456789012/mail", s.e) &&
				AssertMovedToDLQ(t, s.f, "arn:aws:sqs:us-east-1:123456789012:mail", s.e)
		}, nil},
		{"moved to DLQ, named by the dead-letter queue", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "mail-dlq", s.e) }, nil},
		{"moved to DLQ, but into another dead-letter queue", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "jobs-dlq", s.e) },
			func(s *assertScene) []string {
				return []string{"from or into queue jobs-dlq, but it is in queue mail-dlq, visible, received 1 time, dead-lettered from arn:aws:sqs:us-east-1:123456789012:mail"}
			}},
		{"moved to DLQ, but still in its queue", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "jobs", s.a) },
			func(s *assertScene) []string {
				return []string{
					"sqsfake: expected message " + s.a + " to have been moved to a dead-letter queue from or into queue jobs, but it is in queue jobs, in flight until 2025-01-01T00:01:00Z, received 1 time",
					`queue jobs has RedrivePolicy {"deadLetterTargetArn":"arn:aws:sqs:us-east-1:123456789012:jobs-dlq","maxReceiveCount":2}`,
					s.receivedLineA(),
				}
			}},
		{"moved to DLQ, but from another source", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "jobs", s.e) },
			func(s *assertScene) []string {
				return []string{"but it is in queue mail-dlq, visible, received 1 time, dead-lettered from arn:aws:sqs:us-east-1:123456789012:mail"}
			}},
		{"moved to DLQ, but purged", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "tmp", s.p) },
			func(s *assertScene) []string {
				return []string{"but no queue holds it (purged at 2025-01-01T00:00:30Z)", "queue tmp has no RedrivePolicy", "  2025-01-01T00:00:30Z  purged in tmp"}
			}},
		{"moved to DLQ, unknown message and queue", func(t TestingT, s *assertScene) bool { return AssertMovedToDLQ(t, s.f, "missing", "nope") },
			func(s *assertScene) []string {
				return []string{"but this fake never stored a message with that MessageId", "queue missing does not exist"}
			}},

		{"deleted holds", func(t TestingT, s *assertScene) bool { return AssertDeleted(t, s.f, s.d) }, nil},
		{"deleted, but in flight", func(t TestingT, s *assertScene) bool { return AssertDeleted(t, s.f, s.a) },
			func(s *assertScene) []string {
				return []string{
					"sqsfake: expected message " + s.a + " to have been deleted, but it is still in queue jobs, in flight until 2025-01-01T00:01:00Z, received 1 time",
					s.receivedLineA(),
				}
			}},
		{"deleted, but purged", func(t TestingT, s *assertScene) bool { return AssertDeleted(t, s.f, s.p) },
			func(s *assertScene) []string {
				return []string{"but it left its queue without a DeleteMessage (purged at 2025-01-01T00:00:30Z)"}
			}},
		{"deleted, unknown message", func(t TestingT, s *assertScene) bool { return AssertDeleted(t, s.f, "nope") },
			func(s *assertScene) []string {
				return []string{"but this fake never stored a message with that MessageId"}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newAssertScene(t)
			rec := &recordingT{}
			ok := c.run(rec, s)
			assert.Positive(t, rec.helpers, "the assertion marks itself a helper")
			if c.want == nil {
				assert.True(t, ok)
				assert.Empty(t, rec.errors)
				return
			}
			assert.False(t, ok)
			require.Len(t, rec.errors, 1, "one failure, reported once")
			for _, w := range c.want(s) {
				assert.Contains(t, rec.errors[0], w)
			}
		})
	}
}

// AssertMovedToDLQ still holds once the message has left the DLQ, from its timeline.
func TestAssertMovedToDLQAfterTheDLQDeletedIt(t *testing.T) {
	e := newErgo(t)
	src, dlq := e.dlqPair("jobs", 1)
	id := e.send(src, "poison")
	e.receiveOne(src, 0)
	e.f.Advance(30 * time.Second)
	e.receive(src, 1, 0)
	e.delete(dlq, *e.receiveOne(dlq, 0).ReceiptHandle)
	rec := &recordingT{}
	assert.True(t, AssertMovedToDLQ(rec, e.f, "jobs", id))
	assert.True(t, AssertMovedToDLQ(rec, e.f, "jobs-dlq", id), "the DLQ names the move too")
	assert.True(t, AssertDeleted(rec, e.f, id))
	assert.True(t, AssertReceiveCount(rec, e.f, "jobs", id, 1), "its count when it left jobs")
	assert.True(t, AssertReceiveCount(rec, e.f, "jobs-dlq", id, 2), "and when it left the DLQ")
	assert.Empty(t, rec.errors)
}

func TestCountFailuresListAtMostSomeMessages(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	for i := range 30 {
		e.send(url, fmt.Sprint("m", i))
	}
	for range 3 {
		e.receive(url, 10, 0)
	}
	rec := &recordingT{}
	AssertQueueEmpty(rec, e.f, "jobs")
	text := rec.text()
	assert.Contains(t, text, "  … and 10 more")
	assert.Contains(t, text, "(10 more timelines left out)")
	assert.Equal(t, maxListed, strings.Count(text, "timeline of message"))
}

func TestAssertLastError(t *testing.T) {
	ctx := context.Background()
	failWith := func(f *Fake, fault Fault) {
		remove := f.InjectFault(fault)
		defer remove()
		f.ListQueues(ctx, &sqs.ListQueuesInput{})
	}
	type tc struct {
		name   string
		setup  func(f *Fake)
		target func() any
		want   []string // nil: passes
	}
	missingQueue := func(f *Fake) { f.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")}) }
	cases := []tc{
		{"typed error with errors.As", missingQueue, func() any { return new(*types.QueueDoesNotExist) }, nil},
		{"interface target", missingQueue, func() any { return new(smithy.APIError) }, nil},
		{"another typed error", missingQueue, func() any { return new(*types.OverLimit) }, []string{
			"sqsfake: expected the last error to be an error of type *types.OverLimit (errors.As), but it is: operation error SQS: GetQueueUrl, https response error StatusCode: 400",
			"AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.",
			"(*types.QueueDoesNotExist, ErrorCode AWS.SimpleQueueService.NonExistentQueue)",
		}},
		{"no error yet", func(f *Fake) {}, func() any { return new(*types.QueueDoesNotExist) }, []string{
			"expected the last error to be an error of type *types.QueueDoesNotExist (errors.As), but no call has failed on the service's side",
		}},
		{"injected service error by its code", func(f *Fake) { failWith(f, Fault{Err: ErrThrottled}) }, func() any { return ErrThrottled }, nil},
		{"another injected service error", func(f *Fake) { failWith(f, Fault{Err: ErrInternal}) }, func() any { return ErrThrottled }, []string{
			"expected the last error to be an SQS error with ErrorCode RequestThrottled, but it is:",
			"(*smithy.GenericAPIError, ErrorCode InternalError)",
		}},
		{"lost response with errors.Is", func(f *Fake) { failWith(f, Fault{LoseResponse: true}) }, func() any { return ErrLostResponse }, nil},
		{"errors.Is that does not hold", missingQueue, func() any { return ErrLostResponse }, []string{
			`expected the last error to be an error that is "context deadline exceeded" (errors.Is)`,
		}},
		{"a typed error value instead of a pointer to one", missingQueue, func() any { return &types.QueueDoesNotExist{} }, []string{
			"(errors.Is); to match any error of its type, pass new(*types.QueueDoesNotExist)",
		}},
		{"error code", missingQueue, func() any { return "AWS.SimpleQueueService.NonExistentQueue" }, nil},
		{"another error code", missingQueue, func() any { return "QueueDoesNotExist" }, []string{
			"expected the last error to be an SQS error with ErrorCode QueueDoesNotExist, but it is:",
			"(*types.QueueDoesNotExist, ErrorCode AWS.SimpleQueueService.NonExistentQueue)",
		}},
		{"empty error code", missingQueue, func() any { return "" }, []string{"AssertLastError: the error code must not be empty"}},
		{"nil target", missingQueue, func() any { return nil }, []string{"AssertLastError: target must be a non-nil pointer to an error type or an interface, an error, or an error code; got <nil>"}},
		{"non-error pointer target", missingQueue, func() any { return new(string) }, []string{"target must be"}},
		{"nil pointer target", missingQueue, func() any { return (**types.QueueDoesNotExist)(nil) }, []string{"target must be"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := New()
			c.setup(f)
			rec := &recordingT{}
			ok := AssertLastError(rec, f, c.target())
			assert.Positive(t, rec.helpers)
			if c.want == nil {
				assert.True(t, ok)
				assert.Empty(t, rec.errors)
				return
			}
			assert.False(t, ok)
			require.Len(t, rec.errors, 1)
			for _, w := range c.want {
				assert.Contains(t, rec.errors[0], w)
			}
		})
	}
}

// errors.As fills the target, so a test can look at the error it matched.
func TestAssertLastErrorFillsTheTarget(t *testing.T) {
	f := New()
	f.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	var missing *types.QueueDoesNotExist
	require.True(t, AssertLastError(t, f, &missing))
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", missing.ErrorCode())
}

func TestMsgAndArgsAreFormattedAsTestifyDoes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		msgAndArgs []any
		want       string
	}{
		{"none", nil, ""},
		{"a string", []any{"after the crash"}, "\nMessages: after the crash"},
		{"a format", []any{"after %d receives of %s", 3, "job-1"}, "\nMessages: after 3 receives of job-1"},
		{"a lone value", []any{42}, "\nMessages: 42"},
		{"values without a format", []any{1, 2}, "\nMessages: [1 2]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recordingT{}
			AssertQueueEmpty(rec, New(), "missing", tc.msgAndArgs...)
			require.Len(t, rec.errors, 1)
			assert.Equal(t, "sqsfake: queue missing does not exist; the fake has no queues"+tc.want, rec.errors[0])
		})
	}
}

// Every Require twin stops the test when its assertion fails, and only then.
func TestRequireTwinsStopTheTestOnFailure(t *testing.T) {
	s := newAssertScene(t)
	f := s.f
	twins := []struct {
		name      string
		pass, bad func(t RequireT)
	}{
		{"VisibleCount", func(t RequireT) { RequireVisibleCount(t, f, "jobs", 1) }, func(t RequireT) { RequireVisibleCount(t, f, "jobs", 9) }},
		{"InFlightCount", func(t RequireT) { RequireInFlightCount(t, f, "jobs", 1) }, func(t RequireT) { RequireInFlightCount(t, f, "jobs", 9) }},
		{"DelayedCount", func(t RequireT) { RequireDelayedCount(t, f, "jobs", 1) }, func(t RequireT) { RequireDelayedCount(t, f, "jobs", 9) }},
		{"QueueEmpty", func(t RequireT) { RequireQueueEmpty(t, f, "tmp") }, func(t RequireT) { RequireQueueEmpty(t, f, "jobs") }},
		{"ReceiveCount", func(t RequireT) { RequireReceiveCount(t, f, "jobs", s.a, 1) }, func(t RequireT) { RequireReceiveCount(t, f, "jobs", s.a, 9) }},
		{"InFlight", func(t RequireT) { RequireInFlight(t, f, "jobs", s.a) }, func(t RequireT) { RequireInFlight(t, f, "jobs", s.b) }},
		{"NotInFlight", func(t RequireT) { RequireNotInFlight(t, f, "jobs", s.b) }, func(t RequireT) { RequireNotInFlight(t, f, "jobs", s.a) }},
		{"VisibleAt", func(t RequireT) { RequireVisibleAt(t, f, "jobs", s.a, clockAt(time.Minute)) }, func(t RequireT) { RequireVisibleAt(t, f, "jobs", s.a, clockAt(0)) }},
		{"MovedToDLQ", func(t RequireT) { RequireMovedToDLQ(t, f, "mail", s.e) }, func(t RequireT) { RequireMovedToDLQ(t, f, "jobs", s.a) }},
		{"Deleted", func(t RequireT) { RequireDeleted(t, f, s.d) }, func(t RequireT) { RequireDeleted(t, f, s.a) }},
		{"LastError", func(t RequireT) { RequireLastError(t, f, new(*types.QueueDoesNotExist)) }, func(t RequireT) { RequireLastError(t, f, new(*types.OverLimit)) }},
	}
	f.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	for _, tw := range twins {
		t.Run(tw.name, func(t *testing.T) {
			rec := &recordingT{}
			tw.pass(rec)
			assert.False(t, rec.failedNow)
			assert.Empty(t, rec.errors)
			tw.bad(rec)
			assert.True(t, rec.failedNow, "FailNow after a failure")
			assert.Len(t, rec.errors, 1)
			assert.GreaterOrEqual(t, rec.helpers, 3, "the twin, its assertion and the failure report mark themselves helpers")
		})
	}
}

// The assertions work inside testify's EventuallyWithT, on its CollectT: a try that fails
// does not fail the test, and the next try sees the consumer's work. The consumer runs inside
// the second try, so nothing depends on when a goroutine runs.
func TestAssertionsRunInsideEventuallyWithT(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	var tries []bool // whether the message was deleted before each try's assertions
	assert.EventuallyWithT(t, func(c *assert.CollectT) {
		consumed := len(tries) == 1
		tries = append(tries, consumed)
		if consumed {
			out, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
			if assert.NoError(t, err) && assert.Len(t, out.Messages, 1) {
				_, err = e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: out.Messages[0].ReceiptHandle})
				assert.NoError(t, err)
			}
		}
		RequireDeleted(c, e.f, id)
		AssertQueueEmpty(c, e.f, "jobs")
	}, 5*time.Second, time.Millisecond)
	assert.Equal(t, []bool{false, true}, tries, "the first try failed, the second passed")
}

func TestNewForTestFailsOnLeakedLongPolls(t *testing.T) {
	rec := &recordingT{}
	f := NewForTest(rec)
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	type result struct {
		out *sqs.ReceiveMessageOutput
		err error
	}
	done := make(chan result)
	go func() {
		out, err := f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
		done <- result{out, err}
	}()
	require.NoError(t, f.WaitForPollers(ctx, 1))

	rec.runCleanups()
	require.Len(t, rec.errors, 1)
	assert.Equal(t, "sqsfake: 1 long poll was still parked, waiting on the fake's clock when the test ended (leaked): "+
		"move the clock past the wait with Advance, or end the call by cancelling its context", rec.errors[0], "only what leaked: no Latency was injected")
	r := <-done
	require.NoError(t, r.err, "the cleanup ends the leaked poll")
	assert.Empty(t, r.out.Messages)
}

func TestNewForTestFailsOnResponsesHeldByLatency(t *testing.T) {
	rec := &recordingT{}
	f := NewForTest(rec)
	ctx, cancel := context.WithCancel(context.Background())
	f.InjectFault(Fault{Operation: "ListQueues", Latency: time.Second})
	done := make(chan error)
	go func() {
		_, err := f.ListQueues(ctx, &sqs.ListQueuesInput{})
		done <- err
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 1))
	rec.runCleanups()
	assert.Contains(t, rec.text(), "sqsfake: 1 response was still held back by an injected Latency, waiting on the fake's clock")
	assert.NotContains(t, rec.text(), "long poll")
	err := <-done
	assert.ErrorIs(t, err, errReleased, "the cleanup ends the held call")
	assert.Equal(t, 0, f.Pollers())
	cancel()
}

// The leak report lists only what leaked, in agreeing numbers.
func TestLeakReportNamesOnlyWhatLeaked(t *testing.T) {
	const tail = ", waiting on the fake's clock when the test ended (leaked): move the clock past the wait with Advance, or end the call by cancelling its context"
	for _, tc := range []struct {
		polls, held int
		want        string
	}{
		{0, 0, ""},
		{1, 0, "sqsfake: 1 long poll was still parked" + tail},
		{3, 0, "sqsfake: 3 long polls were still parked" + tail},
		{0, 2, "sqsfake: 2 responses were still held back by an injected Latency" + tail},
		{2, 1, "sqsfake: 2 long polls were still parked and 1 response was still held back by an injected Latency" + tail},
	} {
		assert.Equal(t, tc.want, leakReport(tc.polls, tc.held), "%d polls, %d held", tc.polls, tc.held)
	}
}

func TestNewForTestPassesWhenNothingLeaks(t *testing.T) {
	rec := &recordingT{}
	f := NewForTest(rec, WithRegion("eu-west-1"))
	assert.Equal(t, "eu-west-1", f.region, "options apply")
	ctx := context.Background()
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
	}()
	require.NoError(t, f.WaitForPollers(ctx, 1))
	f.Advance(20 * time.Second)
	<-done
	rec.runCleanups()
	assert.Empty(t, rec.errors)
	assert.Positive(t, rec.helpers)
}

// On a real *testing.T, NewForTest registers its check with t.Cleanup.
func TestNewForTestOnATestingT(t *testing.T) {
	f := NewForTest(t)
	_, err := f.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	AssertQueueEmpty(t, f, "jobs")
}

func TestLastSegment(t *testing.T) {
	for ref, want := range map[string]string{
		"jobs": "jobs", "https://sqs.us-east-1.amazonaws.com/123456789012/jobs": "jobs",
		"https://sqs.us-east-1.amazonaws.com/123456789012/jobs/": "jobs",
		"arn:aws:sqs:us-east-1:123456789012:jobs.fifo":           "jobs.fifo", "": "",
	} {
		assert.Equal(t, want, lastSegment(ref), ref)
	}
	assert.True(t, errors.Is(ErrLostResponse, context.DeadlineExceeded))
}

// A call the test ended by cancelling its context is not a leak, even when its goroutine has
// not returned yet when the cleanup runs: the usual `defer cancel()` of a consumer.
func TestNewForTestPassesCallsWhoseContextIsCancelled(t *testing.T) {
	rec := &recordingT{}
	f := NewForTest(rec)
	ctx, cancel := context.WithCancel(context.Background())
	q, err := f.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
	require.NoError(t, err)
	f.InjectFault(Fault{Operation: "ListQueues", Latency: time.Second})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, WaitTimeSeconds: 20})
	}()
	go func() {
		defer wg.Done()
		f.ListQueues(ctx, &sqs.ListQueuesInput{})
	}()
	require.NoError(t, f.WaitForPollers(context.Background(), 2))
	cancel()
	rec.runCleanups()
	assert.Empty(t, rec.errors)
	wg.Wait()
}

// The hint to pass new(*T) is for the SDK's typed errors only; a plain error value gets none.
func TestAssertLastErrorHintsOnlyForTypedSDKErrors(t *testing.T) {
	f := New()
	_, err := f.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err)
	rec := &recordingT{}
	assert.False(t, AssertLastError(rec, f, errors.New("boom")))
	assert.Contains(t, rec.text(), `expected the last error to be an error that is "boom" (errors.Is)`)
	assert.NotContains(t, rec.text(), "pass new(")
}
