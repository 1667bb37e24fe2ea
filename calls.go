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
	if !c.End.IsZero() && !c.End.Equal(c.Start) {
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

func (cf CallFilter) match(op uint8, queue string) bool {
	if cf.Operation != "" && operationNames[op] != cf.Operation {
		return false
	}
	if cf.Queue != "" && (queue == "" || lastSegment(queue) != lastSegment(cf.Queue)) {
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
	views, seqs := f.callRecords(filters)
	calls := make([]Call, len(views))
	for i := range views {
		calls[i] = f.renderCall(seqs[i], &views[i])
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
// every call until Reset. A call's entry costs 40 bytes, 16 more for a call with a body or
// a label, and it keeps the strings its input named: a body of up to 256 bytes (of a longer
// one, a copy of its first 64 bytes), a label; queue URLs and names are kept once each.
func WithCallLimit(n int) Option {
	return func(f *Fake) { f.calls.setLimit(max(n, logChunk)) }
}

// callRec is one entry of the call record. It holds no pointers, so that the record costs
// the garbage collector nothing to scan, and is small: the strings an entry keeps (its queue,
// a body, a label) and what only some calls have (callExtra) live in side logs that entries
// index.
type callRec struct {
	start int64
	ref   uint64 // the message a send stored, the first a receive returned, or the one a receipt handle names; 0 for none
	// key is, with callKey, the index of the entry's key text in Fake.callKeys (its low 32
	// bits): a message body (the first 64 bytes of one longer than keptBody), a label, a task
	// handle, a name prefix. Without it, a number by operation (summariseInput).
	key    uint32
	x      uint32 // with callHasExtra, the index of the entry's callExtra in Fake.callExtras (its low 32 bits)
	queue  uint32 // 1 + the index in Fake.callQueues of the queue the input names, as given; 0 for none
	n1, n2 int32  // numbers of the input and the output, by operation (summariseInput)
	op     uint8  // index in operationNames
	door   Door
	flags  callFlags
}

// callExtra holds what only some calls have.
type callExtra struct {
	end    int64 // when the call returned, when later than it began
	err    error
	ids    []uint64 // further messages sent or received, after ref
	failed []entryFailure
	count  int32  // a batch's successful entries
	group  string // a send's MessageGroupId
	opName string // what a refused wire request named, when it is no operation
}

// entryFailure is a failed batch entry: its Id and code.
type entryFailure struct{ id, code string }

type callFlags uint16

const (
	callReturned callFlags = 1 << iota
	callAnswered           // the operation produced an answer (which a fault may have replaced)
	callFault
	callChaos
	callWaited
	callUnread   // a wire request refused before its input was read
	callReceipt  // ref, n2 and key are the message, receive and queue of the receipt handle the input named
	callKey      // key indexes Fake.callKeys
	callHasExtra // x indexes Fake.callExtras
)

// callView is an entry with what it indexes looked up, copied for rendering outside the lock.
type callView struct {
	callRec
	queue, key string
	x          callExtra
}

// callLogs holds the call record and the side logs its entries index.
type callLogs struct {
	recs   chunkLog[callRec]
	keys   chunkLog[string]
	extras chunkLog[callExtra]
	// queues interns the queue texts inputs named; lastQueue caches the latest, so that a
	// caller that names its queue with the same string each time costs no hashing.
	queues     []string
	queueIndex map[string]uint32
	lastQueue  string
	lastIndex  uint32
}

// setLimit bounds the record to at least n entries; the side logs keep two chunks more, so
// that they hold what every kept entry indexes (an entry adds at most one to each).
func (l *callLogs) setLimit(n int) {
	l.recs.limit = n
	l.keys.limit, l.extras.limit = n+2*logChunk, n+2*logChunk
}

// reset empties the logs and keeps their limits.
func (l *callLogs) reset() {
	l.recs.reset()
	l.keys.reset()
	l.extras.reset()
	l.queues, l.queueIndex, l.lastQueue, l.lastIndex = nil, nil, "", 0
}

// fromLow32 finds the index in a log of size entries whose low 32 bits are low: the newest
// such, which is the one an entry still kept indexes.
func fromLow32(size uint64, low uint32) uint64 {
	last := size - 1
	return last - uint64(uint32(last)-low)
}

// setKey gives an entry its key text.
func (l *callLogs) setKey(r *callRec, s string) {
	if s == "" {
		return
	}
	l.keys.add(s)
	r.key, r.flags = uint32(l.keys.size()-1), r.flags|callKey
}

// keyOf returns an entry's key text.
func (l *callLogs) keyOf(r *callRec) string {
	if r.flags&callKey == 0 {
		return ""
	}
	if p := l.keys.at(fromLow32(l.keys.size(), r.key)); p != nil {
		return *p
	}
	return ""
}

// extra returns an entry's callExtra, adding one if it has none.
func (l *callLogs) extra(r *callRec) *callExtra {
	if r.flags&callHasExtra != 0 {
		if p := l.extras.at(fromLow32(l.extras.size(), r.x)); p != nil {
			return p
		}
		return &callExtra{} // forgotten with the oldest entries: what is noted is lost
	}
	p := l.extras.add(callExtra{})
	r.x, r.flags = uint32(l.extras.size()-1), r.flags|callHasExtra
	return p
}

// setQueue records the queue text an entry's input named.
func (l *callLogs) setQueue(r *callRec, s string) {
	if s == "" {
		return
	}
	if s == l.lastQueue {
		r.queue = l.lastIndex
		return
	}
	i, ok := l.queueIndex[s]
	if !ok {
		if l.queueIndex == nil {
			l.queueIndex = make(map[string]uint32)
		}
		l.queues = append(l.queues, s)
		i = uint32(len(l.queues))
		l.queueIndex[s] = i
	}
	l.lastQueue, l.lastIndex, r.queue = s, i, i
}

// queueOf returns the queue text an entry's input named.
func (l *callLogs) queueOf(r *callRec) string {
	if r.queue == 0 {
		return ""
	}
	return l.queues[r.queue-1]
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
	r := f.calls.recs.add(callRec{start: f.now(), op: id.op, door: door})
	f.summariseInput(r, params)
	return id
}

// callRecord returns the entry of a call, or nil when the record has forgotten it or the fake
// was reset since it began. Called with f.mu held.
func (f *Fake) callRecord(id callID) *callRec {
	if id.gen != f.callGen || id.seq == 0 {
		return nil
	}
	return f.calls.recs.at(id.seq - 1)
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
			f.calls.extra(r).end = now
		}
		if c.fault != nil {
			r.flags |= callFault
		}
		if c.fault != nil && c.fault.Latency > 0 && c.reached {
			r.flags |= callWaited
		}
		if err != nil {
			f.calls.extra(r).err = err
		}
		if out != nil {
			r.flags |= callAnswered
			f.summariseOutput(r, out)
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
	r := f.calls.recs.add(callRec{start: f.now(), op: operationIndex[op], door: DoorHTTP, flags: callReturned | callUnread})
	x := f.calls.extra(r)
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
		f.addMessage(r, idNum)
	}
}

// noteReceived notes the messages a receive returns.
func (f *Fake) noteReceived(id callID, msgs []*message) {
	if r := f.callRecord(id); r != nil {
		for _, m := range msgs {
			f.addMessage(r, m.idNum)
		}
	}
}

func (f *Fake) addMessage(r *callRec, idNum uint64) {
	if r.ref == 0 {
		r.ref = idNum
		return
	}
	x := f.calls.extra(r)
	x.ids = append(x.ids, idNum)
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
// numbers n1, n2 and key, by operation:
//
//	SendMessage                   body, n1 DelaySeconds, n2 body length, MessageGroupId
//	SendMessageBatch              first body, n1 entries, n2 first body length
//	ReceiveMessage                n1 MaxNumberOfMessages, n2 WaitTimeSeconds, key VisibilityTimeout
//	DeleteMessage                 the receipt handle (callReceipt: ref, n2, key), else its text
//	ChangeMessageVisibility       the same, and n1 VisibilityTimeout
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
// Outputs: the count of listed queues in n2, of a batch's successful entries in its extra.
func (f *Fake) summariseInput(r *callRec, params any) {
	l := &f.calls
	switch in := params.(type) {
	case *sqs.SendMessageInput:
		body := aws.ToString(in.MessageBody)
		l.setQueue(r, aws.ToString(in.QueueUrl))
		l.setKey(r, keepBody(body))
		r.n1, r.n2 = in.DelaySeconds, clampLen(len(body))
		if in.MessageGroupId != nil {
			l.extra(r).group = *in.MessageGroupId
		}
	case *sqs.SendMessageBatchInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.Entries))
		if len(in.Entries) > 0 {
			body := aws.ToString(in.Entries[0].MessageBody)
			l.setKey(r, keepBody(body))
			r.n2 = clampLen(len(body))
		}
	case *sqs.ReceiveMessageInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1, r.n2, r.key = in.MaxNumberOfMessages, in.WaitTimeSeconds, uint32(in.VisibilityTimeout)
	case *sqs.DeleteMessageInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		f.setReceipt(r, in.ReceiptHandle)
	case *sqs.ChangeMessageVisibilityInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		f.setReceipt(r, in.ReceiptHandle)
		r.n1 = in.VisibilityTimeout
	case *sqs.DeleteMessageBatchInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.Entries))
	case *sqs.ChangeMessageVisibilityBatchInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.Entries))
	case *sqs.CreateQueueInput:
		l.setQueue(r, aws.ToString(in.QueueName))
		r.n1, r.n2 = clampLen(len(in.Attributes)), clampLen(len(in.Tags))
	case *sqs.GetQueueUrlInput:
		l.setQueue(r, aws.ToString(in.QueueName))
	case *sqs.GetQueueAttributesInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.AttributeNames))
	case *sqs.SetQueueAttributesInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.Attributes))
	case *sqs.TagQueueInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.Tags))
	case *sqs.UntagQueueInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		r.n1 = clampLen(len(in.TagKeys))
	case *sqs.ListQueuesInput:
		l.setKey(r, aws.ToString(in.QueueNamePrefix))
	case *sqs.AddPermissionInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		l.setKey(r, aws.ToString(in.Label))
	case *sqs.RemovePermissionInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		l.setKey(r, aws.ToString(in.Label))
	case *sqs.StartMessageMoveTaskInput:
		l.setQueue(r, aws.ToString(in.SourceArn))
		l.setKey(r, aws.ToString(in.DestinationArn))
		r.n1 = aws.ToInt32(in.MaxNumberOfMessagesPerSecond)
	case *sqs.CancelMessageMoveTaskInput:
		l.setKey(r, aws.ToString(in.TaskHandle))
	case *sqs.ListMessageMoveTasksInput:
		l.setQueue(r, aws.ToString(in.SourceArn))
	case *sqs.DeleteQueueInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
	case *sqs.PurgeQueueInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
	case *sqs.ListQueueTagsInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
	case *sqs.ListDeadLetterSourceQueuesInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
	}
}

