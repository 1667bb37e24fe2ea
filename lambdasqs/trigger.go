package lambdasqs

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"

	"github.com/sqsfake/sqsfake"
	"github.com/sqsfake/sqsfake/companion"
)

// Handler is the handler shapes a Go Lambda function consuming SQS has: with a partial batch
// response, or with an error only.
type Handler interface {
	func(context.Context, events.SQSEvent) (events.SQSEventResponse, error) |
		func(context.Context, events.SQSEvent) error
}

type handlerFunc = func(context.Context, events.SQSEvent) (events.SQSEventResponse, error)

// MaxPayload is Lambda's invocation payload quota, 6 MB, which ends a batch early (R31).
const MaxPayload = 6 * 1024 * 1024

// Trigger is an event source mapping from one sqsfake queue to one handler. It follows the
// fake's clock: every move polls at each instant it passes through where the mapping has
// something to do (see "How time moves" in the package doc), and Poll polls at the current
// instant. Each invocation runs its handler on a goroutine other than the caller's; the
// trigger waits for it to return or to wait on the fake's clock (its context) before it goes
// on. Its methods are safe for concurrent use; polling is serialized, one step at a time. A
// handler must not call its own trigger's Poll, Advance or WaitInvocations, nor move the
// fake's clock.
type Trigger struct {
	f        *sqsfake.Fake
	url, arn string
	fifo     bool
	m        mapping
	h        handlerFunc

	functionArn string
	clock       sqsfake.Clock // what handlers' contexts read the time from (fakeTime)

	mu      sync.Mutex                             // serializes polling
	pending []events.SQSMessage                    // the batch being gathered
	handles []string                               // its receipt handles, which the handler cannot alter
	keep    []bool                                 // scratch: which messages of the batch being answered stay
	scratch []types.DeleteMessageBatchRequestEntry // scratch: the deletes of an answer applied at once
	size    int                                    // its estimated payload size
	since   time.Time                              // when its first record was received
	// pendingExpires is when the pending batch's messages return to the queue, set once it
	// waits for a slot; zero otherwise.
	pendingExpires time.Time

	flights []*flight // invocations running, in the order they end
	held    []*held   // throttled batches waiting for a retry

	recMu       sync.Mutex
	log         [][]Invocation // in chunks of logChunk, so that the record never moves as it grows
	logged      int
	filtered    []string
	seq         uint64
	penalty     int       // concurrent invocations taken away by back-off
	activeSince time.Time // when the mapping last started finding messages; zero when idle

	region  string               // the queue's region: the function's, and its records' awsRegion
	as      []func(*sqs.Options) // ActAs the queue's account and region, when not the fake's own
	calls   int                  // the trigger's own calls to the fake
	sizes   sizes                // the sizes of the queue's messages, for sizing receives
	enabled bool                 // SetEnabled's state, read by the poller at each step
	paused  bool                 // SetEnabled(false) was called: the poller drops its batches at its next step

	// Following the fake's clock (drive.go); guarded by mu unless said otherwise.
	waiting      []*running    // invocations whose handler waits on the clock, in the order they started
	detach       func()        // removes the trigger's OnMove function
	stopWake     func()        // disarms the trigger's timer
	wakeAt       time.Time     // when the trigger's timer fires
	wakeSet      bool          // whether it is armed
	seenForeign  int           // f.CallCount() less the trigger's own calls, at the last step
	seenEpoch    uint64        // companion.Epoch(f) at the last step
	dirty        atomic.Bool   // a handler has returned since the last step
	closed       bool          // Close was called
	uuid         string        // the mapping's UUID
	problems     []error       // what clock-driven steps reported; guarded by recMu
	moreProblems int           // how many more, beyond maxProblems; guarded by recMu
	returnedCh   chan struct{} // closed when a handler returns; guarded by recMu
	waitTimer    *time.Timer   // settle's, reused
	watchTimer   *time.Timer   // watch's, reused
	idle         []*worker     // the step's workers whose handler has returned
	rn           *runner       // the step's runner, while it polls
	hadStuck     atomic.Bool   // a handler has been stuck: later waits are short (stuckWait)
}

