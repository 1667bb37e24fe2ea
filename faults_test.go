package sqsfake

import (
	"context"
	"errors"
	"io"
	"sort"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultShape is what a caller can see of an error: its code, HTTP status and fault side.
type faultShape struct {
	Op     string
	Code   string
	Status int
	Fault  smithy.ErrorFault
}

func faultShapeOf(t *testing.T, err error) faultShape {
	t.Helper()
	require.Error(t, err)
	var s faultShape
	var oe *smithy.OperationError
	require.True(t, errors.As(err, &oe), "%T is an *smithy.OperationError", err)
	s.Op = oe.OperationName
	var api smithy.APIError
	if errors.As(err, &api) {
		s.Code, s.Fault = api.ErrorCode(), api.ErrorFault()
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		s.Status = re.HTTPStatusCode()
	}
	return s
}

func TestFaultTimesDisturbsTheNextNMatchingCalls(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Times: 2, Err: ErrThrottled})
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")}

	var got []string
	for range 4 {
		_, err := e.f.SendMessage(e.ctx, in)
		got = append(got, faultCode(err))
		_, err = e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{}) // another operation is not counted
		require.NoError(t, err)
	}
	assert.Equal(t, []string{"RequestThrottled", "RequestThrottled", "ok", "ok"}, got)
	AssertVisibleCount(t, e.f, "jobs", 2, "the failed sends stored nothing")
}

// faultCode is the SQS error code of err, "ok" for none.
func faultCode(err error) string {
	if err == nil {
		return "ok"
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	return err.Error()
}

func TestFaultMatchPredicateSelectsCallsByInput(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{
		Operation: "SendMessage",
		Match:     func(in any) bool { return aws.ToString(in.(*sqs.SendMessageInput).MessageBody) == "poison" },
		Err:       ServiceError("KMS.ThrottlingException", "Rate exceeded"),
	})
	var got []string
	for _, body := range []string{"ok-1", "poison", "ok-2", "poison"} {
		_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String(body)})
		got = append(got, faultCode(err))
	}
	assert.Equal(t, []string{"ok", "KMS.ThrottlingException", "ok", "KMS.ThrottlingException"}, got, "Times 0: while the predicate holds")
}

func TestFaultWithoutOperationMatchesEveryOperation(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	remove := e.f.InjectFault(Fault{Err: ErrServiceUnavailable})
	_, err1 := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
	_, err2 := e.f.GetQueueAttributes(e.ctx, &sqs.GetQueueAttributesInput{QueueUrl: aws.String(url)})
	_, err3 := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
	assert.Equal(t, []faultShape{
		{"SendMessage", "ServiceUnavailable", 503, smithy.FaultServer},
		{"GetQueueAttributes", "ServiceUnavailable", 503, smithy.FaultServer},
		{"ListQueues", "ServiceUnavailable", 503, smithy.FaultServer},
	}, []faultShape{faultShapeOf(t, err1), faultShapeOf(t, err2), faultShapeOf(t, err3)})

	remove()
	remove() // removing twice is harmless
	_, err := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
	assert.NoError(t, err)
}

func TestFaultsApplyInTheOrderAdded(t *testing.T) {
	e := newErgo(t)
	e.f.InjectFault(Fault{Operation: "ListQueues", Times: 1, Err: ErrThrottled})
	e.f.InjectFault(Fault{Times: 1, Err: ErrInternal})
	var got []string
	for range 3 {
		_, err := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
		got = append(got, faultCode(err))
	}
	assert.Equal(t, []string{"RequestThrottled", "InternalError", "ok"}, got)
}

// A call the SDK's client-side validation rejects never reaches SQS: it takes no fault.
func TestInvalidCallsDoNotConsumeFaults(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Times: 1, Err: ErrThrottled})
	_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url)}) // no body
	var invalid smithy.InvalidParamsError
	require.ErrorAs(t, err, &invalid)
	_, err = e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
	assert.Equal(t, "RequestThrottled", faultCode(err))
}

