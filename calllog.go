package sqsfake

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/aws/smithy-go"
)

// How the call record is kept: a call reserves its entry when it begins (startCall) and
// completes it when it returns (returned); the engine notes what only it knows — the
// messages a send stored or a receive returned, chaos, a parked poll — in the entry as it
// runs, by the call's callID.

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
	who    *actor // who the call acted as, when not the fake's own root user
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
	handles    handleKey // the key of the fake's handles when the view was taken
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
	side := n + 2*logChunk
	if side < n { // math.MaxInt: every entry
		side = n
	}
	l.keys.limit, l.extras.limit = side, side
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

// maxKeptQueue is the longest queue text an entry keeps whole: no queue URL, name or ARN is
// longer. Of a longer one it keeps a copy of the first bodyPrefix bytes.
const maxKeptQueue = keptBody

// setQueue records the queue text an entry's input named (of a text over maxKeptQueue bytes,
// its beginning), once however many entries name it. The table is
// compacted to the texts that kept entries name when it grows to twice what the record can
// keep, so it is bounded like the record (issue 25, attack 6).
func (l *callLogs) setQueue(r *callRec, s string) {
	if s == "" {
		return
	}
	if s == l.lastQueue {
		r.queue = l.lastIndex
		return
	}
	i, ok := l.queueIndex[s]
	if !ok && len(s) > maxKeptQueue {
		s = keepBody(s)
		i, ok = l.queueIndex[s]
	}
	if !ok {
		if l.queueIndex == nil {
			l.queueIndex = make(map[string]uint32)
		}
		if uint64(len(l.queues)) >= 2*l.kept() {
			l.compactQueues()
		}
		l.queues = append(l.queues, s)
		i = uint32(len(l.queues))
		l.queueIndex[s] = i
	}
	l.lastQueue, l.lastIndex, r.queue = s, i, i
}

// kept is how many entries the record keeps at most: its limit and the chunk it fills.
func (l *callLogs) kept() uint64 {
	if uint64(l.recs.limit) > 1<<40 {
		return 1 << 40 // every entry: nothing to compact
	}
	return uint64(l.recs.limit) + 2*logChunk
}

// compactQueues keeps of the queue table only the texts that the record's entries name, and
// renumbers the entries.
func (l *callLogs) compactQueues() {
	queues := make([]string, 0, l.kept())
	index := make(map[string]uint32, l.kept())
	l.recs.each(func(r *callRec) {
		if r.queue == 0 {
			return
		}
		s := l.queues[r.queue-1]
		i, ok := index[s]
		if !ok {
			queues = append(queues, s)
			i = uint32(len(queues))
			index[s] = i
		}
		r.queue = i
	})
	l.queues, l.queueIndex, l.lastQueue, l.lastIndex = queues, index, "", 0
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
	by  uint32 // who the call acted as (actor.num): the events it makes name it
	op  uint8
	ord uint32 // its number among the calls of its operation, counted by chaos (chaosFault)
}

// keptBody is the longest body an entry keeps whole; of a longer one it keeps a copy of the
// first bodyPrefix bytes, so that the record never holds on to large bodies.
const (
	keptBody   = 256
	bodyPrefix = 64
)

// operationIndex numbers the operations as a call record names them: by their index in
// operationNames (optable.go); 0 stands for a name the fake does not know.
var operationIndex = func() map[string]uint8 {
	m := make(map[string]uint8, len(operationNames))
	for i, name := range operationNames[1:] {
		m[name] = uint8(i + 1)
	}
	return m
}()

// operationSlots finds an operation's number without hashing its whole name, as every call
// does: slot opSlot(name) holds it, unless an earlier name took the slot (none does today),
// when operationIndex finds it.
var operationSlots = func() (t [64]uint8) {
	for i, name := range operationNames[1:] {
		if s := opSlot(name); t[s] == 0 {
			t[s] = uint8(i + 1)
		}
	}
	return t
}()

func opSlot(name string) int { return (len(name)*29 + int(name[0])) & 63 }

// opIndex returns the number of the operation named op, 0 for a name the fake does not know.
func opIndex(op string) uint8 {
	if op != "" {
		if i := operationSlots[opSlot(op)]; operationNames[i] == op {
			return i
		}
	}
	return operationIndex[op]
}

