package sqsfake

import (
	"cmp"
	"context"
	"encoding/hex"
	"strconv"
	"time"
	"unsafe"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
)

// System attributes a receive can ask for, as a bit set.
type sysAttrSet uint16

const (
	sysSenderID sysAttrSet = 1 << iota
	sysSentTimestamp
	sysApproximateReceiveCount
	sysApproximateFirstReceiveTimestamp
	sysAWSTraceHeader
	sysMessageGroupID
	sysMessageDeduplicationID
	sysSequenceNumber
	sysDeadLetterQueueSourceArn
	sysAll = 1<<iota - 1
)

var sysAttrBits = map[string]sysAttrSet{
	"All":                              sysAll,
	"SenderId":                         sysSenderID,
	"SentTimestamp":                    sysSentTimestamp,
	"ApproximateReceiveCount":          sysApproximateReceiveCount,
	"ApproximateFirstReceiveTimestamp": sysApproximateFirstReceiveTimestamp,
	"AWSTraceHeader":                   sysAWSTraceHeader,
	"MessageGroupId":                   sysMessageGroupID,
	"MessageDeduplicationId":           sysMessageDeduplicationID,
	"SequenceNumber":                   sysSequenceNumber,
	"DeadLetterQueueSourceArn":         sysDeadLetterQueueSourceArn,
}

// receiveParams are a receive's effective settings, defaults applied.
type receiveParams struct {
	max        int
	visibility int64 // nanoseconds
	wait       int64 // nanoseconds
	sys        sysAttrSet
	attrNames  []string
	attemptID  string // ReceiveRequestAttemptId, FIFO queues only
	call       callID // the receive's entry in the call record
}

// receiveParams validates a ReceiveMessage input against q. A Go zero in MaxNumberOfMessages,
// VisibilityTimeout or WaitTimeSeconds means "not sent" (the SDK omits it), so the default
// applies (SPEC.md §1.3), unless zeros says the call gave the 0 explicitly.
func (q *queue) receiveParams(in *sqs.ReceiveMessageInput, zeros *explicitMembers) (receiveParams, *sqsError) {
	var z explicitMembers
	if zeros != nil {
		z = *zeros
	}
	p := receiveParams{max: 1}
	if n := in.MaxNumberOfMessages; n != 0 || z.maxMessages {
		if n < 1 || n > 10 {
			return p, errInvalidValue(strconv.Itoa(int(n)), "MaxNumberOfMessages", "Must be between 1 and 10, if provided.")
		}
		p.max = int(n)
	}
	vt := q.cfg.visibilityTimeout
	if n := in.VisibilityTimeout; n != 0 || z.visibility {
		if n < 0 || n > maxVisibilityTimeout {
			return p, errInvalidValue(strconv.Itoa(int(n)), "VisibilityTimeout", "Must be >= 0 and <= 43200, if provided.")
		}
		vt = int(n)
	}
	wait := q.cfg.receiveWaitSeconds
	if n := in.WaitTimeSeconds; n != 0 || z.wait {
		if n < 0 || n > maxWaitTimeSeconds {
			return p, errInvalidValue(strconv.Itoa(int(n)), "WaitTimeSeconds", "Must be >= 0 and <= 20, if provided.")
		}
		wait = int(n)
	}
	p.visibility = int64(vt) * int64(time.Second)
	p.wait = int64(wait) * int64(time.Second)
	// Either list selects system attributes; with both, their union (SPEC.md §5.10).
	// Queue attribute names and unknown names select nothing.
	//lint:ignore SA1019 SQS still honours the deprecated AttributeNames, and callers still send it
	for _, n := range in.AttributeNames {
		p.sys |= sysAttrBits[string(n)]
	}
	for _, n := range in.MessageSystemAttributeNames {
		p.sys |= sysAttrBits[string(n)]
	}
	p.attrNames = in.MessageAttributeNames
	// ReceiveRequestAttemptId matters on FIFO queues only; standard queues ignore it
	// (SPEC.md §7, unverified for standard queues).
	if id := in.ReceiveRequestAttemptId; id != nil && q.fifo != nil {
		if !validIdentifier(*id) {
			return p, errInvalidValue(*id, "ReceiveRequestAttemptId", "ReceiveRequestAttemptId can only include alphanumeric and punctuation characters. 1 to 128 in length.")
		}
		p.attemptID = *id
	}
	return p, nil
}