// Every SQS error can be injected, by its wire shape or its query code, and arrives as the
// real client delivers it: the SDK's typed error (or smithy.GenericAPIError), its ErrorCode,
// its HTTP status, and its fault side.
func TestEveryInjectedSQSErrorArrivesTyped(t *testing.T) {
	shapes := make([]string, 0, len(errorKinds))
	for shape := range errorKinds {
		shapes = append(shapes, shape)
	}
	sort.Strings(shapes)
	for _, shape := range shapes {
		k := errorKinds[shape]
		names := []string{shape}
		if k.code != shape {
			names = append(names, k.code)
		}
		for _, name := range names {
			t.Run(name, func(t *testing.T) {
				f := New()
				f.InjectFault(Fault{Err: ServiceError(name, "injected")})
				_, err := f.ListQueues(context.Background(), &sqs.ListQueuesInput{})
				fault := smithy.FaultClient
				if k.status >= 500 {
					fault = smithy.FaultServer
				}
				assert.Equal(t, faultShape{"ListQueues", k.code, k.status, fault}, faultShapeOf(t, err))
				var api smithy.APIError
				require.ErrorAs(t, err, &api)
				wantMessage := "injected"
				if shape == "InvalidIdFormat" || shape == "MessageNotInflight" {
					wantMessage = "" // the SDK's types for these deprecated shapes have no Message
				}
				assert.Equal(t, wantMessage, api.ErrorMessage())
				assert.Equal(t, err, f.LastError(), "the fake remembers it")
			})
		}
	}
}

func TestCommonInjectedErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		check func(t *testing.T, err error)
		want  faultShape
	}{
		{"ErrThrottled", ErrThrottled, func(t *testing.T, err error) {
			var throttled *types.RequestThrottled
			require.ErrorAs(t, err, &throttled)
			assert.Equal(t, "Rate exceeded", throttled.ErrorMessage())
		}, faultShape{"DeleteMessage", "RequestThrottled", 403, smithy.FaultClient}},
		{"ErrInternal", ErrInternal, func(t *testing.T, err error) {
			var generic *smithy.GenericAPIError
			require.ErrorAs(t, err, &generic)
		}, faultShape{"DeleteMessage", "InternalError", 500, smithy.FaultServer}},
		{"ErrServiceUnavailable", ErrServiceUnavailable, func(t *testing.T, err error) {
			var generic *smithy.GenericAPIError
			require.ErrorAs(t, err, &generic)
		}, faultShape{"DeleteMessage", "ServiceUnavailable", 503, smithy.FaultServer}},
		{"OverLimit", ServiceError("OverLimit", "Too many"), func(t *testing.T, err error) {
			var over *types.OverLimit
			require.ErrorAs(t, err, &over)
		}, faultShape{"DeleteMessage", "OverLimit", 403, smithy.FaultClient}},
		{"KMS disabled", ServiceError("KmsDisabled", "disabled"), func(t *testing.T, err error) {
			var kms *types.KmsDisabled
			require.ErrorAs(t, err, &kms)
		}, faultShape{"DeleteMessage", "KMS.DisabledException", 400, smithy.FaultClient}},
		{"an unknown code", ServiceError("SomethingNew", "?"), func(t *testing.T, err error) {
			var generic *smithy.GenericAPIError
			require.ErrorAs(t, err, &generic)
		}, faultShape{"DeleteMessage", "SomethingNew", 400, smithy.FaultClient}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newErgo(t)
			url := e.queue("jobs", nil)
			e.send(url, "a")
			handle := *e.receiveOne(url, 0).ReceiptHandle
			e.f.InjectFault(Fault{Operation: "DeleteMessage", Times: 1, Err: tc.err})
			_, err := e.f.DeleteMessage(e.ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(handle)})
			assert.Equal(t, tc.want, faultShapeOf(t, err))
			tc.check(t, err)
			AssertInFlightCount(t, e.f, "jobs", 1, "the failed delete did nothing")
		})
	}
}

// Any other error arrives wrapped as the SDK wraps errors, and errors.Is still finds it.
func TestInjectedPlainErrorIsWrapped(t *testing.T) {
	boom := errors.New("connection reset by peer")
	f := New()
	f.InjectFault(Fault{Err: boom})
	_, err := f.ListQueues(context.Background(), &sqs.ListQueuesInput{})
	var oe *smithy.OperationError
	require.ErrorAs(t, err, &oe)
	assert.ErrorIs(t, err, boom)
	assert.Equal(t, "operation error SQS: ListQueues, connection reset by peer", err.Error())
}

