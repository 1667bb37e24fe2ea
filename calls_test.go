package sqsfake

import (
	"context"
	"errors"
	"github.com/aws/smithy-go"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// callLines renders calls one a line.
func callLines(calls []Call) []string {
	lines := make([]string, len(calls))
	for i, c := range calls {
		lines[i] = c.String()
	}
	return lines
}

// recordScript makes calls of every kind the record summarises, through api.
func recordScript(t *testing.T, f *Fake, api sqsAPI) (firstID string) {
	t.Helper()
	ctx := context.Background()
	q, err := api.CreateQueue(ctx, &sqs.CreateQueueInput{QueueName: aws.String("jobs"), Attributes: map[string]string{"VisibilityTimeout": "30"}})
	require.NoError(t, err)
	_, err = api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String("hello"), DelaySeconds: 5})
	require.NoError(t, err)
	_, err = api.SendMessageBatch(ctx, &sqs.SendMessageBatchInput{QueueUrl: q.QueueUrl, Entries: []types.SendMessageBatchRequestEntry{
		{Id: aws.String("a"), MessageBody: aws.String("one")}, {Id: aws.String("b"), MessageBody: aws.String("two"), DelaySeconds: 901}}})
	require.NoError(t, err)
	out, err := api.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: q.QueueUrl, MaxNumberOfMessages: 10})
	require.NoError(t, err)
	require.Len(t, out.Messages, 1)
	f.Advance(40 * time.Second)
	handle := out.Messages[0].ReceiptHandle
	_, err = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle})
	require.NoError(t, err)
	_, err = api.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: q.QueueUrl, ReceiptHandle: aws.String("bogus")})
	require.Error(t, err)
	_, err = api.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: q.QueueUrl, ReceiptHandle: handle, VisibilityTimeout: 10})
	require.Error(t, err)
	_, err = api.GetQueueUrl(ctx, &sqs.GetQueueUrlInput{QueueName: aws.String("missing")})
	require.Error(t, err)
	f.InjectFault(Fault{Operation: "SendMessage", Times: 1, Err: ErrThrottled})
	_, err = api.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: q.QueueUrl, MessageBody: aws.String(strings.Repeat("é", 150))})
	require.Error(t, err)
	_, err = api.ListQueues(ctx, &sqs.ListQueuesInput{QueueNamePrefix: aws.String("j")})
	require.NoError(t, err)
	return *out.Messages[0].MessageId
}

// The record has every call, in order, with its time, a summary of its input and its
// outcome; it reads the same through every door.
func TestCallsRecordEachCallsInputAndOutcomeThroughEveryDoor(t *testing.T) {
	want := []string{
		`#1 2025-01-01T00:00:00Z CreateQueue jobs: 1 attribute → ok`,
		`#2 2025-01-01T00:00:00Z SendMessage jobs: body "hello" (5 bytes), delay 5s → message e971d095-7520-4d94-b0f9-05ed8b12ebc5`,
		`#3 2025-01-01T00:00:00Z SendMessageBatch jobs: 2 entries, first body "one" (3 bytes) → 1 sent: c2ec410a-f3d4-4548-85ab-79b8dfb8e56d; 1 failed: b InvalidParameterValue`,
		`#4 2025-01-01T00:00:00Z ReceiveMessage jobs: max 10 → 1 message: c2ec410a-f3d4-4548-85ab-79b8dfb8e56d`,
		`#5 2025-01-01T00:00:40Z DeleteMessage jobs: handle AQEBgvv5ajZ0… (message c2ec410a-f3d4-4548-85ab-79b8dfb8e56d, receive 1) → ok`,
		`#6 2025-01-01T00:00:40Z DeleteMessage jobs: handle "bogus" (not one this fake issued) → error ReceiptHandleIsInvalid: The input receipt handle "bogus" is not a valid receipt handle.`,
		`#7 2025-01-01T00:00:40Z ChangeMessageVisibility jobs: handle AQEBgvv5ajZ0… (message c2ec410a-f3d4-4548-85ab-79b8dfb8e56d, receive 1), visibility 10s → error InvalidParameterValue: Value AQEBgvv5ajZ0q2lndTWYLPq82iOPunpIlOGa for parameter ReceiptHandle is invalid. Reason: Message does not exist or is …`,
		`#8 2025-01-01T00:00:40Z GetQueueUrl missing → error AWS.SimpleQueueService.NonExistentQueue: The specified queue does not exist.`,
		`#9 2025-01-01T00:00:40Z SendMessage jobs: body "éééééééééééééééééééééééééééééééé"… (300 bytes) → error RequestThrottled: Rate exceeded [fault]`,
		`#10 2025-01-01T00:00:40Z ListQueues: prefix "j" → 1 queue`,
	}
	for _, d := range doors(t) {
		t.Run(d.name, func(t *testing.T) {
			recordScript(t, d.f, d.api)
			calls := d.f.Calls()
			door, marker := DoorHTTP, " [http]"
			switch d.name {
			case "methods":
				door, marker = DoorMethods, ""
			case "Client":
				door, marker = DoorClient, " [client]"
			}
			var got []string
			for _, line := range callLines(calls) {
				trimmed, ok := strings.CutSuffix(line, marker)
				assert.True(t, ok, "%s ends in %q", line, marker)
				got = append(got, trimmed)
			}
			assert.Equal(t, want, got)
			for _, c := range calls {
				assert.Equal(t, Caller{Door: door, AccountID: DefaultAccountID, Region: DefaultRegion, PrincipalARN: "arn:aws:iam::" + DefaultAccountID + ":root"}, c.Caller)
			}
		})
	}
}