// errOverLimitInFlight is the OverLimit error of a short poll on a standard queue whose in-flight
// messages reached the limit; the text is real SQS's as quoted in a 2014 report.
func errOverLimitInFlight() *sqsError {
	return newError("OverLimit", "Too many messages have been received without being deleted. Please delete your received messages or let them timeout before receiving more.")
}

// receiveFrom takes up to p.max available messages from q, first sent first, making
// each in flight for p.visibility. A message that has reached its queue's maxReceiveCount
// moves to the dead-letter queue instead of being returned (SPEC.md §8.2).
func (f *Fake) receiveFrom(q *queue, p *receiveParams, now int64) []*message {
	return f.receiveInto(nil, q, p, now)
}

// receiveInto is receiveFrom appending to got, which a caller that does not keep the result
// gives room on its stack.
func (f *Fake) receiveInto(got []*message, q *queue, p *receiveParams, now int64) []*message {
	var policy *redrivePolicy
	var dlq *queue
	if q.cfg.redrivePolicy != nil {
		policy = q.cfg.redrivePolicy
		dlq = f.lookupARN(policy.deadLetterTargetArn)
		if dlq == q {
			// A queue that is its own DLQ: moving a message would put it straight back where
			// the loop below pops it, for ever. Deliver it instead.
			dlq = nil
		}
	}
	var moved bool
	if q.fifo != nil {
		got, moved = f.receiveFIFO(got, q, p, now, dlq, policy)
	} else {
		got, moved = f.receiveStandard(got, q, p, now, dlq, policy)
	}
	if len(got) > 0 {
		q.kickPollers() // a visibility deadline may now be the queue's next event
	}
	q.recordAttempt(p.attemptID, got, now)
	if moved {
		// q's own polls are not served from inside: this receive may be one of them, still
		// unanswered. A message the DLQ's polls send back (a redrive cycle) waits in q for
		// the next receive.
		was := q.serving
		q.serving = true
		f.serveDLQ(dlq, now)
		q.serving = was
	}
	return got
}

// receiveStandard takes up to p.max messages from a standard queue, first sent first: a
// message that was in flight or delayed takes its place among the visible ones by its send
// order, not by when it became visible (issue 11, an order AWS shows).
func (f *Fake) receiveStandard(got []*message, q *queue, p *receiveParams, now int64, dlq *queue, policy *redrivePolicy) (_ []*message, moved bool) {
	var stayVisible []*message
	fresh := false // whether who is noisy was decided with the queue as it is
	if q.fair != nil {
		q.fair.evaluate(q.inFlight, now) // every receive decides, an empty one too
		fresh = true
	}
	for len(got) < p.max && q.visLen() > 0 && q.inFlight < f.inFlightLimit {
		m := q.visTake(now, fresh)
		fresh = false
		if q.visLen() > 0 && f.chaosReorders() {
			if second := q.visTake(now, false); f.chaosReorder(m, second, p.call) {
				f.noteChaos(p.call)
				q.visPush(m)
				m = second
			} else {
				q.visPush(second)
			}
		}
		// A message whose DLQ has been deleted stays and is delivered: there is nowhere to
		// move it (SPEC.md §8.2 leaves this unverified).
		if dlq != nil && int(m.receiveCount) >= policy.maxReceiveCount {
			f.moveToDLQ(q, m, dlq, now)
			moved = true
			continue
		}
		f.handOut(q, m, p, now)
		m.dupCopy = false // this receive took the copy a duplicate left, if any
		if p.visibility > 0 && f.chaosDuplicate(m, p.call) {
			f.noteChaos(p.call)
			// At-least-once: a copy on a server that missed this receive stays visible, so
			// a later receive returns it again, even once this one has deleted the message:
			// the delete misses that copy too (deleteOne).
			q.pending.remove(m)
			q.leavePending(m, now)
			m.at = now
			m.dupCopy = true
		}
		q.recordReceive(m, now, p.call.by)
		if !m.pending {
			stayVisible = append(stayVisible, m)
		}
		got = append(got, m)
	}
	for _, m := range stayVisible {
		q.visPush(m)
	}
	return got, moved
}