// New returns a trigger that feeds the queue (a name, URL or ARN of f) to h with the
// configuration cfg, or Lambda's error for a configuration CreateEventSourceMapping refuses.
// A queue that does not exist is Lambda's InvalidParameterValueException, which wraps the
// queue fake's error (sqsfake.ErrNoQueue, naming the queues there are).
// A queue of another account or region (sqsfake.ActAs) is named by its ARN; the function then
// lives in the queue's account and region — its records' awsRegion, its functionArn — and
// polls as that account.
func New[H Handler](f *sqsfake.Fake, queue string, h H, cfg Config) (*Trigger, error) {
	info, err := f.Queue(queue)
	if err != nil {
		return nil, &Error{Code: "InvalidParameterValueException", Message: "Error occurred while ReceiveMessage. SQS Error Code: AWS.SimpleQueueService.NonExistentQueue. SQS Error Message: The specified queue does not exist.",
			cause: err}
	}
	m, err := validate(cfg, info.FIFO, info.Attributes["VisibilityTimeout"])
	if err != nil {
		return nil, err
	}
	// The function lives in the queue's account and region (an event source mapping reads a
	// queue of its own region), and polls as that account.
	t := &Trigger{f: f, url: info.URL, arn: info.Arn, fifo: info.FIFO, m: m, enabled: m.enabled, region: info.Region,
		functionArn: fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s", info.Region, info.AccountID, m.function)}
	if info.Region != companion.Region(f) || info.AccountID != companion.AccountID(f) {
		t.as = []func(*sqs.Options){sqsfake.ActAs(sqsfake.Identity{AccountID: info.AccountID, Region: info.Region})}
	}
	switch h := any(h).(type) {
	case func(context.Context, events.SQSEvent) (events.SQSEventResponse, error):
		t.h = h
	case func(context.Context, events.SQSEvent) error:
		t.h = func(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
			return events.SQSEventResponse{}, h(ctx, ev)
		}
	}
	if t.h == nil {
		return nil, errors.New("lambdasqs: nil handler")
	}
	if err := t.register(); err != nil {
		return nil, err
	}
	t.clock = handlerClock(f)
	t.seenForeign, t.seenEpoch = -1, companion.Epoch(f) // the first move steps
	t.detach = companion.OnMove(f, t.onMove)
	return t, nil
}

// SetEnabled pauses (false) or resumes (true) polling, as UpdateEventSourceMapping's Enabled.
// A batch being gathered or waiting for a retry after a throttle when the mapping is paused
// stays in flight and returns to the queue when its visibility timeout ends; invocations
// running end as they would have. It is safe to call from a handler: the poller applies it at
// its next step (a pause drops the batches it holds then).
func (t *Trigger) SetEnabled(on bool) {
	t.dirty.Store(true) // the next move steps, even with nothing else new
	t.recMu.Lock()
	defer t.recMu.Unlock()
	t.enabled = on
	if !on {
		t.paused = true
	}
}

// isEnabled reports whether the mapping polls, first dropping the batches the poller holds if
// it has been paused since the last step.
func (t *Trigger) isEnabled() bool {
	t.recMu.Lock()
	on, paused := t.enabled, t.paused
	t.paused = false
	t.recMu.Unlock()
	if paused {
		t.pending, t.handles, t.held, t.pendingExpires = nil, nil, nil, time.Time{}
	}
	return on
}

// Poll does, at the fake's current time, what the mapping's pollers do: it applies the
// answers of the invocations that have ended, then, while the mapping has a free slot (its
// concurrency), receives the messages that are available, builds batches, invokes the
// handler for each full batch (or each batch whose window has ended) and applies its answer
// when it ends, until nothing more is due or every slot is taken. It returns once every
// invocation it started has returned or waits on the fake's clock (its handler asked its
// context for Done); a batch still inside its batching window, or waiting for a slot, is
// invoked by the move of the clock that reaches it. Poll is the documented waiting call: no
// test needs it to make the mapping act — any move of the clock does — but it invokes
// without moving the clock.
//
// Poll returns an error when a call to the fake fails, when ctx ends (an answer not applied
// yet stays for the next step) — also while a handler is blocked on something the clock
// cannot end, naming its invocation — when a handler does not settle within
// Config.HandlerWait (a *StuckError), or when it is called with the context of one of the
// trigger's own invocations. It returns, too, what the steps of moves since the last call
// reported (see Err).
func (t *Trigger) Poll(ctx context.Context) error {
	if err := t.reentered(ctx, "Poll"); err != nil {
		return err
	}
	if companion.CatchesUp(t.f) {
		// A benbjohnson mock: catch up with its own moves first; the step's calls are part
		// of the step, as those of a step inside a move are.
		companion.CatchUp(t.f)
		ctx = companion.InStep(ctx)
		// The step's inspections of the fake (sizing a receive) carry no context: this
		// goroutine's calls are the step's too.
		defer companion.JoinStep(t.f)()
	}
	t.mu.Lock()
	err := t.step(ctx)
	t.mu.Unlock()
	return errors.Join(t.takeProblems(), err)
}

// reentered returns an error when ctx is the context of one of t's own invocations: Poll and
// Advance run the handler while they hold the trigger, so calling them from inside it would
// wait for itself forever. A context the handler did not get from the trigger cannot be
// told apart, and such a call still deadlocks.
func (t *Trigger) reentered(ctx context.Context, method string) error {
	if c, _ := ctx.Value(invocationKey{}).(*invocationCtx); c != nil && c.trigger == t {
		return fmt.Errorf("lambdasqs: Trigger.%s called from inside one of its handlers: a handler takes time with lambdasqs.Sleep or the fake's Advance", method)
	}
	return nil
}

func (t *Trigger) poll(ctx context.Context) error {
	if err := t.land(ctx); err != nil {
		return err
	}
	for t.isEnabled() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := t.retry(ctx); err != nil {
			return err
		}
		if t.busy() >= t.limit(t.f.Now()) {
			// Every slot is taken: wait for an invocation to end. A batch gathered meanwhile
			// waits too, until its messages return to the queue.
			return t.expirePending(ctx)
		}
		full, err := t.gather(ctx)
		if err != nil {
			return err
		}
		if len(t.pending) == 0 {
			if t.busy() == 0 && !t.activeSince.IsZero() {
				// "When traffic is low, Lambda scales back the processing to five" (R36).
				t.recMu.Lock()
				t.activeSince = time.Time{}
				t.recMu.Unlock()
			}
			return nil
		}
		if !full && t.m.window > 0 && t.f.Now().Before(t.since.Add(t.m.window)) {
			return nil // the window is still open: wait for more records
		}
		if t.busy() >= t.limit(t.f.Now()) {
			continue // a batch ended early by the payload limit took the last slot
		}
		if !t.pendingExpires.IsZero() && t.f.Now().Add(t.m.timeout).After(t.pendingExpires) {
			// The batch waited for a slot, and could now run (to the function's timeout)
			// past its messages' visibility timeout: they would be received again while it
			// runs. The poller drops it, as it does a throttled batch (see retry).
			t.pending, t.handles, t.pendingExpires = nil, nil, time.Time{}
			continue
		}
		// The one dispatch whose handler runs inline on the step's runner (see drive): when
		// it waits on the clock, a new runner goes on from the top of this loop, which is
		// where this one would have gone on.
		if t.rn == nil {
			return errHandOff // the step's own goroutine polls up to here (drive)
		}
		if err := t.dispatch(ctx, t.rn); err != nil {
			return err
		}
		if err := t.land(ctx); err != nil { // an answer known at once is applied now
			return err
		}
	}
	return nil
}