// Each Call carries its facts as data, not only as text.
func TestCallsCarryTheirFactsAsData(t *testing.T) {
	f := New()
	recordScript(t, f, f)
	calls := f.Calls()
	require.Len(t, calls, 10)
	send := calls[1]
	assert.Equal(t, Call{
		Seq: 2, RequestID: uuidFor(f.seed, streamRequestID, 2), Operation: "SendMessage",
		Caller: Caller{Door: DoorMethods, AccountID: DefaultAccountID, Region: DefaultRegion, PrincipalARN: "arn:aws:iam::" + DefaultAccountID + ":root"},
		Start:  DefaultStart, End: DefaultStart, Queue: "jobs",
		Input: `body "hello" (5 bytes), delay 5s`, Output: "message e971d095-7520-4d94-b0f9-05ed8b12ebc5",
		MessageIDs: []string{"e971d095-7520-4d94-b0f9-05ed8b12ebc5"},
	}, send)
	throttled := calls[8]
	assert.Equal(t, "RequestThrottled", throttled.ErrorCode)
	assert.True(t, throttled.Fault)
	assert.Same(t, f.LastError(), throttled.Err, "LastError is the latest call's error")
	assert.Empty(t, throttled.Output, "the fault failed the call before the operation ran")
}

// The request id in the record is the one the caller got, through every door.
func TestCallRequestIDIsTheOneTheCallerGot(t *testing.T) {
	for _, d := range doors(t) {
		t.Run(d.name, func(t *testing.T) {
			out, err := d.api.CreateQueue(context.Background(), &sqs.CreateQueueInput{QueueName: aws.String("jobs")})
			require.NoError(t, err)
			_, err = d.api.GetQueueUrl(context.Background(), &sqs.GetQueueUrlInput{QueueName: aws.String("none")})
			require.Error(t, err)
			calls := d.f.Calls()
			require.Len(t, calls, 2)
			if d.name != "methods" { // door 1 returns no metadata on success
				id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
				require.True(t, ok)
				assert.Equal(t, calls[0].RequestID, id)
			}
			assert.Contains(t, err.Error(), "RequestID: "+calls[1].RequestID)
		})
	}
}