// serveDLQ hands messages that were just moved into dlq to the long polls parked on it, at
// the time of the move, as a send would. It runs after the source's receive loop has ended,
// and not for a queue whose polls are already being served further up the stack, so that a
// redrive cycle (A's DLQ is B, B's is A) moves a message a bounded number of times.
func (f *Fake) serveDLQ(dlq *queue, now int64) {
	if len(dlq.pollers) == 0 || dlq.serving {
		return
	}
	dlq.serving = true
	dlq.settle(now) // the queue only: this may run inside settleAt, which also drives move tasks
	f.servePollers(dlq, now)
	dlq.serving = false
}

// moveToDLQ moves m, which was popped from src's visible heap, to dlq. It keeps its
// MessageId, body, attributes, timestamps and receive count and gains
// DeadLetterQueueSourceArn. A standard DLQ keeps the original enqueue time for retention; a
// FIFO DLQ restarts it (SPEC.md §8.2).
//
// On a standard source, m was popped from the visible heap; on a FIFO source it is still in
// its group. Into a FIFO DLQ it keeps its group and order, and its deduplication id becomes
// its MessageId, so that unrelated messages that shared an id are not collapsed.
func (f *Fake) moveToDLQ(src *queue, m *message, dlq *queue, now int64) {
	if src.fifo != nil {
		src.fifoUnlink(m)
	}
	src.retention.remove(m)
	src.forget(m)
	delete(src.msgs, m.idNum)
	moved := *m
	moved.hidx, moved.ridx, moved.pending = -1, -1, false
	ext := messageExt{}
	if m.ext != nil {
		ext = *m.ext
	}
	ext.group, ext.prev, ext.next, ext.tenant = nil, nil, nil, nil
	ext.dlqSource = src.arn
	ext.movedAt, ext.movedFrom, ext.movedReceive = now, src.id, m.receiveCount
	src.hist.add(event{at: now, idNum: m.idNum, queue: src.id, to: dlq.id, kind: EventMovedToDLQ})
	moved.ext = &ext
	if dlq.fifo != nil {
		// A FIFO DLQ stores the message as a new arrival: retention restarts, it takes a
		// sequence number in the DLQ's order, and its MessageId becomes its deduplication id,
		// remembered there like any other.
		moved.retainFrom = now
		ext.dedupID = f.messageID(m)
		f.nextSeqNum++
		ext.seqNo = f.nextSeqNum
		dlq.fifo.remember(dlq.dedupKey(ext.groupID, ext.dedupID), dedupRecord{idNum: m.idNum, seqNo: ext.seqNo, expires: now + int64(dedupWindow)})
	}
	dlq.add(&moved, now, now)
	if dlq.fifo == nil && moved.retainFrom+int64(dlq.cfg.retentionPeriod)*int64(time.Second) <= now {
		// A standard DLQ keeps the original enqueue time; a message whose retention there has
		// already run out expires as it arrives.
		dlq.record(EventExpired, &moved, now)
		dlq.remove(&moved, now)
		return
	}
	f.sourceGained(dlq)
}

// msgStrings holds the strings one received message points to.
type msgStrings struct{ id, md5, handle, body, md5Attrs string }

// receivedOne holds the output of a receive of one message — the default
// MaxNumberOfMessages — with its message and the strings it points to, in one allocation.
type receivedOne struct {
	out  sqs.ReceiveMessageOutput
	msgs [1]types.Message
	strs [1]msgStrings
	text [receivedTextLen]byte // what the id, digest and handle strings point into
}

// receivedTextLen is the length of a received message's MessageId, MD5OfBody and
// ReceiptHandle together.
const receivedTextLen = uuidLen + 32 + receiptTextLen