// expirePending drops the pending batch when it has waited for a slot until its messages'
// visibility timeout: they are back in the queue, and the poller receives them again.
func (t *Trigger) expirePending(ctx context.Context) error {
	if len(t.pending) == 0 {
		return nil
	}
	if t.pendingExpires.IsZero() {
		v, err := t.visibility(ctx)
		if err != nil {
			return err
		}
		t.pendingExpires = t.since.Add(v)
	}
	if !t.f.Now().Before(t.pendingExpires) {
		t.pending, t.handles, t.pendingExpires = nil, nil, time.Time{}
	}
	return nil
}

// dispatch starts the pending batch: its handler runs inline on rn, the step's runner, or,
// when rn is nil, on a worker goroutine.
func (t *Trigger) dispatch(ctx context.Context, rn *runner) error {
	records, handles := t.pending, t.handles
	t.pending, t.handles, t.pendingExpires = nil, nil, time.Time{}
	if t.activeSince.IsZero() {
		t.recMu.Lock()
		t.activeSince = t.since
		t.recMu.Unlock()
	}
	return t.start(ctx, records, handles, t.since, rn)
}

// gather receives into the pending batch until it is full (batch size or payload) or a receive
// comes back short. It reports whether the batch is full.
//
// A receive asks only for what fits (see payload.go), where what it returns could not
// otherwise all be invoked. A record that would still take the batch over the payload quota
// ends it: on a standard queue with a free slot, the batch is dispatched and the record opens
// the next; otherwise — on a FIFO queue, or with no slot left, which only a change of the
// queue between the fake's sizes being read and the receive can bring about (another
// goroutine sending meanwhile) — the record and the rest of its receive go back to the queue
// (visibility 0, costing them a receive), so that a FIFO group is never split across two
// batches running side by side (R25).
func (t *Trigger) gather(ctx context.Context) (bool, error) {
	if len(t.pending) == 0 {
		t.size = eventOverhead
	}
	for len(t.pending) < t.m.batchSize {
		want := min(10, t.m.batchSize-len(t.pending))
		if t.mustFit() {
			if n := t.fit(want, MaxPayload-t.size); n < want {
				if n == 0 && len(t.pending) > 0 {
					return true, nil // the next message could take the batch over the payload
				}
				want = max(n, 1)
			}
		}
		t.call()
		out, err := t.f.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{
			QueueUrl:                    &t.url,
			MaxNumberOfMessages:         int32(want),
			MessageSystemAttributeNames: lambdaAttributes,
			MessageAttributeNames:       allAttributes,
		}, t.as...)
		if err != nil {
			return false, fmt.Errorf("lambdasqs: ReceiveMessage: %w", err)
		}
		if err := t.extend(ctx, out.Messages); err != nil {
			return false, err
		}
		if len(t.pending) == 0 && len(out.Messages) > 0 {
			t.since = t.f.Now()
		}
		var drop []types.DeleteMessageBatchRequestEntry
		var dropped []string     // the ids of drop's messages
		var back []types.Message // the rest of the receive, going back to the queue
		stop := false            // the mapping has no slot left for another batch
		for i := range out.Messages {
			msg := &out.Messages[i]
			rec := t.record(&out.Messages[i])
			if t.m.filters != nil && !matchAny(t.m.filters, &rec) {
				// R29: a message no filter matches is deleted without an invocation.
				drop = append(drop, types.DeleteMessageBatchRequestEntry{Id: &deleteIDs[len(drop)%10], ReceiptHandle: msg.ReceiptHandle})
				dropped = append(dropped, rec.MessageId)
				continue
			}
			n := recordSize(&rec)
			if len(t.pending) > 0 && t.size+n > MaxPayload {
				if t.fifo || stop {
					back = out.Messages[i:]
					break
				}
				// Over the payload quota: this record opens the next batch. It keeps the
				// visibility timeout of its receive.
				// On a worker: the rest of this receive is still to be placed when the
				// handler returns, so this step cannot be taken over here.
				if err := t.dispatch(ctx, nil); err != nil {
					return false, err
				}
				t.since = t.f.Now()
				t.size = eventOverhead
				stop = t.busy() >= t.limit(t.f.Now())
			}
			if t.pending == nil {
				t.pending = make([]events.SQSMessage, 0, min(t.m.batchSize, 10))
				t.handles = make([]string, 0, min(t.m.batchSize, 10))
			}
			t.pending = append(t.pending, rec)
			t.handles = append(t.handles, rec.ReceiptHandle)
			t.size += n
		}
		// A drop whose entry fails comes back and is filtered again: it is listed in
		// Filtered once its delete succeeds.
		failed, err := t.delete(ctx, drop)
		if err != nil {
			return false, err
		}
		if len(dropped) > 0 {
			t.recMu.Lock()
			for i, id := range dropped {
				if len(failed) > 0 && failed[0] == i {
					failed = failed[1:]
					continue
				}
				t.filtered = append(t.filtered, id)
				t.sizes.forget(dropped[i : i+1])
			}
			t.recMu.Unlock()
		}
		if len(back) > 0 {
			return true, t.release(ctx, back)
		}
		if stop || len(out.Messages) < want {
			return len(t.pending) >= t.m.batchSize, nil
		}
	}
	return true, nil
}

