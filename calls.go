package sqsfake

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// The call record: every call into the fake, through every door, in the order the calls
// began. A call reserves its entry when it begins and completes it when it returns; the
// engine notes what only it knows (the messages a send stored or a receive returned, chaos,
// a parked poll) in the entry as it runs. Entries hold small facts — the strings the input
// and output already had, message numbers, counts — and Calls renders them on demand.

// Door is the way a call came into the fake.
type Door uint8

// The fake's doors.
const (
	// DoorMethods: the fake's own methods, the method set of *sqs.Client.
	DoorMethods Door = iota + 1
	// DoorClient: a *sqs.Client that Client returned.
	DoorClient
	// DoorHTTP: the wire protocol, through Handler, HTTPClient or the sqsfake server.
	DoorHTTP
)

// String names the door: "methods", "client" or "http".
func (d Door) String() string {
	switch d {
	case DoorMethods:
		return "methods"
	case DoorClient:
		return "client"
	case DoorHTTP:
		return "http"
	}
	return "Door(" + strconv.Itoa(int(d)) + ")"
}

// Caller says who made a call: the door it came through and the account it acted as. Today
// every call acts as the fake's own account (WithAccountID); callers of other accounts may
// be told apart by further fields later.
type Caller struct {
	Door      Door
	AccountID string
}

// Call is one call in the fake's call record (Calls).
type Call struct {
	// Seq numbers the call: it is the Seq-th call since New or Reset, counting every door
	// and the requests the wire protocol refused. CallCount is the latest Seq.
	Seq uint64
	// RequestID is the request id the caller got (x-amzn-RequestId; the SDK's
	// awsmiddleware.GetRequestIDMetadata).
	RequestID string
	// Operation is the SQS operation, e.g. "SendMessage". A wire request the fake could not
	// route has what its X-Amz-Target header named instead ("" when it had none).
	Operation string
	Caller    Caller
	// Start is when the call began on the fake's clock, End when it returned: later than
	// Start for a long poll or a response an injected Latency held back, and zero while the
	// call has not returned.
	Start, End time.Time
	// Queue is the name of the queue the input names (by URL, name or ARN), or "" for an
	// operation that names none.
	Queue string
	// Input summarises the rest of the input: a message body's first characters and
	// length, a receipt handle with the message and receive it names, wait and visibility
	// times, entry counts. Output summarises what the call answered — the MessageIds it
	// sent or received, batch results with the codes of failed entries — or what the
	// operation did when an injected fault replaced its answer with an error.
	Input, Output string
	// MessageIDs are the MessageIds of the messages the call sent or received.
	MessageIDs []string
	// Err is the error the caller got, nil when it succeeded; ErrorCode is its ErrorCode()
	// when it is an SQS error (through Handler, as the SDK reads it from the wire answer),
	// else "" — a client-side validation error, a lost response, a cancelled context.
	Err       error
	ErrorCode string
	// Fault reports that an injected Fault disturbed the call; Chaos that WithChaos changed
	// what it did (a received message left visible, a reorder, a delete that missed).
	Fault, Chaos bool
	// Waited reports that the call waited on the fake's clock: a receive that parked in a
	// long poll, or a response an injected Latency held back.
	Waited bool
}