// Wire requests the fake refuses before any operation runs are calls too: door 3, with
// the error code the caller got and the request id of the answer.
func TestCallsRecordWireRequestsRefusedBeforeAnOperation(t *testing.T) {
	f := New()
	h := f.Handler()
	post := func(target, body string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
		if target != "" {
			r.Header.Set("X-Amz-Target", target)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	answers := []*httptest.ResponseRecorder{
		post("AmazonSQS.Frobnicate", "{}"),
		post("", "{}"),
		post("AmazonSQS.SendMessage", `{"QueueUrl": 7}`),
		post("AmazonSQS.CreateQueue", `{"QueueName":"jobs"}`),
	}
	get := httptest.NewRequest(http.MethodGet, "/", nil)
	get.Header.Set("X-Amz-Target", "AmazonSQS.ListQueues")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, get)
	answers = append(answers, w)

	calls := f.Calls()
	require.Len(t, calls, 5)
	for i, c := range calls {
		assert.Equal(t, answers[i].Header().Get("X-Amzn-Requestid"), c.RequestID, "call %d", i+1)
		assert.Equal(t, DoorHTTP, c.Caller.Door)
	}
	assert.Equal(t, []string{
		`#1 2025-01-01T00:00:00Z Frobnicate → error UnknownOperationException: Unknown operation "AmazonSQS.Frobnicate". [http]`,
		`#2 2025-01-01T00:00:00Z (no operation) → error UnknownOperationException: Missing X-Amz-Target header. [http]`,
		`#3 2025-01-01T00:00:00Z SendMessage → error SerializationException: NUMBER_VALUE can not be converted to a String [http]`,
		`#4 2025-01-01T00:00:00Z CreateQueue jobs → ok [http]`,
		`#5 2025-01-01T00:00:00Z ListQueues → error UnknownOperationException: SQS requests are POSTs with an X-Amz-Target header; got GET. [http]`,
	}, callLines(calls))
	assert.Equal(t, 5, f.CallCount())
	assert.Nil(t, f.LastError(), "refused requests never reached SQS's operations")
}

func TestCallsFilterByOperationAndQueue(t *testing.T) {
	e := newErgo(t)
	jobs := e.queue("jobs", nil)
	mail := e.queue("mail", nil)
	e.send(jobs, "a")
	e.send(mail, "b")
	m := e.receiveOne(jobs, 0)
	e.delete(jobs, *m.ReceiptHandle)
	seqs := func(calls []Call) []uint64 {
		var s []uint64
		for _, c := range calls {
			s = append(s, c.Seq)
		}
		return s
	}
	arn := "arn:aws:sqs:us-east-1:123456789012:jobs"
	for _, tc := range []struct {
		name    string
		filters []CallFilter
		want    []uint64
	}{
		{"none", nil, []uint64{1, 2, 3, 4, 5, 6}},
		{"zero filter", []CallFilter{{}}, []uint64{1, 2, 3, 4, 5, 6}},
		{"operation", []CallFilter{{Operation: "SendMessage"}}, []uint64{3, 4}},
		{"queue by name", []CallFilter{{Queue: "jobs"}}, []uint64{1, 3, 5, 6}},
		{"queue by URL", []CallFilter{{Queue: jobs}}, []uint64{1, 3, 5, 6}},
		{"queue by ARN", []CallFilter{{Queue: arn}}, []uint64{1, 3, 5, 6}},
		{"both", []CallFilter{{Operation: "SendMessage", Queue: "mail"}}, []uint64{4}},
		{"any of several", []CallFilter{{Operation: "ReceiveMessage"}, {Operation: "DeleteMessage"}}, []uint64{5, 6}},
		{"no match", []CallFilter{{Operation: "PurgeQueue"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, seqs(e.f.Calls(tc.filters...)))
		})
	}
	assert.PanicsWithValue(t, `sqsfake: Calls: CallFilter.Operation "DeleteMessages" is not an SQS operation; name one as the SDK does, e.g. "DeleteMessage"`,
		func() { e.f.Calls(CallFilter{Operation: "DeleteMessages"}) })
	assert.PanicsWithValue(t, `sqsfake: Calls: CallFilter.Operation "sendMessage" is not an SQS operation; did you mean "SendMessage"?`,
		func() { e.f.Calls(CallFilter{Operation: "sendMessage"}) })
}

// A long poll is in the record from when it parks, and gets its End when it returns.
func TestCallsRecordALongPollFromParkToReturn(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	next := f.CallCount() + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
	}()
	require.NoError(t, f.WaitForCalls(context.Background(), next))
	parked := f.Calls(CallFilter{Operation: "ReceiveMessage"})
	require.Len(t, parked, 1)
	assert.True(t, parked[0].End.IsZero())
	assert.True(t, parked[0].Waited)
	assert.Equal(t, `#2 2025-01-01T00:00:00Z ReceiveMessage jobs: wait 20s → still waiting`, parked[0].String())

	f.Advance(5 * time.Second)
	id := *send(t, f, q, "hi").MessageId
	<-done
	got := f.Calls(CallFilter{Operation: "ReceiveMessage"})[0]
	assert.Equal(t, clockAt(5*time.Second), got.End)
	assert.Equal(t, []string{id}, got.MessageIDs)
	assert.Equal(t, `#2 2025-01-01T00:00:00Z ReceiveMessage jobs: wait 20s → 1 message: `+id+` at 2025-01-01T00:00:05Z`, got.String())
	assert.Equal(t, "#3 2025-01-01T00:00:05Z SendMessage jobs: body \"hi\" (2 bytes) → message "+id, f.Calls()[2].String(),
		"the record is in the order the calls began")
}