// release makes received messages visible again at once.
func (t *Trigger) release(ctx context.Context, msgs []types.Message) error {
	return t.changeVisibility(ctx, msgs, 0)
}

// extend applies R33 to a receive: with a batching window, when the window plus the
// function's timeout exceed the queue's visibility timeout, "your effective queue visibility
// timeout is (batch window) + (function timeout) + 30s", so a message is not received again
// while its batch is gathered and runs. The trigger sets it on the messages as it receives
// them (ChangeMessageVisibilityBatch).
func (t *Trigger) extend(ctx context.Context, msgs []types.Message) error {
	if t.m.window == 0 || len(msgs) == 0 {
		return nil
	}
	v, err := t.visibility(ctx)
	if err != nil {
		return err
	}
	q, err := t.queueVisibility(ctx)
	if err != nil || v == q {
		return err
	}
	return t.changeVisibility(ctx, msgs, int32(v/time.Second))
}

// changeVisibility sets the messages' visibility timeout to secs, 10 at a time. An entry that
// fails (a message gone meanwhile) is left as it is.
func (t *Trigger) changeVisibility(ctx context.Context, msgs []types.Message, secs int32) error {
	for from := 0; from < len(msgs); from += 10 {
		chunk := msgs[from:min(from+10, len(msgs))]
		entries := make([]types.ChangeMessageVisibilityBatchRequestEntry, len(chunk))
		for i := range chunk {
			entries[i] = types.ChangeMessageVisibilityBatchRequestEntry{Id: &deleteIDs[i], ReceiptHandle: chunk[i].ReceiptHandle, VisibilityTimeout: secs}
		}
		t.call()
		if _, err := t.f.ChangeMessageVisibilityBatch(ctx, &sqs.ChangeMessageVisibilityBatchInput{QueueUrl: &t.url, Entries: entries}, t.as...); err != nil {
			return fmt.Errorf("lambdasqs: ChangeMessageVisibilityBatch: %w", err)
		}
	}
	return nil
}