// startCall numbers a call and reserves its entry. Called with f.mu held.
func (f *Fake) startCall(op string, door Door, who *actor, params any) callID {
	f.active++
	seq := f.requests.Add(1)
	id := callID{seq: seq, gen: f.callGen, op: opIndex(op)}
	r := f.calls.recs.add(callRec{start: f.now(), op: id.op, door: door})
	if who != nil && !who.own {
		f.calls.extra(r).who = who
		id.by = who.num
	}
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
		if c.fault != nil && c.fault.chaos {
			r.flags |= callChaos
		} else if c.fault != nil {
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

// recordRejected records a call that the SDK's client-side validation refused before it
// reached the fake (through Client), as door 1 records the same refusal: started, and
// returned with err, the error the caller gets. Nothing else happens.
func (f *Fake) recordRejected(op string, door Door, params any, err error) {
	c := call{f: f, op: op, door: door}
	f.mu.Lock()
	c.id = f.startCall(op, door, nil, params)
	f.mu.Unlock()
	c.req = c.id.seq
	f.returned(&c, params, nil, operationError(op, "", err))
}

// refuseRequest records a request refused before it reached an operation — one door 3 could
// not route or read — and returns its request id. op is the operation it named, or what its
// X-Amz-Target header or Action parameter said; code and message are those of the error the
// caller got. who is whom the request was authenticated as, nil when it was refused before
// (a bad signature, an unreadable request): the record shows it as unauthenticated.
func (f *Fake) refuseRequest(op, code, message string, who *identity) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	seq := f.requests.Add(1)
	r := f.calls.recs.add(callRec{start: f.now(), op: opIndex(op), door: DoorHTTP, flags: callReturned | callUnread})
	x := f.calls.extra(r)
	switch {
	case who == nil:
		x.who = unauthenticated
	case who.bad == nil:
		if a := f.actorFor(who); !a.own {
			x.who = a
		}
	}
	if r.op == 0 {
		x.opName = echo(op)
	}
	// What the record keeps of a refusal is bounded: its message may quote a client's
	// header or parameter (issue 25, attack 6).
	x.err = &smithy.GenericAPIError{Code: echo(code), Message: keepMessage(message), Fault: smithy.FaultClient}
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
		if len(msgs) > 2 && r.ref == 0 {
			// The first id goes in the entry, the rest in its extra: made once at its size.
			x := f.calls.extra(r)
			x.ids = slices.Grow(x.ids, len(msgs)-1)
		}
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

// maxKeptMessage is the most of an error message the record keeps of a refused request.
const maxKeptMessage = 4 << 10

// keepMessage returns what the record keeps of an error message.
func keepMessage(m string) string { return cutText(m, maxKeptMessage) }

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
			l.extra(r).group = keepBody(*in.MessageGroupId)
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
		l.setKey(r, keepBody(aws.ToString(in.QueueNamePrefix)))
	case *sqs.AddPermissionInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		l.setKey(r, keepBody(aws.ToString(in.Label)))
	case *sqs.RemovePermissionInput:
		l.setQueue(r, aws.ToString(in.QueueUrl))
		l.setKey(r, keepBody(aws.ToString(in.Label)))
	case *sqs.StartMessageMoveTaskInput:
		l.setQueue(r, aws.ToString(in.SourceArn))
		l.setKey(r, keepBody(aws.ToString(in.DestinationArn)))
		r.n1 = aws.ToInt32(in.MaxNumberOfMessagesPerSecond)
	case *sqs.CancelMessageMoveTaskInput:
		l.setKey(r, keepBody(aws.ToString(in.TaskHandle)))
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
	rc, err := f.readReceipt(*handle)
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
	r, err := f.readReceipt(handle)
	if err != nil {
		return
	}
	e := event{at: f.now(), idNum: r.msg, queue: r.queue, to: id.by, receive: r.receive, kind: EventCallFailed, op: id.op, code: f.internCode(code)}
	if fault {
		e.arg = 1
	}
	f.hist.add(e)
}

// noteNoEffect adds to a message's timeline a call naming it by a receipt handle that
// succeeded without changing anything. Called with f.mu held.
func (f *Fake) noteNoEffect(id callID, q *queue, r receipt, now int64) {
	f.hist.add(event{at: now, idNum: r.msg, queue: q.id, to: id.by, receive: r.receive, kind: EventCallIgnored, op: id.op})
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