func TestCallsMarkFaultsLatencyAndChaos(t *testing.T) {
	t.Run("latency", func(t *testing.T) {
		f := New()
		q := mustCreateQueue(t, f, "jobs", nil)
		f.InjectFault(Fault{Operation: "SendMessage", Latency: 3 * time.Second})
		next := f.CallCount() + 1
		done := make(chan struct{})
		go func() { defer close(done); send(t, f, q, "slow") }()
		require.NoError(t, f.WaitForCalls(context.Background(), next))
		f.Advance(3 * time.Second)
		<-done
		c := f.Calls()[1]
		assert.True(t, c.Fault)
		assert.True(t, c.Waited)
		assert.Equal(t, clockAt(3*time.Second), c.End)
		assert.Equal(t, DefaultStart, c.Start)
	})
	t.Run("lost response", func(t *testing.T) {
		f := New()
		q := mustCreateQueue(t, f, "jobs", nil)
		f.InjectFault(Fault{Operation: "SendMessage", LoseResponse: true})
		_, err := f.SendMessage(context.Background(), &sqs.SendMessageInput{QueueUrl: q, MessageBody: aws.String("x")})
		require.ErrorIs(t, err, ErrLostResponse)
		c := f.Calls()[1]
		assert.Equal(t, "#2 2025-01-01T00:00:00Z SendMessage jobs: body \"x\" (1 byte) → error operation error SQS: SendMessage, context deadline exceeded (the operation took effect: message e971d095-7520-4d94-b0f9-05ed8b12ebc5) [fault]", c.String())
		assert.Empty(t, c.ErrorCode)
	})
	t.Run("chaos", func(t *testing.T) {
		f := New(WithChaos(Chaos{Seed: 1, DuplicateRate: 1}))
		q := mustCreateQueue(t, f, "jobs", nil)
		send(t, f, q, "x")
		_, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q})
		require.NoError(t, err)
		calls := f.Calls()
		assert.Equal(t, []bool{false, false, true}, []bool{calls[0].Chaos, calls[1].Chaos, calls[2].Chaos})
		assert.True(t, strings.HasSuffix(calls[2].String(), " [chaos]"))
	})
	t.Run("chaos delete", func(t *testing.T) {
		f := New(WithChaos(Chaos{Seed: 1, RedeliverRate: 1}))
		e := &ergo{t: t, f: f, ctx: context.Background()}
		q := e.queue("jobs", nil)
		e.send(q, "x")
		m := e.receiveOne(q, 0)
		e.delete(q, *m.ReceiptHandle)
		assert.True(t, f.Calls(CallFilter{Operation: "DeleteMessage"})[0].Chaos)
	})
}

// Client-side validation errors are in the record, with no code; LastError ignores them.
func TestCallsRecordClientSideRejections(t *testing.T) {
	f := New()
	_, err := f.DeleteMessage(context.Background(), &sqs.DeleteMessageInput{QueueUrl: aws.String("jobs")})
	require.Error(t, err)
	c := f.Calls()[0]
	assert.Equal(t, "#1 2025-01-01T00:00:00Z DeleteMessage jobs: no receipt handle → error operation error SQS: DeleteMessage, 1 validation error(s) found. - missing required field, DeleteMessageInput.ReceiptHandle.", c.String())
	assert.Equal(t, err, c.Err)
	assert.Nil(t, f.LastError())
}

// The same calls on the same clock moves give the same record.
func TestCallsAreDeterministic(t *testing.T) {
	a, b := New(), New()
	recordScript(t, a, a)
	recordScript(t, b, b)
	assert.Equal(t, callLines(a.Calls()), callLines(b.Calls()))
}

func TestResetClearsTheCallRecord(t *testing.T) {
	f := New()
	q := mustCreateQueue(t, f, "jobs", nil)
	// A long poll that began before the Reset returns after it, and leaves the new record alone.
	next := f.CallCount() + 1
	done := make(chan struct{})
	go func() {
		defer close(done)
		out, err := f.ReceiveMessage(context.Background(), &sqs.ReceiveMessageInput{QueueUrl: q, WaitTimeSeconds: 20})
		assert.NoError(t, err)
		assert.Empty(t, out.Messages)
	}()
	require.NoError(t, f.WaitForCalls(context.Background(), next))
	require.Equal(t, 1, f.Pollers(), "the receive parked")
	f.Reset()
	<-done
	assert.Empty(t, f.Calls())
	assert.Equal(t, 0, f.CallCount())
	mustCreateQueue(t, f, "jobs", nil)
	assert.Equal(t, []string{"#1 2025-01-01T00:00:00Z CreateQueue jobs → ok"}, callLines(f.Calls()))
	require.NoError(t, f.WaitIdle(context.Background()), "the poll that returned is no longer counted as running")
}