const logChunk = 256

// eventOverhead is the size of `{"Records":[]}`.
const eventOverhead = 14

// recordSize estimates a record's size in the invocation payload: its strings, its attributes
// and the JSON around them, without escapes. The four attributes every record has are
// bounded (two timestamps, a count, a sender id) and counted as a fixed allowance; the map is
// not walked, which would cost more than the rest of the estimate.
func recordSize(r *events.SQSMessage) int {
	n := 330 + baseAttributes + len(r.MessageId) + len(r.ReceiptHandle) + len(r.Body) + len(r.Md5OfBody) + len(r.Md5OfMessageAttributes) + len(r.EventSourceARN) + len(r.AWSRegion)
	if len(r.Attributes) > 4 {
		for _, k := range optionalAttributes {
			if v, ok := r.Attributes[k]; ok {
				n += len(k) + len(v) + 6
			}
		}
	}
	if len(r.MessageAttributes) > 0 {
		for k, v := range r.MessageAttributes {
			n += len(k) + len(v.DataType) + 80 + (len(v.BinaryValue)+2)/3*4
			if v.StringValue != nil {
				n += len(*v.StringValue)
			}
		}
	}
	return n
}

// baseAttributes bounds the JSON of ApproximateReceiveCount, SentTimestamp, SenderId (at most
// 193 characters, as sqsfake.WithSenderID allows) and ApproximateFirstReceiveTimestamp.
const baseAttributes = 4*6 + len("ApproximateReceiveCount") + 10 + len("SentTimestamp") + 13 + len("SenderId") + 193 + len("ApproximateFirstReceiveTimestamp") + 13