// String renders the call on one line, as the call assertions print it:
//
//	#2 2025-01-01T00:00:00Z SendMessage jobs: body "hello" (5 bytes) → message 0d7c…
func (c Call) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d %s %s", c.Seq, formatTime(c.Start), c.Operation)
	if c.Operation == "" {
		b.WriteString("(no operation)")
	}
	if c.Queue != "" {
		b.WriteString(" ")
		b.WriteString(c.Queue)
	}
	if c.Input != "" {
		b.WriteString(": ")
		b.WriteString(c.Input)
	}
	b.WriteString(" → ")
	switch {
	case c.End.IsZero() && c.Waited:
		b.WriteString("still waiting")
		if c.Output != "" {
			b.WriteString(" (" + c.Output + ")")
		}
	case c.End.IsZero():
		b.WriteString("still running")
		if c.Output != "" {
			b.WriteString(" (" + c.Output + ")")
		}
	case c.Err != nil:
		b.WriteString("error ")
		if c.ErrorCode != "" {
			b.WriteString(c.ErrorCode)
			if msg := errorMessageOf(c.Err); msg != "" {
				b.WriteString(": " + msg)
			}
		} else {
			b.WriteString(strings.Join(strings.Fields(c.Err.Error()), " "))
		}
		if c.Output != "" {
			b.WriteString(" (the operation took effect: " + c.Output + ")")
		}
	default:
		b.WriteString(c.Output)
	}
	if c.Waited && !c.End.IsZero() {
		fmt.Fprintf(&b, " at %s", formatTime(c.End))
	}
	if c.Fault {
		b.WriteString(" [fault]")
	}
	if c.Chaos {
		b.WriteString(" [chaos]")
	}
	if c.Caller.Door != DoorMethods {
		b.WriteString(" [" + c.Caller.Door.String() + "]")
	}
	return b.String()
}

// errorMessageOf is the message of an SQS error, shortened for one line.
func errorMessageOf(err error) string {
	var api smithy.APIError
	if !errors.As(err, &api) {
		return ""
	}
	return abbreviate(api.ErrorMessage(), 120)
}

// CallFilter selects calls of the record. Its zero value selects every call.
type CallFilter struct {
	// Operation, if set, is the operation the calls are, e.g. "DeleteMessage". It must name
	// an SQS operation.
	Operation string
	// Queue, if set, is the queue the calls name: a name, URL or ARN, matched by the
	// queue's name.
	Queue string
}

// String describes the calls the filter selects, e.g. "DeleteMessage calls on queue jobs".
func (cf CallFilter) String() string {
	s := "calls"
	if cf.Operation != "" {
		s = cf.Operation + " calls"
	}
	if cf.Queue != "" {
		s += " on queue " + lastSegment(cf.Queue)
	}
	return s
}

// count says "n calls" of the kind the filter selects, e.g. "1 DeleteMessage call on queue jobs".
func (cf CallFilter) count(n int) string {
	s := strconv.Itoa(n) + " "
	if cf.Operation != "" {
		s += cf.Operation + " "
	}
	if s += "call"; n != 1 {
		s += "s"
	}
	if cf.Queue != "" {
		s += " on queue " + lastSegment(cf.Queue)
	}
	return s
}

// check reports a filter that names no SQS operation.
func (cf CallFilter) check() error {
	if cf.Operation == "" {
		return nil
	}
	if _, ok := operationIndex[cf.Operation]; !ok {
		return fmt.Errorf("CallFilter.Operation %q is not an SQS operation; name one as the SDK does, e.g. \"DeleteMessage\"", cf.Operation)
	}
	return nil
}

func (cf CallFilter) match(r *callRec) bool {
	if cf.Operation != "" && operationNames[r.op] != cf.Operation {
		return false
	}
	if cf.Queue != "" && (r.queue == "" || lastSegment(r.queue) != lastSegment(cf.Queue)) {
		return false
	}
	return true
}

// Calls returns the fake's call record, oldest call first: every call through every door
// since New or Reset — its operation, caller, times, input and outcome — as far as
// WithCallLimit keeps it. With filters, it returns the calls that match any of them. A call
// enters the record when it begins, so a long poll still parked is there, with a zero End.
// It panics when a filter's Operation names no SQS operation: a misspelt name would
// silently match nothing.
//
// The record is deterministic: the same calls in the same order, on the same clock moves,
// give the same record.
func (f *Fake) Calls(filters ...CallFilter) []Call {
	for _, cf := range filters {
		if err := cf.check(); err != nil {
			panic("sqsfake: Calls: " + err.Error())
		}
	}
	recs, first := f.callRecords(filters)
	calls := make([]Call, len(recs))
	for i := range recs {
		calls[i] = f.renderCall(first[i], &recs[i])
	}
	return calls
}