// setReceipt notes the receipt handle an input named: as the message, receive and queue it
// names when the fake issued it, else as its text (abbreviated: a handle may be long).
func (f *Fake) setReceipt(r *callRec, handle *string) {
	if handle == nil {
		return
	}
	rc, err := decodeReceipt(f.seed, *handle)
	if err != nil {
		f.calls.setKey(r, keepBody(*handle))
		return
	}
	r.ref, r.n2, r.key = rc.msg, int32(rc.receive), rc.queue
	r.flags |= callReceipt
}

// summariseOutput notes what the engine's answer says beyond what the engine noted itself:
// batch results and the count of listed queues.
func (f *Fake) summariseOutput(r *callRec, out any) {
	var ok int
	var failed []types.BatchResultErrorEntry
	switch o := out.(type) {
	case *sqs.SendMessageBatchOutput:
		ok, failed = len(o.Successful), o.Failed
	case *sqs.DeleteMessageBatchOutput:
		ok, failed = len(o.Successful), o.Failed
	case *sqs.ChangeMessageVisibilityBatchOutput:
		ok, failed = len(o.Successful), o.Failed
	case *sqs.ListQueuesOutput:
		r.n2 = clampLen(len(o.QueueUrls))
		return
	case *sqs.ListDeadLetterSourceQueuesOutput:
		r.n2 = clampLen(len(o.QueueUrls))
		return
	default:
		return
	}
	x := f.calls.extra(r)
	x.count = clampLen(ok)
	for _, e := range failed {
		x.failed = append(x.failed, entryFailure{aws.ToString(e.Id), aws.ToString(e.Code)})
	}
}