func TestCallLimitForgetsTheOldestCalls(t *testing.T) {
	f := New(WithCallLimit(1))
	q := mustCreateQueue(t, f, "jobs", nil)
	for range 2*logChunk + 5 {
		send(t, f, q, "x")
	}
	calls := f.Calls()
	assert.GreaterOrEqual(t, len(calls), logChunk)
	assert.Less(t, len(calls), 3*logChunk)
	assert.Equal(t, uint64(f.CallCount()), calls[len(calls)-1].Seq)
	assert.Equal(t, uint64(f.CallCount()-len(calls)+1), calls[0].Seq, "the kept calls are the newest, numbered as they were")
	assert.Equal(t, 2*logChunk+6, f.CallCount())
}

// An entry keeps a short body whole (sharing the caller's string) and of a long one a copy
// of its start, so that the record never holds on to large bodies.
func TestCallRecordKeepsOnlyTheStartOfLongBodies(t *testing.T) {
	short := strings.Repeat("s", keptBody)
	assert.Equal(t, short, keepBody(short))
	assert.Equal(t, strings.Repeat("l", bodyPrefix), keepBody(strings.Repeat("l", keptBody+1)))
	// A character is never cut in two: "é" is two bytes.
	assert.Equal(t, strings.Repeat("é", bodyPrefix/2), keepBody(strings.Repeat("é", keptBody)))
	assert.Equal(t, "x"+strings.Repeat("é", bodyPrefix/2-1), keepBody("x"+strings.Repeat("é", keptBody)))
}

// The record names every operation the doors route.
func TestOperationNamesAreTheDoorOperations(t *testing.T) {
	assert.Equal(t, slices.Sorted(maps.Keys(operations)), operationNames[1:])
}

// A failed or refused call that named a message by its receipt handle shows on that
// message's timeline, and so does one that changed nothing.
func TestTimelinesShowFailedAndIgnoredCallsOnTheMessage(t *testing.T) {
	ctx := context.Background()
	t.Run("standard", func(t *testing.T) {
		e := newErgo(t)
		q := e.queue("jobs", map[string]string{"VisibilityTimeout": "30"})
		id := e.send(q, "a")
		first := e.receiveOne(q, 0)
		e.f.Advance(30 * time.Second)
		// Not in flight any more: SQS answers 200 and changes nothing.
		e.changeVisibility(q, *first.ReceiptHandle, 60)
		second := e.receiveOne(q, 0)
		_, err := e.f.ChangeMessageVisibility(ctx, &sqs.ChangeMessageVisibilityInput{QueueUrl: aws.String(q), ReceiptHandle: second.ReceiptHandle, VisibilityTimeout: 43201})
		require.Error(t, err)
		e.f.InjectFault(Fault{Operation: "DeleteMessageBatch", FailEntries: func(string) bool { return true }, Err: ErrThrottled})
		_, err = e.f.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: aws.String(q), Entries: []types.DeleteMessageBatchRequestEntry{{Id: aws.String("x"), ReceiptHandle: second.ReceiptHandle}}})
		require.NoError(t, err)
		e.delete(q, *second.ReceiptHandle)
		e.delete(q, *first.ReceiptHandle) // gone: SQS answers 200
		tl := e.f.Timeline(id)
		var lines []string
		for _, ev := range tl.Events {
			if ev.Kind == EventCallFailed || ev.Kind == EventCallIgnored {
				lines = append(lines, ev.String())
			}
		}
		assert.Equal(t, []string{
			"2025-01-01T00:00:30Z  ChangeMessageVisibility with the handle of receive 1 in jobs changed nothing (the message was not in flight)",
			"2025-01-01T00:00:30Z  ChangeMessageVisibility with the handle of receive 2 in jobs failed: InvalidParameterValue",
			"2025-01-01T00:00:30Z  DeleteMessageBatch with the handle of receive 2 in jobs failed: RequestThrottled (injected fault)",
			"2025-01-01T00:00:30Z  DeleteMessage with the handle of receive 1 in jobs changed nothing (the message had already left the queue)",
		}, lines)
		last, _ := tl.Last()
		assert.Equal(t, Event{Kind: EventCallIgnored, At: clockAt(30 * time.Second), Queue: "jobs", ReceiveCount: 1, Operation: "DeleteMessage"}, last)
		failed := tl.Events[len(tl.Events)-3]
		assert.Equal(t, Event{Kind: EventCallFailed, At: clockAt(30 * time.Second), Queue: "jobs", ReceiveCount: 2, Operation: "DeleteMessageBatch",
			ErrorCode: "RequestThrottled", Fault: true}, failed)
	})
	t.Run("FIFO expired handle", func(t *testing.T) {
		e := newErgo(t)
		q := e.queue("jobs.fifo", map[string]string{"FifoQueue": "true", "ContentBasedDeduplication": "true", "VisibilityTimeout": "30"})
		id := *e.sendInput(&sqs.SendMessageInput{QueueUrl: aws.String(q), MessageBody: aws.String("a"), MessageGroupId: aws.String("g")}).MessageId
		m := e.receiveOne(q, 0)
		e.f.Advance(31 * time.Second)
		_, err := e.f.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q), ReceiptHandle: m.ReceiptHandle})
		require.Error(t, err)
		last, _ := e.f.Timeline(id).Last()
		assert.Equal(t, "2025-01-01T00:00:31Z  DeleteMessage with the handle of receive 1 in jobs.fifo failed: InvalidParameterValue", last.String())
	})
	t.Run("a call its caller cancelled is not the service's failure", func(t *testing.T) {
		e := newErgo(t)
		q := e.queue("jobs", nil)
		id := e.send(q, "a")
		m := e.receiveOne(q, 0)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := e.f.DeleteMessage(cctx, &sqs.DeleteMessageInput{QueueUrl: aws.String(q), ReceiptHandle: m.ReceiptHandle})
		require.ErrorIs(t, err, context.Canceled)
		assert.False(t, e.f.Timeline(id).Has(EventCallFailed))
		assert.True(t, errors.Is(e.f.Calls()[3].Err, context.Canceled))
	})
}