// CallCount returns how many calls the fake has had since New or Reset, through every door,
// the requests the wire protocol refused included (and the calls WithCallLimit forgot): the
// Seq of the latest call. The next call to begin is CallCount()+1 — the number to give
// WaitForCalls.
func (f *Fake) CallCount() int { return int(f.requests.Load()) }

// WithCallLimit bounds the call record (Calls), forgetting the oldest calls first, as
// WithHistoryLimit bounds timelines: it keeps the newest n calls at least, and fewer than
// n+8,192. CallCount, WaitForCalls and LastError never depend on it. The default keeps
// every call until Reset. A call's entry costs about 72 bytes and keeps the strings its
// input named — its queue URL, a receipt handle, a body of up to 256 bytes (a longer body
// keeps a copy of its first 64 bytes).
func WithCallLimit(n int) Option {
	return func(f *Fake) { f.calls.limit = max(n, logChunk) }
}

// callRec is one entry of the call record.
type callRec struct {
	start int64
	queue string // the queue the input names, as given: a URL, name or ARN
	// key is the input's main text, by operation: a message body (the first 64 bytes of one
	// longer than keptBody), a receipt handle, a label, a task handle, a name prefix.
	key string
	ref uint64 // the message a send stored, or the first a receive returned; 0 for none
	x   *callExtra
	// n1, n2 and n3 are numbers of the input and the output, by operation (summariseInput).
	n1, n2, n3 int32
	op         uint8 // index in operationNames
	door       Door
	flags      callFlags
}

// callExtra holds what only some calls have.
type callExtra struct {
	end    int64 // when the call returned, when later than it began
	err    error
	ids    []uint64 // further messages sent or received, after ref
	failed []entryFailure
	group  string // a send's MessageGroupId
	opName string // what a refused wire request named, when it is no operation
}

// entryFailure is a failed batch entry: its Id and code.
type entryFailure struct{ id, code string }

type callFlags uint8

const (
	callReturned callFlags = 1 << iota
	callAnswered           // the operation produced an answer (which a fault may have replaced)
	callFault
	callChaos
	callWaited
	callUnread // a wire request refused before its input was read
)

func (r *callRec) extra() *callExtra {
	if r.x == nil {
		r.x = &callExtra{}
	}
	return r.x
}

// callID names a call to the engine, which notes what it did in the call's entry.
type callID struct {
	seq uint64
	gen uint32 // the fake's Reset generation when the call began
	op  uint8
}

// keptBody is the longest body an entry keeps whole; of a longer one it keeps a copy of the
// first bodyPrefix bytes, so that the record never holds on to large bodies.
const (
	keptBody   = 256
	bodyPrefix = 64
)

// operationNames lists the operations a call record names by index; 0 stands for a name the
// fake does not know. A test checks it against doorOps.
var operationNames = [...]string{"",
	"AddPermission", "CancelMessageMoveTask", "ChangeMessageVisibility", "ChangeMessageVisibilityBatch",
	"CreateQueue", "DeleteMessage", "DeleteMessageBatch", "DeleteQueue", "GetQueueAttributes", "GetQueueUrl",
	"ListDeadLetterSourceQueues", "ListMessageMoveTasks", "ListQueueTags", "ListQueues", "PurgeQueue",
	"ReceiveMessage", "RemovePermission", "SendMessage", "SendMessageBatch", "SetQueueAttributes",
	"StartMessageMoveTask", "TagQueue", "UntagQueue",
}

var operationIndex = func() map[string]uint8 {
	m := make(map[string]uint8, len(operationNames))
	for i, name := range operationNames[1:] {
		m[name] = uint8(i + 1)
	}
	return m
}()

// startCall numbers a call and reserves its entry. Called with f.mu held.
func (f *Fake) startCall(op string, door Door, params any) callID {
	f.active++
	seq := f.requests.Add(1)
	id := callID{seq: seq, gen: f.callGen, op: operationIndex[op]}
	r := f.calls.add(callRec{start: f.now(), op: id.op, door: door})
	summariseInput(r, params)
	return id
}