// render builds the ReceiveMessage output for msgs. The ids, digests and handles of all the
// messages share one string allocation.
func (f *Fake) render(q *queue, msgs []*message, p *receiveParams) *sqs.ReceiveMessageOutput {
	f.noteReceived(p.call, msgs)
	if len(msgs) == 0 {
		return &sqs.ReceiveMessageOutput{}
	}
	var out *sqs.ReceiveMessageOutput
	var strs []msgStrings
	var buf []byte
	var one *receivedOne
	if len(msgs) == 1 {
		one = &receivedOne{}
		out, strs = &one.out, one.strs[:]
		out.Messages = one.msgs[:]
		buf = one.text[:0]
	} else {
		out, strs = &sqs.ReceiveMessageOutput{}, make([]msgStrings, len(msgs))
		out.Messages = make([]types.Message, len(msgs))
		var stack [10 * receivedTextLen]byte
		buf = stack[:0]
	}
	const per = receivedTextLen
	for _, m := range msgs {
		buf = f.appendMessageID(buf, m.idNum)
		buf = hex.AppendEncode(buf, m.md5Body[:])
		buf = appendReceipt(buf, f.receiptKey(), receipt{queue: q.id, msg: m.idNum, receive: m.receiveCount})
	}
	var text string
	if one != nil && len(buf) == per {
		// Written in place, and never again: the strings share one's memory.
		text = unsafe.String(&one.text[0], per)
	} else {
		text = string(buf)
	}
	for i, m := range msgs {
		t := text[i*per : (i+1)*per]
		s := &strs[i]
		s.id, s.md5, s.handle, s.body = t[:uuidLen], t[uuidLen:uuidLen+32], t[uuidLen+32:], m.body
		o := &out.Messages[i]
		o.MessageId, o.MD5OfBody, o.ReceiptHandle, o.Body = &s.id, &s.md5, &s.handle, &s.body
		// The handle a delete or a visibility change of this message will name, most likely.
		f.lastReceipt = receiptMemo{handle: s.handle, epoch: f.epoch, r: receipt{queue: q.id, msg: m.idNum, receive: m.receiveCount}}
		if p.sys != 0 {
			o.Attributes = f.systemAttributes(m, p.sys)
		}
		if attrs := m.attributes(); len(p.attrNames) > 0 && len(attrs) > 0 {
			if sel := selectMessageAttributes(attrs, p.attrNames); sel != nil {
				o.MessageAttributes = sel
				if len(sel) == len(attrs) {
					s.md5Attrs = m.ext.md5Attrs
				} else {
					s.md5Attrs = md5OfMessageAttributes(sel)
				}
				o.MD5OfMessageAttributes = &s.md5Attrs
			}
		}
	}
	return out
}

func millis(ns int64) string { return strconv.FormatInt(ns/int64(time.Millisecond), 10) }

// millisCache remembers the last few timestamps it formatted: the messages of one receive
// were mostly sent, and first received, within the same millisecond — on a virtual clock,
// often all of them — so a receive of ten formats one or two strings rather than twenty.
// Called with f.mu held.
type millisCache struct {
	ms   [2]int64
	text [2]string
	next uint8
}

func (c *millisCache) format(ns int64) string {
	ms := ns / int64(time.Millisecond)
	for i := range c.ms {
		if c.ms[i] == ms && c.text[i] != "" {
			return c.text[i]
		}
	}
	i := c.next
	c.next ^= 1
	c.ms[i], c.text[i] = ms, millis(ns)
	return c.text[i]
}

// senderIDOf returns the SenderId of m: the fake's (WithSenderID) for what the fake's own
// root user sent, and for another identity's sends that identity's account id, which is
// what SQS reports for an account's root user. (An IAM user's or role's SenderId is a unique
// id that IAM assigns and the fake cannot know: their sends report their account id too.)
func (f *Fake) senderIDOf(m *message) string {
	if m.ext == nil || m.ext.sender == 0 || int(m.ext.sender) > len(f.actorList) {
		return f.senderID
	}
	a := f.actorList[m.ext.sender-1]
	if a.service.Service != "" {
		return cmp.Or(a.service.SenderID, a.service.SourceAccount, f.senderID)
	}
	if a.sp.account == f.account && a.principal == f.homeActor.principal {
		return f.senderID // the fake's own root user, in another region
	}
	return a.sp.account
}