// callRecords copies the entries the filters select, with what they index, and their
// sequence numbers, under the lock; rendering them needs no lock.
func (f *Fake) callRecords(filters []CallFilter) (views []callView, seqs []uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	l := &f.calls
	seq := l.recs.forgot
	l.recs.each(func(r *callRec) {
		seq++
		queue := l.queueOf(r)
		if len(filters) > 0 && !matchAny(filters, r.op, queue) {
			return
		}
		v := callView{callRec: *r, queue: queue, key: l.keyOf(r)}
		if r.flags&callHasExtra != 0 {
			v.x = *l.extra(r)
		}
		views = append(views, v)
		seqs = append(seqs, seq)
	})
	return views, seqs
}

func matchAny(filters []CallFilter, op uint8, queue string) bool {
	for _, cf := range filters {
		if cf.match(op, queue) {
			return true
		}
	}
	return false
}

// renderCall turns an entry into a Call.
func (f *Fake) renderCall(seq uint64, v *callView) Call {
	c := Call{
		Seq:       seq,
		RequestID: uuidFor(f.seed, streamRequestID, seq),
		Operation: operationNames[v.op],
		Caller:    Caller{Door: v.door, AccountID: f.account},
		Start:     time.Unix(0, v.start).UTC(),
		Fault:     v.flags&callFault != 0,
		Chaos:     v.flags&callChaos != 0,
		Waited:    v.flags&callWaited != 0,
	}
	if v.queue != "" {
		c.Queue = lastSegment(v.queue)
	}
	if v.op == 0 {
		c.Operation = v.x.opName
	}
	if v.flags&callReturned != 0 {
		c.End = c.Start
		if v.x.end != 0 {
			c.End = time.Unix(0, v.x.end).UTC()
		}
	}
	if v.ref != 0 && v.flags&callReceipt == 0 {
		c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, v.ref))
		for _, n := range v.x.ids {
			c.MessageIDs = append(c.MessageIDs, uuidFor(f.seed, streamMessageID, n))
		}
	}
	c.Err = v.x.err
	if v.x.err != nil {
		c.ErrorCode = callErrorCode(v.x.err, v.door)
	}
	if v.flags&callUnread == 0 {
		c.Input = f.renderInput(v)
	}
	if v.flags&callAnswered != 0 || c.End.IsZero() && len(c.MessageIDs) > 0 {
		c.Output = renderOutput(c.Operation, v, c.MessageIDs)
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

func (f *Fake) renderInput(r *callView) string {
	var parts []string
	add := func(format string, args ...any) { parts = append(parts, fmt.Sprintf(format, args...)) }
	switch operationNames[r.op] {
	case "SendMessage":
		add("body %s", describeBody(r.key, r.n2))
		if r.n1 != 0 {
			add("delay %ds", r.n1)
		}
		if r.x.group != "" {
			add("group %q", r.x.group)
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
		if r.callRec.key != 0 {
			add("visibility %ds", int32(r.callRec.key))
		}
	case "DeleteMessage":
		add("%s", f.describeHandle(r))
	case "ChangeMessageVisibility":
		add("%s", f.describeHandle(r))
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

func renderOutput(op string, r *callView, ids []string) string {
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
		fmt.Fprintf(&b, "%d sent", r.x.count)
		if len(ids) > 0 {
			b.WriteString(": " + strings.Join(ids, ", "))
		}
	case "DeleteMessageBatch":
		fmt.Fprintf(&b, "%d deleted", r.x.count)
	case "ChangeMessageVisibilityBatch":
		fmt.Fprintf(&b, "%d changed", r.x.count)
	case "ListQueues", "ListDeadLetterSourceQueues":
		b.WriteString(plural(int(r.n2), "queue"))
	default:
		b.WriteString("ok")
	}
	if len(r.x.failed) > 0 {
		fmt.Fprintf(&b, "; %d failed:", len(r.x.failed))
		for i, e := range r.x.failed {
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

// describeHandle abbreviates the receipt handle of a call and says which message and
// receive it names.
func (f *Fake) describeHandle(r *callView) string {
	if r.flags&callReceipt == 0 {
		if r.key == "" {
			return "no receipt handle"
		}
		return "handle " + strconv.Quote(abbreviate(r.key, 24)) + " (not one this fake issued)"
	}
	rc := receipt{queue: r.callRec.key, msg: r.ref, receive: uint32(r.n2)}
	return fmt.Sprintf("handle %s (message %s, receive %d)", abbreviate(encodeReceipt(f.seed, rc), 12),
		uuidFor(f.seed, streamMessageID, rc.msg), rc.receive)
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