// callRecord returns the entry of a call, or nil when the record has forgotten it or the fake
// was reset since it began. Called with f.mu held.
func (f *Fake) callRecord(id callID) *callRec {
	if id.gen != f.callGen || id.seq == 0 {
		return nil
	}
	return f.calls.at(id.seq - 1)
}

// returned completes a call's entry with its outcome, notes on the timelines of the
// messages it named by receipt handle that it failed, and wakes the waits it satisfies.
func (f *Fake) returned(c *call, params, out any, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.active--
	if r := f.callRecord(c.id); r != nil {
		r.flags |= callReturned
		if now := f.now(); now != r.start {
			r.extra().end = now
		}
		if c.fault != nil {
			r.flags |= callFault
		}
		if c.fault != nil && c.fault.Latency > 0 && c.reached {
			r.flags |= callWaited
		}
		if err != nil {
			r.extra().err = err
		}
		if out != nil {
			r.flags |= callAnswered
			summariseOutput(r, out)
		}
	}
	if c.reached && (err == nil || !callerEnded(err)) {
		f.noteFailuresOnMessages(c, params, out, err)
	}
	f.notifyIdle()
}

// refuse records a wire request refused before it reached an operation — one the fake could
// not route or read — and returns its request id. op is the operation it named, or what its
// X-Amz-Target header said.
func (f *Fake) refuse(op string, e *wireError) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := f.requests.Add(1)
	r := f.calls.add(callRec{start: f.now(), op: operationIndex[op], door: DoorHTTP, flags: callReturned | callUnread})
	x := r.extra()
	if r.op == 0 {
		x.opName = op
	}
	code := e.typ[strings.LastIndexByte(e.typ, '#')+1:]
	x.err = &smithy.GenericAPIError{Code: code, Message: e.message, Fault: smithy.FaultClient}
	f.notifyIdle()
	return uuidFor(f.seed, streamRequestID, seq)
}

// noteSent notes a message a send stored (or, for a FIFO duplicate, answered with).
func (f *Fake) noteSent(id callID, idNum uint64) {
	if r := f.callRecord(id); r != nil {
		r.addMessage(idNum)
	}
}

// noteReceived notes the messages a receive returns.
func (f *Fake) noteReceived(id callID, msgs []*message) {
	if r := f.callRecord(id); r != nil {
		for _, m := range msgs {
			r.addMessage(m.idNum)
		}
	}
}

func (r *callRec) addMessage(idNum uint64) {
	if r.ref == 0 {
		r.ref = idNum
		return
	}
	r.extra().ids = append(r.x.ids, idNum)
}

// noteChaos notes that chaos changed what a call did.
func (f *Fake) noteChaos(id callID) {
	if r := f.callRecord(id); r != nil {
		r.flags |= callChaos
	}
}

// noteWaited notes that a receive parked in a long poll.
func (f *Fake) noteWaited(id callID) {
	if r := f.callRecord(id); r != nil {
		r.flags |= callWaited
	}
}

// keepBody returns what an entry keeps of a body: itself when short, else a copy of its
// first bodyPrefix bytes, cut at a character boundary.
func keepBody(body string) string {
	if len(body) <= keptBody {
		return body
	}
	cut := bodyPrefix
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return strings.Clone(body[:cut])
}

// clampLen is a length as an entry keeps it.
func clampLen(n int) int32 { return int32(min(n, 1<<31-1)) }