// optionalAttributes are the attributes only some records have (R2, R3).
var optionalAttributes = []string{"SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "AWSTraceHeader"}

// lambdaAttributes are the system attributes a Lambda record carries (R2, R3), the only ones
// the trigger asks for.
var lambdaAttributes = []types.MessageSystemAttributeName{"ApproximateReceiveCount", "SentTimestamp", "SenderId", "ApproximateFirstReceiveTimestamp", "SequenceNumber", "MessageGroupId", "MessageDeduplicationId", "AWSTraceHeader"}

var allAttributes = []string{"All"}

// deleteIDs are the ids of a DeleteMessageBatch's entries.
var deleteIDs = [10]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// record is msg as a Lambda record (R1–R6).
func (t *Trigger) record(msg *types.Message) events.SQSMessage {
	// The receive asked for Lambda's attributes only: the map is the record's (the message is
	// the trigger's own copy, rendered for this receive).
	attrs := msg.Attributes
	if attrs == nil {
		attrs = map[string]string{}
	}
	// An empty map, not nil: Lambda's JSON has "messageAttributes": {}.
	mattrs := make(map[string]events.SQSMessageAttribute, len(msg.MessageAttributes))
	for k, v := range msg.MessageAttributes {
		a := events.SQSMessageAttribute{StringValue: v.StringValue, BinaryValue: v.BinaryValue, StringListValues: v.StringListValues, BinaryListValues: v.BinaryListValues, DataType: aws.ToString(v.DataType)}
		if a.StringListValues == nil {
			a.StringListValues = []string{}
		}
		if a.BinaryListValues == nil {
			a.BinaryListValues = [][]byte{}
		}
		mattrs[k] = a
	}
	return events.SQSMessage{
		MessageId:              aws.ToString(msg.MessageId),
		ReceiptHandle:          aws.ToString(msg.ReceiptHandle),
		Body:                   aws.ToString(msg.Body),
		Md5OfBody:              aws.ToString(msg.MD5OfBody),
		Md5OfMessageAttributes: aws.ToString(msg.MD5OfMessageAttributes),
		Attributes:             attrs,
		MessageAttributes:      mattrs,
		EventSourceARN:         t.arn,
		EventSource:            "aws:sqs",
		AWSRegion:              t.region,
	}
}

// invoke hands the batch to the handler — inline on rn, the step's runner, or on a worker
// goroutine when rn is nil (Lambda runs each invocation in an execution environment of its
// own, never on the poller) — and waits for it to settle: to return, or to wait on the
// fake's clock through its context (see drive.go). An answer known now is applied when the
// invocation ends: at once, or, when the handler used Sleep, later (land); an invocation
// whose handler waits is applied when it returns or reaches its deadline.
func (t *Trigger) invoke(ctx context.Context, records []events.SQSMessage, handles []string, rn *runner) error {
	ev := events.SQSEvent{Records: records}
	t.recMu.Lock()
	t.seq++
	seq := t.seq
	t.recMu.Unlock()
	r := &running{inv: Invocation{
		RequestID:  requestID(seq),
		At:         t.f.Now(),
		MessageIDs: make([]string, len(ev.Records)),
	}, handles: handles}
	// What the outcome is applied to is taken before the call: the handler has the records
	// themselves and may reorder or edit them, as it may its own copy of the event on Lambda.
	if t.fifo {
		r.groups = make([]string, len(ev.Records))
	}
	for i, rec := range ev.Records {
		r.inv.MessageIDs[i] = rec.MessageId
		if r.groups != nil {
			r.groups[i] = rec.Attributes["MessageGroupId"]
		}
	}
	r.deadline = r.inv.At.Add(t.m.timeout)
	lc := &lambdacontext.LambdaContext{
		AwsRequestID:       r.inv.RequestID,
		InvokedFunctionArn: t.functionArn,
	}
	r.ctx = &invocationCtx{parent: lambdacontext.NewContext(context.Background(), lc), clock: t.clock, deadline: r.deadline, trigger: t,
		returned: make(chan struct{}), run: r}
	r.ev = ev
	if rn != nil {
		return t.invokeOn(ctx, rn, r)
	}
	r.ctx.asked = make(chan struct{})
	w := t.worker()
	w.jobs <- r
	if err := t.settle(ctx, r); err != nil {
		close(w.jobs) // the worker stays with its handler, and ends when it returns
		t.waiting = append(t.waiting, r)
		return err
	}
	if !r.hasReturned() {
		close(w.jobs)
		t.waiting = append(t.waiting, r) // it waits on the clock: applied when it returns
		return nil
	}
	t.idle = append(t.idle, w)
	return t.apply(ctx, r, false)
}

// apply applies the answer of an invocation whose handler has returned (or, abandoned, has
// reached its deadline without returning): now if it has ended by the fake's time, else
// when it does (a handler that slept).
func (t *Trigger) apply(ctx context.Context, r *running, abandoned bool) error {
	inv := r.inv
	deadline := r.deadline
	var timedOut bool
	if abandoned {
		inv.Ended, timedOut = deadline, true
	} else {
		inv.Ended = r.endAt
		timedOut = !inv.Ended.Before(deadline)
	}
	if timedOut {
		inv.Ended = deadline // Lambda stops the function at its timeout
	}
	keep := t.outcome(&inv, r.groups, r.resp, r.err, r.panicked, timedOut)
	later := inv.Ended.After(t.f.Now())
	handles := r.handles
	// An invocation applied now deletes through the trigger's own scratch slice.
	var del []types.DeleteMessageBatchRequestEntry
	if later {
		del = make([]types.DeleteMessageBatchRequestEntry, 0, len(inv.MessageIDs))
	} else {
		del = t.scratch[:0]
	}
	for i, id := range inv.MessageIDs {
		if keep[i] {
			inv.Kept = append(inv.Kept, id)
			continue
		}
		del = append(del, types.DeleteMessageBatchRequestEntry{Id: &deleteIDs[len(del)%10], ReceiptHandle: &handles[i]})
	}
	switch {
	case len(del) == len(inv.MessageIDs):
		inv.Deleted = inv.MessageIDs // the record's slices are read-only: share
	case len(del) > 0:
		inv.Deleted = make([]string, 0, len(del))
		for i, id := range inv.MessageIDs {
			if !keep[i] {
				inv.Deleted = append(inv.Deleted, id)
			}
		}
	}
	if !later {
		t.scratch = del[:0]
	}
	if later {
		t.fly(&flight{inv: inv, del: del, handle: handles})
		return nil
	}
	if err := t.finish(ctx, &inv, del); err != nil {
		// The delete failed as a whole (or ctx ended): the answer is not lost. It waits,
		// as an ended invocation's does, for the next Poll or clock move to apply it (land),
		// with its deletes copied out of the scratch slice.
		t.fly(&flight{inv: inv, del: append([]types.DeleteMessageBatchRequestEntry(nil), del...), handle: handles})
		return err
	}
	return nil
}

// finish applies an ended invocation's answer: it deletes what Lambda deletes, records the
// invocation and backs off or recovers. A delete entry that fails (an expired receipt handle)
// is not fatal: Lambda keeps polling, and the message comes back after its visibility
// timeout; the record lists it in DeleteFailed instead of Deleted.
func (t *Trigger) finish(ctx context.Context, inv *Invocation, del []types.DeleteMessageBatchRequestEntry) error {
	failed, err := t.delete(ctx, del)
	if err != nil {
		return err
	}
	if len(failed) > 0 {
		// del lists inv.Deleted's messages, in order.
		deleted := make([]string, 0, len(inv.Deleted)-len(failed))
		inv.DeleteFailed = make([]string, 0, len(failed))
		for i, id := range inv.Deleted {
			if len(failed) > 0 && failed[0] == i {
				inv.DeleteFailed = append(inv.DeleteFailed, id)
				failed = failed[1:]
				continue
			}
			deleted = append(deleted, id)
		}
		inv.Deleted = deleted
	}
	t.sizes.forget(inv.Deleted)
	t.recMu.Lock()
	t.logInvocation(inv)
	switch inv.Outcome {
	case Success, PartialFailure:
		t.recover()
	default:
		// "When ReportBatchItemFailures is activated, Lambda doesn't scale down message
		// polling when function invocations fail" (R15).
		if !t.m.report {
			t.backOff(inv.Ended)
		}
	}
	t.recMu.Unlock()
	return nil
}

// logInvocation appends inv to the record. Called with recMu held.
func (t *Trigger) logInvocation(inv *Invocation) {
	if t.logged%logChunk == 0 {
		t.log = append(t.log, make([]Invocation, 0, logChunk))
	}
	t.log[len(t.log)-1] = append(t.log[len(t.log)-1], *inv)
	t.logged++
}

// delete deletes the entries, 10 at a time (their ids must be unique within each 10), and
// returns the positions in del of the entries that failed, in order. Its error is that of a
// call that failed as a whole.
func (t *Trigger) delete(ctx context.Context, del []types.DeleteMessageBatchRequestEntry) ([]int, error) {
	var failed []int
	for from := 0; from < len(del); from += 10 {
		n := min(10, len(del)-from)
		t.call()
		out, err := t.f.DeleteMessageBatch(ctx, &sqs.DeleteMessageBatchInput{QueueUrl: &t.url, Entries: del[from : from+n]}, t.as...)
		if err != nil {
			return nil, fmt.Errorf("lambdasqs: DeleteMessageBatch: %w", err)
		}
		if len(out.Failed) > 0 {
			for i := range del[from : from+n] {
				for _, e := range out.Failed {
					if aws.ToString(e.Id) == deleteIDs[i] {
						failed = append(failed, from+i)
						break
					}
				}
			}
		}
	}
	return failed, nil
}

// call runs the handler, turning a panic into a function error as the Go runtime does (R21).
func call(ctx context.Context, h handlerFunc, ev events.SQSEvent) (resp events.SQSEventResponse, err error, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			resp, err, panicked = events.SQSEventResponse{}, fmt.Errorf("panic: %v", v), true
		}
	}()
	resp, err = h(ctx, ev)
	return resp, err, false
}