// Faults apply through every door: the methods, the real SDK client and the wire protocol.
func TestFaultsApplyThroughEveryDoor(t *testing.T) {
	f := New()
	ctx := context.Background()
	wire := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: f.HTTPClient(), RetryMaxAttempts: 1})
	for _, door := range []struct {
		name string
		list func() error
	}{
		{"methods", func() error { _, err := f.ListQueues(ctx, &sqs.ListQueuesInput{}); return err }},
		{"Client", func() error { _, err := f.Client().ListQueues(ctx, &sqs.ListQueuesInput{}); return err }},
		{"Handler", func() error { _, err := wire.ListQueues(ctx, &sqs.ListQueuesInput{}); return err }},
	} {
		t.Run(door.name, func(t *testing.T) {
			f.InjectFault(Fault{Operation: "ListQueues", Times: 1, Err: ErrThrottled})
			err := door.list()
			assert.Equal(t, faultShape{"ListQueues", "RequestThrottled", 403, smithy.FaultClient}, faultShapeOf(t, err))
			var throttled *types.RequestThrottled
			assert.ErrorAs(t, err, &throttled)
			assert.NoError(t, door.list(), "Times: 1")
		})
	}
}

// A lost response, a latency and a predicate on the input apply through every door too: the
// send takes effect, the caller gets an error (a dropped connection on the wire).
func TestLostResponsesLatencyAndMatchApplyThroughEveryDoor(t *testing.T) {
	f := New()
	ctx := context.Background()
	url := *mustCreateQueue(t, f, "jobs", nil)
	wire := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: f.HTTPClient(), RetryMaxAttempts: 1})
	doors := []struct {
		name string
		send func(body string) error
	}{
		{"methods", func(b string) error {
			_, err := f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: &b})
			return err
		}},
		{"Client", func(b string) error {
			_, err := f.Client().SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: &b})
			return err
		}},
		{"Handler", func(b string) error {
			_, err := wire.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: &url, MessageBody: &b})
			return err
		}},
	}
	for _, door := range doors {
		t.Run(door.name, func(t *testing.T) {
			f.Reset()
			url = *mustCreateQueue(t, f, "jobs", nil)
			onlyPoison := func(in any) bool { return aws.ToString(in.(*sqs.SendMessageInput).MessageBody) == "poison" }
			f.InjectFault(Fault{Operation: "SendMessage", Match: onlyPoison, LoseResponse: true})
			require.NoError(t, door.send("fine"), "the predicate spares other inputs")
			err := door.send("poison")
			require.Error(t, err)
			if door.name == "Handler" {
				assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "the connection is dropped")
			} else {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
			}
			AssertVisibleCount(t, f, "jobs", 2, "the lost send took effect")

			f.Reset()
			url = *mustCreateQueue(t, f, "jobs", nil)
			f.InjectFault(Fault{Operation: "SendMessage", Times: 1, Latency: time.Second})
			done := make(chan error, 1)
			go func() { done <- door.send("slow") }()
			require.NoError(t, f.WaitForPollers(ctx, 1))
			AssertVisibleCount(t, f, "jobs", 1, "the slow send took effect at once")
			f.Advance(time.Second)
			assert.NoError(t, <-done)
		})
	}
}

// LoseResponse: DeleteMessage takes effect, the client sees a timeout and retries with the
// same handle. On a standard queue the retry succeeds although the message is already gone —
// the consumer cannot tell, so it must be idempotent.
func TestLostDeleteResponseTheRetryFindsTheMessageGone(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "charge card 42")
	handle := *e.receiveOne(url, 0).ReceiptHandle
	e.f.InjectFault(Fault{Operation: "DeleteMessage", Times: 1, LoseResponse: true})

	in := &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String(handle)}
	_, err := e.f.DeleteMessage(e.ctx, in)
	require.ErrorIs(t, err, ErrLostResponse)
	AssertDeleted(t, e.f, id, "the delete took effect")
	AssertLastError(t, e.f, ErrLostResponse)

	_, err = e.f.DeleteMessage(e.ctx, in)
	assert.NoError(t, err, "the retry succeeds")
	AssertQueueEmpty(t, e.f, "jobs")
	deletes := 0
	for _, ev := range e.f.Timeline(id).Events {
		if ev.Kind == EventDeleted {
			deletes++
		}
	}
	assert.Equal(t, 1, deletes)
}