// summariseInput notes the input's facts in its entry: the queue, the key text, and the
// numbers n1 and n2, by operation:
//
//	SendMessage                   body, n1 DelaySeconds, n2 body length, MessageGroupId
//	SendMessageBatch              first body, n1 entries, n2 first body length
//	ReceiveMessage                n1 MaxNumberOfMessages, n2 WaitTimeSeconds, n3 VisibilityTimeout
//	DeleteMessage                 receipt handle
//	ChangeMessageVisibility       receipt handle, n1 VisibilityTimeout
//	the other batches             n1 entries
//	CreateQueue                   the name as queue, n1 attributes, n2 tags
//	GetQueueAttributes            n1 attribute names
//	SetQueueAttributes, TagQueue  n1 attributes or tags
//	UntagQueue                    n1 tag keys
//	ListQueues                    the prefix
//	AddPermission, RemovePermission  the label
//	StartMessageMoveTask          the source as queue, the destination, n1 the rate
//	CancelMessageMoveTask         the task handle
//
// Outputs use n3 for the count of successful batch entries, or of listed queues.
func summariseInput(r *callRec, params any) {
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		body := aws.ToString(in.MessageBody)
		r.queue, r.key, r.n1, r.n2 = aws.ToString(in.QueueUrl), keepBody(body), in.DelaySeconds, clampLen(len(body))
		if in.MessageGroupId != nil {
			r.extra().group = *in.MessageGroupId
		}
	case *sqs.SendMessageBatchInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.Entries))
		if len(in.Entries) > 0 {
			body := aws.ToString(in.Entries[0].MessageBody)
			r.key, r.n2 = keepBody(body), clampLen(len(body))
		}
	case *sqs.ReceiveMessageInput:
		r.queue, r.n1, r.n2, r.n3 = aws.ToString(in.QueueUrl), in.MaxNumberOfMessages, in.WaitTimeSeconds, in.VisibilityTimeout
	case *sqs.DeleteMessageInput:
		r.queue, r.key = aws.ToString(in.QueueUrl), aws.ToString(in.ReceiptHandle)
	case *sqs.ChangeMessageVisibilityInput:
		r.queue, r.key, r.n1 = aws.ToString(in.QueueUrl), aws.ToString(in.ReceiptHandle), in.VisibilityTimeout
	case *sqs.DeleteMessageBatchInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.Entries))
	case *sqs.ChangeMessageVisibilityBatchInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.Entries))
	case *sqs.CreateQueueInput:
		r.queue, r.n1, r.n2 = aws.ToString(in.QueueName), clampLen(len(in.Attributes)), clampLen(len(in.Tags))
	case *sqs.GetQueueUrlInput:
		r.queue = aws.ToString(in.QueueName)
	case *sqs.GetQueueAttributesInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.AttributeNames))
	case *sqs.SetQueueAttributesInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.Attributes))
	case *sqs.TagQueueInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.Tags))
	case *sqs.UntagQueueInput:
		r.queue, r.n1 = aws.ToString(in.QueueUrl), clampLen(len(in.TagKeys))
	case *sqs.ListQueuesInput:
		r.key = aws.ToString(in.QueueNamePrefix)
	case *sqs.AddPermissionInput:
		r.queue, r.key = aws.ToString(in.QueueUrl), aws.ToString(in.Label)
	case *sqs.RemovePermissionInput:
		r.queue, r.key = aws.ToString(in.QueueUrl), aws.ToString(in.Label)
	case *sqs.StartMessageMoveTaskInput:
		r.queue, r.key = aws.ToString(in.SourceArn), aws.ToString(in.DestinationArn)
		r.n1 = aws.ToInt32(in.MaxNumberOfMessagesPerSecond)
	case *sqs.CancelMessageMoveTaskInput:
		r.key = aws.ToString(in.TaskHandle)
	case *sqs.ListMessageMoveTasksInput:
		r.queue = aws.ToString(in.SourceArn)
	case *sqs.DeleteQueueInput:
		r.queue = aws.ToString(in.QueueUrl)
	case *sqs.PurgeQueueInput:
		r.queue = aws.ToString(in.QueueUrl)
	case *sqs.ListQueueTagsInput:
		r.queue = aws.ToString(in.QueueUrl)
	case *sqs.ListDeadLetterSourceQueuesInput:
		r.queue = aws.ToString(in.QueueUrl)
	}
}