// outcome classifies the answer and returns which records stay in the queue (R10–R22, R24–R26).
// outcome applies the handler's answer to the batch inv.MessageIDs names (groups: the FIFO
// group of each, or nil on a standard queue) and says which messages stay.
func (t *Trigger) outcome(inv *Invocation, groups []string, resp events.SQSEventResponse, err error, panicked, timedOut bool) []bool {
	keep := t.keep[:0]
	if cap(keep) < len(inv.MessageIDs) {
		keep = make([]bool, 0, len(inv.MessageIDs))
	}
	keep = keep[:len(inv.MessageIDs)]
	clear(keep)
	t.keep = keep
	all := func(o Outcome, e error) []bool {
		inv.Outcome, inv.Err = o, e
		for i := range keep {
			keep[i] = true
		}
		return keep
	}
	switch {
	case timedOut:
		return all(Timeout, &TimeoutError{Timeout: t.m.timeout})
	case panicked:
		return all(Panic, err)
	case err != nil:
		return all(FunctionError, err)
	}
	for _, f := range resp.BatchItemFailures {
		inv.Reported = append(inv.Reported, f.ItemIdentifier)
	}
	if !t.m.report || len(resp.BatchItemFailures) == 0 {
		inv.Outcome = Success // R17 (A2), R19
		return keep
	}
	index := make(map[string]int, len(inv.MessageIDs))
	for i, id := range inv.MessageIDs {
		index[id] = i
	}
	for _, f := range resp.BatchItemFailures {
		i, ok := index[f.ItemIdentifier]
		if !ok {
			return all(InvalidResponse, fmt.Errorf("batchItemFailures: itemIdentifier %q is not a message of the batch", f.ItemIdentifier)) // R18
		}
		keep[i] = true
	}
	inv.Outcome = PartialFailure
	if t.fifo {
		// R24–R26: a group's later messages wait for its failed one.
		held := map[string]bool{}
		for i, g := range groups {
			if held[g] {
				keep[i] = true
			} else if keep[i] {
				held[g] = true
			}
		}
	}
	return keep
}

// requestID is the seq'th invocation's AwsRequestID, a UUID of version 4 form.
func requestID(seq uint64) string {
	const prefix = "00000000-0000-4000-8000-"
	var b [len(prefix) + 12]byte
	copy(b[:], prefix)
	for i := len(b) - 1; i >= len(prefix); i-- {
		b[i] = "0123456789abcdef"[seq&0xf]
		seq >>= 4
	}
	return string(b[:])
}

// TimeoutError is the error of an invocation that ran to or past its deadline. Its text is
// Lambda's: "Task timed out after 3.00 seconds".
type TimeoutError struct {
	Timeout time.Duration // the function's timeout
}

// Error returns Lambda's text for the timeout.
func (e *TimeoutError) Error() string {
	return fmt.Sprintf("Task timed out after %.2f seconds", e.Timeout.Seconds())
}