// A lost response is lost whatever it said: a delete the service refused returns
// ErrLostResponse too, and the fault is spent.
func TestLostResponseOfAFailedCallIsLostToo(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "DeleteMessage", Times: 1, LoseResponse: true})
	in := &sqs.DeleteMessageInput{QueueUrl: aws.String(url), ReceiptHandle: aws.String("garbage")}
	_, err := e.f.DeleteMessage(e.ctx, in)
	require.ErrorIs(t, err, ErrLostResponse)
	_, err = e.f.DeleteMessage(e.ctx, in)
	var invalid *types.ReceiptHandleIsInvalid
	assert.ErrorAs(t, err, &invalid, "the next call is answered")
}

// LoseResponse on SendMessage: the message is stored, the producer retries, and the queue
// holds the same body twice under two MessageIds.
func TestLostSendResponseTheRetryDuplicatesTheMessage(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Times: 1, LoseResponse: true, Err: ServiceError("InternalError", "boom")})
	in := &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("order 7")}
	_, err := e.f.SendMessage(e.ctx, in)
	assert.Equal(t, faultShape{"SendMessage", "InternalError", 500, smithy.FaultServer}, faultShapeOf(t, err), "LoseResponse with an Err returns that Err")
	_, err = e.f.SendMessage(e.ctx, in)
	require.NoError(t, err)

	q, _ := e.f.Queue("jobs")
	require.Len(t, q.Messages, 2)
	assert.Equal(t, q.Messages[0].Body, q.Messages[1].Body)
	assert.NotEqual(t, q.Messages[0].MessageID, q.Messages[1].MessageID)
}

// LoseResponse on ReceiveMessage: the message goes in flight, the consumer never sees it,
// and it comes back after its visibility timeout with a receive count of 2.
func TestLostReceiveResponseTheMessageComesBack(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	id := e.send(url, "a")
	e.f.InjectFault(Fault{Operation: "ReceiveMessage", Times: 1, LoseResponse: true})
	_, err := e.f.ReceiveMessage(e.ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url)})
	require.ErrorIs(t, err, ErrLostResponse)
	AssertInFlight(t, e.f, "jobs", id)
	assert.Empty(t, e.receive(url, 1, 0))
	e.f.Advance(30 * time.Second)
	m := e.receiveOne(url, 0)
	assert.Equal(t, id, *m.MessageId)
	AssertReceiveCount(t, e.f, "jobs", id, 2)
}

// Latency holds the response back on the fake's clock; the operation takes effect at once.
// WaitForPollers is the barrier that tells the test the call is waiting.
func TestLatencyHoldsTheResponseUntilTheClockMovesPastIt(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Times: 1, Latency: 2 * time.Second})
	type result struct {
		out *sqs.SendMessageOutput
		err error
		at  time.Time
	}
	done := make(chan result, 1)
	go func() {
		out, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("slow")})
		done <- result{out, err, e.f.Now()}
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	assert.Equal(t, 1, e.f.Pollers())
	AssertVisibleCount(t, e.f, "jobs", 1, "the send took effect before its response")

	e.f.Advance(2*time.Second - time.Nanosecond)
	assert.Equal(t, 1, e.f.Pollers(), "still waiting a nanosecond before its latency ends")
	select {
	case <-done:
		t.Fatal("the response arrived before its latency passed")
	default:
	}
	e.f.Advance(time.Nanosecond)
	r := <-done
	require.NoError(t, r.err)
	assert.Equal(t, clockAt(2*time.Second), r.at)
	assert.Equal(t, "slow", e.message("jobs", *r.out.MessageId).Body)
	assert.Equal(t, 0, e.f.Pollers())
}