// summariseOutput notes what the engine's answer says beyond what the engine noted itself:
// batch results and the count of listed queues.
func summariseOutput(r *callRec, out any) {
	switch o := out.(type) {
	case *sqs.SendMessageBatchOutput:
		r.n3 = clampLen(len(o.Successful))
		for _, e := range o.Failed {
			r.extra().failed = append(r.x.failed, entryFailure{aws.ToString(e.Id), aws.ToString(e.Code)})
		}
	case *sqs.DeleteMessageBatchOutput:
		r.n3 = clampLen(len(o.Successful))
		for _, e := range o.Failed {
			r.extra().failed = append(r.x.failed, entryFailure{aws.ToString(e.Id), aws.ToString(e.Code)})
		}
	case *sqs.ChangeMessageVisibilityBatchOutput:
		r.n3 = clampLen(len(o.Successful))
		for _, e := range o.Failed {
			r.extra().failed = append(r.x.failed, entryFailure{aws.ToString(e.Id), aws.ToString(e.Code)})
		}
	case *sqs.ListQueuesOutput:
		r.n3 = clampLen(len(o.QueueUrls))
	case *sqs.ListDeadLetterSourceQueuesOutput:
		r.n3 = clampLen(len(o.QueueUrls))
	}
}

// callRecords copies the entries the filters select, and their sequence numbers, under the
// lock; rendering them needs no lock.
func (f *Fake) callRecords(filters []CallFilter) (recs []callRec, seqs []uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := f.calls.forgot
	f.calls.each(func(r *callRec) {
		seq++
		if len(filters) > 0 && !matchAny(filters, r) {
			return
		}
		cp := *r
		if r.x != nil {
			x := *r.x
			cp.x = &x
		}
		recs = append(recs, cp)
		seqs = append(seqs, seq)
	})
	return recs, seqs
}

func matchAny(filters []CallFilter, r *callRec) bool {
	for _, cf := range filters {
		if cf.match(r) {
			return true
		}
	}
	return false
}

// renderCall turns an entry into a Call.
func (f *Fake) renderCall(seq uint64, r *callRec) Call {
	c := Call{
		Seq:       seq,
		RequestID: uuidFor(f.seed, streamRequestID, seq),
		Operation: operationNames[r.op],
		Caller:    Caller{Door: r.door, AccountID: f.account},
		Start:     time.Unix(0, r.start).UTC(),
		Fault:     r.flags&callFault != 0,
		Chaos:     r.flags&callChaos != 0,
		Waited:    r.flags&callWaited != 0,
	}
	if r.queue != "" {
		c.Queue = lastSegment(r.queue)
	}
	x := r.x
	if x == nil {
		x = &callExtra{}
	}
	if r.op == 0 {
		c.Operation = x.opName
	}
	if r.flags&callReturned != 0 {
		c.End = c.Start
		if x.end != 0 {
			c.End = time.Unix(0, x.end).UTC()
		}
	}
	if r.ref != 0 {
		c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, r.ref))
		for _, n := range x.ids {
			c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, n))
		}
	}
	c.Err = x.err
	if x.err != nil {
		c.ErrorCode = callErrorCode(x.err, r.door)
	}
	if r.flags&callUnread == 0 {
		c.Input = f.renderInput(r, x)
	}
	if r.flags&callAnswered != 0 || c.End.IsZero() && len(c.MessageIDs) > 0 {
		c.Output = renderOutput(c.Operation, r, x, c.MessageIDs)
	}
	return c
}

// callErrorCode is the ErrorCode() a caller through door sees for err, or "".
func callErrorCode(err error, door Door) string {
	var api smithy.APIError
	if errors.As(err, &api) {
		return api.ErrorCode()
	}
	if door == DoorHTTP && !isLostResponse(err) {
		// Door 3 answers every error in SQS's shape (wireErrorOf); the SDK reads the code
		// from the x-amzn-query-error header.
		w := wireErrorOf(err)
		if code, _, _ := strings.Cut(w.query, ";"); code != "" {
			return code
		}
		return w.typ[strings.LastIndexByte(w.typ, '#')+1:]
	}
	return ""
}