// Every call costs its entry: it stays small, and holds no pointers for the garbage collector
// to scan.
func TestCallRecordEntriesAreSmallAndHoldNoPointers(t *testing.T) {
	assert.Equal(t, uintptr(40), unsafe.Sizeof(callRec{}))
	typ := reflect.TypeFor[callRec]()
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Int64, reflect.Uint64, reflect.Uint32, reflect.Int32, reflect.Uint16, reflect.Uint8:
		default:
			t.Errorf("field %s is a %s", typ.Field(i).Name, typ.Field(i).Type)
		}
	}
}

// A call the SDK's client-side validation refuses is recorded through Client() as through
// the fake's methods, so CallCount, Calls and WaitForCalls do not depend on the door: a test
// that counts the call its code will make does not wait for ever when that call is refused
// before it reaches the fake.
func TestCallsRecordClientSideRejectionsThroughClient(t *testing.T) {
	ctx := context.Background()
	f := New()
	c := f.Client()
	next := f.CallCount() + 1
	_, err := c.DeleteMessage(ctx, &sqs.DeleteMessageInput{QueueUrl: aws.String("jobs")})
	var invalid smithy.InvalidParamsError
	require.ErrorAs(t, err, &invalid)
	wait, cancel := context.WithTimeout(ctx, 10*time.Second) // a guard: the call is counted at once
	defer cancel()
	require.NoError(t, f.WaitForCalls(wait, next))
	require.Len(t, f.Calls(), 1)
	call := f.Calls()[0]
	assert.Equal(t, "#1 2025-01-01T00:00:00Z DeleteMessage jobs: no receipt handle → error operation error SQS: DeleteMessage, 1 validation error(s) found. - missing required field, DeleteMessageInput.ReceiptHandle. [client]", call.String())
	assert.Equal(t, DoorClient, call.Caller.Door)
	assert.Equal(t, err.Error(), call.Err.Error(), "the error the SDK gave the caller")
	assert.Nil(t, f.LastError(), "a client-side rejection is no service error")
}

// Every operation's number is found through its slot, and a name that is no operation's has
// none.
func TestOpIndexNumbersEveryOperation(t *testing.T) {
	for i, name := range operationNames[1:] {
		assert.Equal(t, uint8(i+1), opIndex(name), name)
		assert.Equal(t, uint8(i+1), operationSlots[opSlot(name)], "%s has no slot of its own", name)
	}
	for _, name := range []string{"", "Send", "sendMessage", "SendMessageX", "Sandmessage"} {
		assert.Zero(t, opIndex(name), name)
	}
}