// Latency with an error: the call fails after the latency, without reaching the engine.
func TestLatencyWithAnErrorFailsLate(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Times: 1, Latency: time.Second, Err: ErrThrottled})
	done := make(chan error, 1)
	go func() {
		_, err := e.f.SendMessage(e.ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
		done <- err
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	AssertQueueEmpty(t, e.f, "jobs")
	e.f.Advance(time.Second)
	assert.Equal(t, "RequestThrottled", faultCode(<-done))
	AssertQueueEmpty(t, e.f, "jobs")
}

// Latency on a call the engine rejects: its error, too, arrives only after the latency.
func TestLatencyHoldsBackTheEnginesError(t *testing.T) {
	e := newErgo(t)
	e.f.InjectFault(Fault{Operation: "GetQueueUrl", Times: 1, Latency: time.Second})
	done := make(chan error, 1)
	go func() {
		_, err := e.f.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
		done <- err
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	select {
	case err := <-done:
		t.Fatalf("answered before its latency: %v", err)
	default:
	}
	e.f.Advance(time.Second)
	assert.Equal(t, "AWS.SimpleQueueService.NonExistentQueue", faultCode(<-done))
}

// Reset ends calls whose response an injected latency holds back, so the next subtest
// starts with nothing waiting.
func TestResetEndsResponsesHeldByLatency(t *testing.T) {
	e := newErgo(t)
	e.f.InjectFault(Fault{Operation: "ListQueues", Latency: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, err := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
		done <- err
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	e.f.Reset()
	assert.ErrorIs(t, <-done, errReleased)
	assert.Equal(t, 0, e.f.Pollers())
	_, err := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
	assert.NoError(t, err, "Reset also removed the fault")
}

// A context cancelled during the latency ends the call with the SDK's cancellation error;
// the operation has taken effect all the same.
func TestContextCancelledDuringLatency(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	e.f.InjectFault(Fault{Operation: "SendMessage", Latency: time.Minute})
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := e.f.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(url), MessageBody: aws.String("a")})
		done <- err
	}()
	require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
	cancel()
	err := <-done
	assert.ErrorIs(t, err, context.Canceled)
	var canceled *smithy.CanceledError
	assert.ErrorAs(t, err, &canceled)
	AssertVisibleCount(t, e.f, "jobs", 1)
	assert.Equal(t, 0, e.f.Pollers())
}

func TestLastErrorIgnoresClientSideValidation(t *testing.T) {
	e := newErgo(t)
	assert.NoError(t, e.f.LastError())
	_, err := e.f.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err)
	assert.Equal(t, err, e.f.LastError())
	_, verr := e.f.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{}) // missing QueueName: the SDK rejects it
	require.Error(t, verr)
	assert.Equal(t, err, e.f.LastError(), "unchanged")
}

// A call its caller ends — a long poll or a held response whose context is cancelled — does
// not replace the service's last error.
func TestLastErrorIgnoresCallsTheCallerEnded(t *testing.T) {
	e := newErgo(t)
	url := e.queue("jobs", nil)
	_, err := e.f.GetQueueUrl(e.ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err)
	e.f.InjectFault(Fault{Operation: "ListQueues", Latency: time.Minute})
	for _, call := range []func(ctx context.Context) error{
		func(ctx context.Context) error {
			_, err := e.f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(url), WaitTimeSeconds: 20})
			return err
		},
		func(ctx context.Context) error {
			_, err := e.f.ListQueues(ctx, &sqs.ListQueuesInput{})
			return err
		},
	} {
		ctx, cancel := context.WithCancel(e.ctx)
		done := make(chan error)
		go func() { done <- call(ctx) }()
		require.NoError(t, e.f.WaitForPollers(e.ctx, 1))
		cancel()
		require.ErrorIs(t, <-done, context.Canceled)
		assert.Equal(t, err, e.f.LastError(), "still the service's error")
	}
	AssertLastError(t, e.f, new(*types.QueueDoesNotExist))
}

// A misspelt operation would never match; InjectFault says so at once.
func TestInjectFaultRefusesAnUnknownOperation(t *testing.T) {
	f := New()
	assert.PanicsWithValue(t, `sqsfake: InjectFault: "DeleteMessages" is not an SQS operation; name one as the SDK does, e.g. "DeleteMessage"`, func() {
		f.InjectFault(Fault{Operation: "DeleteMessages", Err: ErrThrottled})
	})
	assert.NotPanics(t, func() { f.InjectFault(Fault{Err: ErrThrottled})() }, "every operation")
}