func (f *Fake) renderInput(r *callRec, x *callExtra) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch operationNames[r.op] {
	case "SendMessage":
		add("body %s", describeBody(r.key, r.n2))
		if r.n1 != 0 {
			add("delay %ds", r.n1)
		}
		if x.group != "" {
			add("group %q", x.group)
		}
	case "SendMessageBatch":
		add("%s", entryCount(r.n1))
		if r.n1 > 0 {
			add("first body %s", describeBody(r.key, r.n2))
		}
	case "ReceiveMessage":
		if r.n1 != 0 {
			add("max %d", r.n1)
		}
		if r.n2 != 0 {
			add("wait %ds", r.n2)
		}
		if r.n3 != 0 {
			add("visibility %ds", r.n3)
		}
	case "DeleteMessage":
		add("%s", f.describeHandle(r.key))
	case "ChangeMessageVisibility":
		add("%s", f.describeHandle(r.key))
		add("visibility %ds", r.n1)
	case "DeleteMessageBatch", "ChangeMessageVisibilityBatch":
		add("%s", entryCount(r.n1))
	case "CreateQueue":
		if r.n1 > 0 {
			add("%s", plural(int(r.n1), "attribute"))
		}
		if r.n2 > 0 {
			add("%s", plural(int(r.n2), "tag"))
		}
	case "GetQueueAttributes":
		add("%s", plural(int(r.n1), "attribute name"))
	case "SetQueueAttributes":
		add("%s", plural(int(r.n1), "attribute"))
	case "TagQueue":
		add("%s", plural(int(r.n1), "tag"))
	case "UntagQueue":
		add("%s", plural(int(r.n1), "tag key"))
	case "ListQueues":
		if r.key != "" {
			add("prefix %q", r.key)
		}
	case "AddPermission", "RemovePermission":
		add("label %q", r.key)
	case "StartMessageMoveTask":
		if r.key != "" {
			add("to %s", lastSegment(r.key))
		}
		if r.n1 != 0 {
			add("%d messages a second", r.n1)
		}
	case "CancelMessageMoveTask":
		add("task %s", abbreviate(r.key, 16))
	}
	return strings.Join(parts, ", ")
}

func renderOutput(op string, r *callRec, x *callExtra, ids []string) string {
	var b strings.Builder
	switch op {
	case "SendMessage":
		if len(ids) > 0 {
			b.WriteString("message " + ids[0])
		}
	case "ReceiveMessage":
		switch len(ids) {
		case 0:
			b.WriteString("no messages")
		default:
			fmt.Fprintf(&b, "%s: %s", plural(len(ids), "message"), strings.Join(ids, ", "))
		}
	case "SendMessageBatch":
		fmt.Fprintf(&b, "%d sent", r.n3)
		if len(ids) > 0 {
			b.WriteString(": " + strings.Join(ids, ", "))
		}
	case "DeleteMessageBatch":
		fmt.Fprintf(&b, "%d deleted", r.n3)
	case "ChangeMessageVisibilityBatch":
		fmt.Fprintf(&b, "%d changed", r.n3)
	case "ListQueues", "ListDeadLetterSourceQueues":
		b.WriteString(plural(int(r.n3), "queue"))
	default:
		b.WriteString("ok")
	}
	if len(x.failed) > 0 {
		fmt.Fprintf(&b, "; %d failed:", len(x.failed))
		for i, e := range x.failed {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, " %s %s", e.id, e.code)
		}
	}
	return b.String()
}

// entryCount says how many entries a batch had.
func entryCount(n int32) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(int(n)) + " entries"
}

// describeBody quotes the start of a body and gives its length.
func describeBody(kept string, n int32) string {
	q := shortBody(kept)
	if len(kept) < int(n) && !strings.HasSuffix(q, "…") {
		q += "…"
	}
	return fmt.Sprintf("%s (%s)", q, plural(int(n), "byte"))
}

// describeHandle abbreviates a receipt handle and says which message and receive it names.
func (f *Fake) describeHandle(h string) string {
	if h == "" {
		return "no receipt handle"
	}
	r, err := decodeReceipt(f.seed, h)
	if err != nil {
		return "handle " + strconv.Quote(abbreviate(h, 24)) + " (not one this fake issued)"
	}
	return fmt.Sprintf("handle %s (message %s, receive %d)", abbreviate(h, 12),
		uuidFor(f.seed, streamMessageID, r.msg), r.receive)
}