// systemAttributes returns the selected system attributes that m has.
func (f *Fake) systemAttributes(m *message, sel sysAttrSet) map[string]string {
	a := make(map[string]string, 4)
	if sel&sysSenderID != 0 {
		a["SenderId"] = f.senderIDOf(m)
	}
	if sel&sysSentTimestamp != 0 {
		a["SentTimestamp"] = f.millis.format(m.sentAt)
	}
	if sel&sysApproximateReceiveCount != 0 {
		a["ApproximateReceiveCount"] = strconv.FormatUint(uint64(m.receiveCount), 10)
	}
	if sel&sysApproximateFirstReceiveTimestamp != 0 && m.receiveCount > 0 {
		a["ApproximateFirstReceiveTimestamp"] = f.millis.format(m.firstRecvAt)
	}
	if x := m.ext; x != nil {
		if sel&sysAWSTraceHeader != 0 && x.traceHeader != nil {
			a["AWSTraceHeader"] = *x.traceHeader
		}
		if sel&sysMessageGroupID != 0 && x.groupID != "" {
			a["MessageGroupId"] = x.groupID
		}
		if sel&sysMessageDeduplicationID != 0 && x.dedupID != "" {
			a["MessageDeduplicationId"] = x.dedupID
		}
		if sel&sysSequenceNumber != 0 && x.seqNo != 0 {
			a["SequenceNumber"] = sequenceNumber(x.seqNo)
		}
		if sel&sysDeadLetterQueueSourceArn != 0 && x.dlqSource != "" {
			a["DeadLetterQueueSourceArn"] = x.dlqSource
		}
	}
	if len(a) == 0 {
		return nil
	}
	return a
}

func (f *Fake) receiveMessage(ctx context.Context, a *actor, in *sqs.ReceiveMessageInput, zeros *explicitMembers, id callID) (*sqs.ReceiveMessageOutput, error) {
	f.mu.Lock()
	q, err := f.queueFor(a, aws.ToString(in.QueueUrl), "ReceiveMessage")
	if err != nil {
		f.mu.Unlock()
		return nil, err
	}
	p, perr := q.receiveParams(in, zeros)
	if perr != nil {
		f.mu.Unlock()
		return nil, perr
	}
	p.call = id
	now := f.settle(q)
	if p.attemptID != "" {
		msgs, err := q.retryAttempt(p.attemptID, &p, now)
		if err != nil {
			f.mu.Unlock()
			return nil, err
		}
		if msgs != nil {
			q.kickPollers()
			out := f.render(q, msgs, &p)
			f.mu.Unlock()
			return out, nil
		}
	}
	if p.wait == 0 && q.fifo == nil && q.inFlight >= f.inFlightLimit {
		f.mu.Unlock()
		return nil, errOverLimitInFlight()
	}
	var room [10]*message // what a receive takes, at most 10, stays off the heap
	var msgs []*message
	if sample := -1; p.wait == 0 && f.dist != nil && q.receivable() && (q.fifo != nil || q.inFlight < f.inFlightLimit) {
		// A short poll asks a sample of SQS's servers (chaos): it may return fewer, or none.
		var k distKey
		if sample, k = f.chaosSample(q, id, p.max); sample >= 0 {
			p.max = sample
		}
		if sample != 0 {
			msgs = f.receiveInto(room[:0], q, &p, now)
		}
		if sample == 0 || sample > 0 && len(msgs) == sample && q.receivable() {
			f.noteSample(k, id, len(msgs))
		}
	} else {
		msgs = f.receiveInto(room[:0], q, &p, now)
	}
	if len(msgs) > 0 || p.wait == 0 {
		if len(msgs) == 0 {
			q.stats.emptyReceives++
		}
		out := f.render(q, msgs, &p)
		f.mu.Unlock()
		return out, nil
	}
	// The poll outlives the caller's input and this frame: it keeps its own copy of p, so that
	// a receive that does not wait keeps p on the stack.
	parked := p
	parked.attrNames = append([]string(nil), p.attrNames...)
	return f.longPoll(ctx, q, &parked, now)
}