// Each refusal of InjectFault names the field, the value and what it wants — the right
// spelling of an operation, and the unit a bare-number Latency forgot.
func TestInjectFaultRefusalsNameTheMistakeAndTheFix(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault Fault
		want  string
	}{
		{"operation in the wrong case", Fault{Operation: "deleteMessage"}, `sqsfake: InjectFault: "deleteMessage" is not an SQS operation; did you mean "DeleteMessage"?`},
		{"negative Times", Fault{Times: -1}, "sqsfake: InjectFault: Times -1; want 1 or more calls to disturb, or 0 for every matching call"},
		{"Latency without its unit", Fault{Latency: 3}, "sqsfake: InjectFault: Latency 3ns; want 0 (none) or 1ms or more, such as 60 * time.Second (a bare number is nanoseconds: 5 is 5ns)"},
		{"negative Latency", Fault{Latency: -time.Second}, "sqsfake: InjectFault: Latency -1s; want 0 (none) or 1ms or more, such as 60 * time.Second (a bare number is nanoseconds: 5 is 5ns)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.PanicsWithValue(t, tc.want, func() { New().InjectFault(tc.fault) })
		})
	}
}

// FailEntries fails chosen entries of a batch — they take no effect and are listed in
// Failed — while the call and its other entries succeed, through every door.
func TestFailEntriesFailsChosenBatchEntriesThroughEveryDoor(t *testing.T) {
	ctx := context.Background()
	f := New()
	wire := sqs.New(sqs.Options{Region: "us-east-1", BaseEndpoint: aws.String("http://sqs.fake.invalid"),
		Credentials: aws.AnonymousCredentials{}, HTTPClient: f.HTTPClient(), RetryMaxAttempts: 1})
	onlyB := func(id string) bool { return id == "b" }
	for name, c := range map[string]sqsAPI{"methods": f, "Client": f.Client(), "Handler": wire} {
		t.Run(name, func(t *testing.T) {
			f.Reset()
			q := mustCreateQueue(t, f, "jobs", map[string]string{"VisibilityTimeout": "30"})
			entries := []types.SendMessageBatchRequestEntry{
				{Id: aws.String("a"), MessageBody: aws.String("1")},
				{Id: aws.String("b"), MessageBody: aws.String("2")},
				{Id: aws.String("c"), MessageBody: aws.String("3")},
			}
			f.InjectFault(Fault{Operation: "SendMessageBatch", Times: 1, FailEntries: onlyB})
			sent, err := c.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries})
			require.NoError(t, err)
			assert.Equal(t, []types.BatchResultErrorEntry{{Id: aws.String("b"), Code: aws.String("InternalError"),
				Message: aws.String("We encountered an internal error. Please try again."), SenderFault: false}}, sent.Failed)
			require.Len(t, sent.Successful, 2)
			AssertVisibleCount(t, f, "jobs", 2)

			got, err := c.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q, MaxNumberOfMessages: 10})
			require.NoError(t, err)
			require.Len(t, got.Messages, 2)
			f.InjectFault(Fault{Operation: "ChangeMessageVisibilityBatch", Times: 1, FailEntries: onlyB, Err: ErrThrottled})
			changed, err := c.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: q, Entries: []types.ChangeMessageVisibilityBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: got.Messages[0].ReceiptHandle, VisibilityTimeout: 0},
				{Id: aws.String("b"), ReceiptHandle: got.Messages[1].ReceiptHandle, VisibilityTimeout: 0},
			}})
			require.NoError(t, err)
			assert.Equal(t, []types.BatchResultErrorEntry{{Id: aws.String("b"), Code: aws.String("RequestThrottled"),
				Message: aws.String("Rate exceeded"), SenderFault: true}}, changed.Failed)
			AssertInFlightCount(t, f, "jobs", 1)

			f.InjectFault(Fault{Operation: "DeleteMessageBatch", Times: 1, FailEntries: onlyB})
			deleted, err := c.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: q, Entries: []types.DeleteMessageBatchRequestEntry{
				{Id: aws.String("a"), ReceiptHandle: got.Messages[0].ReceiptHandle},
				{Id: aws.String("b"), ReceiptHandle: got.Messages[1].ReceiptHandle},
			}})
			require.NoError(t, err)
			require.Len(t, deleted.Failed, 1)
			assert.Equal(t, "b", *deleted.Failed[0].Id)
			q2, _ := f.Queue("jobs")
			assert.Len(t, q2.Messages, 1, "the failed delete left its message")
			assert.NoError(t, f.LastError(), "the calls succeeded")
		})
	}
}