// abbreviate cuts s to at most n characters, marking the cut with "…".
func abbreviate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// noteFailuresOnMessages puts on the timelines of the messages a DeleteMessage or
// ChangeMessageVisibility named by receipt handle (alone or in a batch) that the call, or
// its entry, failed. Called with f.mu held.
func (f *Fake) noteFailuresOnMessages(c *call, params, out any, err error) {
	code := ""
	if err != nil {
		code = failureLabel(err, c.door)
	}
	note := func(handle, code string) { f.noteFailedHandle(c.id, handle, code, c.fault != nil) }
	switch in := params.(type) {
	case *sqs.DeleteMessageInput:
		if err != nil {
			note(aws.ToString(in.ReceiptHandle), code)
		}
	case *sqs.ChangeMessageVisibilityInput:
		if err != nil {
			note(aws.ToString(in.ReceiptHandle), code)
		}
	case *sqs.DeleteMessageBatchInput:
		var failed []types.BatchResultErrorEntry
		if o, ok := out.(*sqs.DeleteMessageBatchOutput); ok && o != nil {
			failed = o.Failed
		}
		for _, e := range in.Entries {
			if code, ok := entryOutcome(aws.ToString(e.Id), failed, err, code); ok {
				note(aws.ToString(e.ReceiptHandle), code)
			}
		}
	case *sqs.ChangeMessageVisibilityBatchInput:
		var failed []types.BatchResultErrorEntry
		if o, ok := out.(*sqs.ChangeMessageVisibilityBatchOutput); ok && o != nil {
			failed = o.Failed
		}
		for _, e := range in.Entries {
			if code, ok := entryOutcome(aws.ToString(e.Id), failed, err, code); ok {
				note(aws.ToString(e.ReceiptHandle), code)
			}
		}
	}
}

// entryOutcome says whether a batch entry failed, and with which code: the whole call's when
// it failed, else the entry's own when the answer lists it in Failed.
func entryOutcome(id string, failed []types.BatchResultErrorEntry, err error, code string) (string, bool) {
	if err != nil {
		return code, true
	}
	for _, e := range failed {
		if aws.ToString(e.Id) == id {
			return aws.ToString(e.Code), true
		}
	}
	return "", false
}

// failureLabel names an error on a timeline: its error code, or what it was.
func failureLabel(err error, door Door) string {
	if code := callErrorCode(err, door); code != "" {
		return code
	}
	if isLostResponse(err) {
		return "lost response"
	}
	return abbreviate(err.Error(), 80)
}

// noteFailedHandle adds a failed call to the timeline of the message a receipt handle
// names, if the handle is one the fake issued.
func (f *Fake) noteFailedHandle(id callID, handle, code string, fault bool) {
	r, err := decodeReceipt(f.seed, handle)
	if err != nil {
		return
	}
	e := event{at: f.now(), idNum: r.msg, queue: r.queue, receive: r.receive, kind: EventCallFailed, op: id.op, code: f.internCode(code)}
	if fault {
		e.other = 1
	}
	f.hist.add(e)
}

// noteNoEffect adds to a message's timeline a call naming it by a receipt handle that
// succeeded without changing anything. Called with f.mu held.
func (f *Fake) noteNoEffect(id callID, q *queue, r receipt, now int64) {
	f.hist.add(event{at: now, idNum: r.msg, queue: q.id, receive: r.receive, kind: EventCallIgnored, op: id.op})
}

// internCode returns the number under which a timeline event keeps an error code.
func (f *Fake) internCode(code string) uint16 {
	if n, ok := f.codeIndex[code]; ok {
		return n
	}
	if len(f.codes) >= 1<<16-1 {
		return 0
	}
	if f.codeIndex == nil {
		f.codeIndex = make(map[string]uint16)
		f.codes = []string{""}
	}
	n := uint16(len(f.codes))
	f.codes = append(f.codes, code)
	f.codeIndex[code] = n
	return n
}