func TestInjectFaultRefusesFailEntriesWhereItCannotApply(t *testing.T) {
	f := New()
	assert.PanicsWithValue(t, `sqsfake: InjectFault: FailEntries needs Operation SendMessageBatch, DeleteMessageBatch, ChangeMessageVisibilityBatch or a companion's batch operation (SNS.PublishBatch); got "SendMessage"`, func() {
		f.InjectFault(Fault{Operation: "SendMessage", FailEntries: func(string) bool { return true }})
	})
	assert.PanicsWithValue(t, "sqsfake: InjectFault: with FailEntries, Err must be nil or a ServiceError", func() {
		f.InjectFault(Fault{Operation: "DeleteMessageBatch", Err: errors.New("boom"), FailEntries: func(string) bool { return true }})
	})
}

// A batch in which FailEntries picks nothing is left alone and does not use up the fault;
// FailEntries may look at the fake, since it runs outside the fake's lock.
func TestFailEntriesCountsOnlyCallsWithAPickedEntry(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	batch := func(ids ...string) *sqs.SendMessageBatchOutput {
		var entries []types.SendMessageBatchRequestEntry
		for _, id := range ids {
			entries = append(entries, types.SendMessageBatchRequestEntry{Id: aws.String(id), MessageBody: aws.String(id)})
		}
		out, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: entries})
		require.NoError(t, err)
		return out
	}
	f.InjectFault(Fault{Operation: "SendMessageBatch", Times: 1, FailEntries: func(id string) bool {
		return id == "poison" && f.Pollers() == 0 // calls back into the fake
	}})
	assert.Empty(t, batch("a", "b").Failed, "nothing picked: the fault is not used")
	out := batch("c", "poison")
	require.Len(t, out.Failed, 1)
	assert.Equal(t, "poison", *out.Failed[0].Id)
	assert.Empty(t, batch("poison").Failed, "used up")
}

// An injected error that reads as a timeout is still the service's doing: LastError keeps it.
func TestLastErrorKeepsAnInjectedContextError(t *testing.T) {
	e := newErgo(t)
	e.f.InjectFault(Fault{Operation: "ListQueues", Times: 1, Err: context.DeadlineExceeded})
	_, err := e.f.ListQueues(e.ctx, &sqs.ListQueuesInput{})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, err, e.f.LastError())
}

// Match and FailEntries run outside the fake's locks: they may call the fake's operations,
// or remove their own fault — which then no longer applies.
func TestFaultCallbacksMayCallTheFake(t *testing.T) {
	ctx := context.Background()
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	batch := func() *sqs.SendMessageBatchOutput {
		done := make(chan *sqs.SendMessageBatchOutput, 1)
		go func() {
			out, err := f.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q, Entries: []types.SendMessageBatchRequestEntry{
				{Id: aws.String("a"), MessageBody: aws.String("1")}, {Id: aws.String("b"), MessageBody: aws.String("2")}}})
			assert.NoError(t, err)
			done <- out
		}()
		select {
		case out := <-done:
			return out
		case <-time.After(10 * time.Second):
			t.Fatal("SendMessageBatch is blocked")
			return nil
		}
	}
	f.InjectFault(Fault{Operation: "SendMessageBatch", Times: 1,
		Match: func(any) bool {
			_, err := f.GetQueueAttributes(ctx, &sqs.GetQueueAttributesInput{QueueUrl: q})
			return err == nil
		},
		FailEntries: func(id string) bool { return id == "b" && f.Pollers() == 0 }})
	assert.Len(t, batch().Failed, 1)

	var remove func()
	remove = f.InjectFault(Fault{Operation: "SendMessageBatch", FailEntries: func(id string) bool {
		remove()
		return true
	}})
	assert.Empty(t, batch().Failed, "the fault removed itself before it was taken")
	assert.Empty(t, batch().Failed)
}
